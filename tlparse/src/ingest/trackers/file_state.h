// The ingest state of one log file: tlparse 0.4.3's compile directory (first-seen keys, the
// global output_count, output naming with raw vs collapsed ids), the compiles and what the index
// says about each (compile_facts.h), the chromium spans (span_tracker.h), the file's own string
// table, statistics and health counters. Handlers add outputs and rows through it; it forwards
// rows to the index writer as they come, so memory grows only with the number of compiles.
// Implemented in compile_directory.cpp, beside the compile-directory rules it mostly holds.
#pragma once

#include "ingest/handlers/handler.h"
#include "ingest/trackers/compile_facts.h"
#include "ingest/trackers/span_tracker.h"
#include "ingest/writer/index_writer.h"
#include "tlparse/index/stats.h"
#include "tlparse/ingest/ingest.h"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tlparse::ingest {

bool compile_id_less(const CompileId& a, const CompileId& b);

class FileState {
public:
  FileState(index::IndexWriter& writer, int64_t file_id, const ingest::IngestOptions& options);

  index::IndexWriter& writer() { return writer_; }
  int64_t file_id() const { return file_id_; }
  const ingest::IngestOptions& options() const { return options_; }
  simdjson::ondemand::parser& parser() { return parser_; }
  index::Stats& stats() { return stats_; }
  std::array<uint64_t, index::kHealthCounterCount>& health() { return health_; }
  SpanTracker& spans() { return spans_; }

  // Counts a health event; `excerpt` goes to bad_lines for error/warning counters.
  void count(index::HealthId id, int64_t line, std::string_view excerpt = {});

  // The compile-directory entry and the compile of an event (created on first sight).
  struct KeyRef {
    int64_t key_id = 0;
    int64_t compile_id = 0;
  };
  KeyRef key_for(const std::optional<CompileId>& raw, int64_t line);
  // What the index will say about a compile of this file.
  CompileFacts& facts(int64_t compile_id);
  // Sets where a per-event row comes from: its file, event, compile-directory entry and compile.
  template <class Row>
  void place(const handlers::EventContext& ctx, Row& row) const {
    row.file_id = file_id_;
    row.event_id = ctx.event_id;
    row.key_id = ctx.key_id;
    row.compile_id = ctx.compile_id;
  }
  // "<dir of the raw id>" or "unknown_<line>".
  static std::string dir_for(const std::optional<CompileId>& raw, int64_t line);

  struct Emitted {
    int64_t output_id = 0;
    std::string path;
  };
  // `<compile dir>/<stem>_<N>.<ext>` (tlparse's add_unique_suffix), counted. `stem` comes from
  // log data and is sanitised. `payload_file`: the file holds the payload (PayloadFile).
  // The kernel-stack-traces quirk: `companion` adds `<stem>_<N>_readable.html` (one more count,
  // and the entry's number becomes N+1); `empty_url` is what 0.4.3 does when the payload is not
  // a JSON object: readable_url "" and no companion. `artifact` names what the output is across
  // compiles (outputs.artifact); empty: the stem.
  enum class Readable { none, companion, empty_url };
  Emitted add_compile_file(handlers::EventContext& ctx, std::string_view stem, std::string_view ext,
                           index::OutputKind kind, bool payload_file,
                           Readable readable = Readable::none, std::string_view artifact = {});
  // A GlobalFile (dump_file): no compile dir, no suffix, counted.
  Emitted add_global_file(handlers::EventContext& ctx, std::string_view relative_path,
                          index::OutputKind kind);
  // A Link: a directory entry with an external url, counted.
  void add_link(handlers::EventContext& ctx, std::string_view name, std::string_view url);
  // payloads/<md5>.txt for an event whose handlers wrote no payload file.
  std::string add_payload_copy(handlers::EventContext& ctx);

  // String table (one per file). Binding an index again to another string, and indexes beyond
  // raw.jsonl's table, are counted (string_rebound, string_index_beyond_table).
  void intern(int64_t idx, std::string value, int64_t line);
  // Parses a stack (array of frames); false on a type error. Resolves file names.
  bool parse_stack(std::string_view json, std::vector<index::StackFrame>& out, int64_t line);
  // The items of a list field of the event's metadata, as metadata_lists rows; their number, or
  // nullopt when an item is not valid JSON (the rows before it are kept).
  std::optional<int64_t> add_list(int64_t event_id, std::string_view field,
                                  simdjson::ondemand::array& items);
  // Stores a large metadata value once by content (the payloads table) and returns its id. The
  // same configuration is logged with every compile, so a value seen recently is recognised by
  // its bytes without hashing it with MD5 again.
  int64_t store_value(std::string_view bytes);

  // Unknown keys.
  void note_unknown_key(std::string_view key, int64_t line);
  std::vector<std::string> unknown_key_names() const; // sorted
  void finish(std::optional<uint32_t> rank, uint64_t lines);

  uint64_t output_count() const { return output_count_; }

private:
  int64_t emit(handlers::EventContext& ctx, index::io::OutputRecord row);
  int64_t compile_for(const std::optional<CompileId>& raw, int64_t line);

  index::IndexWriter& writer_;
  int64_t file_id_;
  const ingest::IngestOptions& options_;
  simdjson::ondemand::parser parser_;
  index::Stats stats_;
  std::array<uint64_t, index::kHealthCounterCount> health_{};
  uint64_t bad_lines_written_ = 0;

  std::map<CompileId, KeyRef, bool (*)(const CompileId&, const CompileId&)> keys_;
  std::optional<KeyRef> unknown_key_;
  int64_t next_key_ord_ = 0;
  // Compiles by their forced id; `compiles_` in first-seen order, ids consecutive from the first.
  std::map<CompileId, int64_t, bool (*)(const CompileId&, const CompileId&)> compile_by_id_;
  std::optional<int64_t> invalid_compile_;
  std::vector<CompileFacts> compiles_;
  SpanTracker spans_;
  uint64_t output_count_ = 0;
  int64_t seq_ = 0;
  std::unordered_set<std::string> payload_copies_;

  std::unordered_map<int64_t, std::string> strings_;
  struct StoredValue {
    int64_t id = 0;
    std::string bytes;
  };
  std::unordered_map<uint64_t, StoredValue> stored_values_; // by content_hash, bounded
  size_t stored_value_bytes_ = 0;
  struct UnknownKey {
    uint64_t count = 0;
    int64_t first_line = 0;
  };
  std::map<std::string, UnknownKey, std::less<>> unknown_keys_;
};

} // namespace tlparse::ingest
