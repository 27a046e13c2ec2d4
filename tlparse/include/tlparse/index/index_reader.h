// The read API over an index.sqlite written by the ingest: the ONE way the report, the CLI and
// the GUI read traces. It returns the rows the schema declares (tlparse/index/schema.gen.h,
// generated from schemas/index/) and a few joined views of them, as plain C++ values in a
// deterministic order (log order, or first-seen order for compiles). Everything a reader needs
// was computed by the ingest: nothing here parses JSON or log text again.
//
// Every read can fail: a damaged or truncated index, a table missing, a value of the wrong type.
// Such failures come back as errors (Result / Status) naming the index, never as "no more rows"
// or as a default value. An index is opened read-only and never written: search, which needs a
// table the ingest builds only on request, uses a separate search file (see build_search_file).
// A reader is not thread-safe; open one per thread.
#pragma once

#include "tlparse/compile_id.h"
#include "tlparse/index/schema.gen.h"
#include "tlparse/index/stats.h"
#include "tlparse/result.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tlparse::index {

using tlparse::CompileId;
using StackFrames = std::vector<StackFrame>;

// The raw compile id of an event; nullopt when a compile-id key had the wrong type.
std::optional<CompileId> compile_id_of(const Event& e);
// The compile id of a compile-directory entry; nullopt for the "unknown" entry.
std::optional<CompileId> compile_id_of(const CompileKey& k);
// "YYYY-MM-DDTHH:MM:SS.ffffffZ" (raw.jsonl) from an event's glog time and the given year.
std::string raw_jsonl_timestamp(const Event& e, int64_t year);
// The metadata of an event: the value of its own key in the envelope, as logged ("{}" if none).
std::string_view event_metadata(const Event& e);

// Where a per-event row comes from.
struct EventRef {
  int64_t event_id = 0;
  int64_t line = 0;
  std::optional<CompileId> cid;  // raw id of the event
  std::optional<int64_t> key_id; // compile-directory entry (processed events)
};

// A stack with its event (dynamo_start and envelope `stack` stacks).
struct EventStack {
  EventRef event;
  int64_t stack_id = 0;
  std::optional<int64_t> compile_id;
  StackFrames frames;
};

// A metrics event with its list fields. The fields no typed column holds are read one event
// at a time (metrics_other_fields), as is the metadata as logged (event_metadata of event()):
// together they are a fifth of a large log's index, too much to hold for every event at once.
struct MetricsEvent {
  EventRef event;
  CompilationMetrics metrics;
  std::vector<std::string> restart_reasons, non_compliant_ops, compliant_custom_ops;
};

struct SpecializationEvent {
  EventRef event;
  Specialization specialization;
  std::vector<std::string> sources;
  StackFrames stack, user_stack;
  std::string metadata_json; // the event's metadata as logged
};

struct GuardAddedFastEvent {
  EventRef event;
  GuardAddedFast guard;
  StackFrames stack, user_stack;
};

struct SymbolEvent {
  EventRef event;
  std::string event_key; // create_symbol | create_unbacked_symbol
  CreatedSymbol symbol;
};

// failures_and_restarts rows: for each compilation_metrics event in log order, one row per
// restart reason, then one for its failure.
struct RestartOrFailure {
  std::optional<CompileId> cid;             // raw id of the metrics event
  std::optional<int64_t> metrics_output_id; // its page
  bool is_restart = false;
  std::string type_or_reason; // restart: the reason; failure: fail_type
  std::string failure_reason; // failure only
  std::string failure_source; // "file:line" or "N/A:0"
};

// One event that logged a payload matching a search (a payload may be logged many times).
struct PayloadUse {
  int64_t event_id = 0;
  int64_t file_id = 0;
  int64_t line = 0;
  std::optional<int64_t> key_id;    // compile-directory entry
  std::string compile_display;      // "[0/0]", "" when the event has no compile
  std::optional<int64_t> output_id; // the listed output it produced, if any
};

// One payload matching a full-text query.
struct PayloadMatch {
  int64_t rowid = 0; // the paging cursor: pass the last one as `after`
  int64_t payload_id = 0;
  std::string snippet;          // matched words in [brackets]; empty unless asked for
  std::vector<PayloadUse> uses; // in log order
};

// One value of a query's result row, with SQLite's storage class.
struct QueryValue {
  enum class Type { null, integer, real, text, blob };
  Type type = Type::null;
  int64_t integer = 0;
  double real = 0;
  std::string bytes; // text or blob
};

struct QueryOptions {
  // Set from another thread (Ctrl-C) to stop a running query with an error.
  const std::atomic<bool>* cancel = nullptr;
};

// Where a file's spans (or one compile's) lie in time, for a chart's first window.
struct SpanExtent {
  int64_t spans = 0;
  double start_us = 0; // the first start
  double end_us = 0;   // the last end (of a closed span, or the last start)
  // The longest span; an unclosed one counts as reaching end_us.
  double longest_us = 0;
};

// The spans a chart of [start_us, end_us] can show: those overlapping it that are at least
// min_duration_us long (an unclosed span reaches the file's last end), optionally of one
// compile (compiles.id) only. `longest_us` (from span_extent) bounds how long before the window
// a span that still overlaps it can start, so a query reads only the window's neighbourhood.
struct SpanWindowQuery {
  double start_us = 0;
  double end_us = 0;
  double min_duration_us = 0;
  std::optional<int64_t> compile_id;
  SpanExtent extent;
};

// A row of the `recompiles` view (docs/INDEX-SCHEMA.md): one reason for a recompile, with its
// category and a suggestion.
struct RecompileExplained {
  std::string compile; // as PyTorch prints it: [0/1]
  int64_t key_id = 0;  // its compile-directory entry
  std::optional<int64_t> frame_id, frame_compile_id;
  int64_t line = 0, pos = 0;
  std::string shape, guard, category, suggestion;
  std::optional<std::string> cached_entry, user_file, user_stack;
  std::optional<int64_t> user_line;
};

// A row of the `graph_break_summary` view: one distinct graph break.
struct GraphBreakSummary {
  std::string reason;
  std::optional<std::string> user_file, user_stack;
  std::optional<int64_t> user_line;
  int64_t count = 0, compiles = 0;
  std::string compile_ids; // comma-separated, as PyTorch prints them
};

class IndexReader {
public:
  struct OpenOptions {
    // A search file built by build_search_file() for this index, attached read-only.
    std::filesystem::path search_file;
    // The connection is used by one thread at a time (a render's private side readers): SQLite
    // then takes no mutex per call (SQLITE_OPEN_NOMUTEX), which profiling showed at ~4% of a
    // multi-rank render. Leave it off for a reader shared between threads (the server).
    bool one_thread = false;
    // The connection mostly scans tables in order, each page read once (a render's raw.jsonl and
    // chromium side jobs): a small page cache (256 KB instead of SQLite's 2 MB) holds its path
    // through the b-trees, and the memory is not kept per rank.
    bool scans_in_order = false;
  };
  // Opens read-only and checks that the file is an index of this schema version with every
  // declared table and column.
  static Result<std::unique_ptr<IndexReader>> open(const std::filesystem::path& path,
                                                   const OpenOptions& options);
  static Result<std::unique_ptr<IndexReader>> open(const std::filesystem::path& path);
  ~IndexReader();
  IndexReader(const IndexReader&) = delete;
  IndexReader& operator=(const IndexReader&) = delete;

  const std::filesystem::path& path() const;
  // Reads every page of the file (SQLite's quick_check): finds damage anywhere, also where no
  // query would look. Costs a full read of the file, so only `tlparse render` of an index from
  // elsewhere asks for it.
  Status check_integrity() const;

  Result<std::vector<File>> files() const;
  // Compiles and compile-directory entries, in first-seen order.
  Result<std::vector<Compile>> compiles(int64_t file_id) const;
  Result<std::vector<CompileKey>> compile_keys(int64_t file_id) const;
  // Every output, in production order.
  Result<std::vector<Output>> outputs(int64_t file_id) const;
  Result<std::optional<Output>> output(int64_t output_id) const;
  Result<std::optional<Event>> event(int64_t event_id) const;
  // The payload bytes of an event (inflated); nullopt when the event had none.
  Result<std::optional<std::string>> payload(int64_t event_id) const;
  // The MD5 an event declared for its payload (has_payload), without reading its row; nullopt
  // when it declared none.
  Result<std::optional<std::string>> payload_md5(int64_t event_id) const;

  // Streams every stored envelope of a file in log order; return false to stop.
  Status for_each_event(int64_t file_id, const std::function<bool(const Event&)>& fn) const;
  // Streams the parsed chromium events of a file with their payload as logged.
  Status for_each_chromium_event(
      int64_t file_id,
      const std::function<bool(const ChromiumEvent&, std::string_view payload)>& fn) const;

  // The compilation_metrics_runtime and bwd_compilation_metrics_runtime events of one
  // compile-directory entry (metrics PyTorch records when compiled code first runs), log order.
  Result<std::vector<Event>> runtime_metrics_events(int64_t key_id) const;
  // The memoizer_artifacts events of one compile-directory entry (what Inductor's memoizer cached),
  // log order; their payloads through payload().
  Result<std::vector<Event>> memoizer_artifact_events(int64_t key_id) const;
  // How many memoizer_artifacts events one compile-directory entry has, counted by the index
  // without reading them.
  Result<int64_t> memoizer_artifact_count(int64_t key_id) const;
  // How many chromium events of a file parsed (what chromium_events.json lists), counted by the
  // index without reading them.
  Result<int64_t> chromium_event_count(int64_t file_id) const;

  // The file's string table: index -> string, nullopt for gaps (raw.jsonl's first line).
  // Indexes of 4M and above (only hostile logs have them) are left out.
  Result<std::vector<std::optional<std::string>>> string_table(int64_t file_id) const;
  // The same rows streamed in index order (an index bound twice comes twice, the later last), so
  // raw.jsonl's table is written in memory that does not grow with it.
  Status for_each_string(int64_t file_id,
                         const std::function<bool(int64_t idx, std::string_view value)>& fn) const;
  // Stacks of one role (dynamo_start or unknown), in log order.
  Result<std::vector<EventStack>> stacks(int64_t file_id, StackRole role) const;
  Result<std::vector<MetricsEvent>> compilation_metrics(int64_t file_id) const;
  // The fields of one metrics event that no typed column holds, in logged order, values as
  // logged (JSON text).
  Result<std::vector<MetricsOtherField>> metrics_other_fields(int64_t event_id) const;
  Result<std::vector<RestartOrFailure>> restarts_and_failures(int64_t file_id) const;
  Result<std::vector<SpecializationEvent>> specializations(int64_t file_id) const;
  Result<std::vector<GuardAddedFastEvent>> guards_added_fast(int64_t file_id) const;
  Result<std::vector<SymbolEvent>> created_symbols(int64_t file_id) const;
  Result<std::vector<CacheEvent>> cache_events(int64_t file_id) const;
  Result<std::vector<RecompileReason>> recompile_reasons(int64_t file_id) const;
  Result<std::vector<GraphBreak>> graph_breaks(int64_t file_id) const;
  // Spans by start time.
  Result<std::vector<Span>> spans(int64_t file_id) const;
  // The same, streamed (a large log has too many to hold for a chart); return false to stop.
  Status for_each_span(int64_t file_id, const std::function<bool(const Span&)>& fn) const;

  // Where the spans of a file (or of one of its compiles) lie; spans == 0 when it has none.
  Result<SpanExtent> span_extent(int64_t file_id, std::optional<int64_t> compile_id = {}) const;
  // The spans a chart's window shows (see SpanWindowQuery), the longest first (unclosed ones
  // before all), then by start; return false to stop. A chart of a large log reads these, never
  // every span, and one that stops early has kept the spans most worth drawing.
  Status for_each_span_in(int64_t file_id, const SpanWindowQuery& q,
                          const std::function<bool(const Span&)>& fn) const;

  // The views that answer questions (docs/INDEX-SCHEMA.md, "Views"), in log order.
  Result<std::vector<RecompileExplained>> recompiles_explained(int64_t file_id) const;
  // Most frequent first.
  Result<std::vector<GraphBreakSummary>> graph_break_summary(int64_t file_id) const;

  // Runs one SQL statement of the caller's (`tlparse query`) over the index and its views and
  // calls on_columns once, then on_row per row (return false to stop). The statement may only
  // read: an authorizer refuses writes, schema changes, ATTACH, PRAGMAs other than the schema
  // ones and load_extension. A bad statement is an error naming SQLite's reason.
  Status query(const std::string& sql,
               const std::function<void(const std::vector<std::string>& columns)>& on_columns,
               const std::function<bool(const std::vector<QueryValue>& row)>& on_row,
               const QueryOptions& options = {}) const;

  // Streamed reads for a render whose memory must not grow with the log (docs/SECURITY.md,
  // "Memory"): rows come one at a time in the order a page needs, sorted by SQLite (spilling to
  // temporary files, not our heap); return false to stop.

  // How many outputs a file has; every output of a file, in production order.
  Result<int64_t> output_count(int64_t file_id) const;
  Status for_each_output(int64_t file_id, const std::function<bool(const Output&)>& fn) const;
  // The distinct paths of a file's outputs that are files (not links), in byte order, each with
  // the production position (seq) of its first output and how many outputs write it.
  struct OutputPath {
    std::string path;
    int64_t first_seq = 0;
    int64_t writers = 0;
  };
  Status for_each_output_path(int64_t file_id,
                              const std::function<bool(const OutputPath&)>& fn) const;
  // The seqs of the file outputs whose path a later file output writes again, ascending.
  Result<std::vector<int64_t>> overwritten_outputs(int64_t file_id) const;
  // The paths of the file's file outputs (not links) that are `path` itself or, with
  // `as_folder`, lie under `path` + "/" (each once, in byte order). The first call builds an
  // indexed temporary table of the file's paths (on disk: temp_store=FILE), so this is one
  // B-tree search plus the rows found.
  Status for_each_output_path_at(int64_t file_id, std::string_view path, bool as_folder,
                                 const std::function<bool(std::string_view)>& fn) const;
  // The compile directory with its listed (in_directory) outputs: for each entry, fn(key, null)
  // once, then fn(key, &output) for each of its listed outputs in production order. In
  // `first_seen` order the entries come in first-seen order and an entry's outputs of a named
  // subgraph come after its others, grouped by subgraph in the order of their first output; in
  // `display` order the entries are sorted by display name (then first seen).
  enum class KeyOrder { first_seen, display };
  Status
  for_each_key_with_outputs(int64_t file_id, KeyOrder order,
                            const std::function<bool(const CompileKey&, const Output*)>& fn) const;
  // The listed (in_directory) outputs of one compile-directory entry produced before
  // `before_seq`, in production order (through an indexed temporary table built once).
  Status for_each_listed_output_of_key(int64_t key_id, int64_t before_seq,
                                       const std::function<bool(const Output&)>& fn) const;
  // Compiles in first-seen order; one compile by id.
  Status for_each_compile(int64_t file_id, const std::function<bool(const Compile&)>& fn) const;
  Result<std::optional<Compile>> compile(int64_t compile_id) const;
  // The compiles of scope `compile`, grouped by frame ((compiled autograd id, frame id)) in the
  // order each frame was first seen, first-seen order within a frame; with the frame's count.
  Status for_each_compile_by_frame(
      int64_t file_id, const std::function<bool(const Compile&, int64_t frame_compiles)>& fn) const;
  // Compiles in first-seen order, each with the distinct artifacts of its outputs (sorted).
  Status for_each_compile_with_artifacts(
      int64_t file_id,
      const std::function<bool(const Compile&, const std::vector<std::string>& artifacts)>& fn)
      const;
  // Stacks of one role in log order (as stacks()), with at most `max_frames` frames each (the
  // first ones).
  Status for_each_stack(int64_t file_id, StackRole role, std::size_t max_frames,
                        const std::function<bool(const EventStack&)>& fn) const;
  // The first `max_frames` frames of one stack.
  Result<StackFrames> stack_frames(int64_t stack_id, std::size_t max_frames) const;

  // tlparse's statistics and our data-health counters of a file.
  Result<Stats> stats(int64_t file_id) const;
  Result<std::vector<HealthCounter>> health(int64_t file_id) const;
  Result<std::vector<UnknownKey>> unknown_keys(int64_t file_id) const; // by first line
  Result<std::vector<BadLine>> bad_lines(int64_t file_id, int64_t limit = 1000) const;

  // Full-text search over payloads (FTS5 syntax): up to `limit` payloads after the cursor
  // `after`, each with up to `max_uses` events that logged it. Needs a search table: in the
  // index (tlparse index --fts) or in the search file given to open(). A malformed query is an
  // error.
  bool has_search_table() const;
  Result<std::vector<PayloadMatch>> search(const std::string& query, int64_t after, int64_t limit,
                                           int64_t max_uses, bool snippets = true) const;
  // Builds the search table of the index at `index` into a new file `search_file` (replaced if
  // present), leaving the index untouched.
  static Status build_search_file(const std::filesystem::path& index,
                                  const std::filesystem::path& search_file);

private:
  struct Impl;
  explicit IndexReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace tlparse::index
