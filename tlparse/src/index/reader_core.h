// The plumbing every part of the read API shares (tlparse/index/reader_part.h): the door's one
// connection, its cache of prepared statements, and the row readers every query goes through.
// each_row() turns a failed step, a statement that cannot be prepared (a table missing) and a
// value of the wrong type into an error naming the index. Private to src/index.
#pragma once

#include "index/payload_store.h"
#include "index/schema_io.gen.h"
#include "index/sqlite_util.h"
#include "tlparse/index/reader_part.h"
#include "tlparse/index/stats.h"
#include "tlparse/result.h"

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <type_traits>
#include <unordered_map>

namespace tlparse::index::detail {

// What a row callback tells each_row: go on, stop, or the row has a value of the wrong type.
enum class Next { more, stop, bad };

// The columns of an EventRef (read_event_ref) in the queries that join rows with their event.
#define TORCHSCOPE_EVENT_REF_COLUMNS                                                               \
  "e.id,e.line,e.cid_valid,e.caid,e.frame_id,e.frame_compile_id,e.attempt,e.key_id"
constexpr int kEventRefColumns = 8;

// Reads an EventRef at column `first`; -1 or the bad column.
int read_event_ref(const Stmt& s, int first, EventRef& out);

// The columns read_metadata() reads, after which nothing else follows.
#define TORCHSCOPE_METADATA_COLUMNS "e.envelope,e.value_offset,e.value_length,e.cut_values"

// Reads stored bytes from columns compressed, size, data at `first`: -1 or the bad column.
// `out` is nullopt when compressed bytes do not inflate to their size.
int read_stored_bytes(const Stmt& s, int first, std::optional<std::string>& out);

// A compile id from its stored parts (each nullopt when absent or out of range).
CompileId compile_id_from(const std::optional<int64_t>& caid, const std::optional<int64_t>& frame,
                          const std::optional<int64_t>& frame_compile,
                          const std::optional<int64_t>& attempt);

// A read-only SQLite URI for a path (SQLite gives '?', '#' and '%' meanings in URIs).
std::string read_only_uri(const std::filesystem::path& path);

// ", NULL" n times: the columns of the other side of a UNION ALL of two tables' rows.
std::string nulls(int n);

// The binder (see each_row_bound) of a query whose parameters are integers: `values` bound to
// ?1, ?2, ... in order. It refers to the caller's list, so it serves within the call given it.
inline auto bind_integers(std::initializer_list<int64_t> values) {
  return [values](Stmt& s) {
    int i = 1;
    for (const int64_t v : values) {
      s.bind(i++, v);
    }
  };
}

// Prepared statements kept for reuse, by SQL text: a render asks the same few queries thousands
// of times (an event, a compile, a key's outputs...), and preparing them again was about a tenth
// of its CPU. A statement in use is out of the cache, so a query made from inside another's
// callback, or by another thread sharing the reader, prepares one of its own. Bounded: at most
// kMaxTexts texts, kMaxIdle idle statements each.
class StatementCache {
public:
  Stmt take(sqlite3* db, const std::string& sql) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (const auto it = idle_.find(sql); it != idle_.end() && !it->second.empty()) {
        Stmt s = std::move(it->second.back());
        it->second.pop_back();
        return s;
      }
    }
    return Stmt(db, sql.c_str());
  }
  // Back after use: reset (ending its read of the file) with no bindings left pointing at the
  // caller's strings.
  void give(const std::string& sql, Stmt s) {
    if (!s.ok()) {
      return;
    }
    s.reset();
    const std::lock_guard<std::mutex> lock(mutex_);
    auto it = idle_.find(sql);
    if (it == idle_.end()) {
      if (idle_.size() >= kMaxTexts) {
        return;
      }
      it = idle_.emplace(sql, std::vector<Stmt>()).first;
    }
    if (it->second.size() < kMaxIdle) {
      it->second.push_back(std::move(s));
    }
  }

private:
  static constexpr std::size_t kMaxTexts = 256;
  static constexpr std::size_t kMaxIdle = 4;
  std::mutex mutex_;
  std::unordered_map<std::string, std::vector<Stmt>> idle_;
};

// The door's connection and what its parts share; IndexReader owns it.
struct ReaderCore {
  Db db;
  // After db: destroyed first, its statements finalized before the connection closes.
  mutable StatementCache statements;
  std::filesystem::path path;
  bool search_attached = false;
  bool views_created = false;
  bool query_pragmas_set = false;
  // Values stored once by content (docs/INDEX-SCHEMA.md, envelope_cuts), the recently read ones
  // kept inflated: every compile's envelope holds the same configuration. Bounded, and guarded
  // because a server shares its reader between threads.
  mutable std::mutex values_mutex;
  mutable std::unordered_map<int64_t, std::shared_ptr<const std::string>> values;
  mutable std::size_t value_bytes = 0;
  static constexpr std::size_t kMaxValueBytes = 8u << 20;

  // The bytes of stored value `id` (a payloads row).
  Result<std::shared_ptr<const std::string>> stored_value(int64_t id) const;

  // Puts the values cut out of a stored envelope back (envelope_cuts): the envelope as logged.
  Status restore_envelope(int64_t event_id, int64_t cut_values, std::string& envelope) const;

  // What the read API adds to a row as stored: the values stored by content put back.
  template <class Row>
  Status complete(Row& row) const {
    if constexpr (std::is_same_v<Row, Event>) {
      return restore_envelope(row.id, row.cut_values, row.envelope);
    } else if constexpr (std::is_same_v<Row, MetricsOtherField>) {
      if (row.value_id) {
        auto value = stored_value(*row.value_id);
        if (!value) {
          return Error{value.error()};
        }
        row.value = **value;
      }
    }
    return {};
  }

  // Reads a row of `SELECT <table>.*` as the read API returns it (complete()): Next::more, or
  // Next::bad with the bad column, or Next::stop with `failure` set.
  template <class Row>
  Next read_whole_row(const Stmt& s, Row& row, int& bad, std::optional<Error>& failure) const {
    if ((bad = io::read_row(s, 0, row)) >= 0) {
      return Next::bad;
    }
    if (Status done = complete(row); !done) {
      failure = Error{done.error()};
      return Next::stop;
    }
    return Next::more;
  }

  // Reads an event's metadata as logged from TORCHSCOPE_METADATA_COLUMNS at `first`: -1, or the
  // bad column (`failure` set instead when a cut value cannot be put back).
  int read_metadata(const Stmt& s, int first, int64_t event_id, std::string& out,
                    std::optional<Error>& failure) const;

  // The temporary tables of the streamed reads (see build_temp); -1: not built.
  int64_t file_paths_of = -1;
  bool key_outputs_built = false;
  bool temp_pragmas_set = false;

  // Builds a temporary table with `sql` (statements separated by ';', `?` bound to `bind`
  // where given) on this connection: the index file is never written. Temporary tables live in
  // files (temp_store=FILE) behind a small cache, so a million rows cost disk, not heap.
  Status build_temp(std::string_view what, const std::string& drop, const std::string& create,
                    const std::string& fill, std::optional<int64_t> bind);

  // The declared views as temporary views of this connection (the index is not written): the
  // views as this version declares them, whatever an index from elsewhere holds.
  Status ensure_views();

  // The rows of one of the declared views for a file; `read(stmt, row, column)` reads a row's
  // columns in order, advancing `column`, and is false at the first value of the wrong type.
  template <class Row, class Read>
  Result<std::vector<Row>> view_rows(std::string_view what, const std::string& sql, int64_t file_id,
                                     Read&& read) {
    if (Status st = ensure_views(); !st) {
      return Error{st.error()};
    }
    std::vector<Row> out;
    const Status st = each_row(what, sql, {file_id}, [&](const Stmt& s, int& bad) {
      Row r;
      int c = 0;
      if (!read(s, r, c)) {
        bad = c - 1;
        return Next::bad;
      }
      out.push_back(std::move(r));
      return Next::more;
    });
    if (!st) {
      return Error{st.error()};
    }
    return out;
  }

  Error damaged(std::string_view what, const std::string& detail) const;

  // Runs `sql` with integer `binds` and calls fn(stmt, bad_column) for each row.
  template <class Fn>
  Status each_row(std::string_view what, const std::string& sql,
                  std::initializer_list<int64_t> binds, Fn&& fn) const {
    return each_row_bound(what, sql, bind_integers(binds), std::forward<Fn>(fn));
  }

  // The same with any binds: bind(stmt) binds them.
  template <class Bind, class Fn>
  Status each_row_bound(std::string_view what, const std::string& sql, Bind&& bind, Fn&& fn) const {
    struct Lease {
      StatementCache& cache;
      const std::string& sql;
      Stmt s;
      ~Lease() { cache.give(sql, std::move(s)); }
    } lease{statements, sql, statements.take(db.get(), sql)};
    Stmt& s = lease.s;
    if (!s.ok()) {
      return damaged(what, s.error());
    }
    bind(s);
    for (;;) {
      switch (s.step()) {
      case Step::done:
        return {};
      case Step::error:
        return damaged(what, s.error());
      case Step::row: {
        int bad = -1;
        const Next next = fn(s, bad);
        if (next == Next::bad) {
          const char* column = sqlite3_column_name(s.get(), bad);
          return damaged(what, std::string("column ") + (column != nullptr ? column : "?") +
                                   " holds a value of the wrong type");
        }
        if (next == Next::stop) {
          return {};
        }
        break;
      }
      }
    }
  }

  // Streams the rows of a table matching `where` (with its binds); fn returns false to stop.
  template <class Row>
  Status for_each_row(const std::string& where, std::initializer_list<int64_t> binds,
                      const std::function<bool(const Row&)>& fn) const {
    return for_each_row_bound<Row>(where, bind_integers(binds), fn);
  }

  // The same with any binds: bind(stmt) binds them.
  template <class Row, class Bind>
  Status for_each_row_bound(const std::string& where, Bind&& bind,
                            const std::function<bool(const Row&)>& fn) const {
    const char* table = io::Table<Row>::kName;
    std::optional<Error> failure;
    const Status st =
        each_row_bound(table, std::string("SELECT ") + table + ".* FROM " + table + " " + where,
                       std::forward<Bind>(bind), [&](const Stmt& s, int& bad) {
                         Row r;
                         if (const Next n = read_whole_row(s, r, bad, failure); n != Next::more) {
                           return n;
                         }
                         return fn(r) ? Next::more : Next::stop;
                       });
    if (failure) {
      return *failure;
    }
    return st;
  }

  // Column 0 of the first row of `sql` (integer `binds`) read into `out`, which keeps its value
  // when there is no row; a value of another type is damage.
  template <class T>
  Status first_value(std::string_view what, const std::string& sql,
                     std::initializer_list<int64_t> binds, T& out) const {
    return each_row(what, sql, binds, [&](const Stmt& s, int& bad) {
      if (!read_column(s, 0, out)) {
        bad = 0;
        return Next::bad;
      }
      return Next::stop;
    });
  }

  // The one integer of a counting query (`SELECT count(*) ...`) with integer `binds`.
  Result<int64_t> count(std::string_view what, const std::string& sql,
                        std::initializer_list<int64_t> binds) const;

  // The rows of a table of facts about events (`Row`: `x.*`) of a file in log order, each
  // joined with its event (EventRef columns, then the `extra` columns, from kExtraColumn<Row>):
  // add(stmt, row, ref, bad) takes each and returns what to do.
  template <class Row>
  static constexpr int kExtraColumn = io::Table<Row>::kColumns + kEventRefColumns;
  template <class Row, class Add>
  Status for_each_event_row(int64_t file_id, const char* extra, Add&& add) const {
    constexpr int kRef = io::Table<Row>::kColumns;
    const std::string table = io::Table<Row>::kName;
    return each_row(
        table,
        "SELECT x.*," TORCHSCOPE_EVENT_REF_COLUMNS + std::string(extra) + " FROM " + table +
            " x JOIN events e ON e.id=x.event_id WHERE x.file_id=? ORDER BY x.event_id",
        {file_id}, [&](const Stmt& s, int& bad) {
          Row row;
          EventRef ref;
          if ((bad = io::read_row(s, 0, row)) >= 0 || (bad = read_event_ref(s, kRef, ref)) >= 0) {
            return Next::bad;
          }
          return add(s, std::move(row), ref, bad);
        });
  }

  // Every row of a table matching `where` (with its binds), as the schema's row type.
  template <class Row>
  Result<std::vector<Row>> rows(const std::string& where,
                                std::initializer_list<int64_t> binds) const {
    const char* table = io::Table<Row>::kName;
    std::vector<Row> out;
    std::optional<Error> failure;
    const Status st =
        each_row(table, std::string("SELECT ") + table + ".* FROM " + table + " " + where, binds,
                 [&](const Stmt& s, int& bad) {
                   Row r;
                   const Next n = read_whole_row(s, r, bad, failure);
                   if (n == Next::more) {
                     out.push_back(std::move(r));
                   }
                   return n;
                 });
    if (!st) {
      return Error{st.error()};
    }
    if (failure) {
      return *failure;
    }
    return out;
  }

  // The row of a table with id `id`; nullopt when there is none.
  template <class Row>
  Result<std::optional<Row>> row_by_id(int64_t id) const {
    auto r = rows<Row>("WHERE id=?", {id});
    if (!r) {
      return Error{r.error()};
    }
    return r->empty() ? std::nullopt : std::optional<Row>(std::move(r->front()));
  }

  // The stacks of `roles` of a file's events: event id -> role -> frames. An event with two
  // stacks of one role keeps the first.
  Result<std::unordered_map<int64_t, std::map<StackRole, StackFrames>>>
  stacks_by_event(int64_t file_id, std::string_view roles) const;

  // List fields of a file's events of table `owner`: event id -> field -> items.
  Result<std::unordered_map<int64_t, std::map<std::string, std::vector<std::string>>>>
  lists_by_event(int64_t file_id, std::string_view owner) const;
};

} // namespace tlparse::index::detail
