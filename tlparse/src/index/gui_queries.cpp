// See gui_queries.h.
#include "tlparse/index/gui_queries.h"

#include "index/sqlite_util.h"
#include "tlparse/index/index_reader.h"

namespace tlparse::index {
namespace {

constexpr const char* kLookupIndexes =
    "CREATE INDEX IF NOT EXISTS gui_events_by_payload ON events(payload_id);"
    "CREATE INDEX IF NOT EXISTS gui_outputs_by_event ON outputs(event_id, seq);";

bool exists(sqlite3* db, const char* name) {
  Stmt s(db, "SELECT 1 FROM sqlite_master WHERE name=?");
  if (!s.ok()) {
    return false;
  }
  s.bind(1, std::string_view(name));
  return s.step();
}

// The search table and the lookup indexes prepare_search() adds.
bool search_tables_exist(sqlite3* db) {
  return exists(db, "payload_fts") && exists(db, "gui_events_by_payload") &&
         exists(db, "gui_outputs_by_event");
}

} // namespace

struct GuiQueries::Impl {
  Db db;
};

GuiQueries::GuiQueries(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GuiQueries::~GuiQueries() = default;

std::unique_ptr<GuiQueries> GuiQueries::open(const std::filesystem::path& path,
                                             std::string* error) {
  // IndexReader::open checks the file and the schema version; this connection then only reads.
  if (IndexReader::open(path, error) == nullptr) {
    return nullptr;
  }
  auto impl = std::make_unique<Impl>();
  if (!impl->db.open(path.string(), SQLITE_OPEN_READONLY, error)) {
    return nullptr;
  }
  return std::unique_ptr<GuiQueries>(new GuiQueries(std::move(impl)));
}

bool GuiQueries::prepare_search(const std::filesystem::path& path, std::string* error) {
  {
    Db db;
    if (!db.open(path.string(), SQLITE_OPEN_READONLY, error)) {
      return false;
    }
    if (search_tables_exist(db.get())) {
      return true;
    }
    if (!exists(db.get(), "payload_fts") && !IndexReader::build_search_index(path, error)) {
      return false;
    }
  }
  Db db;
  return db.open(path.string(), SQLITE_OPEN_READWRITE, error) && db.exec(kLookupIndexes, error);
}

bool GuiQueries::search_ready() const {
  return search_tables_exist(impl_->db.get());
}

std::vector<PayloadMatch> GuiQueries::search(const std::string& query, int64_t after_rowid,
                                             int64_t limit, int64_t max_uses, std::string* error,
                                             bool snippets) const {
  std::vector<PayloadMatch> out;
  sqlite3* db = impl_->db.get();
  if (!search_ready()) {
    if (error != nullptr) {
      *error = "the index has no search table yet";
    }
    return out;
  }
  // FTS5 yields matches in rowid order, so ORDER BY rowid with LIMIT stops after one page and
  // computes snippets for that page only.
  Stmt m(db, snippets ? "SELECT rowid,payload_id,snippet(payload_fts,0,'[',']','...',12) FROM "
                        "payload_fts WHERE payload_fts MATCH ? AND rowid>? ORDER BY rowid LIMIT ?"
                      : "SELECT rowid,payload_id,'' FROM payload_fts WHERE payload_fts MATCH ? "
                        "AND rowid>? ORDER BY rowid LIMIT ?");
  Stmt uses(db, "SELECT e.id,e.file_id,e.line,e.key_id,k.display,(SELECT o.id FROM outputs o "
                "WHERE o.event_id=e.id AND o.in_directory=1 ORDER BY o.seq LIMIT 1) FROM events e "
                "LEFT JOIN compile_keys k ON k.id=e.key_id WHERE e.payload_id=? ORDER BY e.id "
                "LIMIT ?");
  if (!m.ok() || !uses.ok()) {
    if (error != nullptr) {
      *error = sqlite3_errmsg(db);
    }
    return out;
  }
  m.bind(1, std::string_view(query));
  m.bind(2, after_rowid);
  m.bind(3, limit);
  int rc = SQLITE_ROW;
  while ((rc = sqlite3_step(m.get())) == SQLITE_ROW) {
    PayloadMatch p;
    p.fts_rowid = m.i64(0);
    p.payload_id = m.i64(1);
    p.snippet = m.text(2);
    uses.bind(1, p.payload_id);
    uses.bind(2, max_uses);
    while (uses.step()) {
      PayloadUse u;
      u.event_id = uses.i64(0);
      u.file_id = uses.i64(1);
      u.line = uses.i64(2);
      u.key_id = uses.opt_i64(3);
      u.compile_display = uses.is_null(4) ? "" : uses.text(4);
      u.output_id = uses.opt_i64(5);
      p.uses.push_back(std::move(u));
    }
    uses.reset();
    out.push_back(std::move(p));
  }
  if (rc != SQLITE_DONE && error != nullptr) {
    *error = sqlite3_errmsg(db); // e.g. "fts5: syntax error near ..."
  }
  return out;
}

std::vector<UnknownKeyRow> GuiQueries::unknown_keys(int64_t file_id) const {
  std::vector<UnknownKeyRow> out;
  Stmt s(impl_->db.get(), "SELECT file_id,key,count,first_line FROM unknown_keys WHERE "
                          "file_id=? ORDER BY first_line,key");
  if (!s.ok()) {
    return out;
  }
  s.bind(1, file_id);
  while (s.step()) {
    out.push_back(UnknownKeyRow{s.i64(0), s.text(1), s.i64(2), s.i64(3)});
  }
  return out;
}

} // namespace tlparse::index
