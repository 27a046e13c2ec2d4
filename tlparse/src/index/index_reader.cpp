// IndexReader: queries over index.sqlite returning the schema's rows. See index_reader.h. Every
// query goes through each_row(), which turns a failed step, a statement that cannot be prepared
// (a table missing) and a value of the wrong type into an error naming the index.
#include "tlparse/index/index_reader.h"

#include "index/payload_store.h"
#include "index/schema_io.gen.h"
#include "index/sqlite_util.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <type_traits>
#include <unordered_map>

namespace tlparse::index {

namespace {

enum class Next { more, stop, bad };

std::optional<uint32_t> u32(const std::optional<int64_t>& v) {
  if (!v || *v < 0 || *v > UINT32_MAX) {
    return std::nullopt;
  }
  return static_cast<uint32_t>(*v);
}

CompileId compile_id_from(const std::optional<int64_t>& caid, const std::optional<int64_t>& frame,
                          const std::optional<int64_t>& frame_compile,
                          const std::optional<int64_t>& attempt) {
  CompileId c;
  c.compiled_autograd_id = u32(caid);
  c.frame_id = u32(frame);
  c.frame_compile_id = u32(frame_compile);
  c.attempt = u32(attempt);
  return c;
}

// The columns after which EventRef columns follow in the joined queries below.
#define TORCHSCOPE_EVENT_REF_COLUMNS                                                               \
  "e.id,e.line,e.cid_valid,e.caid,e.frame_id,e.frame_compile_id,e.attempt,e.key_id"
constexpr int kEventRefColumns = 8;

// Reads an EventRef at column `first`; -1 or the bad column.
int read_event_ref(const Stmt& s, int first, EventRef& out) {
  bool valid = false;
  std::optional<int64_t> caid, frame, frame_compile, attempt;
  if (!read_column(s, first, out.event_id)) {
    return first;
  }
  if (!read_column(s, first + 1, out.line)) {
    return first + 1;
  }
  if (!read_column(s, first + 2, valid)) {
    return first + 2;
  }
  if (!read_column(s, first + 3, caid) || !read_column(s, first + 4, frame) ||
      !read_column(s, first + 5, frame_compile) || !read_column(s, first + 6, attempt)) {
    return first + 3;
  }
  if (!read_column(s, first + 7, out.key_id)) {
    return first + 7;
  }
  out.cid = valid ? std::optional<CompileId>(compile_id_from(caid, frame, frame_compile, attempt))
                  : std::nullopt;
  return -1;
}

// A read-only SQLite URI for a path (SQLite gives '?', '#' and '%' meanings in URIs).
std::string read_only_uri(const std::filesystem::path& path) {
  std::string out = "file:";
  for (const char c : path.string()) {
    if (c == '?' || c == '#' || c == '%') {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", static_cast<unsigned char>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "?mode=ro";
}

// The columns read_metadata() reads, after which nothing else follows.
#define TORCHSCOPE_METADATA_COLUMNS "e.envelope,e.value_offset,e.value_length,e.cut_values"

// Reads stored bytes from columns compressed, size, data at `first`: -1 or the bad column.
// `out` is nullopt when compressed bytes do not inflate to their size.
int read_stored_bytes(const Stmt& s, int first, std::optional<std::string>& out) {
  bool compressed = false;
  int64_t size = 0;
  std::string data;
  if (!read_column(s, first, compressed)) {
    return first;
  }
  if (!read_column(s, first + 1, size)) {
    return first + 1;
  }
  if (!read_blob(s, first + 2, data)) {
    return first + 2;
  }
  out = inflate_payload(compressed, size, data);
  return -1;
}

// The binder (see each_row_bound) of a query whose parameters are integers: `values` bound to
// ?1, ?2, ... in order. It refers to the caller's list, so it serves within the call given it.
auto bind_integers(std::initializer_list<int64_t> values) {
  return [values](Stmt& s) {
    int i = 1;
    for (const int64_t v : values) {
      s.bind(i++, v);
    }
  };
}

} // namespace

std::optional<CompileId> compile_id_of(const Event& e) {
  if (!e.cid_valid) {
    return std::nullopt;
  }
  return compile_id_from(e.caid, e.frame_id, e.frame_compile_id, e.attempt);
}

std::optional<CompileId> compile_id_of(const CompileKey& k) {
  if (k.is_unknown) {
    return std::nullopt;
  }
  return compile_id_from(k.caid, k.frame_id, k.frame_compile_id, k.attempt);
}

std::string raw_jsonl_timestamp(const Event& e, int64_t year) {
  int64_t t = e.time_us;
  const auto microsecond = static_cast<int>(t % 1000000);
  t /= 1000000;
  const auto second = static_cast<int>(t % 60);
  t /= 60;
  const auto minute = static_cast<int>(t % 60);
  const auto hour = static_cast<int>(t / 60);
  char buf[96];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", static_cast<int>(year),
                static_cast<int>(e.month), static_cast<int>(e.day), hour, minute, second,
                microsecond);
  return buf;
}

std::string_view event_metadata(const Event& e) {
  if (!e.value_offset || !e.value_length || *e.value_offset < 0 || *e.value_length < 0 ||
      static_cast<uint64_t>(*e.value_offset) + static_cast<uint64_t>(*e.value_length) >
          e.envelope.size()) {
    return "{}";
  }
  return std::string_view(e.envelope)
      .substr(static_cast<size_t>(*e.value_offset), static_cast<size_t>(*e.value_length));
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

struct IndexReader::Impl {
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
  Result<std::shared_ptr<const std::string>> stored_value(int64_t id) const {
    {
      const std::lock_guard<std::mutex> lock(values_mutex);
      if (const auto it = values.find(id); it != values.end()) {
        return it->second;
      }
    }
    std::optional<std::string> bytes;
    bool found = false;
    const Status st = each_row("payloads", "SELECT compressed,size,data FROM payloads WHERE id=?",
                               {id}, [&](const Stmt& s, int& bad) {
                                 found = true;
                                 bad = read_stored_bytes(s, 0, bytes);
                                 return bad >= 0 ? Next::bad : Next::stop;
                               });
    if (!st) {
      return Error{st.error()};
    }
    if (!found || !bytes) {
      return damaged("stored value " + std::to_string(id),
                     found ? "its compressed bytes do not inflate to its size" : "it is missing");
    }
    auto value = std::make_shared<const std::string>(std::move(*bytes));
    const std::lock_guard<std::mutex> lock(values_mutex);
    if (value_bytes + value->size() > kMaxValueBytes) {
      values.clear();
      value_bytes = 0;
    }
    if (value->size() <= kMaxValueBytes && values.emplace(id, value).second) {
      value_bytes += value->size();
    }
    return value;
  }

  // Puts the values cut out of a stored envelope back (envelope_cuts): the envelope as logged.
  Status restore_envelope(int64_t event_id, int64_t cut_values, std::string& envelope) const {
    if (cut_values == 0) {
      return {};
    }
    const std::string what = "the envelope of event " + std::to_string(event_id);
    std::string whole;
    std::size_t kept = 0;
    int64_t seen = 0;
    std::optional<Error> failure;
    Status st = each_row(
        "envelope_cuts",
        "SELECT byte_offset,value_id FROM envelope_cuts WHERE event_id=? ORDER BY pos", {event_id},
        [&](const Stmt& s, int& bad) {
          int64_t at = 0;
          int64_t value_id = 0;
          if (!read_column(s, 0, at) || !read_column(s, 1, value_id)) {
            bad = read_column(s, 0, at) ? 1 : 0;
            return Next::bad;
          }
          if (at < static_cast<int64_t>(kept) || at > static_cast<int64_t>(envelope.size())) {
            failure = damaged(what, "a value cut at a byte outside it");
            return Next::stop;
          }
          auto value = stored_value(value_id);
          if (!value) {
            failure = Error{value.error()};
            return Next::stop;
          }
          // A tampered index may list one value many times: the envelope stays within what the
          // ingest stores (a line, 16 MB by default; a payload at most kMaxPayloadBytes).
          if (whole.size() + envelope.size() + (*value)->size() > kMaxPayloadBytes) {
            failure = damaged(what, "its values make it larger than any envelope");
            return Next::stop;
          }
          whole.append(envelope, kept, static_cast<std::size_t>(at) - kept);
          whole += **value;
          kept = static_cast<std::size_t>(at);
          ++seen;
          return Next::more;
        });
    if (!st) {
      return st;
    }
    if (failure) {
      return *failure;
    }
    if (seen != cut_values) {
      return damaged(what, std::to_string(seen) + " of its " + std::to_string(cut_values) +
                               " cut values are listed");
    }
    whole.append(envelope, kept);
    envelope = std::move(whole);
    return {};
  }

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
                    std::optional<Error>& failure) const {
    Event e;
    e.id = event_id;
    if (!read_column(s, first, e.envelope) || !read_column(s, first + 1, e.value_offset) ||
        !read_column(s, first + 2, e.value_length) || !read_column(s, first + 3, e.cut_values)) {
      return first;
    }
    if (Status st = complete(e); !st) {
      failure = Error{st.error()};
      return -1;
    }
    out = std::string(event_metadata(e));
    return -1;
  }

  // The temporary tables of the streamed reads (see ensure_temp_table); -1: not built.
  int64_t file_paths_of = -1;
  bool key_outputs_built = false;
  bool temp_pragmas_set = false;

  // Builds a temporary table with `sql` (statements separated by ';', `?` bound to `bind`
  // where given) on this connection: the index file is never written. Temporary tables live in
  // files (temp_store=FILE) behind a small cache, so a million rows cost disk, not heap.
  Status build_temp(std::string_view what, const std::string& drop, const std::string& create,
                    const std::string& fill, std::optional<int64_t> bind) {
    std::string error;
    if (!temp_pragmas_set) {
      if (!db.exec("PRAGMA temp_store=FILE; PRAGMA temp.cache_size=-2048;", &error)) {
        return damaged(what, error);
      }
      temp_pragmas_set = true;
    }
    if (!db.exec(drop.c_str(), &error) || !db.exec(create.c_str(), &error)) {
      return damaged(what, error);
    }
    Stmt s(db.get(), fill.c_str());
    if (!s.ok()) {
      return damaged(what, s.error());
    }
    if (bind) {
      s.bind(1, *bind);
    }
    if (!s.run()) {
      return damaged(what, s.error());
    }
    return {};
  }

  // The declared views as temporary views of this connection (the index is not written): the
  // views as this version declares them, whatever an index from elsewhere holds.
  Status ensure_views() {
    if (views_created) {
      return {};
    }
    std::string error;
    if (!db.exec(io::kTempViews, &error)) {
      return Error{path.string() + ": cannot declare the views (" + error + ")"};
    }
    views_created = true;
    return {};
  }

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

  Error damaged(std::string_view what, const std::string& detail) const {
    return Error{path.string() + ": cannot read " + std::string(what) + " (" + detail +
                 "); the index is damaged or was not written by this version of tlparse: "
                 "rebuild it with `tlparse index`"};
  }

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
                        std::initializer_list<int64_t> binds) const {
    int64_t n = 0;
    if (const Status st = first_value(what, sql, binds, n); !st) {
      return Error{st.error()};
    }
    return n;
  }

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

  // The stacks of `roles` of a file's events: event id -> role -> frames. An event with two
  // stacks of one role keeps the first.
  Result<std::unordered_map<int64_t, std::map<StackRole, StackFrames>>>
  stacks_by_event(int64_t file_id, std::string_view roles) const {
    std::unordered_map<int64_t, std::map<StackRole, StackFrames>> out;
    std::unordered_map<int64_t, StackFrames*> chosen; // stack id -> where its frames go
    const std::string in = "(" + std::string(roles) + ")";
    Status st = each_row(
        "stacks", "SELECT stacks.* FROM stacks WHERE file_id=? AND role IN " + in + " ORDER BY id",
        {file_id}, [&](const Stmt& s, int& bad) {
          Stack x;
          bad = io::read_row(s, 0, x);
          if (bad >= 0) {
            return Next::bad;
          }
          auto& roles_of_event = out[x.event_id];
          if (roles_of_event.find(x.role) == roles_of_event.end()) {
            chosen.emplace(x.id, &roles_of_event[x.role]);
          }
          return Next::more;
        });
    if (!st) {
      return Error{st.error()};
    }
    st = each_row("stack_frames",
                  "SELECT f.* FROM stack_frames f JOIN stacks x ON x.id=f.stack_id WHERE "
                  "x.file_id=? AND x.role IN " +
                      in + " ORDER BY f.stack_id, f.pos",
                  {file_id}, [&](const Stmt& s, int& bad) {
                    StackFrame f;
                    bad = io::read_row(s, 0, f);
                    if (bad >= 0) {
                      return Next::bad;
                    }
                    if (auto it = chosen.find(f.stack_id); it != chosen.end()) {
                      it->second->push_back(std::move(f));
                    }
                    return Next::more;
                  });
    if (!st) {
      return Error{st.error()};
    }
    return out;
  }

  // List fields of a file's events of table `owner`: event id -> field -> items.
  Result<std::unordered_map<int64_t, std::map<std::string, std::vector<std::string>>>>
  lists_by_event(int64_t file_id, std::string_view owner) const {
    std::unordered_map<int64_t, std::map<std::string, std::vector<std::string>>> out;
    const Status st = each_row(
        "metadata_lists",
        "SELECT l.* FROM metadata_lists l JOIN " + std::string(owner) +
            " x ON x.event_id=l.event_id WHERE x.file_id=? ORDER BY l.event_id, l.field, l.pos",
        {file_id}, [&](const Stmt& s, int& bad) {
          MetadataListItem item;
          bad = io::read_row(s, 0, item);
          if (bad >= 0) {
            return Next::bad;
          }
          out[item.event_id][item.field].push_back(std::move(item.value));
          return Next::more;
        });
    if (!st) {
      return Error{st.error()};
    }
    return out;
  }
};

IndexReader::IndexReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
IndexReader::~IndexReader() = default;

namespace {

// A file whose SQLite header promises more pages than it holds was cut short.
std::optional<std::string> truncation(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char h[100] = {};
  if (!in.read(reinterpret_cast<char*>(h), sizeof h)) {
    return std::nullopt; // too short for a header: SQLite says "not a database"
  }
  const auto be32 = [&](int at) {
    return (uint32_t{h[at]} << 24) | (uint32_t{h[at + 1]} << 16) | (uint32_t{h[at + 2]} << 8) |
           uint32_t{h[at + 3]};
  };
  uint64_t page_size = (uint32_t{h[16]} << 8) | h[17];
  if (page_size == 1) {
    page_size = 65536;
  }
  // The page count in the header is valid when its change counter matches (offset 24 vs 92).
  if (be32(24) != be32(92)) {
    return std::nullopt;
  }
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  const uint64_t expected = uint64_t{be32(28)} * page_size;
  if (!ec && expected > size) {
    return "the file is truncated: its header says " + std::to_string(expected) +
           " bytes, it has " + std::to_string(size);
  }
  return std::nullopt;
}

} // namespace

Result<std::unique_ptr<IndexReader>> IndexReader::open(const std::filesystem::path& path) {
  return open(path, OpenOptions());
}

Result<std::unique_ptr<IndexReader>> IndexReader::open(const std::filesystem::path& path,
                                                       const OpenOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return Error{path.string() + ": no such index file"};
  }
  if (auto cut = truncation(path)) {
    return Error{path.string() + ": " + *cut + "; rebuild the index with `tlparse index`"};
  }
  std::string error;
  const int flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI |
                    (options.one_thread ? SQLITE_OPEN_NOMUTEX : SQLITE_OPEN_FULLMUTEX);
  if (!impl->db.open(path.string(), flags, &error)) {
    return Error{path.string() + ": " + error};
  }
  // Is it an index, and of this version?
  std::optional<std::string> version;
  Status st = impl->each_row("meta", "SELECT value FROM meta WHERE key='schema_version'", {},
                             [&](const Stmt& s, int& bad) {
                               std::string v;
                               if (!read_column(s, 0, v)) {
                                 bad = 0;
                                 return Next::bad;
                               }
                               version = v;
                               return Next::stop;
                             });
  if (!st || !version) {
    return Error{path.string() + " is not a torchscope index" +
                 (st ? std::string() : " (" + st.error() + ")")};
  }
  if (*version != std::to_string(kSchemaVersion)) {
    // Indexes are written by the tlparse that reads them: any other version is rebuilt from the
    // logs, never read with another layout.
    const auto number = [](const std::string& v) {
      return !v.empty() && v.size() < 10 && v.find_first_not_of("0123456789") == std::string::npos
                 ? std::optional<int>(std::stoi(v))
                 : std::nullopt;
    };
    const std::optional<int> theirs = number(*version);
    const std::string by = !theirs                    ? "an unknown version of tlparse"
                           : *theirs < kSchemaVersion ? "an older tlparse"
                                                      : "a newer tlparse";
    // Only a number is shown: the text comes from the file and may hold anything.
    return Error{path.string() + ": this index was written by " + by + " (index schema version " +
                 (theirs ? *version : std::string("unknown")) + "; this tlparse reads version " +
                 std::to_string(kSchemaVersion) + "): re-run tlparse on the logs to rebuild it"};
  }
  // Every declared table, with its columns in order and their types.
  for (const io::TableInfo& t : io::kTables) {
    int seen = 0;
    std::string mismatch;
    st = impl->each_row(t.name, std::string("PRAGMA main.table_info(") + t.name + ")", {},
                        [&](const Stmt& s, int&) {
                          const std::string name(s.text_view(1));
                          const std::string type(s.text_view(2));
                          const bool not_null = s.i64(3) != 0;
                          const bool primary = s.i64(5) != 0;
                          if (seen >= t.column_count) {
                            mismatch = "an undeclared column " + name;
                            return Next::stop;
                          }
                          const io::ColumnInfo& c = t.columns[seen++];
                          if (name != c.name || type != c.type || not_null != c.not_null ||
                              primary != c.primary) {
                            mismatch = "column " + name + " " + type + " where " + c.name + " " +
                                       c.type + " is declared";
                          }
                          return mismatch.empty() ? Next::more : Next::stop;
                        });
    if (!st) {
      return Error{st.error()};
    }
    if (seen == 0) {
      return Error{path.string() + ": the table " + t.name +
                   " is missing; the index is damaged (rebuild it with `tlparse index`)"};
    }
    if (mismatch.empty() && seen != t.column_count) {
      mismatch = "only " + std::to_string(seen) + " of its columns";
    }
    if (!mismatch.empty()) {
      return Error{path.string() + ": table " + t.name + " has " + mismatch +
                   "; the index is damaged (rebuild it with `tlparse index`)"};
    }
  }
  if (options.scans_in_order) {
    if (!impl->db.exec("PRAGMA cache_size=-256;", &error)) {
      return Error{path.string() + ": " + error};
    }
  }
  if (!options.search_file.empty()) {
    Stmt attach(impl->db.get(), "ATTACH DATABASE ? AS search");
    const std::string uri = read_only_uri(options.search_file);
    attach.bind(1, std::string_view(uri));
    if (!attach.run()) {
      return Error{options.search_file.string() + ": " + attach.error()};
    }
    impl->search_attached = true;
  }
  return std::unique_ptr<IndexReader>(new IndexReader(std::move(impl)));
}

const std::filesystem::path& IndexReader::path() const {
  return impl_->path;
}

Status IndexReader::check_integrity() const {
  std::string problems;
  const Status st =
      impl_->each_row("the whole file", "PRAGMA quick_check", {}, [&](const Stmt& s, int&) {
        const std::string_view line = s.text_view(0);
        if (line != "ok" && problems.size() < 400) {
          problems += (problems.empty() ? "" : "; ");
          problems += line;
        }
        return Next::more;
      });
  if (!st) {
    return st;
  }
  if (!problems.empty()) {
    return impl_->damaged("the whole file", problems);
  }
  return {};
}

Result<std::vector<File>> IndexReader::files() const {
  return impl_->rows<File>("ORDER BY id", {});
}

Result<std::vector<Compile>> IndexReader::compiles(int64_t file_id) const {
  return impl_->rows<Compile>("WHERE file_id=? ORDER BY ord", {file_id});
}

Result<std::vector<CompileKey>> IndexReader::compile_keys(int64_t file_id) const {
  return impl_->rows<CompileKey>("WHERE file_id=? ORDER BY ord", {file_id});
}

Result<std::vector<Output>> IndexReader::outputs(int64_t file_id) const {
  return impl_->rows<Output>("WHERE file_id=? ORDER BY seq", {file_id});
}

Result<std::optional<Output>> IndexReader::output(int64_t output_id) const {
  auto r = impl_->rows<Output>("WHERE id=?", {output_id});
  if (!r) {
    return Error{r.error()};
  }
  return r->empty() ? std::nullopt : std::optional<Output>(std::move(r->front()));
}

Result<std::optional<Event>> IndexReader::event(int64_t event_id) const {
  auto r = impl_->rows<Event>("WHERE id=?", {event_id});
  if (!r) {
    return Error{r.error()};
  }
  return r->empty() ? std::nullopt : std::optional<Event>(std::move(r->front()));
}

Result<std::optional<std::string>> IndexReader::payload(int64_t event_id) const {
  std::optional<std::string> out;
  bool broken = false;
  const Status st = impl_->each_row(
      "payloads",
      "SELECT p.compressed,p.size,p.data FROM events e JOIN payloads p ON p.id=e.payload_id "
      "WHERE e.id=?",
      {event_id}, [&](const Stmt& s, int& bad) {
        if ((bad = read_stored_bytes(s, 0, out)) >= 0) {
          return Next::bad;
        }
        broken = !out;
        return Next::stop;
      });
  if (!st) {
    return Error{st.error()};
  }
  if (broken) {
    return impl_->damaged("the payload of event " + std::to_string(event_id),
                          "its compressed bytes do not inflate to its size");
  }
  return out;
}

Result<std::optional<std::string>> IndexReader::payload_md5(int64_t event_id) const {
  std::optional<std::string> out;
  if (const Status st = impl_->first_value("events", "SELECT payload_md5 FROM events WHERE id=?",
                                           {event_id}, out);
      !st) {
    return Error{st.error()};
  }
  return out;
}

Status IndexReader::for_each_event(int64_t file_id,
                                   const std::function<bool(const Event&)>& fn) const {
  // The events of a file are read in rowid order over the span of their ids (found in the
  // covering index events_by_file): no sort. Through events_by_file (file_id, line) the rows
  // would come in line order and SQLite would sort them by id, copying every envelope (a 10 MB
  // line several times) into its sorter.
  return impl_->for_each_row<Event>(
      "NOT INDEXED WHERE id BETWEEN (SELECT min(id) FROM events WHERE file_id=?1) AND (SELECT "
      "max(id) FROM events WHERE file_id=?1) AND file_id=?1 ORDER BY id",
      {file_id}, fn);
}

Status IndexReader::for_each_chromium_event(
    int64_t file_id,
    const std::function<bool(const ChromiumEvent&, std::string_view payload)>& fn) const {
  constexpr int kPayload = io::Table<ChromiumEvent>::kColumns;
  bool broken = false;
  const Status st = impl_->each_row(
      "chromium_events",
      "SELECT c.*,p.compressed,p.size,p.data FROM chromium_events c JOIN events e ON "
      "e.id=c.event_id LEFT JOIN payloads p ON p.id=e.payload_id WHERE c.file_id=? ORDER BY "
      "c.event_id",
      {file_id}, [&](const Stmt& s, int& bad) {
        ChromiumEvent c;
        bad = io::read_row(s, 0, c);
        if (bad >= 0) {
          return Next::bad;
        }
        std::optional<std::string> payload;
        if (!s.is_null(kPayload + 2)) {
          if ((bad = read_stored_bytes(s, kPayload, payload)) >= 0) {
            return Next::bad;
          }
          if (!payload) {
            broken = true;
            return Next::stop;
          }
        }
        return fn(c, payload ? std::string_view(*payload) : std::string_view()) ? Next::more
                                                                                : Next::stop;
      });
  if (!st) {
    return st;
  }
  if (broken) {
    return impl_->damaged("a chromium event's payload",
                          "its compressed bytes do not inflate to its size");
  }
  return {};
}

Result<std::vector<std::optional<std::string>>> IndexReader::string_table(int64_t file_id) const {
  std::vector<std::optional<std::string>> out;
  // raw.jsonl's table has max_index+1 slots; a hostile index (4 billion) must not allocate them
  // all, so indexes beyond this bound are left out of the vector (they still resolve stacks).
  const Status st =
      impl_->each_row("strings", "SELECT strings.* FROM strings WHERE file_id=? ORDER BY rowid",
                      {file_id}, [&](const Stmt& s, int& bad) {
                        InternedString row;
                        bad = io::read_row(s, 0, row);
                        if (bad >= 0) {
                          return Next::bad;
                        }
                        if (row.idx < 0 || row.idx >= kMaxStringTableSlots) {
                          return Next::more;
                        }
                        const auto idx = static_cast<size_t>(row.idx);
                        if (idx >= out.size()) {
                          out.resize(idx + 1);
                        }
                        out[idx] = std::move(row.value);
                        return Next::more;
                      });
  if (!st) {
    return Error{st.error()};
  }
  return out;
}

Status IndexReader::for_each_string(
    int64_t file_id, const std::function<bool(int64_t idx, std::string_view value)>& fn) const {
  // Sorted by index, and for one index in logged order: the caller keeps the last of each run.
  return impl_->each_row(
      "strings",
      "SELECT strings.* FROM strings WHERE file_id=? AND idx>=0 AND idx<? ORDER BY idx, rowid",
      {file_id, kMaxStringTableSlots}, [&](const Stmt& s, int& bad) {
        InternedString row;
        bad = io::read_row(s, 0, row);
        if (bad >= 0) {
          return Next::bad;
        }
        return fn(row.idx, row.value) ? Next::more : Next::stop;
      });
}

Result<std::vector<EventStack>> IndexReader::stacks(int64_t file_id, StackRole role) const {
  std::vector<EventStack> out;
  const Status st = for_each_stack(file_id, role, SIZE_MAX, [&](const EventStack& es) {
    out.push_back(es);
    return true;
  });
  if (!st) {
    return Error{st.error()};
  }
  return out;
}

Result<std::vector<MetricsEvent>> IndexReader::compilation_metrics(int64_t file_id) const {
  auto lists = impl_->lists_by_event(file_id, "compilation_metrics");
  if (!lists) {
    return Error{lists.error()};
  }
  std::vector<MetricsEvent> out;
  const Status st = impl_->for_each_event_row<CompilationMetrics>(
      file_id, "", [&](const Stmt&, CompilationMetrics&& row, const EventRef& ref, int&) {
        MetricsEvent m;
        m.event = ref;
        m.metrics = std::move(row);
        if (auto it = lists->find(m.metrics.event_id); it != lists->end()) {
          m.restart_reasons = std::move(it->second["restart_reasons"]);
          m.non_compliant_ops = std::move(it->second["non_compliant_ops"]);
          m.compliant_custom_ops = std::move(it->second["compliant_custom_ops"]);
        }
        out.push_back(std::move(m));
        return Next::more;
      });
  if (!st) {
    return Error{st.error()};
  }
  return out;
}

Result<std::vector<MetricsOtherField>> IndexReader::metrics_other_fields(int64_t event_id) const {
  return impl_->rows<MetricsOtherField>("WHERE event_id=? ORDER BY pos", {event_id});
}

Result<std::vector<RestartOrFailure>> IndexReader::restarts_and_failures(int64_t file_id) const {
  auto metrics = compilation_metrics(file_id);
  if (!metrics) {
    return Error{metrics.error()};
  }
  std::vector<RestartOrFailure> out;
  for (const MetricsEvent& m : *metrics) {
    if (m.metrics.event_key != MetricsKind::compilation_metrics) {
      continue;
    }
    for (const std::string& r : m.restart_reasons) {
      RestartOrFailure row;
      row.cid = m.event.cid;
      row.metrics_output_id = m.metrics.output_id;
      row.is_restart = true;
      row.type_or_reason = r;
      out.push_back(std::move(row));
    }
    if (m.metrics.fail_type) {
      RestartOrFailure row;
      row.cid = m.event.cid;
      row.metrics_output_id = m.metrics.output_id;
      row.type_or_reason = *m.metrics.fail_type;
      row.failure_reason = m.metrics.fail_reason.value_or("");
      row.failure_source = m.metrics.fail_user_frame_filename.value_or("N/A") + ":" +
                           std::to_string(m.metrics.fail_user_frame_lineno.value_or(0));
      out.push_back(std::move(row));
    }
  }
  return out;
}

Result<std::vector<SpecializationEvent>> IndexReader::specializations(int64_t file_id) const {
  auto lists = impl_->lists_by_event(file_id, "specializations");
  if (!lists) {
    return Error{lists.error()};
  }
  auto stacks = impl_->stacks_by_event(file_id, "'stack','user_stack'");
  if (!stacks) {
    return Error{stacks.error()};
  }
  std::vector<SpecializationEvent> out;
  std::optional<Error> failure;
  const Status st = impl_->for_each_event_row<Specialization>(
      file_id, "," TORCHSCOPE_METADATA_COLUMNS,
      [&](const Stmt& s, Specialization&& row, const EventRef& ref, int& bad) {
        SpecializationEvent x;
        x.event = ref;
        x.specialization = std::move(row);
        if ((bad = impl_->read_metadata(s, Impl::kExtraColumn<Specialization>, x.event.event_id,
                                        x.metadata_json, failure)) >= 0) {
          return Next::bad;
        }
        if (failure) {
          return Next::stop;
        }
        if (auto it = lists->find(x.event.event_id); it != lists->end()) {
          x.sources = std::move(it->second["sources"]);
        }
        if (auto it = stacks->find(x.event.event_id); it != stacks->end()) {
          x.stack = std::move(it->second[StackRole::stack]);
          x.user_stack = std::move(it->second[StackRole::user_stack]);
        }
        out.push_back(std::move(x));
        return Next::more;
      });
  if (!st) {
    return Error{st.error()};
  }
  if (failure) {
    return *failure;
  }
  return out;
}

Result<std::vector<GuardAddedFastEvent>> IndexReader::guards_added_fast(int64_t file_id) const {
  auto stacks = impl_->stacks_by_event(file_id, "'stack','user_stack'");
  if (!stacks) {
    return Error{stacks.error()};
  }
  std::vector<GuardAddedFastEvent> out;
  const Status st = impl_->for_each_event_row<GuardAddedFast>(
      file_id, "", [&](const Stmt&, GuardAddedFast&& row, const EventRef& ref, int&) {
        GuardAddedFastEvent g;
        g.event = ref;
        g.guard = std::move(row);
        if (auto it = stacks->find(g.event.event_id); it != stacks->end()) {
          g.stack = std::move(it->second[StackRole::stack]);
          g.user_stack = std::move(it->second[StackRole::user_stack]);
        }
        out.push_back(std::move(g));
        return Next::more;
      });
  if (!st) {
    return Error{st.error()};
  }
  return out;
}

Result<std::vector<SymbolEvent>> IndexReader::created_symbols(int64_t file_id) const {
  std::vector<SymbolEvent> out;
  const Status st = impl_->for_each_event_row<CreatedSymbol>(
      file_id, ",e.kind", [&](const Stmt& s, CreatedSymbol&& row, const EventRef& ref, int& bad) {
        SymbolEvent x;
        x.event = ref;
        x.symbol = std::move(row);
        if (!read_column(s, Impl::kExtraColumn<CreatedSymbol>, x.event_key)) {
          bad = Impl::kExtraColumn<CreatedSymbol>;
          return Next::bad;
        }
        out.push_back(std::move(x));
        return Next::more;
      });
  if (!st) {
    return Error{st.error()};
  }
  return out;
}

Result<std::vector<CacheEvent>> IndexReader::cache_events(int64_t file_id) const {
  return impl_->rows<CacheEvent>("WHERE file_id=? ORDER BY event_id", {file_id});
}

Result<std::vector<RecompileReason>> IndexReader::recompile_reasons(int64_t file_id) const {
  return impl_->rows<RecompileReason>("WHERE file_id=? ORDER BY event_id, pos", {file_id});
}

Result<std::vector<GraphBreak>> IndexReader::graph_breaks(int64_t file_id) const {
  return impl_->rows<GraphBreak>("WHERE file_id=? ORDER BY event_id", {file_id});
}

Status IndexReader::for_each_span(int64_t file_id,
                                  const std::function<bool(const Span&)>& fn) const {
  return impl_->for_each_row<Span>("WHERE file_id=? ORDER BY start_us, id", {file_id}, fn);
}

Result<SpanExtent> IndexReader::span_extent(int64_t file_id,
                                            std::optional<int64_t> compile_id) const {
  // One pass over the file's (or the compile's) spans, by the spans_by_file or
  // spans_by_compile index.
  const std::string sql =
      std::string("SELECT COUNT(*), MIN(start_us), MAX(start_us + COALESCE(duration_us, 0)), "
                  "MAX(duration_us), MIN(CASE WHEN duration_us IS NULL THEN start_us END) "
                  "FROM spans WHERE file_id=?") +
      (compile_id ? " AND compile_id=?" : "");
  SpanExtent out;
  const Status st = impl_->each_row_bound(
      "spans", sql,
      [&](Stmt& s) {
        s.bind(1, file_id);
        if (compile_id) {
          s.bind(2, *compile_id);
        }
      },
      [&](const Stmt& s, int& bad) {
        std::optional<double> start, end, longest, first_unclosed;
        if (!read_column(s, 0, out.spans)) {
          bad = 0;
        } else if (!read_column(s, 1, start)) {
          bad = 1;
        } else if (!read_column(s, 2, end)) {
          bad = 2;
        } else if (!read_column(s, 3, longest)) {
          bad = 3;
        } else if (!read_column(s, 4, first_unclosed)) {
          bad = 4;
        }
        if (bad >= 0) {
          return Next::bad;
        }
        out.start_us = start.value_or(0);
        out.end_us = end.value_or(out.start_us);
        out.longest_us =
            std::max(longest.value_or(0), first_unclosed ? out.end_us - *first_unclosed : 0.0);
        return Next::stop;
      });
  if (!st) {
    return Error{st.error()};
  }
  return out;
}

Status IndexReader::for_each_span_in(int64_t file_id, const SpanWindowQuery& q,
                                     const std::function<bool(const Span&)>& fn) const {
  // A span overlapping the window starts at most `longest_us` before it: the start range is
  // what the spans_by_file index narrows; the rest is checked row by row. An unclosed span
  // reaches the file's end, which is past any window. One compile's spans come by
  // spans_by_compile instead (the unary + keeps SQLite from walking spans_by_file for the start
  // range, which would read every span of the file in the window).
  const std::string start = q.compile_id ? "+start_us" : "start_us";
  const std::string where =
      std::string("WHERE file_id=?1") + (q.compile_id ? " AND compile_id=?6" : "") + " AND " +
      start + " >= ?2 AND " + start +
      " <= ?3 AND (duration_us IS NULL OR (duration_us >= ?4 AND start_us + duration_us >= ?5)) "
      "ORDER BY duration_us IS NOT NULL, duration_us DESC, start_us, id";
  return impl_->for_each_row_bound<Span>(
      where,
      [&](Stmt& s) {
        s.bind(1, file_id);
        s.bind(2, q.start_us - std::max(q.extent.longest_us, 0.0));
        s.bind(3, q.end_us);
        s.bind(4, q.min_duration_us);
        s.bind(5, q.start_us);
        if (q.compile_id) {
          s.bind(6, *q.compile_id);
        }
      },
      fn);
}

Result<std::vector<RecompileExplained>> IndexReader::recompiles_explained(int64_t file_id) const {
  return impl_->view_rows<RecompileExplained>(
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

Result<std::vector<GraphBreakSummary>> IndexReader::graph_break_summary(int64_t file_id) const {
  return impl_->view_rows<GraphBreakSummary>(
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

Status
IndexReader::query(const std::string& sql,
                   const std::function<void(const std::vector<std::string>& columns)>& on_columns,
                   const std::function<bool(const std::vector<QueryValue>& row)>& on_row,
                   const QueryOptions& options) const {
  if (Status st = impl_->ensure_views(); !st) {
    return st;
  }
  // A caller's query groups and sorts whole tables: a larger page cache and in-memory temporary
  // b-trees keep that off the disk (this connection only, set once; the index is unchanged).
  if (!impl_->query_pragmas_set) {
    std::string error;
    if (!impl_->db.exec("PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY;", &error)) {
      return Error{impl_->path.string() + ": " + error};
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
      const auto* impl = static_cast<const Impl*>(sqlite3_user_data(c));
      auto v = impl->stored_value(sqlite3_value_int64(argv[0]));
      sql_text_result(c, v ? Result<std::string>(**v) : Result<std::string>(Error{v.error()}));
    };
    const SqlFunction logged_envelope = [](sqlite3_context* c, int, sqlite3_value** argv) {
      const auto* impl = static_cast<const Impl*>(sqlite3_user_data(c));
      const int64_t id = sqlite3_value_int64(argv[0]);
      auto e = impl->rows<Event>("WHERE id=?", {id});
      if (e && e->empty()) {
        sqlite3_result_null(c);
        return;
      }
      sql_text_result(c, e ? Result<std::string>(e->front().envelope)
                           : Result<std::string>(Error{e.error()}));
    };
    for (const auto& [name, fn] :
         {std::pair{"stored_value", stored_value}, std::pair{"logged_envelope", logged_envelope}}) {
      if (sqlite3_create_function_v2(impl_->db.get(), name, 1, SQLITE_UTF8, impl_.get(), fn,
                                     nullptr, nullptr, nullptr) != SQLITE_OK) {
        return Error{impl_->path.string() + ": " + sqlite3_errmsg(impl_->db.get())};
      }
    }
    impl_->query_pragmas_set = true;
  }
  sqlite3* db = impl_->db.get();
  struct Guard {
    sqlite3* db;
    ~Guard() {
      sqlite3_set_authorizer(db, nullptr, nullptr);
      sqlite3_progress_handler(db, 0, nullptr, nullptr);
    }
  } guard{db};
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

Result<std::vector<Span>> IndexReader::spans(int64_t file_id) const {
  return impl_->rows<Span>("WHERE file_id=? ORDER BY start_us, id", {file_id});
}

Result<Stats> IndexReader::stats(int64_t file_id) const {
  auto counters = health(file_id);
  if (!counters) {
    return Error{counters.error()};
  }
  Stats st;
  for (const HealthCounter& h : *counters) {
    uint64_t* slot = st.counter(h.counter);
    if (slot != nullptr) {
      *slot = static_cast<uint64_t>(std::max<int64_t>(0, h.count));
    }
  }
  return st;
}

Result<std::vector<HealthCounter>> IndexReader::health(int64_t file_id) const {
  return impl_->rows<HealthCounter>("WHERE file_id=? ORDER BY rowid", {file_id});
}

Result<std::vector<UnknownKey>> IndexReader::unknown_keys(int64_t file_id) const {
  return impl_->rows<UnknownKey>("WHERE file_id=? ORDER BY first_line, key", {file_id});
}

Result<std::vector<Event>> IndexReader::runtime_metrics_events(int64_t key_id) const {
  return impl_->rows<Event>("WHERE key_id=? AND kind IN ('compilation_metrics_runtime', "
                            "'bwd_compilation_metrics_runtime') ORDER BY id",
                            {key_id});
}

Result<std::vector<Event>> IndexReader::memoizer_artifact_events(int64_t key_id) const {
  return impl_->rows<Event>("WHERE key_id=? AND kind='memoizer_artifacts' ORDER BY id", {key_id});
}

Result<int64_t> IndexReader::memoizer_artifact_count(int64_t key_id) const {
  return impl_->count("events",
                      "SELECT count(*) FROM events WHERE key_id=? AND kind='memoizer_artifacts'",
                      {key_id});
}

Result<int64_t> IndexReader::chromium_event_count(int64_t file_id) const {
  return impl_->count("chromium_events", "SELECT count(*) FROM chromium_events WHERE file_id=?",
                      {file_id});
}

Result<std::vector<BadLine>> IndexReader::bad_lines(int64_t file_id, int64_t limit) const {
  return impl_->rows<BadLine>("WHERE file_id=? ORDER BY rowid LIMIT ?", {file_id, limit});
}

bool IndexReader::has_search_table() const {
  for (const char* schema : {"main", "search"}) {
    if (std::string_view(schema) == "search" && !impl_->search_attached) {
      continue;
    }
    const std::string sql =
        std::string("SELECT 1 FROM ") + schema + ".sqlite_master WHERE name='payload_fts'";
    Stmt s(impl_->db.get(), sql.c_str());
    if (s.step() == Step::row) {
      return true;
    }
  }
  return false;
}

Result<std::vector<PayloadMatch>> IndexReader::search(const std::string& query, int64_t after,
                                                      int64_t limit, int64_t max_uses,
                                                      bool snippets) const {
  std::vector<PayloadMatch> out;
  if (!has_search_table()) {
    return Error{impl_->path.string() + " has no search table (build one with tlparse index "
                                        "--fts, or a search file)"};
  }
  bool in_main = false;
  {
    Stmt s(impl_->db.get(), "SELECT 1 FROM main.sqlite_master WHERE name='payload_fts'");
    in_main = s.step() == Step::row;
  }
  const std::string table = in_main ? "main.payload_fts" : "search.payload_fts";
  // FTS5 yields matches in rowid order, so ORDER BY rowid with LIMIT stops after one page and
  // computes snippets for that page only.
  const std::string sql = std::string("SELECT rowid,payload_id,") +
                          (snippets ? "snippet(payload_fts,0,'[',']','...',12)" : "''") + " FROM " +
                          table + " WHERE payload_fts MATCH ? AND rowid>? ORDER BY rowid LIMIT ?";
  Stmt m(impl_->db.get(), sql.c_str());
  Stmt uses(impl_->db.get(),
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
        return impl_->damaged("search hits", "a value of the wrong type");
      }
      use.compile_display = display.value_or("");
      p.uses.push_back(std::move(use));
    }
    if (u == Step::error) {
      return impl_->damaged("search hits", uses.error());
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

Status IndexReader::build_search_file(const std::filesystem::path& index,
                                      const std::filesystem::path& search_file) {
  // Checks the index first: a damaged one is reported as such, not as a search failure.
  if (auto reader = open(index); !reader) {
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

// ---- Streamed reads (see index_reader.h) ----

Result<int64_t> IndexReader::output_count(int64_t file_id) const {
  return impl_->count("outputs", "SELECT COUNT(*) FROM outputs WHERE file_id=?", {file_id});
}

Status IndexReader::for_each_output(int64_t file_id,
                                    const std::function<bool(const Output&)>& fn) const {
  return impl_->for_each_row<Output>("WHERE file_id=? ORDER BY seq", {file_id}, fn);
}

Status IndexReader::for_each_output_path(int64_t file_id,
                                         const std::function<bool(const OutputPath&)>& fn) const {
  OutputPath p;
  return impl_->each_row("outputs",
                         "SELECT path,MIN(seq),COUNT(*) FROM outputs WHERE file_id=? AND "
                         "kind<>'link' GROUP BY path ORDER BY path",
                         {file_id}, [&](const Stmt& s, int& bad) {
                           if (!read_column(s, 0, p.path)) {
                             bad = 0;
                             return Next::bad;
                           }
                           if (!read_column(s, 1, p.first_seq)) {
                             bad = 1;
                             return Next::bad;
                           }
                           p.writers = s.i64(2);
                           return fn(p) ? Next::more : Next::stop;
                         });
}

Result<std::vector<int64_t>> IndexReader::overwritten_outputs(int64_t file_id) const {
  std::vector<int64_t> out;
  const Status st = impl_->each_row(
      "outputs",
      "SELECT seq FROM (SELECT seq,ROW_NUMBER() OVER (PARTITION BY path ORDER BY seq DESC) AS "
      "later FROM outputs WHERE file_id=? AND kind<>'link') WHERE later>1 ORDER BY seq",
      {file_id}, [&](const Stmt& s, int& bad) {
        int64_t seq = 0;
        if (!read_column(s, 0, seq)) {
          bad = 0;
          return Next::bad;
        }
        out.push_back(seq);
        return Next::more;
      });
  if (!st) {
    return Error{st.error()};
  }
  return out;
}

Status IndexReader::for_each_output_path_at(int64_t file_id, std::string_view path, bool as_folder,
                                            const std::function<bool(std::string_view)>& fn) const {
  if (impl_->file_paths_of != file_id) {
    Status st = impl_->build_temp(
        "the output paths", "DROP TABLE IF EXISTS temp.report_file_paths",
        "CREATE TEMP TABLE report_file_paths(path TEXT PRIMARY KEY) WITHOUT ROWID",
        "INSERT OR IGNORE INTO temp.report_file_paths SELECT path FROM main.outputs WHERE "
        "file_id=? AND kind<>'link' AND typeof(path)='text'",
        file_id);
    if (!st) {
      return st;
    }
    impl_->file_paths_of = file_id;
  }
  // A folder's contents are the paths in ["P/", "P0"): '0' follows '/' in byte order.
  const std::string sql =
      as_folder ? "SELECT path FROM temp.report_file_paths WHERE path>=?1||'/' AND path<?1||'0' "
                  "ORDER BY path"
                : "SELECT path FROM temp.report_file_paths WHERE path=?1";
  return impl_->each_row_bound(
      "the output paths", sql, [&](Stmt& s) { s.bind(1, path); },
      [&](const Stmt& s, int&) { return fn(s.text_view(0)) ? Next::more : Next::stop; });
}

namespace {
// ", NULL" n times.
std::string nulls(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    out += ",NULL";
  }
  return out;
}
} // namespace

Status IndexReader::for_each_key_with_outputs(
    int64_t file_id, KeyOrder order,
    const std::function<bool(const CompileKey&, const Output*)>& fn) const {
  constexpr int kKey = io::Table<CompileKey>::kColumns;
  constexpr int kOut = io::Table<Output>::kColumns;
  constexpr int kFirst = 8; // is_output, display, ord, key id, group, subgraph, seq, output id
  // A subgraph's outputs sort after the entry's others, by the seq of the group's first one.
  const std::string group = order == KeyOrder::first_seen
                                ? "CASE WHEN o.subgraph IS NULL THEN -1 ELSE MIN(o.seq) OVER "
                                  "(PARTITION BY o.key_id,o.subgraph) END,o.subgraph"
                                : "-1,NULL";
  const std::string sql =
      "SELECT 0,k.display,k.ord,k.id,-2,NULL,-1,-1,k.*" + nulls(kOut) +
      " FROM compile_keys k WHERE k.file_id=?1 UNION ALL SELECT 1,k.display,k.ord,k.id," + group +
      ",o.seq,o.id" + nulls(kKey) +
      ",o.* FROM outputs o JOIN compile_keys k ON k.id=o.key_id WHERE o.file_id=?1 AND "
      "k.file_id=?1 AND o.in_directory ORDER BY " +
      (order == KeyOrder::display ? "2,3,4,5,6,7,8" : "3,4,5,6,7,8");
  CompileKey key;
  bool have_key = false;
  Output o;
  return impl_->each_row("the compile directory", sql, {file_id}, [&](const Stmt& s, int& bad) {
    if (s.i64(0) == 0) {
      bad = io::read_row(s, kFirst, key);
      if (bad >= 0) {
        return Next::bad;
      }
      have_key = true;
      return fn(key, nullptr) ? Next::more : Next::stop;
    }
    bad = io::read_row(s, kFirst + kKey, o);
    if (bad >= 0) {
      return Next::bad;
    }
    if (!have_key) {
      return Next::more; // an output of an entry of another file: not this file's
    }
    return fn(key, &o) ? Next::more : Next::stop;
  });
}

Status
IndexReader::for_each_listed_output_of_key(int64_t key_id, int64_t before_seq,
                                           const std::function<bool(const Output&)>& fn) const {
  if (!impl_->key_outputs_built) {
    Status st = impl_->build_temp(
        "the outputs by compile", "DROP TABLE IF EXISTS temp.report_key_outputs",
        "CREATE TEMP TABLE report_key_outputs(key_id INTEGER, seq INTEGER, id INTEGER, PRIMARY "
        "KEY(key_id,seq,id)) WITHOUT ROWID",
        "INSERT OR IGNORE INTO temp.report_key_outputs SELECT key_id,seq,id FROM main.outputs "
        "WHERE key_id IS NOT NULL AND in_directory",
        std::nullopt);
    if (!st) {
      return st;
    }
    impl_->key_outputs_built = true;
  }
  return impl_->for_each_row<Output>(
      "JOIN temp.report_key_outputs t ON t.id=outputs.id WHERE t.key_id=? AND t.seq<? ORDER BY "
      "t.seq,t.id",
      {key_id, before_seq}, fn);
}

Status IndexReader::for_each_compile(int64_t file_id,
                                     const std::function<bool(const Compile&)>& fn) const {
  return impl_->for_each_row<Compile>("WHERE file_id=? ORDER BY ord", {file_id}, fn);
}

Result<std::optional<Compile>> IndexReader::compile(int64_t compile_id) const {
  auto r = impl_->rows<Compile>("WHERE id=?", {compile_id});
  if (!r) {
    return Error{r.error()};
  }
  return r->empty() ? std::nullopt : std::optional<Compile>(std::move(r->front()));
}

Status IndexReader::for_each_compile_by_frame(
    int64_t file_id, const std::function<bool(const Compile&, int64_t)>& fn) const {
  constexpr int kCompile = io::Table<Compile>::kColumns;
  Compile c;
  return impl_->each_row(
      "compiles",
      "SELECT c.*,COUNT(*) OVER w,MIN(c.ord) OVER w AS first FROM compiles c WHERE c.file_id=? "
      "AND c.scope='compile' WINDOW w AS (PARTITION BY COALESCE(c.caid,-1),"
      "COALESCE(c.frame_id,-1)) ORDER BY first,c.ord",
      {file_id}, [&](const Stmt& s, int& bad) {
        bad = io::read_row(s, 0, c);
        if (bad >= 0) {
          return Next::bad;
        }
        return fn(c, s.i64(kCompile)) ? Next::more : Next::stop;
      });
}

Status IndexReader::for_each_compile_with_artifacts(
    int64_t file_id,
    const std::function<bool(const Compile&, const std::vector<std::string>&)>& fn) const {
  constexpr int kCompile = io::Table<Compile>::kColumns;
  constexpr int kFirst = 4; // is_artifact, ord, compile id, artifact
  // Each compile's row, then its distinct artifacts: one sort, no join on an unindexed column.
  const std::string sql =
      "SELECT 0,c.ord,c.id,NULL,c.* FROM compiles c WHERE c.file_id=?1 UNION ALL SELECT DISTINCT "
      "1,c.ord,c.id,o.artifact" +
      nulls(kCompile) +
      " FROM outputs o JOIN compile_keys k ON k.id=o.key_id JOIN compiles c ON c.id=k.compile_id "
      "WHERE o.file_id=?1 AND k.file_id=?1 AND c.file_id=?1 ORDER BY 2,3,1,4";
  Compile c;
  std::vector<std::string> artifacts;
  bool pending = false;
  bool stopped = false;
  const Status st = impl_->each_row("compiles", sql, {file_id}, [&](const Stmt& s, int& bad) {
    if (s.i64(0) == 0) {
      if (pending && !fn(c, artifacts)) {
        stopped = true;
        return Next::stop;
      }
      bad = io::read_row(s, kFirst, c);
      if (bad >= 0) {
        return Next::bad;
      }
      artifacts.clear();
      pending = true;
      return Next::more;
    }
    std::string a;
    if (!read_column(s, 3, a)) {
      bad = 3;
      return Next::bad;
    }
    if (pending && s.i64(2) == c.id) {
      artifacts.push_back(std::move(a));
    }
    return Next::more;
  });
  if (!st) {
    return st;
  }
  if (pending && !stopped) {
    fn(c, artifacts);
  }
  return {};
}

Status IndexReader::for_each_stack(int64_t file_id, StackRole role, std::size_t max_frames,
                                   const std::function<bool(const EventStack&)>& fn) const {
  constexpr int kFrame = 2 + kEventRefColumns;
  EventStack es;
  bool pending = false;
  bool stopped = false;
  const Status st = impl_->each_row(
      "stacks",
      std::string("SELECT x.id,k.compile_id," TORCHSCOPE_EVENT_REF_COLUMNS
                  ",f.* FROM stacks x JOIN events e ON e.id=x.event_id LEFT JOIN compile_keys k "
                  "ON k.id=e.key_id LEFT JOIN stack_frames f ON f.stack_id=x.id WHERE "
                  "x.file_id=? AND x.role='") +
          std::string(to_string(role)) + "' ORDER BY x.id,f.pos",
      {file_id}, [&](const Stmt& s, int& bad) {
        int64_t id = 0;
        if (!read_column(s, 0, id)) {
          bad = 0;
          return Next::bad;
        }
        if (pending && id != es.stack_id) {
          if (!fn(es)) {
            stopped = true;
            return Next::stop;
          }
          pending = false;
        }
        if (!pending) {
          es = EventStack();
          es.stack_id = id;
          if (!read_column(s, 1, es.compile_id)) {
            bad = 1;
            return Next::bad;
          }
          if ((bad = read_event_ref(s, 2, es.event)) >= 0) {
            return Next::bad;
          }
          pending = true;
        }
        if (!s.is_null(kFrame) && es.frames.size() < max_frames) {
          StackFrame f;
          if ((bad = io::read_row(s, kFrame, f)) >= 0) {
            return Next::bad;
          }
          es.frames.push_back(std::move(f));
        }
        return Next::more;
      });
  if (!st) {
    return st;
  }
  if (pending && !stopped) {
    fn(es);
  }
  return {};
}

Result<StackFrames> IndexReader::stack_frames(int64_t stack_id, std::size_t max_frames) const {
  StackFrames out;
  const Status st = impl_->for_each_row<StackFrame>(
      "WHERE stack_id=? ORDER BY pos LIMIT ?",
      {stack_id, static_cast<int64_t>(std::min<std::size_t>(max_frames, INT64_MAX))},
      [&](const StackFrame& f) {
        out.push_back(f);
        return true;
      });
  if (!st) {
    return Error{st.error()};
  }
  return out;
}

} // namespace tlparse::index
