// AnswersReader: the declared views, a caller's SQL and full-text search (answers_reader.h).
#include "tlparse/index/answers_reader.h"

#include "index/reader_core.h"
#include "tlparse/index/index_reader.h"

#include <algorithm>
#include <cstdint>

namespace tlparse::index {

using namespace detail;

namespace {

// What a caller's statement may do: read tables and views, call functions other than
// load_extension, use CTEs and the schema PRAGMAs. Everything else (writes, schema changes,
// ATTACH/DETACH, transactions, other PRAGMAs) is refused at prepare time.
extern "C" int query_authorizer(void*, int action, const char* a, const char* b, const char*,
                                const char*) {
  switch (action) {
  case SQLITE_SELECT:
  case SQLITE_READ:
  case SQLITE_RECURSIVE:
    return SQLITE_OK;
  case SQLITE_FUNCTION: {
    const std::string_view name = b != nullptr ? b : "";
    return name == "load_extension" || name == "fts3_tokenizer" ? SQLITE_DENY : SQLITE_OK;
  }
  case SQLITE_PRAGMA: {
    const std::string_view name = a != nullptr ? a : "";
    const bool schema_only = name == "table_info" || name == "table_xinfo" ||
                             name == "table_list" || name == "index_list" || name == "index_info" ||
                             name == "foreign_key_list";
    // A PRAGMA with an argument after '=' sets something; the schema ones take a name.
    return schema_only ? SQLITE_OK : SQLITE_DENY;
  }
  default:
    return SQLITE_DENY;
  }
}

// The result of a SQL function of `tlparse query`: the text, or the error.
void sql_text_result(sqlite3_context* c, const Result<std::string>& r) {
  if (!r) {
    sqlite3_result_error(c, r.error().c_str(), -1);
  } else {
    sqlite3_result_text64(c, r->data(), r->size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  }
}

extern "C" int query_progress(void* cancel) {
  return static_cast<const std::atomic<bool>*>(cancel)->load() ? 1 : 0;
}

bool only_space_or_semicolons(const char* p) {
  for (; p != nullptr && *p != '\0'; ++p) {
    if (*p != ';' && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
      return false;
    }
  }
  return true;
}

} // namespace

Result<std::vector<RecompileExplained>> AnswersReader::recompiles_explained(int64_t file_id) const {
  return core_->view_rows<RecompileExplained>(
      "recompiles",
      "SELECT compile, key_id, frame_id, frame_compile_id, line, pos, shape, cached_entry, guard, "
      "category, suggestion, user_file, user_line, user_stack FROM temp.recompiles WHERE "
      "file_id=? ORDER BY line, pos",
      file_id, [](const Stmt& s, RecompileExplained& r, int& c) {
        return read_column(s, c++, r.compile) && read_column(s, c++, r.key_id) &&
               read_column(s, c++, r.frame_id) && read_column(s, c++, r.frame_compile_id) &&
               read_column(s, c++, r.line) && read_column(s, c++, r.pos) &&
               read_column(s, c++, r.shape) && read_column(s, c++, r.cached_entry) &&
               read_column(s, c++, r.guard) && read_column(s, c++, r.category) &&
               read_column(s, c++, r.suggestion) && read_column(s, c++, r.user_file) &&
               read_column(s, c++, r.user_line) && read_column(s, c++, r.user_stack);
      });
}

Result<std::vector<RuntimeFacts>> AnswersReader::runtime_facts(int64_t file_id) const {
  return core_->view_rows<RuntimeFacts>(
      "runtime_facts",
      "SELECT key_id, compile, calls, timed_calls, mean_run_ms, total_run_ms FROM "
      "temp.runtime_facts WHERE file_id=? ORDER BY key_id",
      file_id, [](const Stmt& s, RuntimeFacts& r, int& c) {
        std::optional<std::string> compile;
        const bool ok = read_column(s, c++, r.key_id) && read_column(s, c++, compile) &&
                        read_column(s, c++, r.calls) && read_column(s, c++, r.timed_calls) &&
                        read_column(s, c++, r.mean_run_ms) && read_column(s, c++, r.total_run_ms);
        r.compile = compile.value_or("");
        return ok;
      });
}

Result<std::vector<GraphBreakSummary>> AnswersReader::graph_break_summary(int64_t file_id) const {
  return core_->view_rows<GraphBreakSummary>(
      "graph_break_summary",
      "SELECT reason, user_file, user_line, count, compiles, compile_ids, user_stack FROM "
      "temp.graph_break_summary WHERE file_id=? ORDER BY count DESC, user_file, user_line, reason",
      file_id, [](const Stmt& s, GraphBreakSummary& g, int& c) {
        return read_column(s, c++, g.reason) && read_column(s, c++, g.user_file) &&
               read_column(s, c++, g.user_line) && read_column(s, c++, g.count) &&
               read_column(s, c++, g.compiles) && read_column(s, c++, g.compile_ids) &&
               read_column(s, c++, g.user_stack);
      });
}

Status
AnswersReader::query(const std::string& sql,
                     const std::function<void(const std::vector<std::string>& columns)>& on_columns,
                     const std::function<bool(const std::vector<QueryValue>& row)>& on_row,
                     const QueryOptions& options) const {
  if (Status st = core_->ensure_views(); !st) {
    return st;
  }
  // A caller's query groups and sorts whole tables: a larger page cache and in-memory temporary
  // b-trees keep that off the disk (this connection only, set once; the index is unchanged).
  if (!core_->query_pragmas_set) {
    std::string error;
    if (!core_->db.exec("PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY;", &error)) {
      return Error{core_->path.string() + ": " + error};
    }
    // What the index stores once by content, as logged: stored_value(payload id), for
    // metrics_other_fields.value_id, and logged_envelope(event id), the envelope with its cut
    // values put back (docs/INDEX-SCHEMA.md, envelope_cuts).
    using SqlFunction = void (*)(sqlite3_context*, int, sqlite3_value**);
    const SqlFunction stored_value = [](sqlite3_context* c, int, sqlite3_value** argv) {
      if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
        sqlite3_result_null(c);
        return;
      }
      const auto* core = static_cast<const ReaderCore*>(sqlite3_user_data(c));
      auto v = core->stored_value(sqlite3_value_int64(argv[0]));
      sql_text_result(c, v ? Result<std::string>(**v) : Result<std::string>(Error{v.error()}));
    };
    const SqlFunction logged_envelope = [](sqlite3_context* c, int, sqlite3_value** argv) {
      const auto* core = static_cast<const ReaderCore*>(sqlite3_user_data(c));
      const int64_t id = sqlite3_value_int64(argv[0]);
      auto e = core->rows<Event>("WHERE id=?", {id});
      if (e && e->empty()) {
        sqlite3_result_null(c);
        return;
      }
      sql_text_result(c, e ? Result<std::string>(e->front().envelope)
                           : Result<std::string>(Error{e.error()}));
    };
    for (const auto& [name, fn] :
         {std::pair{"stored_value", stored_value}, std::pair{"logged_envelope", logged_envelope}}) {
      if (sqlite3_create_function_v2(core_->db.get(), name, 1, SQLITE_UTF8, core_, fn, nullptr,
                                     nullptr, nullptr) != SQLITE_OK) {
        return Error{core_->path.string() + ": " + sqlite3_errmsg(core_->db.get())};
      }
    }
    core_->query_pragmas_set = true;
  }
  sqlite3* db = core_->db.get();
  struct Guard {
    sqlite3* db;
    int length_limit;
    ~Guard() {
      sqlite3_set_authorizer(db, nullptr, nullptr);
      sqlite3_progress_handler(db, 0, nullptr, nullptr);
      sqlite3_limit(db, SQLITE_LIMIT_LENGTH, length_limit);
    }
  } guard{db, sqlite3_limit(db, SQLITE_LIMIT_LENGTH, -1)};
  if (options.max_value_bytes > 0) {
    sqlite3_limit(db, SQLITE_LIMIT_LENGTH,
                  static_cast<int>(std::min<int64_t>(options.max_value_bytes, INT32_MAX)));
  }
  sqlite3_set_authorizer(db, query_authorizer, nullptr);
  if (options.cancel != nullptr) {
    sqlite3_progress_handler(db, 10000, query_progress,
                             const_cast<std::atomic<bool>*>(options.cancel));
  }
  sqlite3_stmt* raw = nullptr;
  const char* tail = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), static_cast<int>(sql.size()), &raw, &tail) != SQLITE_OK) {
    return Error{std::string("the query failed: ") + sqlite3_errmsg(db)};
  }
  std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> stmt(raw, sqlite3_finalize);
  if (stmt == nullptr) {
    return Error{"the query is empty"};
  }
  if (!only_space_or_semicolons(tail)) {
    return Error{"give one SQL statement (found more after the first ';')"};
  }
  if (sqlite3_stmt_readonly(stmt.get()) == 0) {
    return Error{"the query must only read (this index is read-only)"};
  }
  const int n = sqlite3_column_count(stmt.get());
  std::vector<std::string> columns;
  for (int c = 0; c < n; ++c) {
    const char* name = sqlite3_column_name(stmt.get(), c);
    columns.emplace_back(name != nullptr ? name : "");
  }
  on_columns(columns);
  std::vector<QueryValue> row(static_cast<size_t>(n));
  for (;;) {
    const int rc = sqlite3_step(stmt.get());
    if (rc == SQLITE_DONE) {
      return {};
    }
    if (rc != SQLITE_ROW) {
      if (rc == SQLITE_INTERRUPT && options.cancel != nullptr && options.cancel->load()) {
        return Error{"interrupted"};
      }
      return Error{std::string("the query failed: ") + sqlite3_errmsg(db)};
    }
    for (int c = 0; c < n; ++c) {
      QueryValue& v = row[static_cast<size_t>(c)];
      switch (sqlite3_column_type(stmt.get(), c)) {
      case SQLITE_INTEGER:
        v.type = QueryValue::Type::integer;
        v.integer = sqlite3_column_int64(stmt.get(), c);
        break;
      case SQLITE_FLOAT:
        v.type = QueryValue::Type::real;
        v.real = sqlite3_column_double(stmt.get(), c);
        break;
      case SQLITE_TEXT:
      case SQLITE_BLOB: {
        const bool text = sqlite3_column_type(stmt.get(), c) == SQLITE_TEXT;
        const void* p = text ? static_cast<const void*>(sqlite3_column_text(stmt.get(), c))
                             : sqlite3_column_blob(stmt.get(), c);
        const int len = sqlite3_column_bytes(stmt.get(), c);
        v.type = text ? QueryValue::Type::text : QueryValue::Type::blob;
        v.bytes.assign(p != nullptr ? static_cast<const char*>(p) : "", static_cast<size_t>(len));
        break;
      }
      default:
        v.type = QueryValue::Type::null;
        break;
      }
    }
    if (!on_row(row)) {
      return {};
    }
  }
}

bool AnswersReader::has_search_table() const {
  for (const char* schema : {"main", "search"}) {
    if (std::string_view(schema) == "search" && !core_->search_attached) {
      continue;
    }
    const std::string sql =
        std::string("SELECT 1 FROM ") + schema + ".sqlite_master WHERE name='payload_fts'";
    Stmt s(core_->db.get(), sql.c_str());
    if (s.step() == Step::row) {
      return true;
    }
  }
  return false;
}

Result<std::vector<PayloadMatch>> AnswersReader::search(const std::string& query, int64_t after,
                                                        int64_t limit, int64_t max_uses,
                                                        bool snippets) const {
  std::vector<PayloadMatch> out;
  if (!has_search_table()) {
    return Error{core_->path.string() + " has no search table (build one with tlparse index "
                                        "--fts, or a search file)"};
  }
  bool in_main = false;
  {
    Stmt s(core_->db.get(), "SELECT 1 FROM main.sqlite_master WHERE name='payload_fts'");
    in_main = s.step() == Step::row;
  }
  const std::string table = in_main ? "main.payload_fts" : "search.payload_fts";
  // FTS5 yields matches in rowid order, so ORDER BY rowid with LIMIT stops after one page and
  // computes snippets for that page only.
  const std::string sql = std::string("SELECT rowid,payload_id,") +
                          (snippets ? "snippet(payload_fts,0,'[',']','...',12)" : "''") + " FROM " +
                          table + " WHERE payload_fts MATCH ? AND rowid>? ORDER BY rowid LIMIT ?";
  Stmt m(core_->db.get(), sql.c_str());
  Stmt uses(core_->db.get(),
            "SELECT e.id,e.file_id,e.line,e.key_id,k.display,(SELECT o.id FROM outputs o WHERE "
            "o.event_id=e.id AND o.in_directory=1 ORDER BY o.seq LIMIT 1) FROM events e LEFT "
            "JOIN compile_keys k ON k.id=e.key_id WHERE e.payload_id=? ORDER BY e.id LIMIT ?");
  if (!m.ok() || !uses.ok()) {
    return Error{"search: " + (m.ok() ? uses.error() : m.error())};
  }
  m.bind(1, std::string_view(query));
  m.bind(2, after);
  m.bind(3, limit);
  Step step;
  while ((step = m.step()) == Step::row) {
    PayloadMatch p;
    p.rowid = m.i64(0);
    p.payload_id = m.i64(1);
    p.snippet = m.text(2);
    uses.bind(1, p.payload_id);
    uses.bind(2, max_uses);
    Step u;
    while ((u = uses.step()) == Step::row) {
      PayloadUse use;
      std::optional<std::string> display;
      if (!read_column(uses, 0, use.event_id) || !read_column(uses, 1, use.file_id) ||
          !read_column(uses, 2, use.line) || !read_column(uses, 3, use.key_id) ||
          !read_column(uses, 4, display) || !read_column(uses, 5, use.output_id)) {
        return core_->damaged("search hits", "a value of the wrong type");
      }
      use.compile_display = display.value_or("");
      p.uses.push_back(std::move(use));
    }
    if (u == Step::error) {
      return core_->damaged("search hits", uses.error());
    }
    uses.reset();
    out.push_back(std::move(p));
  }
  if (step == Step::error) {
    // Most often a malformed query ("fts5: syntax error near ..."), not a damaged index.
    return Error{"search: " + m.error()};
  }
  return out;
}

Status AnswersReader::build_search_file(const std::filesystem::path& index,
                                        const std::filesystem::path& search_file) {
  // Checks the index first: a damaged one is reported as such, not as a search failure.
  if (auto reader = IndexReader::open(index); !reader) {
    return Error{reader.error()};
  }
  std::error_code ec;
  std::filesystem::remove(search_file, ec);
  Db db;
  std::string error;
  if (!db.open(search_file.string(), SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI,
               &error) ||
      !db.exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;", &error)) {
    return Error{search_file.string() + ": " + error};
  }
  {
    Stmt attach(db.get(), "ATTACH DATABASE ? AS idx");
    const std::string uri = read_only_uri(index);
    attach.bind(1, std::string_view(uri));
    if (!attach.run()) {
      return Error{index.string() + ": " + attach.error()};
    }
  }
  if (!fill_search_table(db, "main", "idx", &error)) {
    db.close();
    std::filesystem::remove(search_file, ec);
    return Error{"building the search table of " + index.string() + ": " + error};
  }
  return {};
}

} // namespace tlparse::index
