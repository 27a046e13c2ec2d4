// See terminal_text.h.
#include "tlparse/text/terminal_text.h"

#include <cstdint>
#include <cstdio>

namespace tlparse::text {
namespace {

void append_byte_escape(std::string& out, unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", c);
  out.append(buf);
}

void append_code_point_escape(std::string& out, uint32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "\\u{%x}", cp);
  out.append(buf);
}

// The length of the valid UTF-8 sequence at `s[i]` and its code point; 0 when invalid
// (overlong forms, surrogates and code points above U+10FFFF are invalid).
size_t utf8_sequence(std::string_view s, size_t i, uint32_t& cp) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  size_t n = 0;
  uint32_t min = 0;
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    n = 2;
    cp = b0 & 0x1fu;
    min = 0x80;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    n = 3;
    cp = b0 & 0x0fu;
    min = 0x800;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    n = 4;
    cp = b0 & 0x07u;
    min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) {
    return 0;
  }
  for (size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xc0u) != 0x80u) {
      return 0;
    }
    cp = (cp << 6) | (b & 0x3fu);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
    return 0;
  }
  return n;
}

bool is_hidden_code_point(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

std::string escape(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if ((c < 0x20 && !(keep_newlines && c == '\n')) || c == 0x7f) {
        append_byte_escape(out, c);
      } else {
        out.push_back(static_cast<char>(c));
      }
      ++i;
      continue;
    }
    uint32_t cp = 0;
    const size_t n = utf8_sequence(text, i, cp);
    if (n == 0) {
      append_byte_escape(out, c);
      ++i;
      continue;
    }
    if (is_hidden_code_point(cp)) {
      append_code_point_escape(out, cp);
    } else {
      out.append(text.substr(i, n));
    }
    i += n;
  }
  return out;
}

} // namespace

std::string terminal_safe(std::string_view text) {
  return escape(text, false);
}

std::string terminal_safe_lines(std::string_view text) {
  return escape(text, true);
}

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    uint32_t cp = 0;
    const size_t n = static_cast<unsigned char>(text[i]) < 0x80 ? 1 : utf8_sequence(text, i, cp);
    if (n == 0) {
      out += "\xEF\xBF\xBD"; // U+FFFD
      ++i;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

} // namespace tlparse::text
