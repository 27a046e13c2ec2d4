// Writes index.sqlite with one prepared INSERT per table, generated from the schema declaration
// (schema_io.gen.h): the ingest hands it records, it binds their columns. One transaction per log
// file, journal and fsync off while building (a run that dies rebuilds the index from the logs).
// Row ids are assigned here, so callers link rows (event -> output -> metrics) without asking
// SQLite. Payloads are stored once per (MD5, size); large ones are zlib-compressed.
//
// A writer writes either the index itself or a part: a database of the same tables holding the
// files one worker ingested, which merge_part() then appends to the index (the ingest's parallel
// path; see docs/READ-MODEL.md). A part whose ids start past the index's (start_ids_after) is
// appended as stored, record by record; otherwise its ids are moved past the index's.
#pragma once

#include "index/schema_io.gen.h"
#include "index/sqlite_util.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tlparse::index {

class IndexWriter {
public:
  enum class Role { index, part };

  // Creates `path` (replacing any file there) with the schema's tables.
  bool open(const std::string& path, Role role, std::string* error);
  // Before the first row: this writer's ids (every table's) start after `base`. A part given a
  // range of ids no earlier file can reach is merged without rewriting them.
  void start_ids_after(int64_t base);
  bool begin_file(const io::FileRecord& file);
  bool end_file(int64_t file_id, std::optional<int64_t> rank, int64_t lines);
  // Appends a part (closed by its writer) to this index: its rows as stored when every id of the
  // part lies past this index's, else with its ids moved past them. Payloads the index already
  // holds are not stored twice (the part's rows then point at the index's).
  bool merge_part(const std::string& part_path, std::string* error);
  // Appends a finished index written by another run (`tlparse merge`): every id moves past this
  // index's, file ids too, after checking that each id the other index holds points at one of
  // its own rows (an index from elsewhere may have been crafted: a dangling id would otherwise
  // land on another file's rows once moved). On failure nothing of it is kept and this index is
  // as it was, so the next one can still be merged.
  bool merge_index(const std::string& other_path, std::string* error);
  // The index only: builds the indexes declared `end`, the views and the search table when asked,
  // then closes the file. A part is closed without them.
  bool finish(bool search_table, std::string* error);
  const std::string& error() const { return error_; }

  // The next id of a table with an id column.
  template <class Row>
  int64_t next_id() {
    return ++ids_[io::Table<Row>::kIndex];
  }

  template <class Record>
  void add(const Record& record) {
    using Row = typename Record::Row;
    Stmt& s = inserts_[io::Table<Row>::kIndex];
    io::bind_record(s, record);
    check(s.run());
  }

  // Returns the payload id for these bytes (stored once per md5 + size).
  int64_t add_payload(std::string_view md5_hex, std::string_view bytes);
  // Adds a stack and its frames; returns its id.
  int64_t add_stack(int64_t file_id, int64_t event_id, StackRole role,
                    const std::vector<StackFrame>& frames);

private:
  bool check(bool ok);
  enum class Ids { keep_when_past, move_all };
  bool merge_database(const std::string& path, Ids ids, std::string* error);
  bool prepare(std::string* error);

  Db db_;
  Role role_ = Role::index;
  std::string error_;
  std::array<int64_t, io::kTableCount> ids_{};
  int64_t payloads_added_ = 0; // by add_payload, to know when payload_by_key_ holds them all
  std::array<Stmt, io::kTableCount> inserts_;
  Stmt payload_lookup_;
  std::unordered_map<std::string, int64_t> payload_by_key_; // md5 + ':' + size
  std::string scratch_;
  std::string compressed_;
};

} // namespace tlparse::index
