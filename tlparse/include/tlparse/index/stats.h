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

// The health counters, declared once; tlparse 0.4.3's `Stats` struct below is generated from
// the first list. X(name, severity, strict, description): `strict` marks the counters --strict
// fails on.
//
// tlparse 0.4.3's Stats counters, in its print order (docs/TLPARSE-INGEST.md, "Statistics").
#define TORCHSCOPE_TLPARSE_STATS(X)                                                                \
  X(ok, info, false, "Envelopes parsed and processed (tlparse `ok`).")                             \
  X(other_rank, warning, true,                                                                     \
    "Lines of another rank than the first detected one (tlparse `other_rank`).")                   \
  X(fail_glog, error, true,                                                                        \
    "Non-empty lines without a glog prefix, including stray payload lines.")                       \
  X(fail_json, error, true,                                                                        \
    "Envelopes that are not JSON objects or whose recognised keys have the "                       \
    "wrong type (tlparse `fail_json`, counted like 0.4.3).")                                       \
  X(fail_payload_md5, error, true,                                                                 \
    "Payloads whose MD5 differs from has_payload, or a has_payload "                               \
    "that is not lowercase hex.")                                                                  \
  X(fail_dynamo_guards_json, error, true, "dynamo_guards payloads that are not a list of guards.") \
  X(fail_parser, error, true,                                                                      \
    "Events a parser rejected (e.g. an artifact with an unknown encoding).")                       \
  X(fail_key_conflict, warning, false,                                                             \
    "Envelopes that already carry timestamp/thread/pathname/lineno/"                               \
    "payload_filename; 0.4.3 drops their raw.jsonl row.")                                          \
  X(fail_json_serialization, error, false, "raw.jsonl rows that could not be serialised.")         \
  X(unknown, info, false,                                                                          \
    "Top-level keys tlparse 0.4.3 does not recognise (per occurrence); the events "                \
    "are kept and shown.")

// Our own counters: things 0.4.3 drops silently. --strict fails on none of them.
#define TORCHSCOPE_DATA_HEALTH_COUNTERS(X)                                                         \
  X(blank_lines, info, false, "Empty lines, dropped like 0.4.3 does.")                             \
  X(invalid_utf8, warning, false,                                                                  \
    "Lines that are not valid UTF-8; 0.4.3 drops them silently (and then "                         \
    "fails the run); we drop and count them.")                                                     \
  X(line_too_long, error, false,                                                                   \
    "Lines longer than the reader's limit, skipped without buffering.")                            \
  X(payload_too_large, error, false,                                                               \
    "Payloads over the size limit, each counted once; truncated in the index (not counted as "     \
    "an MD5 mismatch: the cut is ours).")                                                          \
  X(truncated_last_line, warning, false,                                                           \
    "The file does not end with a newline (a cut-off write).")                                     \
  X(unresolved_string, warning, false, "Stack frames whose filename index was never interned.")    \
  X(string_rebound, warning, false,                                                                \
    "str entries binding an index already bound to a different string (the later one wins).")      \
  X(string_index_beyond_table, warning, false,                                                     \
    "str entries whose index is 4194304 or more: they resolve stacks but are left out of "         \
    "raw.jsonl's string_table.")                                                                   \
  X(bad_chromium_event, warning, false,                                                            \
    "chromium_event payloads that are not JSON objects (skipped).")                                \
  X(unsafe_output_name, warning, false,                                                            \
    "Output names from log data that were unsafe and replaced.")                                   \
  X(output_name_collision, warning, false,                                                         \
    "Outputs renamed by the report because another output needed their name as a folder, or "      \
    "they named one of the report's own files.")                                                   \
  X(type_drift_kept, info, false,                                                                  \
    "Events counted as fail_json for compatibility but kept in the index.")                        \
  X(log_symlink_outside, warning, false,                                                           \
    "The log was read through a symlink to a file outside its folder (the target is in "           \
    "bad_lines).")                                                                                 \
  X(stray_payload_lines, warning, false,                                                           \
    "Tab-indented lines not attached to an envelope (each is also "                                \
    "a fail_glog).")

// Every health counter, one table: the tlparse counters first so that it shows everything.
#define TORCHSCOPE_HEALTH_COUNTERS(X) TORCHSCOPE_TLPARSE_STATS(X) TORCHSCOPE_DATA_HEALTH_COUNTERS(X)

enum class HealthId {
#define TORCHSCOPE_HEALTH_ENUM(name, sev, strict, desc) name,
  TORCHSCOPE_HEALTH_COUNTERS(TORCHSCOPE_HEALTH_ENUM)
#undef TORCHSCOPE_HEALTH_ENUM
      count_
};
inline constexpr size_t kHealthCounterCount = static_cast<size_t>(HealthId::count_);

// tlparse 0.4.3's Stats: one field per entry of TORCHSCOPE_TLPARSE_STATS.
struct Stats {
#define TORCHSCOPE_STATS_FIELD(name, sev, strict, desc) uint64_t name = 0;
  TORCHSCOPE_TLPARSE_STATS(TORCHSCOPE_STATS_FIELD)
#undef TORCHSCOPE_STATS_FIELD

  // "Stats { ok: 796, unknown: 8 }" / "Stats { }".
  std::string to_tlparse_string() const;
  // The sum of the counters --strict fails on.
  uint64_t strict_failures() const;
  // The counter of that name; nullptr for a name that is not a Stats counter.
  uint64_t* counter(std::string_view name);
  // Writes each counter into its slot of a health table.
  void copy_to(std::array<uint64_t, kHealthCounterCount>& health) const;
};

// The ingest cuts payloads at this size (payload_too_large), so an index holding a larger one was
// not written by it: readers refuse such sizes rather than allocate them.
inline constexpr size_t kMaxPayloadBytes = 32u << 20;

// The string table of raw.jsonl has one slot per index up to this bound (a hostile index of 4
// billion must not write 4 billion nulls); higher indexes are counted (string_index_beyond_table).
inline constexpr int64_t kMaxStringTableSlots = int64_t{1} << 22;

struct HealthInfo {
  std::string_view name;
  Severity severity;
  std::string_view description;
};
const HealthInfo& health_info(HealthId id);

} // namespace tlparse::index
