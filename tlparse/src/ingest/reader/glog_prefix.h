// The glog prefix of a trace line, matched by hand with exactly the behaviour of tlparse 0.4.3's
// regex (docs/TLPARSE-INGEST.md, "The glog prefix"): an unanchored search (so "[rank0]:V1122 ..."
// parses), any character where the
// '.' before the microseconds stands, the pathname capturing the space after the pid, no ':' in
// the pathname, and at least one character after "] ". Digits are ASCII digits.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tlparse::ingest {

struct GlogPrefix {
  char level = 'V';
  int month = 0, day = 0, hour = 0, minute = 0, second = 0, microsecond = 0;
  uint64_t thread = 0;
  std::string_view pathname; // with the leading space, like tlparse
  uint64_t source_line = 0;
  size_t payload_offset = 0; // where the envelope text starts in the line
};

std::optional<GlogPrefix> parse_glog_prefix(std::string_view line);

} // namespace tlparse::ingest
