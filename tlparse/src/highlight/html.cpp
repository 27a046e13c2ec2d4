// HTML escaping and UTF-8 repair (see html.h). One pass over the bytes; runs of bytes that need
// no change are appended in one call, which keeps large payloads cheap.
#include "tlparse/highlight/html.h"

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace tlparse::highlight {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// Length of the valid UTF-8 sequence starting at text[i], or 0 when it is invalid (then one
// byte is replaced and scanning resumes at the next byte, as WHATWG decoders do per maximal
// subpart closely enough for display purposes).
std::size_t valid_sequence_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(text[k]); };
  const std::uint8_t b0 = byte(i);
  if (b0 < 0x80) {
    return 1;
  }
  std::size_t need = 0;
  std::uint8_t lo = 0x80;
  std::uint8_t hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1;
  } else if (b0 == 0xE0) {
    need = 2;
    lo = 0xA0;
  } else if (b0 >= 0xE1 && b0 <= 0xEC) {
    need = 2;
  } else if (b0 == 0xED) {
    need = 2;
    hi = 0x9F; // no UTF-16 surrogates
  } else if (b0 >= 0xEE && b0 <= 0xEF) {
    need = 2;
  } else if (b0 == 0xF0) {
    need = 3;
    lo = 0x90;
  } else if (b0 >= 0xF1 && b0 <= 0xF3) {
    need = 3;
  } else if (b0 == 0xF4) {
    need = 3;
    hi = 0x8F;
  } else {
    return 0;
  }
  if (text.size() - i <= need) {
    return 0;
  }
  const std::uint8_t b1 = byte(i + 1);
  if (b1 < lo || b1 > hi) {
    return 0;
  }
  for (std::size_t k = 2; k <= need; ++k) {
    const std::uint8_t b = byte(i + k);
    if (b < 0x80 || b > 0xBF) {
      return 0;
    }
  }
  return need + 1;
}

} // namespace

bool is_valid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    // ASCII runs (almost all of a trace) are checked eight bytes at a time.
    if (text.size() - i >= 8) {
      std::uint64_t word = 0;
      std::memcpy(&word, text.data() + i, sizeof word);
      if ((word & 0x8080808080808080ull) == 0) {
        i += 8;
        continue;
      }
    }
    if (static_cast<std::uint8_t>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    const std::size_t n = valid_sequence_length(text, i);
    if (n == 0) {
      return false;
    }
    i += n;
  }
  return true;
}

void append_utf8_sanitized(std::string& out, std::string_view text) {
  std::size_t run_start = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    if (static_cast<std::uint8_t>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    const std::size_t n = valid_sequence_length(text, i);
    if (n != 0) {
      i += n;
      continue;
    }
    out.append(text.substr(run_start, i - run_start));
    out.append(kReplacement);
    ++i;
    run_start = i;
  }
  out.append(text.substr(run_start));
}

std::string sanitize_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  append_utf8_sanitized(out, text);
  return out;
}

namespace {

// The first position from `pos` on of a byte append_html_escaped must look at: one of & < > " '
// NUL, or a non-ASCII byte (whose sequence is checked). Eight bytes at a time: a byte b equals q
// when b ^ q is zero, and a zero byte is one whose (b - 1) borrows into bit 7 while its own bit 7
// is clear.
std::size_t next_html_special(std::string_view text, std::size_t pos) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ull;
  constexpr std::uint64_t kHigh = 0x8080808080808080ull;
  const auto has_zero = [](std::uint64_t w) { return (w - kOnes) & ~w & kHigh; };
  while (text.size() - pos >= 8) {
    std::uint64_t w = 0;
    std::memcpy(&w, text.data() + pos, sizeof w);
    const std::uint64_t special = (w & kHigh) | has_zero(w) | has_zero(w ^ (kOnes * '&')) |
                                  has_zero(w ^ (kOnes * '<')) | has_zero(w ^ (kOnes * '>')) |
                                  has_zero(w ^ (kOnes * '"')) | has_zero(w ^ (kOnes * '\''));
    if (special != 0) {
      break; // one of these eight; found below
    }
    pos += 8;
  }
  for (; pos < text.size(); ++pos) {
    switch (static_cast<std::uint8_t>(text[pos])) {
    case '&':
    case '<':
    case '>':
    case '"':
    case '\'':
    case '\0':
      return pos;
    default:
      if (static_cast<std::uint8_t>(text[pos]) >= 0x80) {
        return pos;
      }
    }
  }
  return pos;
}

} // namespace

void append_html_escaped(std::string& out, std::string_view text) {
  std::size_t run_start = 0;
  std::size_t i = 0;
  const auto flush = [&](std::string_view replacement, std::size_t consumed) {
    out.append(text.substr(run_start, i - run_start));
    out.append(replacement);
    i += consumed;
    run_start = i;
  };
  while ((i = next_html_special(text, i)) < text.size()) {
    const auto c = static_cast<std::uint8_t>(text[i]);
    if (c >= 0x80) {
      const std::size_t n = valid_sequence_length(text, i);
      if (n == 0) {
        flush(kReplacement, 1);
      } else {
        i += n;
      }
      continue;
    }
    switch (c) {
    case '&':
      flush("&amp;", 1);
      break;
    case '<':
      flush("&lt;", 1);
      break;
    case '>':
      flush("&gt;", 1);
      break;
    case '"':
      flush("&quot;", 1);
      break;
    case '\'':
      flush("&#39;", 1);
      break;
    case '\0':
      flush(kReplacement, 1);
      break;
    default:
      ++i;
      break;
    }
  }
  out.append(text.substr(run_start));
}

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  append_html_escaped(out, text);
  return out;
}

} // namespace tlparse::highlight
