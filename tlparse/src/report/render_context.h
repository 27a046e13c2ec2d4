// State shared by the renderers of one report: the small per-file state loaded from the index once
// (compile keys, metrics, the collision plan, compact lookups; outputs, compiles and dynamo_start
// stacks are streamed by the pages), the checked output folder, and the cache of rendered payloads.
// The scaled benchmark logs repeat the same payloads many times, so payload-derived renderings
// (pretty JSON, highlighted code) are cached by (kind, payload hash, size).
#pragma once

#include "report/output_collisions.h"
#include "report/output_folder.h"
#include "report/stack_trie.h"
#include "tlparse/index/index_reader.h"
#include "tlparse/report/render.h"
#include "tlparse/report/serde_json.h"

#include <compare>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tlparse::report::detail {

// The report's memory budget. Every cache is bounded so that peak RSS stays flat however long the
// log is (a 1 GB log renders within the same bound as a 200 MB one): the caches pay off when
// payloads repeat and cost no more than their bound when they do not.
namespace budget {
inline constexpr std::size_t kRenderCacheBytes = 24u << 20;   // highlighted/pretty renderings
inline constexpr std::size_t kPayloadCacheBytes = 24u << 20;  // inflated payloads by MD5
inline constexpr std::size_t kChromiumCacheBytes = 12u << 20; // pretty chromium events
inline constexpr std::size_t kLongStringBytes = 8u << 20;     // escaped configurations (metrics)
inline constexpr std::size_t kPendingWriteBytes = 24u << 20;  // rendered files not yet written
} // namespace budget

class RenderCache {
public:
  // Bounded so that a log of unique payloads does not keep every rendering in memory: once
  // full, new renderings are simply not cached.
  explicit RenderCache(std::size_t max_bytes = budget::kRenderCacheBytes) : max_bytes_(max_bytes) {}

  const std::string* find(int kind, const std::string& content_key);
  void insert(int kind, const std::string& content_key, const std::string& rendered);
  std::uint64_t hits() const { return hits_; }
  // A content key computed from the bytes themselves (when no verified MD5 is at hand).
  static std::string key_of(std::string_view bytes);

private:
  std::unordered_map<std::string, std::string> entries_; // kind + '\0' + content key
  std::size_t max_bytes_;
  std::size_t bytes_ = 0;
  std::uint64_t hits_ = 0;
};

// A payload fetched from the index, shared between outputs of identical content.
struct Payload {
  std::shared_ptr<const std::string> bytes; // never null (empty when the event had none)
  std::string content_key;                  // verified MD5, or RenderCache::key_of(bytes)
};

struct RenderContext {
  const index::IndexReader& reader;
  const RenderOptions& options;
  OutputFolder& folder;
  RenderCache cache;
  // The metrics pages' long strings, pretty-printed and escaped once (JsonStringMemo).
  JsonStringMemo long_strings{budget::kLongStringBytes};

  // What the pages read, loaded from the index once. Nothing here holds a row per output or per
  // compile: outputs, compiles and dynamo_start stacks are streamed from the index in the order a
  // page needs (IndexReader's for_each_* calls), and looked up through compact sorted vectors of
  // integers, so memory does not grow with their number (docs/SECURITY.md, "Memory").
  index::File file;
  std::vector<index::CompileKey> keys;
  std::unordered_map<std::int64_t, std::size_t> key_by_id; // CompileKey::id -> keys index
  // The file's compiles by id, each with what the pages read of it: its status (the colour of a
  // compile in the stack trie) and its display (the id with the attempt forced to 0, the key of
  // tlparse's metrics/stack lookups), as the ingest stored them. Sorted by id.
  struct CompileOfFile {
    std::int64_t id = 0;
    index::CompileStatus status = index::CompileStatus::missing;
    std::string display;
  };
  std::vector<CompileOfFile> compiles;
  // Renamed (colliding) output paths and overwritten outputs (output_collisions.h).
  OutputPlan plan;
  // The dynamo_start stack of each compile (by its display), the last logged one: sorted by it.
  struct StartOfCompile {
    std::string compile;
    std::int64_t stack_id = 0;
  };
  std::vector<StartOfCompile> starts;
  std::vector<index::MetricsEvent> metrics;
  std::unordered_map<std::int64_t, std::size_t> metrics_by_output; // output id -> metrics index
  std::vector<index::EventStack> unknown_stacks;
  std::vector<index::SpecializationEvent> specializations;
  std::vector<index::GuardAddedFastEvent> guards_added_fast;
  std::vector<index::SymbolEvent> created_symbols; // create_symbol, create_unbacked_symbol
  std::vector<index::RestartOrFailure> restarts_and_failures;
  index::Stats stats;
  std::vector<index::HealthCounter> health;
  std::vector<index::UnknownKey> unknown_keys;
  // Lookups built once (pages would otherwise rescan these lists per compile). Keys of the
  // *_by_compile maps are the displays of the events' compiles (compile_display_of_key).
  std::unordered_map<std::string, std::vector<std::size_t>> specs_by_compile;
  std::unordered_map<std::string, std::vector<std::size_t>> guards_by_compile;
  std::unordered_map<std::string, std::vector<std::size_t>> symbols_by_compile;
  // Built only when the log has runtime metrics or memoizer artifacts (the metrics pages' sections
  // of them read it).
  std::unordered_map<std::string, std::vector<std::int64_t>> key_ids_by_compile;
  // Whether the log has compilation_metrics_runtime events at all (an unknown key to 0.4.3).
  bool has_runtime_metrics = false;
  // Whether it has memoizer_artifacts events (idem): the pages then look them up per compile.
  bool has_memoizer_artifacts = false;
  // Payloads by verified MD5: trusted only when the file had no MD5 mismatch at all, so the
  // declared digest names the content. Scaled logs then fetch and inflate each payload once.
  bool md5_trusted = false;
  std::unordered_map<std::string, std::shared_ptr<const std::string>> payloads_by_md5;
  std::size_t payload_cache_bytes = 0;
  std::vector<std::string> warnings;
  std::uint64_t write_failures = 0;
  // The first failure to read the index (a damaged index): the report is not complete then.
  std::string read_error;
  AsyncWriter* writer = nullptr; // per-event outputs go through it when set

  RenderContext(const index::IndexReader& r, const RenderOptions& o, OutputFolder& f)
      : reader(r), options(o), folder(f) {}

  // The output of an id (renamed if it collided); nullopt when the index has none.
  std::optional<index::Output> output_with_id(std::int64_t id);
  // The dynamo_start stack (at most StackTrie::kMaxDepth frames) of a compile (by its display);
  // nullopt when none was logged.
  std::optional<index::StackFrames> start_stack(const std::string& compile);
  // Display of a key id ("[0/0]", "unknown").
  std::string key_display(std::optional<std::int64_t> key_id) const;
  // The display of the compile of a key id (compiles.display: "[0/0]" for the key "[0/0_1]" too,
  // "[-/-]", "unknown"); empty when the index has no such key.
  const std::string& compile_display_of_key(std::optional<std::int64_t> key_id) const;
  // The compile of a key id; null when the index has no such key or compile.
  const CompileOfFile* compile_of_key(std::optional<std::int64_t> key_id) const;
  // The status of the compile of a compile-directory entry (missing when unknown).
  index::CompileStatus status_of_key(std::optional<std::int64_t> key_id) const;
  // Keeps the first read error; returns the value of `r`, or `fallback` after an error.
  template <class T>
  T take(Result<T> r, T fallback = {}) {
    if (r) {
      return std::move(r).value();
    }
    if (read_error.empty()) {
      read_error = r.error();
    }
    return fallback;
  }
  // Keeps the first read error of a streamed read; returns whether it succeeded.
  bool check(const Status& st) {
    if (!st && read_error.empty()) {
      read_error = st.error();
    }
    return st.ok();
  }
  // Records a failed write (refusals and I/O errors are also counted by the folder).
  void note_write(bool ok, std::string_view what);
  // The payload of an event, through the MD5 cache when it can be trusted.
  Payload fetch_payload(std::int64_t event_id);
  // Writes a per-event output (on the writer threads when there are some).
  void emit(const std::string& path, std::string bytes);
};

// "[0/0]" for an id, "(unknown)" for none.
std::string compile_display(const std::optional<model::CompileId>& cid);
// A stack from the index as trie frames (filenames resolved, "(unknown)" when they were not).
std::vector<TrieFrame> to_trie_frames(const index::StackFrames& stack);
// A link to an output: `label` linking to `prefix` + its path; an external link only when its
// URL is safe (http, https), else the name and the URL as text.
void output_link(std::string& out, const index::Output& o, std::string_view prefix,
                 std::string_view label);
// The CSS class of a compile status ("status-ok", ...).
std::string_view status_class(index::CompileStatus status);
// Reports `renamed` outputs (rename_colliding_outputs) as a warning and in the data health.
void note_collisions(RenderContext& ctx, std::size_t renamed);
// For each output, whether it is written: an output whose path a later output (not a link)
// also writes is skipped, as tlparse's last write wins. The in-memory form of
// OutputPlan::overwritten: no page uses it; the tests check the plan against it.
std::vector<bool> last_writers(const std::vector<index::Output>& outputs);
// Fills the lookup maps of `ctx` from the loaded lists.
void build_lookups(RenderContext& ctx);
// Loads what the pages read for the file options.file_id of `files` (the first when 0) and
// builds the lookups; `found` says whether the index had it. False (with `error`) on a read error
// or an unknown file id.
bool load_context(RenderContext& ctx, const std::vector<index::File>& files, bool& found,
                  std::string& error);

// Every per-event output (payload files, JSON artifacts, HTML pages).
void render_output(RenderContext& ctx, const index::Output& output);
// Metrics pages (compilation_metrics, bwd, aot-bwd): the page body for `output`.
void render_metrics_page(RenderContext& ctx, const index::Output& output, std::string& page);
// The global files.
void render_failures_page(RenderContext& ctx);
void render_compile_directory(RenderContext& ctx);
void render_index_page(RenderContext& ctx, std::uint64_t chromium_events);
// -i: provenance_tracking_<folder>.html for every compile folder (provenance_pages.cpp).
void render_provenance_pages(RenderContext& ctx);
std::string provenance_page_name(std::string_view dir);

// The two streamed files read the whole event table, so they can run on their own thread with
// their own reader; they touch nothing of a RenderContext.
struct StreamedResult {
  bool ok = true;          // false when the file could not be written
  std::string read_error;  // reading the index failed: the file is incomplete
  std::uint64_t items = 0; // chromium events / raw.jsonl rows written
  std::uint64_t cache_hits = 0;
};
// With `combined_part`, the events also go to that file with `pid` set to `combined_pid`, joined
// by ",\n  ": one rank's share of the --all-ranks-html combined file (RenderOptions). The
// renderings of repeated payloads are cached up to `cache_bytes`.
StreamedResult render_chromium_events(const index::IndexReader& reader, std::int64_t file_id,
                                      OutputFolder& folder,
                                      const std::filesystem::path& combined_part = {},
                                      std::uint32_t combined_pid = 0,
                                      std::size_t cache_bytes = budget::kChromiumCacheBytes);
StreamedResult render_raw_jsonl(const index::IndexReader& reader, const index::File& file,
                                OutputFolder& folder);

} // namespace tlparse::report::detail
