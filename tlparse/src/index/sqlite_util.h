// Thin RAII wrappers over the SQLite C API, private to the index writer and reader so that no
// SQLite type appears in a public header. Errors come back as strings; nothing here prints.
#pragma once

#include <cstdint>
#include <optional>
#include <sqlite3.h>
#include <string>
#include <string_view>

namespace tlparse::index {

class Db {
public:
  Db() = default;
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  bool open(const std::string& path, int flags, std::string* error);
  bool exec(const char* sql, std::string* error);
  sqlite3* get() const { return db_; }

private:
  sqlite3* db_ = nullptr;
};

class Stmt {
public:
  Stmt() = default;
  Stmt(sqlite3* db, const char* sql);
  ~Stmt();
  Stmt(Stmt&& o) noexcept : st_(o.st_) { o.st_ = nullptr; }
  Stmt& operator=(Stmt&& o) noexcept;
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  bool ok() const { return st_ != nullptr; }

  void bind(int i, int64_t v) { sqlite3_bind_int64(st_, i, v); }
  void bind(int i, double v) { sqlite3_bind_double(st_, i, v); }
  void bind(int i, std::string_view v) {
    // An empty view may have a null data(); SQLite would store NULL instead of ''.
    sqlite3_bind_text(st_, i, v.data() != nullptr ? v.data() : "", static_cast<int>(v.size()),
                      SQLITE_STATIC);
  }
  void bind_blob(int i, std::string_view v) {
    sqlite3_bind_blob(st_, i, v.data() != nullptr ? v.data() : "", static_cast<int>(v.size()),
                      SQLITE_STATIC);
  }
  void bind_null(int i) { sqlite3_bind_null(st_, i); }
  template <class T>
  void bind(int i, const std::optional<T>& v) {
    if (v) {
      bind(i, *v);
    } else {
      bind_null(i);
    }
  }
  // Runs an insert/update; resets for reuse. False on error.
  bool run();
  // Steps a query: true while a row is available.
  bool step();
  void reset();

  bool is_null(int c) const { return sqlite3_column_type(st_, c) == SQLITE_NULL; }
  int64_t i64(int c) const { return sqlite3_column_int64(st_, c); }
  double f64(int c) const { return sqlite3_column_double(st_, c); }
  std::string text(int c) const;
  std::string_view text_view(int c) const;
  std::optional<int64_t> opt_i64(int c) const {
    return is_null(c) ? std::nullopt : std::optional<int64_t>(i64(c));
  }
  std::optional<double> opt_f64(int c) const {
    return is_null(c) ? std::nullopt : std::optional<double>(f64(c));
  }
  std::optional<std::string> opt_text(int c) const {
    return is_null(c) ? std::nullopt : std::optional<std::string>(text(c));
  }
  sqlite3_stmt* get() const { return st_; }

private:
  sqlite3_stmt* st_ = nullptr;
};

} // namespace tlparse::index
