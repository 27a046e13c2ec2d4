// See path_sanitizer.h for the rule.
#include "ingest/trackers/path_sanitizer.h"

#include <cstdint>

namespace tlparse::ingest {
namespace {

constexpr size_t kMaxSegment = 200;
constexpr size_t kMaxName = 1000;
constexpr size_t kMangledPrefix = 100;

bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = 0;
    if (c < 0x80) {
      n = 1;
    } else if ((c >> 5) == 0x6) {
      n = 2;
    } else if ((c >> 4) == 0xe) {
      n = 3;
    } else if ((c >> 3) == 0x1e) {
      n = 4;
    } else {
      return false;
    }
    if (i + n > s.size()) {
      return false;
    }
    for (size_t k = 1; k < n; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) {
        return false;
      }
    }
    i += n;
  }
  return true;
}

bool safe_byte(unsigned char c) {
  return c >= 0x20 && c != 0x7f && c != '\\';
}

bool is_safe(std::string_view raw) {
  if (raw.empty() || raw.size() > kMaxName || raw.front() == '/' || !valid_utf8(raw)) {
    return false;
  }
  size_t start = 0;
  while (start <= raw.size()) {
    size_t end = raw.find('/', start);
    if (end == std::string_view::npos) {
      end = raw.size();
    }
    const std::string_view seg = raw.substr(start, end - start);
    if (seg.empty() || seg == "." || seg == ".." || seg.size() > kMaxSegment) {
      return false;
    }
    for (char ch : seg) {
      if (!safe_byte(static_cast<unsigned char>(ch))) {
        return false;
      }
    }
    start = end + 1;
  }
  return true;
}

uint32_t fnv1a(std::string_view s) {
  uint32_t h = 2166136261u;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 16777619u;
  }
  return h;
}

} // namespace

SanitisedName sanitise_output_name(std::string_view raw) {
  if (is_safe(raw)) {
    return {std::string(raw), false};
  }
  std::string out;
  for (char ch : raw.substr(0, kMangledPrefix)) {
    const auto c = static_cast<unsigned char>(ch);
    // Keep only plain printable ASCII; everything else (including multi-byte UTF-8, which might
    // be cut mid-character) becomes '_'.
    const bool keep = c > 0x20 && c < 0x7f && c != '/' && c != '\\' && c != '.';
    out += keep ? ch : '_';
  }
  if (out.empty()) {
    out = "unnamed";
  }
  static constexpr char kHex[] = "0123456789abcdef";
  const uint32_t h = fnv1a(raw);
  out += '-';
  for (int i = 7; i >= 0; --i) {
    out += kHex[(h >> (i * 4)) & 15];
  }
  return {out, true};
}

} // namespace tlparse::ingest
