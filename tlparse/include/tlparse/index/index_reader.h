// The read API over an index.sqlite written by the ingest: the ONE way the HTML/JSON report,
// `tlparse render` and the GUI read traces. Everything comes back as plain C++ values (no SQLite
// type leaks out), in a deterministic order (log order, or first-seen order for compile keys).
// A reader is not thread-safe; open one per thread (the file is immutable once written).
#pragma once

#include "tlparse/index/stats.h"
#include "tlparse/model/compile_id.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tlparse::index {

using model::CompileId;

// One ingested log file (one process / rank).
struct FileInfo {
  int64_t id = 0;
  std::string path; // as given to the ingest
  std::string name; // last path segment
  uint64_t size_bytes = 0;
  std::optional<uint32_t> rank;           // first rank detected in the file (§1.6), if any
  std::optional<uint32_t> rank_from_name; // from dedicated_log_torch_trace_rank_<N>_*.log
  uint64_t lines = 0;                     // physical lines read
  int timestamp_year = 1970; // year used for raw.jsonl timestamps (file mtime's UTC year)
};

// A key of the compatible compile directory (compile_directory.json / index.html), in first-seen
// order. `display` is "[0/0]" or "unknown" for an id whose keys had a wrong type.
struct CompileKey {
  int64_t id = 0;
  int64_t file_id = 0;
  int64_t order = 0;            // first-seen order within the file, from 0
  std::string display;          // "[0/0]", "[-/-]", or "unknown"
  std::string dir_name;         // directory_name(collapsed key), or "unknown_<line>"
  std::optional<CompileId> cid; // collapsed id; nullopt for the "unknown" key
  int64_t first_line = 0;
};

// What the renderer has to produce for an output (the ingest decided the path, name and number).
enum class OutputKind {
  payload_text,         // the event's payload, verbatim (.txt)
  json_pretty,          // the payload parsed and pretty-printed with sorted keys; raw if invalid
  guards_html,          // dynamo_guards page
  output_code_html,     // inductor_output_code, highlighted
  metrics_html,         // compilation_metrics page
  bwd_metrics_html,     // bwd_compilation_metrics page
  aot_bwd_metrics_html, // aot_autograd_backward_compilation_metrics page
  dump_file_html,       // global dump_file/<name>.html line-numbered source
  readable_html,        // <kernel_stack_traces stem>_readable.html
  link,                 // no file: an external url in the directory
  payload_copy,         // payloads/<md5>.txt: the raw payload, not listed in the directory
};
std::string_view to_string(OutputKind kind);
std::optional<OutputKind> output_kind_from_string(std::string_view s);

// One output of the compatible report, in the order tlparse 0.4.3 would produce it.
struct Output {
  int64_t id = 0;
  int64_t file_id = 0;
  int64_t seq = 0;               // order within the file, from 0
  std::optional<int64_t> key_id; // CompileKey::id; nullopt for payload_copy / global files
  int64_t event_id = 0;
  int64_t line = 0;      // physical line of the envelope
  std::string event_key; // "artifact", "dynamo_output_graph", ...
  OutputKind kind = OutputKind::payload_text;
  std::string path;   // relative to OUT, sanitised ("-_0_0_0/x_3.txt"); link: url
  std::string name;   // directory "name": last path segment (link: its name)
  int64_t number = 0; // directory "number" (the readable quirk gives N+1)
  std::string suffix; // "", "✅", "❌", "❓"
  std::optional<std::string> readable_url;
  bool in_directory = true;        // listed in compile_directory.json / index.html
  bool name_was_sanitised = false; // the log's name was unsafe and was replaced
};

// A stack frame with its file name resolved through the file's own string table.
struct Frame {
  std::optional<std::string> filename; // nullopt when the index was never interned
  std::optional<int64_t> filename_index;
  std::optional<std::string> uninterned_filename;
  int64_t line = 0;
  std::string name;
  std::optional<std::string> loc;
};
using Stack = std::vector<Frame>;

struct DynamoStart {
  int64_t event_id = 0;
  int64_t line = 0;
  std::optional<CompileId> cid;  // raw id of the event
  std::optional<int64_t> key_id; // compile-directory key
  Stack stack;                   // as logged (the renderer strips the convert_frame suffix)
};

struct UnknownStack {
  int64_t event_id = 0;
  int64_t line = 0;
  Stack stack;
};

enum class EventStatus {
  ok,           // counted as `ok`
  interned,     // a `str` line
  other_rank,   // skipped as another rank's line (still in raw.jsonl, without payload_filename)
  bad_envelope, // valid JSON object whose recognised keys had the wrong type (fail_json);
                // kept and shown, and still in raw.jsonl like tlparse does
};
std::string_view to_string(EventStatus s);

// One envelope, in log order. Everything raw.jsonl and the chromium trace need.
struct Event {
  int64_t id = 0;
  int64_t file_id = 0;
  int64_t line = 0;
  EventStatus status = EventStatus::ok;
  std::string key;               // the event kind ("artifact"), or the first unknown key
  bool known_to_tlparse = true;  // false: tlparse 0.4.3 would count the key as unknown
  std::optional<CompileId> cid;  // raw id; nullopt when a compile-id key had a wrong type
  std::optional<int64_t> key_id; // compile-directory key, when status is ok
  std::optional<uint32_t> rank;
  std::string glog_level; // "V"
  int month = 0, day = 0, hour = 0, minute = 0, second = 0, microsecond = 0;
  uint64_t thread = 0;                    // the glog "thread" field (a PID)
  std::string pathname;                   // with tlparse's leading space: " torch/_dynamo/utils.py"
  int64_t source_line = 0;                // the glog line number field
  std::string envelope_json;              // the envelope text as logged (a JSON object)
  std::optional<std::string> payload_md5; // the declared has_payload
  bool has_payload_data = false;          // payload bytes are stored
  std::optional<std::string> payload_filename; // raw.jsonl payload_filename
  bool in_raw_jsonl = false;                   // tlparse 0.4.3 would write a raw.jsonl row for it
};

// "YYYY-MM-DDTHH:MM:SS.ffffffZ" for raw.jsonl, with the given year.
std::string raw_jsonl_timestamp(const Event& e, int year);

// Parsed compilation_metrics (and bwd / aot-bwd metrics) with the raw JSON of the metadata.
struct CompilationMetrics {
  int64_t id = 0;
  int64_t event_id = 0;
  int64_t line = 0;
  std::string event_key;        // compilation_metrics | bwd_compilation_metrics | ...
  std::optional<CompileId> cid; // raw id (attempts stay distinct)
  std::optional<int64_t> key_id;
  std::optional<int64_t> output_id; // its HTML page
  std::string metadata_json;        // every field, as logged
  std::optional<std::string> co_name, co_filename;
  std::optional<int64_t> co_firstlineno;
  std::optional<int64_t> cache_size, accumulated_cache_size, guard_count, shape_env_guard_count,
      graph_op_count, graph_node_count, graph_input_count;
  std::optional<double> start_time, entire_frame_compile_time_s, backend_compile_time_s,
      inductor_compile_time_s, code_gen_time_s, dynamo_time_before_restart_s;
  std::optional<std::string> fail_type, fail_reason, fail_user_frame_filename;
  std::optional<int64_t> fail_user_frame_lineno;
  std::optional<std::vector<std::string>> restart_reasons; // nullopt when missing
  std::vector<std::string> non_compliant_ops, compliant_custom_ops;
};

struct Specialization { // symbolic_shape_specialization
  int64_t event_id = 0, line = 0;
  std::optional<CompileId> cid;
  std::optional<int64_t> key_id;
  std::string symbol, value, reason;
  std::vector<std::string> sources;
  Stack stack, user_stack;
  std::string metadata_json;
};

struct GuardAddedFast {
  int64_t event_id = 0, line = 0;
  std::optional<CompileId> cid;
  std::optional<int64_t> key_id;
  std::string expr;
  Stack stack, user_stack;
};

struct CreatedSymbol { // create_symbol / create_unbacked_symbol
  int64_t event_id = 0, line = 0;
  std::string event_key;
  std::optional<CompileId> cid;
  std::string symbol, val, vr, source;
};

// A chromium_event payload, parsed (args kept as JSON text).
struct ChromiumEvent {
  int64_t event_id = 0, line = 0;
  std::optional<CompileId> cid; // envelope id
  std::string name, ph, cat;
  std::optional<double> ts; // microseconds
  std::optional<int64_t> pid, tid;
  std::string args_json;    // "{}" when absent
  std::string payload_json; // the payload as logged
};

// B/E pairs and X events turned into spans (GUI timeline).
struct ChromiumSpan {
  std::string name, cat;
  double start_us = 0, duration_us = 0;
  int depth = 0;
  std::optional<CompileId> cid;
  int64_t begin_line = 0;
};

enum class CompileStatus { ok, restart, empty, error, missing }; // §3.2 status colours
std::string_view to_string(CompileStatus s);
// The §3.2 status of one compile from its `compilation_metrics` events: error if any failed,
// else empty if any graph had no ops, else restart if any restarted, else ok; missing for none.
CompileStatus compile_status(std::span<const CompilationMetrics* const> metrics);

// One compile (collapsed key) of a frame, for the GUI's frames -> compiles view.
struct CompileSummary {
  int64_t key_id = 0;
  std::string display;
  std::optional<uint32_t> frame_id, frame_compile_id;
  std::vector<uint32_t> attempts; // distinct attempts seen in events of this compile
  CompileStatus status = CompileStatus::missing;
  int64_t output_count = 0;
  std::vector<std::string> recompile_reasons;
  std::vector<std::string> graph_break_reasons;
};
struct FrameSummary {
  std::optional<uint32_t> frame_id;
  std::vector<CompileSummary> compiles; // in first-seen order
  int64_t recompile_count = 0;          // compiles beyond the first
};

struct RestartOrFailure { // failures_and_restarts.html rows
  std::string display;    // compile id display, or "(unknown)"
  std::optional<int64_t> metrics_output_id;
  bool is_restart = false;
  std::string type_or_reason; // restart: the reason; failure: fail_type
  std::string failure_reason; // failure only
  std::string failure_source; // "file:line" or "N/A:0"
};

struct CacheEvent {
  int64_t event_id = 0, output_id = 0;
  std::optional<CompileId> cid;
  std::string artifact; // fx_graph_cache_miss, aotautograd_cache_hit, ...
  std::string result;   // hit | miss | bypass
};

struct BadLine {
  int64_t file_id = 0, line = 0;
  std::string counter; // the health counter it raised
  std::string excerpt; // first bytes, made printable
};

struct SearchHit {
  int64_t file_id = 0;
  int64_t event_id = 0;
  int64_t line = 0;
  std::optional<int64_t> output_id;
  std::string compile_display;
  std::string snippet;
};

class IndexReader {
public:
  // Opens read-only. Errors (missing file, not an index, schema version mismatch) are returned.
  static std::unique_ptr<IndexReader> open(const std::filesystem::path& path, std::string* error);
  ~IndexReader();
  IndexReader(const IndexReader&) = delete;
  IndexReader& operator=(const IndexReader&) = delete;

  std::vector<FileInfo> files() const;

  // The compile directory, in first-seen order.
  std::vector<CompileKey> compile_keys(int64_t file_id) const;
  // Every output, in production order (seq).
  std::vector<Output> outputs(int64_t file_id) const;
  std::optional<Output> output(int64_t output_id) const;
  // The metadata JSON of the output's event (the value of its event key, e.g. the artifact
  // object), and the whole envelope.
  std::string output_metadata_json(int64_t output_id) const;
  std::optional<Event> event(int64_t event_id) const;
  // The payload bytes of an event (decompressed); nullopt when the event had none.
  std::optional<std::string> payload(int64_t event_id) const;

  // Streams every stored envelope of a file in log order. Return false from the callback to stop.
  void for_each_event(int64_t file_id, const std::function<bool(const Event&)>& fn) const;
  void for_each_chromium_event(int64_t file_id,
                               const std::function<bool(const ChromiumEvent&)>& fn) const;

  // The file's string table: index -> string, nullopt for gaps (raw.jsonl's first line).
  // Indexes of 4M and above (only hostile logs have them) are left out.
  std::vector<std::optional<std::string>> string_table(int64_t file_id) const;
  std::vector<DynamoStart> dynamo_starts(int64_t file_id) const;
  std::vector<UnknownStack> unknown_stacks(int64_t file_id) const;

  std::vector<CompilationMetrics> compilation_metrics(int64_t file_id) const;
  std::vector<RestartOrFailure> restarts_and_failures(int64_t file_id) const;
  std::vector<Specialization> specializations(int64_t file_id) const;
  std::vector<GuardAddedFast> guards_added_fast(int64_t file_id) const;
  std::vector<CreatedSymbol> created_symbols(int64_t file_id) const;
  std::vector<CacheEvent> cache_events(int64_t file_id) const;

  // tlparse's statistics and our data-health counters for a file.
  Stats stats(int64_t file_id) const;
  std::vector<HealthCounter> health(int64_t file_id) const;
  std::vector<std::string> unknown_keys(int64_t file_id) const; // sorted
  std::vector<BadLine> bad_lines(int64_t file_id, int64_t limit = 1000) const;

  // GUI views.
  std::vector<FrameSummary> frames(int64_t file_id) const;
  std::vector<ChromiumSpan> chromium_spans(int64_t file_id) const;
  // Full-text search over payloads (FTS5 syntax). Needs the search table: build it once with
  // build_search_index() (writes to the index file) — see docs/INDEX-SCHEMA.md.
  bool has_search_index() const;
  std::vector<SearchHit> search(const std::string& query, int64_t limit = 200) const;
  static bool build_search_index(const std::filesystem::path& path, std::string* error);

private:
  struct Impl;
  explicit IndexReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace tlparse::index
