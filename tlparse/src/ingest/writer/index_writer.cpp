// See index_writer.h.
#include "ingest/writer/index_writer.h"

#include "index/payload_store.h"

#include <filesystem>
#include <optional>
#include <string>

namespace tlparse::index {
namespace {

// Calls `fn` with the position in io::kTables of each table with an id column, and its name.
template <class Fn>
void for_each_id_table(Fn&& fn) {
  for (const char* table : io::kTablesWithIds) {
    for (int t = 0; t < io::kTableCount; ++t) {
      if (std::string_view(io::kTables[t].name) == table) {
        fn(static_cast<size_t>(t), table);
      }
    }
  }
}

// `SELECT <aggregate>(id) FROM <schema>.<table>` for each table with ids: `fn` gets the table's
// position in io::kTables and the value (nullopt for NULL). False, with `error`, on failure.
template <class Fn>
bool each_id_aggregate(Db& db, const char* aggregate, const char* schema, Fn&& fn,
                       std::string& error) {
  bool ok = true;
  for_each_id_table([&](size_t t, const char* table) {
    if (!ok) {
      return;
    }
    const std::string sql =
        std::string("SELECT ") + aggregate + "(id) FROM " + schema + "." + table;
    Stmt s(db.get(), sql.c_str());
    if (s.step() != Step::row) {
      error = s.error();
      ok = false;
      return;
    }
    fn(t, s.is_null(0) ? std::nullopt : std::optional<int64_t>(s.i64(0)));
  });
  return ok;
}

} // namespace

bool IndexWriter::check(bool ok) {
  if (!ok && error_.empty()) {
    error_ = sqlite3_errmsg(db_.get());
  }
  return ok;
}

bool IndexWriter::open(const std::string& path, Role role, std::string* error) {
  role_ = role;
  std::error_code ec;
  std::filesystem::remove(path, ec);
  // One thread writes through a writer (each ingest worker has its own): no per-call mutex.
  if (!db_.open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, error)) {
    return false;
  }
  // Small page caches: rows are appended at the end of each table's b-tree, so the pages in use
  // are the few on each table's right edge (a part, written like the index, needs no more).
  // 16 MB and 4 MB cost the same CPU as these and held a third of the ingest's peak RSS
  // (docs/TLPARSE-MULTI-RANK.md, Performance). SQLite's sorter, which builds the end indexes,
  // keeps its own floor of 250 pages.
  const char* pragmas = role == Role::index
                            ? "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA "
                              "page_size=16384; PRAGMA cache_size=-1024; PRAGMA "
                              "locking_mode=EXCLUSIVE;"
                            : "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA "
                              "page_size=16384; PRAGMA cache_size=-512; PRAGMA "
                              "locking_mode=EXCLUSIVE;";
  if (!db_.exec(pragmas, error) || !db_.exec(io::kCreateTables, error) ||
      !db_.exec(io::kIngestIndexes, error)) {
    return false;
  }
  if (role == Role::index) {
    const std::string meta = "INSERT INTO meta VALUES('schema_version','" +
                             std::to_string(kSchemaVersion) +
                             "'),('generator','torchscope tlparse');";
    if (!db_.exec(meta.c_str(), error) || !db_.exec(io::kViews, error)) {
      return false;
    }
  }
  return prepare(error);
}

bool IndexWriter::prepare(std::string* error) {
  sqlite3* d = db_.get();
  for (int t = 0; t < io::kTableCount; ++t) {
    const io::TableInfo& info = io::kTables[t];
    std::string sql = std::string("INSERT INTO ") + info.name + " VALUES(";
    for (int c = 0; c < info.column_count; ++c) {
      sql += c == 0 ? "?" : ",?";
    }
    sql += ")";
    inserts_[static_cast<size_t>(t)] = Stmt(d, sql.c_str());
    if (!inserts_[static_cast<size_t>(t)].ok()) {
      if (error != nullptr) {
        *error = "preparing the insert into " + std::string(info.name) + ": " +
                 inserts_[static_cast<size_t>(t)].error();
      }
      return false;
    }
  }
  payload_lookup_ = Stmt(d, "SELECT id FROM payloads WHERE md5=? AND size=?");
  if (!payload_lookup_.ok()) {
    if (error != nullptr) {
      *error = payload_lookup_.error();
    }
    return false;
  }
  return true;
}

void IndexWriter::start_ids_after(int64_t base) {
  for_each_id_table([&](size_t t, const char*) { ids_[t] = base; });
}

bool IndexWriter::begin_file(const io::FileRecord& file) {
  if (!check(db_.exec("BEGIN", &error_))) {
    return false;
  }
  add(file);
  return error_.empty();
}

bool IndexWriter::end_file(int64_t file_id, std::optional<int64_t> rank, int64_t lines) {
  Stmt s(db_.get(), "UPDATE files SET rank=?, lines=? WHERE id=?");
  s.bind(1, rank);
  s.bind(2, lines);
  s.bind(3, file_id);
  check(s.run());
  return check(db_.exec("COMMIT", &error_)) && error_.empty();
}

bool IndexWriter::merge_part(const std::string& part_path, std::string* error) {
  return merge_database(part_path, Ids::keep_when_past, error);
}

bool IndexWriter::merge_index(const std::string& other_path, std::string* error) {
  return merge_database(other_path, Ids::move_all, error);
}

bool IndexWriter::merge_database(const std::string& part_path, Ids ids, std::string* error) {
  const auto fail = [&](const std::string& what) {
    if (error != nullptr) {
      *error = ids == Ids::keep_when_past ? "merging " + part_path + ": " + what : what;
    }
    std::string ignored;
    db_.exec("ROLLBACK", &ignored);
    db_.exec("DETACH DATABASE part", &ignored);
    return false;
  };
  {
    Stmt attach(db_.get(), "ATTACH DATABASE ? AS part");
    attach.bind(1, std::string_view(part_path));
    if (!attach.run()) {
      return fail(attach.error());
    }
  }
  std::string err;
  if (!db_.exec("BEGIN", &err)) {
    return fail(err);
  }
  // The part's ids are kept when each table's lie past the index's (the ingest gives every file a
  // range of its own); a part that outgrew its range, or came without one, has them moved.
  // Moving them maps each table's first id to the one after the index's last.
  if (ids == Ids::move_all) {
    // An index from elsewhere is data: its schema's functions are never run.
    if (!db_.exec("PRAGMA trusted_schema=OFF", &err)) {
      return fail(err);
    }
    // Each id must point at a row of its own database: checked here, before ids move. (Each
    // statement ends before fail() runs: a statement left open keeps `part` from detaching, and
    // the next index could not be attached.)
    for (const io::Reference& r : io::kReferences) {
      const std::string sql = std::string("SELECT EXISTS (SELECT 1 FROM part.") + r.table +
                              " x WHERE x." + r.column +
                              " IS NOT NULL AND NOT EXISTS (SELECT 1 "
                              "FROM part." +
                              r.target + " y WHERE y.id = x." + r.column + "))";
      std::string problem;
      {
        Stmt s(db_.get(), sql.c_str());
        if (s.step() != Step::row) {
          problem = s.error();
        } else if (s.i64(0) != 0) {
          problem = std::string(r.table) + "." + r.column + " holds an id that no row of " +
                    r.target + " has: the index is damaged or was edited";
        }
      }
      if (!problem.empty()) {
        return fail(problem);
      }
    }
  }
  bool keep_ids = ids == Ids::keep_when_past;
  std::array<int64_t, io::kTableCount> offsets = ids_;
  // File ids: the ingest numbers its files itself (nothing moves); another index's files follow
  // this one's.
  int64_t files_offset = 0;
  if (ids == Ids::move_all) {
    std::string problem;
    {
      Stmt s(db_.get(), "SELECT (SELECT COALESCE(MAX(id), 0) FROM main.files) - (SELECT "
                        "COALESCE(MIN(id), 1) - 1 FROM part.files)");
      if (s.step() != Step::row) {
        problem = s.error();
      } else {
        files_offset = s.i64(0);
      }
    }
    if (!problem.empty()) {
      return fail(problem);
    }
  }
  if (!each_id_aggregate(
          db_, "MIN", "part",
          [&](size_t t, std::optional<int64_t> first) {
            if (first) {
              keep_ids = keep_ids && *first > ids_[t];
              // Another index's ids start anywhere (a crafted one's may be negative): moved,
              // its first id follows the index's last.
              offsets[t] = ids_[t] - (*first - 1);
            }
          },
          err)) {
    return fail(err);
  }
  // Payloads first: a part's payload that the index already holds is not stored twice; the
  // part's rows find theirs by (md5, size) through temp.payload_map.
  const std::string payloads_sql =
      std::string(keep_ids ? "INSERT INTO main.payloads SELECT *"
                           : "INSERT INTO main.payloads(md5,size,compressed,data) SELECT md5,"
                             "size,compressed,data") +
      " FROM part.payloads p WHERE NOT EXISTS (SELECT 1 FROM main.payloads m WHERE m.md5=p.md5 "
      "AND m.size=p.size) ORDER BY p.id; CREATE TEMP TABLE IF NOT EXISTS payload_map(part_id "
      "INTEGER PRIMARY KEY, main_id INTEGER NOT NULL); DELETE FROM temp.payload_map; INSERT INTO "
      "temp.payload_map SELECT p.id, m.id FROM part.payloads p JOIN main.payloads m ON "
      "m.md5=p.md5 AND m.size=p.size" +
      (keep_ids ? " WHERE m.id<>p.id;" : ";");
  if (!db_.exec(payloads_sql.c_str(), &err)) {
    return fail(err);
  }
  bool mapped_payloads = false;
  if (keep_ids) {
    Stmt s(db_.get(), "SELECT EXISTS (SELECT 1 FROM temp.payload_map)");
    if (s.step() != Step::row) {
      return fail(s.error());
    }
    mapped_payloads = s.i64(0) != 0;
  }
  for (const io::MergeStatement& m : io::kMerges) {
    const char* sql = !keep_ids                                     ? m.sql
                      : mapped_payloads && m.payload_sql != nullptr ? m.payload_sql
                                                                    : m.copy_sql;
    std::string problem; // the statement ends before fail() detaches `part`
    {
      Stmt s(db_.get(), sql);
      if (!s.ok()) {
        problem = s.error();
      } else {
        if (!keep_ids) {
          for (int t = 0; t < io::kTableCount; ++t) {
            const std::string name = std::string(":off_") + io::kTables[t].name;
            s.bind_named(name.c_str(), offsets[static_cast<size_t>(t)]);
          }
          s.bind_named(":off_files", files_offset);
        }
        if (!s.run()) {
          problem = std::string(m.table) + ": " + s.error();
        }
      }
    }
    if (!problem.empty()) {
      return fail(problem);
    }
  }
  // The ids the part used now belong to the index.
  if (!each_id_aggregate(
          db_, "MAX", "main",
          [&](size_t t, std::optional<int64_t> last) { ids_[t] = last.value_or(0); }, err)) {
    return fail(err);
  }
  payload_by_key_.clear();
  if (!db_.exec("COMMIT", &err)) {
    return fail(err);
  }
  if (!db_.exec("DETACH DATABASE part", &err)) {
    return fail(err);
  }
  return true;
}

bool IndexWriter::finish(bool search_table, std::string* error) {
  if (!error_.empty()) {
    if (error != nullptr) {
      *error = error_;
    }
    return false;
  }
  if (role_ == Role::index) {
    if (!db_.exec(io::kEndIndexes, error)) {
      return false;
    }
    if (search_table && !fill_search_table(db_, "main", "main", error)) {
      return false;
    }
  }
  for (Stmt& s : inserts_) {
    s = Stmt();
  }
  payload_lookup_ = Stmt();
  db_.close();
  return true;
}

int64_t IndexWriter::add_payload(std::string_view md5_hex, std::string_view bytes) {
  scratch_.assign(md5_hex);
  scratch_ += ':';
  scratch_ += std::to_string(bytes.size());
  auto it = payload_by_key_.find(scratch_);
  if (it != payload_by_key_.end()) {
    return it->second;
  }
  // The map is a bounded cache (memory must not grow with the log); the unique index on
  // (md5, size) answers for payloads that fell out of it.
  constexpr size_t kMaxCachedPayloadKeys = 100000;
  if (payload_by_key_.size() >= kMaxCachedPayloadKeys) {
    payload_by_key_.clear();
  }
  if (payloads_added_ > static_cast<int64_t>(payload_by_key_.size())) {
    payload_lookup_.bind(1, md5_hex);
    payload_lookup_.bind(2, static_cast<int64_t>(bytes.size()));
    const Step step = payload_lookup_.step();
    if (step == Step::row) {
      const int64_t found = payload_lookup_.i64(0);
      payload_lookup_.reset();
      payload_by_key_.emplace(scratch_, found);
      return found;
    }
    check(step == Step::done);
    payload_lookup_.reset();
  }
  io::StoredPayloadRecord p;
  p.id = next_id<StoredPayload>();
  p.md5 = md5_hex;
  p.size = static_cast<int64_t>(bytes.size());
  p.data = bytes;
  if (compress_payload(bytes, compressed_)) {
    p.compressed = true;
    p.data = compressed_;
  }
  payload_by_key_.emplace(scratch_, p.id);
  ++payloads_added_;
  add(p);
  return p.id;
}

int64_t IndexWriter::add_stack(int64_t file_id, int64_t event_id, StackRole role,
                               const std::vector<StackFrame>& frames) {
  io::StackRecord stack;
  stack.id = next_id<Stack>();
  stack.file_id = file_id;
  stack.event_id = event_id;
  stack.role = role;
  add(stack);
  int64_t pos = 0;
  for (const StackFrame& f : frames) {
    io::StackFrameRecord r = io::record_of(f);
    r.stack_id = stack.id;
    r.pos = pos++;
    add(r);
  }
  return stack.id;
}

} // namespace tlparse::index
