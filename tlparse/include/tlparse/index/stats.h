// The statistics of one ingested file: tlparse 0.4.3's `Stats` counters (printed exactly like
// 0.4.3 does) and our data-health counters (each with a severity and a description), declared in
// one list so the ingest, the index, the CLI and the report agree on names and meanings.
#pragma once

#include "tlparse/index/schema.gen.h"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tlparse::index {

// tlparse 0.4.3's Stats, in its print order (docs/TLPARSE-INGEST.md, "Statistics").
struct Stats {
  uint64_t ok = 0;
  uint64_t other_rank = 0;
  uint64_t fail_glog = 0;
  uint64_t fail_json = 0;
  uint64_t fail_payload_md5 = 0;
  uint64_t fail_dynamo_guards_json = 0;
  uint64_t fail_parser = 0;
  uint64_t fail_key_conflict = 0;
  uint64_t fail_json_serialization = 0;
  uint64_t unknown = 0;

  // "Stats { ok: 796, unknown: 8 }" / "Stats { }".
  std::string to_tlparse_string() const;
  // The counters --strict fails on.
  uint64_t strict_failures() const {
    return fail_glog + fail_json + fail_payload_md5 + other_rank + fail_dynamo_guards_json +
           fail_parser;
  }
};

// X(name, severity, description): our data-health counters. The tlparse counters are included
// so that one table shows everything; the rest are things 0.4.3 drops silently.
#define TORCHSCOPE_HEALTH_COUNTERS(X)                                                              \
  X(ok, info, "Envelopes parsed and processed (tlparse `ok`).")                                    \
  X(other_rank, warning,                                                                           \
    "Lines of another rank than the first detected one (tlparse `other_rank`).")                   \
  X(fail_glog, error, "Non-empty lines without a glog prefix, including stray payload lines.")     \
  X(fail_json, error,                                                                              \
    "Envelopes that are not JSON objects or whose recognised keys have the "                       \
    "wrong type (tlparse `fail_json`, counted like 0.4.3).")                                       \
  X(fail_payload_md5, error,                                                                       \
    "Payloads whose MD5 differs from has_payload, or a has_payload "                               \
    "that is not lowercase hex.")                                                                  \
  X(fail_dynamo_guards_json, error, "dynamo_guards payloads that are not a list of guards.")       \
  X(fail_parser, error, "Events a parser rejected (e.g. an artifact with an unknown encoding).")   \
  X(fail_key_conflict, warning,                                                                    \
    "Envelopes that already carry timestamp/thread/pathname/lineno/"                               \
    "payload_filename; 0.4.3 drops their raw.jsonl row.")                                          \
  X(fail_json_serialization, error, "raw.jsonl rows that could not be serialised.")                \
  X(unknown, info,                                                                                 \
    "Top-level keys tlparse 0.4.3 does not recognise (per occurrence); the events "                \
    "are kept and shown.")                                                                         \
  X(blank_lines, info, "Empty lines, dropped like 0.4.3 does.")                                    \
  X(invalid_utf8, warning,                                                                         \
    "Lines that are not valid UTF-8; 0.4.3 drops them silently (and then "                         \
    "fails the run); we drop and count them.")                                                     \
  X(line_too_long, error, "Lines longer than the reader's limit, skipped without buffering.")      \
  X(payload_too_large, error,                                                                      \
    "Payloads over the size limit, each counted once; truncated in the index (not counted as "     \
    "an MD5 mismatch: the cut is ours).")                                                          \
  X(truncated_last_line, warning, "The file does not end with a newline (a cut-off write).")       \
  X(unresolved_string, warning, "Stack frames whose filename index was never interned.")           \
  X(string_rebound, warning,                                                                       \
    "str entries binding an index already bound to a different string (the later one wins).")      \
  X(string_index_beyond_table, warning,                                                            \
    "str entries whose index is 4194304 or more: they resolve stacks but are left out of "         \
    "raw.jsonl's string_table.")                                                                   \
  X(bad_chromium_event, warning, "chromium_event payloads that are not JSON objects (skipped).")   \
  X(unsafe_output_name, warning, "Output names from log data that were unsafe and replaced.")      \
  X(output_name_collision, warning,                                                                \
    "Outputs renamed by the report because another output needed their name as a folder, or "      \
    "they named one of the report's own files.")                                                   \
  X(type_drift_kept, info, "Events counted as fail_json for compatibility but kept in the index.") \
  X(log_symlink_outside, warning,                                                                  \
    "The log was read through a symlink to a file outside its folder (the target is in "           \
    "bad_lines).")                                                                                 \
  X(stray_payload_lines, warning,                                                                  \
    "Tab-indented lines not attached to an envelope (each is also "                                \
    "a fail_glog).")

// The ingest cuts payloads at this size (payload_too_large), so an index holding a larger one was
// not written by it: readers refuse such sizes rather than allocate them.
inline constexpr size_t kMaxPayloadBytes = 32u << 20;

// The string table of raw.jsonl has one slot per index up to this bound (a hostile index of 4
// billion must not write 4 billion nulls); higher indexes are counted (string_index_beyond_table).
inline constexpr int64_t kMaxStringTableSlots = int64_t{1} << 22;

enum class HealthId {
#define TORCHSCOPE_HEALTH_ENUM(name, sev, desc) name,
  TORCHSCOPE_HEALTH_COUNTERS(TORCHSCOPE_HEALTH_ENUM)
#undef TORCHSCOPE_HEALTH_ENUM
      count_
};
inline constexpr size_t kHealthCounterCount = static_cast<size_t>(HealthId::count_);

struct HealthInfo {
  std::string_view name;
  Severity severity;
  std::string_view description;
};
const HealthInfo& health_info(HealthId id);

} // namespace tlparse::index
