// Queries the desktop GUI (tlparse-gui) needs beyond IndexReader, kept apart so the report's
// read API stays as it is. IndexReader::search() sorts every match and joins events with no
// index on payload_id (about a minute over 200 MB of payloads); the GUI needs one page of hits in
// well under a second, so this file pages the FTS table by rowid and finds the events that logged
// each payload through two lookup indexes that prepare_search() adds to the index file, next to
// the search table. It also exposes the unknown-key rows (count, first line) of the health panel.
// Like IndexReader, a GuiQueries is not thread-safe; open one per thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tlparse::index {

// One event that logged a payload (the same payload may be logged many times).
struct PayloadUse {
  int64_t event_id = 0;
  int64_t file_id = 0;
  int64_t line = 0;                 // physical line of the envelope
  std::optional<int64_t> key_id;    // compile key
  std::string compile_display;      // "[0/0]", "" when the event has no compile
  std::optional<int64_t> output_id; // the listed output it produced, if any
};

// One payload matching a full-text query.
struct PayloadMatch {
  int64_t fts_rowid = 0; // the paging cursor: pass the last one as `after_rowid`
  int64_t payload_id = 0;
  std::string snippet;          // matched words in [brackets]
  std::vector<PayloadUse> uses; // in log order
};

struct UnknownKeyRow {
  int64_t file_id = 0;
  std::string key;
  int64_t count = 0;
  int64_t first_line = 0;
};

class GuiQueries {
public:
  // Opens read-only; the same errors as IndexReader::open (not an index, wrong version).
  static std::unique_ptr<GuiQueries> open(const std::filesystem::path& path, std::string* error);
  ~GuiQueries();
  GuiQueries(const GuiQueries&) = delete;
  GuiQueries& operator=(const GuiQueries&) = delete;

  // Builds the search table (IndexReader::build_search_index) unless it exists, then the lookup
  // indexes events(payload_id) and outputs(event_id). Writes into the index file, once: later
  // calls return at once. Close readers of the file first.
  static bool prepare_search(const std::filesystem::path& path, std::string* error);
  // The search table and the lookup indexes exist.
  bool search_ready() const;

  // Up to `limit` payloads matching `query` (FTS5 syntax) with an FTS rowid above `after_rowid`,
  // in rowid order; each lists up to `max_uses` events that logged it. `snippets` asks FTS5 for
  // a snippet of each (it re-reads the whole payload: skip it when the caller finds lines
  // itself). A malformed query sets *error and returns nothing.
  std::vector<PayloadMatch> search(const std::string& query, int64_t after_rowid, int64_t limit,
                                   int64_t max_uses, std::string* error,
                                   bool snippets = true) const;

  // The unknown_keys table of a file, by first line.
  std::vector<UnknownKeyRow> unknown_keys(int64_t file_id) const;

private:
  struct Impl;
  explicit GuiQueries(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace tlparse::index
