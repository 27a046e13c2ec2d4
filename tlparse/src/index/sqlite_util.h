// Thin RAII wrappers over the SQLite C API, private to tlparse/src/index so that no SQLite type
// appears in a public header. Nothing here prints. A failed step is an error, never "no more
// rows": Stmt::step() says which, and Stmt::error() says why. The typed column readers check each
// value's storage class against the declared type, so a damaged index is noticed where it is read.
#pragma once

#include <cstdint>
#include <optional>
#include <sqlite3.h>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

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
  void close();

private:
  sqlite3* db_ = nullptr;
};

enum class Step { row, done, error };

class Stmt {
public:
  Stmt() = default;
  Stmt(sqlite3* db, const char* sql);
  ~Stmt();
  Stmt(Stmt&& o) noexcept : st_(o.st_), db_(o.db_), prepare_error_(std::move(o.prepare_error_)) {
    o.st_ = nullptr;
  }
  Stmt& operator=(Stmt&& o) noexcept;
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  // False when the statement could not be prepared (error() says why: a table missing, ...).
  bool ok() const { return st_ != nullptr; }

  void bind(int i, int64_t v) { sqlite3_bind_int64(st_, i, v); }
  void bind(int i, bool v) { sqlite3_bind_int64(st_, i, v ? 1 : 0); }
  void bind(int i, double v) { sqlite3_bind_double(st_, i, v); }
  void bind(int i, std::string_view v) {
    // An empty view may have a null data(); SQLite would store NULL instead of ''.
    sqlite3_bind_text(st_, i, v.data() != nullptr ? v.data() : "", static_cast<int>(v.size()),
                      SQLITE_STATIC);
  }
  void bind(int i, const char* v) { bind(i, std::string_view(v)); }
  void bind(int i, const std::string& v) { bind(i, std::string_view(v)); }
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
  // Binds `:name` when the statement has that parameter.
  void bind_named(const char* name, int64_t v);

  // Runs an insert/update and resets for reuse. False on error (see error()).
  bool run();
  // Steps a query.
  Step step();
  void reset();
  // The last error of this statement's database, with the statement's own prepare error first.
  std::string error() const;

  int column_type(int c) const { return sqlite3_column_type(st_, c); }
  bool is_null(int c) const { return column_type(c) == SQLITE_NULL; }
  int64_t i64(int c) const { return sqlite3_column_int64(st_, c); }
  double f64(int c) const { return sqlite3_column_double(st_, c); }
  std::string text(int c) const { return std::string(text_view(c)); }
  std::string_view text_view(int c) const;
  std::string_view blob_view(int c) const;
  sqlite3_stmt* get() const { return st_; }

private:
  sqlite3_stmt* st_ = nullptr;
  sqlite3* db_ = nullptr;
  std::string prepare_error_;
};

// Typed reads: false when the value's storage class is not the declared one (NULL only for the
// optional forms). Used by the generated row readers (schema_io.gen.h).
bool read_column(const Stmt& s, int c, int64_t& out);
bool read_column(const Stmt& s, int c, bool& out);
bool read_column(const Stmt& s, int c, double& out);
bool read_column(const Stmt& s, int c, std::string& out);
bool read_blob(const Stmt& s, int c, std::string& out);
template <class Enum>
requires std::is_enum_v<Enum>
bool read_column(const Stmt& s, int c, Enum& out) {
  return s.column_type(c) == SQLITE_TEXT && parse(s.text_view(c), out);
}
// The optional forms, one for every type above: NULL is nullopt, any other value is read as T.
template <class T>
bool read_column(const Stmt& s, int c, std::optional<T>& out) {
  if (s.is_null(c)) {
    out.reset();
    return true;
  }
  T value{};
  if (!read_column(s, c, value)) {
    return false;
  }
  out = std::move(value);
  return true;
}
template <class Enum>
requires std::is_enum_v<Enum>
void bind_enum(Stmt& s, int i, Enum v) {
  s.bind(i, to_string(v));
}
template <class Enum>
requires std::is_enum_v<Enum>
void bind_enum(Stmt& s, int i, const std::optional<Enum>& v) {
  if (v) {
    s.bind(i, to_string(*v));
  } else {
    s.bind_null(i);
  }
}

} // namespace tlparse::index
