// OutputsReader: outputs, events, payloads and strings (outputs_reader.h).
#include "tlparse/index/outputs_reader.h"

#include "index/reader_core.h"

#include <cstdio>

namespace tlparse::index {

using namespace detail;

std::optional<CompileId> compile_id_of(const Event& e) {
  if (!e.cid_valid) {
    return std::nullopt;
  }
  return compile_id_from(e.caid, e.frame_id, e.frame_compile_id, e.attempt);
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

Result<std::vector<Output>> OutputsReader::outputs(int64_t file_id) const {
  return core_->rows<Output>("WHERE file_id=? ORDER BY seq", {file_id});
}

Result<std::optional<Output>> OutputsReader::output(int64_t output_id) const {
  return core_->row_by_id<Output>(output_id);
}

Result<int64_t> OutputsReader::output_count(int64_t file_id) const {
  return core_->count("outputs", "SELECT COUNT(*) FROM outputs WHERE file_id=?", {file_id});
}

Status OutputsReader::for_each_output(int64_t file_id,
                                      const std::function<bool(const Output&)>& fn) const {
  return core_->for_each_row<Output>("WHERE file_id=? ORDER BY seq", {file_id}, fn);
}

Status OutputsReader::for_each_output_path(int64_t file_id,
                                           const std::function<bool(const OutputPath&)>& fn) const {
  OutputPath p;
  return core_->each_row("outputs",
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

Result<std::vector<int64_t>> OutputsReader::overwritten_outputs(int64_t file_id) const {
  std::vector<int64_t> out;
  const Status st = core_->each_row(
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

Status
OutputsReader::for_each_output_path_at(int64_t file_id, std::string_view path, bool as_folder,
                                       const std::function<bool(std::string_view)>& fn) const {
  if (core_->file_paths_of != file_id) {
    Status st = core_->build_temp(
        "the output paths", "DROP TABLE IF EXISTS temp.report_file_paths",
        "CREATE TEMP TABLE report_file_paths(path TEXT PRIMARY KEY) WITHOUT ROWID",
        "INSERT OR IGNORE INTO temp.report_file_paths SELECT path FROM main.outputs WHERE "
        "file_id=? AND kind<>'link' AND typeof(path)='text'",
        file_id);
    if (!st) {
      return st;
    }
    core_->file_paths_of = file_id;
  }
  // A folder's contents are the paths in ["P/", "P0"): '0' follows '/' in byte order.
  const std::string sql =
      as_folder ? "SELECT path FROM temp.report_file_paths WHERE path>=?1||'/' AND path<?1||'0' "
                  "ORDER BY path"
                : "SELECT path FROM temp.report_file_paths WHERE path=?1";
  return core_->each_row_bound(
      "the output paths", sql, [&](Stmt& s) { s.bind(1, path); },
      [&](const Stmt& s, int&) { return fn(s.text_view(0)) ? Next::more : Next::stop; });
}

Status OutputsReader::for_each_key_with_outputs(
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
  return core_->each_row("the compile directory", sql, {file_id}, [&](const Stmt& s, int& bad) {
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
OutputsReader::for_each_listed_output_of_key(int64_t key_id, int64_t before_seq,
                                             const std::function<bool(const Output&)>& fn) const {
  if (!core_->key_outputs_built) {
    Status st = core_->build_temp(
        "the outputs by compile", "DROP TABLE IF EXISTS temp.report_key_outputs",
        "CREATE TEMP TABLE report_key_outputs(key_id INTEGER, seq INTEGER, id INTEGER, PRIMARY "
        "KEY(key_id,seq,id)) WITHOUT ROWID",
        "INSERT OR IGNORE INTO temp.report_key_outputs SELECT key_id,seq,id FROM main.outputs "
        "WHERE key_id IS NOT NULL AND in_directory",
        std::nullopt);
    if (!st) {
      return st;
    }
    core_->key_outputs_built = true;
  }
  return core_->for_each_row<Output>(
      "JOIN temp.report_key_outputs t ON t.id=outputs.id WHERE t.key_id=? AND t.seq<? ORDER BY "
      "t.seq,t.id",
      {key_id, before_seq}, fn);
}

Result<std::optional<Event>> OutputsReader::event(int64_t event_id) const {
  return core_->row_by_id<Event>(event_id);
}

Result<std::optional<std::string>> OutputsReader::payload(int64_t event_id) const {
  std::optional<std::string> out;
  bool broken = false;
  const Status st = core_->each_row(
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
    return core_->damaged("the payload of event " + std::to_string(event_id),
                          "its compressed bytes do not inflate to its size");
  }
  return out;
}

Result<std::optional<std::string>> OutputsReader::payload_md5(int64_t event_id) const {
  std::optional<std::string> out;
  if (const Status st = core_->first_value("events", "SELECT payload_md5 FROM events WHERE id=?",
                                           {event_id}, out);
      !st) {
    return Error{st.error()};
  }
  return out;
}

Status OutputsReader::for_each_event(int64_t file_id,
                                     const std::function<bool(const Event&)>& fn) const {
  // The events of a file are read in rowid order over the span of their ids (found in the
  // covering index events_by_file): no sort. Through events_by_file (file_id, line) the rows
  // would come in line order and SQLite would sort them by id, copying every envelope (a 10 MB
  // line several times) into its sorter.
  return core_->for_each_row<Event>(
      "NOT INDEXED WHERE id BETWEEN (SELECT min(id) FROM events WHERE file_id=?1) AND (SELECT "
      "max(id) FROM events WHERE file_id=?1) AND file_id=?1 ORDER BY id",
      {file_id}, fn);
}

Status OutputsReader::for_each_chromium_event(
    int64_t file_id,
    const std::function<bool(const ChromiumEvent&, std::string_view payload)>& fn) const {
  constexpr int kPayload = io::Table<ChromiumEvent>::kColumns;
  bool broken = false;
  const Status st = core_->each_row(
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
    return core_->damaged("a chromium event's payload",
                          "its compressed bytes do not inflate to its size");
  }
  return {};
}

Result<int64_t> OutputsReader::chromium_event_count(int64_t file_id) const {
  return core_->count("chromium_events", "SELECT count(*) FROM chromium_events WHERE file_id=?",
                      {file_id});
}

Result<std::vector<std::optional<std::string>>> OutputsReader::string_table(int64_t file_id) const {
  std::vector<std::optional<std::string>> out;
  // raw.jsonl's table has max_index+1 slots; a hostile index (4 billion) must not allocate them
  // all, so indexes beyond this bound are left out of the vector (they still resolve stacks).
  const Status st =
      core_->each_row("strings", "SELECT strings.* FROM strings WHERE file_id=? ORDER BY rowid",
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

Status OutputsReader::for_each_string(
    int64_t file_id, const std::function<bool(int64_t idx, std::string_view value)>& fn) const {
  // Sorted by index, and for one index in logged order: the caller keeps the last of each run.
  return core_->each_row(
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

} // namespace tlparse::index
