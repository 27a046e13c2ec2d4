// A reference reader that applies tlparse 0.4.3's line rules (docs/TLPARSE-INGEST.md, "tlparse
// 0.4.3's rules, in brief") to a log and counts the outcome, independent of our tlparse
// implementation. Tests use it to check that what our tracer and compiler write is read by tlparse
// with no failed line.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace test_support {

struct ParsedEvent {
  std::int64_t line = 0; // physical line number of the envelope
  std::string level;     // V, I, W, E, C
  std::string pathname;  // as tlparse captures it (with the leading space)
  std::int64_t source_line = 0;
  std::string kind;     // the event key
  std::string envelope; // the JSON text
  bool has_payload = false;
  std::string payload; // joined payload
};

struct TlparseRuleCounts {
  std::int64_t ok = 0;
  std::int64_t other_rank = 0;
  std::int64_t fail_glog = 0;
  std::int64_t fail_json = 0;
  std::int64_t fail_payload_md5 = 0;
  std::int64_t str = 0;
  std::map<std::string, std::int64_t> kinds;
  std::vector<ParsedEvent> events; // every envelope that passed, in order (str included)
  // tlparse's counters: an envelope that is not JSON counts twice in fail_json.
  std::int64_t failures() const { return other_rank + fail_glog + fail_json + fail_payload_md5; }
  // Failed events, each once (a torn last envelope is one failed event, two fail_json).
  std::int64_t failed_events() const {
    return other_rank + fail_glog + fail_json / 2 + fail_payload_md5;
  }
};

TlparseRuleCounts parse_by_tlparse_rules(const std::string& text);
TlparseRuleCounts parse_file_by_tlparse_rules(const std::filesystem::path& path);

// Lowercase hex MD5 (a second, independent use of the tracer's MD5 is avoided on purpose).
std::string md5_hex(const std::string& bytes);

} // namespace test_support
