// See glog_prefix.h. The matcher tries each start position like the regex's unanchored search;
// from a given start the pattern has only one way to match, so no backtracking is needed.
#include "ingest/reader/glog_prefix.h"

#include <cstring>

namespace tlparse::ingest {
namespace {

inline bool digit(char c) {
  return c >= '0' && c <= '9';
}

bool two_digits(std::string_view s, size_t i, int& out) {
  if (i + 2 > s.size() || !digit(s[i]) || !digit(s[i + 1])) {
    return false;
  }
  out = (s[i] - '0') * 10 + (s[i + 1] - '0');
  return true;
}

// Length of the UTF-8 character starting at s[i] (the regex '.' matches one character).
size_t char_len(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  size_t n = 1;
  if (c >= 0xf0) {
    n = 4;
  } else if (c >= 0xe0) {
    n = 3;
  } else if (c >= 0xc0) {
    n = 2;
  }
  return i + n <= s.size() ? n : 1;
}

std::optional<GlogPrefix> match_at(std::string_view s, size_t i) {
  GlogPrefix p;
  p.level = s[i];
  size_t k = i + 1;
  if (!two_digits(s, k, p.month) || !two_digits(s, k + 2, p.day)) {
    return std::nullopt;
  }
  k += 4;
  if (k >= s.size() || s[k] != ' ') {
    return std::nullopt;
  }
  ++k;
  if (!two_digits(s, k, p.hour) || k + 2 >= s.size() || s[k + 2] != ':' ||
      !two_digits(s, k + 3, p.minute) || k + 5 >= s.size() || s[k + 5] != ':' ||
      !two_digits(s, k + 6, p.second)) {
    return std::nullopt;
  }
  k += 8;
  if (k >= s.size() || s[k] == '\n') {
    return std::nullopt;
  }
  k += char_len(s, k); // the unescaped '.'
  if (k + 6 > s.size()) {
    return std::nullopt;
  }
  int us = 0;
  for (size_t j = 0; j < 6; ++j) {
    if (!digit(s[k + j])) {
      return std::nullopt;
    }
    us = us * 10 + (s[k + j] - '0');
  }
  p.microsecond = us;
  k += 6;
  if (k >= s.size() || s[k] != ' ') {
    return std::nullopt;
  }
  ++k;
  const size_t thread_start = k;
  while (k < s.size() && digit(s[k])) {
    ++k;
  }
  if (k == thread_start) {
    return std::nullopt;
  }
  size_t thread_end = k;
  // pathname is [^:]+ up to the first ':'; if the digits run straight into ':' the thread gives
  // its last digit to the pathname (the regex backtracks the same way).
  const size_t colon = s.find(':', thread_end);
  if (colon == std::string_view::npos) {
    return std::nullopt;
  }
  if (colon == thread_end) {
    if (thread_end - thread_start < 2) {
      return std::nullopt;
    }
    --thread_end;
  }
  uint64_t thread = 0;
  for (size_t j = thread_start; j < thread_end; ++j) {
    thread = thread * 10 + static_cast<uint64_t>(s[j] - '0');
  }
  p.thread = thread;
  p.pathname = s.substr(thread_end, colon - thread_end);
  k = colon + 1;
  const size_t line_start = k;
  uint64_t src_line = 0;
  while (k < s.size() && digit(s[k])) {
    src_line = src_line * 10 + static_cast<uint64_t>(s[k] - '0');
    ++k;
  }
  if (k == line_start || k + 2 >= s.size() || s[k] != ']' || s[k + 1] != ' ') {
    return std::nullopt; // needs "] " and at least one more character
  }
  p.source_line = src_line;
  p.payload_offset = k + 2;
  return p;
}

} // namespace

std::optional<GlogPrefix> parse_glog_prefix(std::string_view line) {
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == 'V' || c == 'I' || c == 'W' || c == 'E' || c == 'C') {
      if (auto p = match_at(line, i)) {
        return p;
      }
    }
  }
  return std::nullopt;
}

} // namespace tlparse::ingest
