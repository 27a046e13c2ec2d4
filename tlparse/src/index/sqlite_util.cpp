// See sqlite_util.h.
#include "index/sqlite_util.h"

namespace tlparse::index {

Db::~Db() {
  close();
}

void Db::close() {
  if (db_ != nullptr) {
    sqlite3_close(db_);
    db_ = nullptr;
  }
}

bool Db::open(const std::string& path, int flags, std::string* error) {
  close();
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    if (error != nullptr) {
      *error = db_ != nullptr ? sqlite3_errmsg(db_) : "cannot open database";
    }
    close();
    return false;
  }
  sqlite3_extended_result_codes(db_, 1);
  return true;
}

bool Db::exec(const char* sql, std::string* error) {
  char* msg = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &msg) != SQLITE_OK) {
    if (error != nullptr) {
      *error = msg != nullptr ? msg : sqlite3_errmsg(db_);
    }
    sqlite3_free(msg);
    return false;
  }
  return true;
}

Stmt::Stmt(sqlite3* db, const char* sql) : db_(db) {
  if (sqlite3_prepare_v2(db, sql, -1, &st_, nullptr) != SQLITE_OK) {
    prepare_error_ = sqlite3_errmsg(db);
    sqlite3_finalize(st_);
    st_ = nullptr;
  }
}

Stmt::~Stmt() {
  if (st_ != nullptr) {
    sqlite3_finalize(st_);
  }
}

Stmt& Stmt::operator=(Stmt&& o) noexcept {
  if (this != &o) {
    if (st_ != nullptr) {
      sqlite3_finalize(st_);
    }
    st_ = o.st_;
    db_ = o.db_;
    prepare_error_ = std::move(o.prepare_error_);
    o.st_ = nullptr;
  }
  return *this;
}

void Stmt::bind_named(const char* name, int64_t v) {
  if (const int i = sqlite3_bind_parameter_index(st_, name); i > 0) {
    sqlite3_bind_int64(st_, i, v);
  }
}

bool Stmt::run() {
  if (st_ == nullptr) {
    return false;
  }
  const int rc = sqlite3_step(st_);
  sqlite3_reset(st_);
  sqlite3_clear_bindings(st_);
  return rc == SQLITE_DONE || rc == SQLITE_ROW;
}

Step Stmt::step() {
  if (st_ == nullptr) {
    return Step::error;
  }
  switch (sqlite3_step(st_)) {
  case SQLITE_ROW:
    return Step::row;
  case SQLITE_DONE:
    return Step::done;
  default:
    return Step::error;
  }
}

void Stmt::reset() {
  sqlite3_reset(st_);
  sqlite3_clear_bindings(st_);
}

std::string Stmt::error() const {
  if (!prepare_error_.empty()) {
    return prepare_error_;
  }
  return db_ != nullptr ? sqlite3_errmsg(db_) : "no database";
}

std::string_view Stmt::text_view(int c) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st_, c));
  if (p == nullptr) {
    return {};
  }
  return std::string_view(p, static_cast<size_t>(sqlite3_column_bytes(st_, c)));
}

std::string_view Stmt::blob_view(int c) const {
  const void* p = sqlite3_column_blob(st_, c);
  if (p == nullptr) {
    return {};
  }
  return std::string_view(static_cast<const char*>(p),
                          static_cast<size_t>(sqlite3_column_bytes(st_, c)));
}

bool read_column(const Stmt& s, int c, int64_t& out) {
  if (s.column_type(c) != SQLITE_INTEGER) {
    return false;
  }
  out = s.i64(c);
  return true;
}

bool read_column(const Stmt& s, int c, bool& out) {
  int64_t v = 0;
  if (!read_column(s, c, v) || (v != 0 && v != 1)) {
    return false;
  }
  out = v != 0;
  return true;
}

bool read_column(const Stmt& s, int c, double& out) {
  const int t = s.column_type(c);
  if (t != SQLITE_FLOAT && t != SQLITE_INTEGER) {
    return false;
  }
  out = s.f64(c);
  return true;
}

bool read_column(const Stmt& s, int c, std::string& out) {
  if (s.column_type(c) != SQLITE_TEXT) {
    return false;
  }
  out.assign(s.text_view(c));
  return true;
}

bool read_blob(const Stmt& s, int c, std::string& out) {
  if (s.column_type(c) != SQLITE_BLOB) {
    return false;
  }
  out.assign(s.blob_view(c));
  return true;
}

} // namespace tlparse::index
