// See sqlite_util.h.
#include "index/sqlite_util.h"

namespace tlparse::index {

Db::~Db() {
  if (db_ != nullptr) {
    sqlite3_close(db_);
  }
}

bool Db::open(const std::string& path, int flags, std::string* error) {
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    if (error != nullptr) {
      *error = db_ != nullptr ? sqlite3_errmsg(db_) : "cannot open database";
    }
    return false;
  }
  return true;
}

bool Db::exec(const char* sql, std::string* error) {
  char* msg = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &msg) != SQLITE_OK) {
    if (error != nullptr) {
      *error = msg != nullptr ? msg : "sqlite error";
    }
    sqlite3_free(msg);
    return false;
  }
  return true;
}

Stmt::Stmt(sqlite3* db, const char* sql) {
  if (sqlite3_prepare_v2(db, sql, -1, &st_, nullptr) != SQLITE_OK) {
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
    o.st_ = nullptr;
  }
  return *this;
}

bool Stmt::run() {
  const int rc = sqlite3_step(st_);
  sqlite3_reset(st_);
  sqlite3_clear_bindings(st_);
  return rc == SQLITE_DONE || rc == SQLITE_ROW;
}

bool Stmt::step() {
  return sqlite3_step(st_) == SQLITE_ROW;
}

void Stmt::reset() {
  sqlite3_reset(st_);
  sqlite3_clear_bindings(st_);
}

std::string Stmt::text(int c) const {
  return std::string(text_view(c));
}

std::string_view Stmt::text_view(int c) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st_, c));
  if (p == nullptr) {
    return {};
  }
  return std::string_view(p, static_cast<size_t>(sqlite3_column_bytes(st_, c)));
}

} // namespace tlparse::index
