// The read API's part for answers: the declared views that answer common questions, a caller's
// own SQL over the index (`tlparse query`), and full-text search over payloads. Part of
// IndexReader (index_reader.h), the one door.
#pragma once

#include "tlparse/index/reader_part.h"
#include "tlparse/result.h"

#include <atomic>
#include <filesystem>
#include <functional>
#include <string>

namespace tlparse::index {

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

// A row of the `runtime_facts` view: how one compiled cache entry of our compiler served its
// calls (its runtime_facts artifact). Values are absent where the payload lacked them.
struct RuntimeFacts {
  std::optional<int64_t> key_id; // its compile-directory entry
  std::string compile;           // as PyTorch prints it: [0/1]
  std::optional<int64_t> calls, timed_calls;
  std::optional<double> mean_run_ms, total_run_ms;
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
  // When positive, the longest string or blob the statement may read or make (SQLite's
  // SQLITE_LIMIT_LENGTH for this query): bounds what one query of an agent (`tlparse mcp`) can
  // allocate, e.g. zeroblob(1e9). Longer values fail the query ("string or blob too big").
  int64_t max_value_bytes = 0;
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

class AnswersReader : public ReaderPart {
public:
  // The views that answer questions (docs/INDEX-SCHEMA.md, "Views"), in log order.
  Result<std::vector<RecompileExplained>> recompiles_explained(int64_t file_id) const;
  // Most frequent first.
  Result<std::vector<GraphBreakSummary>> graph_break_summary(int64_t file_id) const;
  // In log order.
  Result<std::vector<RuntimeFacts>> runtime_facts(int64_t file_id) const;

  // Runs one SQL statement of the caller's (`tlparse query`) over the index and its views and
  // calls on_columns once, then on_row per row (return false to stop). The statement may only
  // read: an authorizer refuses writes, schema changes, ATTACH, PRAGMAs other than the schema
  // ones and load_extension. A bad statement is an error naming SQLite's reason.
  Status query(const std::string& sql,
               const std::function<void(const std::vector<std::string>& columns)>& on_columns,
               const std::function<bool(const std::vector<QueryValue>& row)>& on_row,
               const QueryOptions& options = {}) const;

  // Full-text search over payloads (FTS5 syntax): up to `limit` payloads after the cursor
  // `after`, each with up to `max_uses` events that logged it. Needs a search table: in the
  // index (tlparse index --fts) or in the search file given to IndexReader::open(). A malformed
  // query is an error.
  bool has_search_table() const;
  Result<std::vector<PayloadMatch>> search(const std::string& query, int64_t after, int64_t limit,
                                           int64_t max_uses, bool snippets = true) const;
  // Builds the search table of the index at `index` into a new file `search_file` (replaced if
  // present), leaving the index untouched.
  static Status build_search_file(const std::filesystem::path& index,
                                  const std::filesystem::path& search_file);

protected:
  using ReaderPart::ReaderPart;
};

} // namespace tlparse::index
