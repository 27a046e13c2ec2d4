// IndexReader: queries over index.sqlite returning plain values. See index_reader.h.
#include "tlparse/index/index_reader.h"

#include "index/sqlite_util.h"
#include "ingest/envelope.h"
#include "tlparse/index_schema.gen.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <simdjson.h>
#include <zlib.h>

namespace tlparse::index {

namespace {

constexpr const char* kEventCols =
    "e.id,e.file_id,e.line,e.status,e.kind,e.known,e.cid_valid,e.caid,e.frame_id,"
    "e.frame_compile_id,e.attempt,e.key_id,e.rank,e.level,e.month,e.day,e.time_us,e.thread,"
    "e.pathname,e.source_line,e.envelope,e.payload_md5,e.payload_id,e.payload_filename,"
    "e.in_raw_jsonl";

std::optional<uint32_t> opt_u32(const Stmt& s, int c) {
  return s.is_null(c) ? std::nullopt : std::optional<uint32_t>(static_cast<uint32_t>(s.i64(c)));
}

std::optional<CompileId> cid_at(const Stmt& s, int valid_col, int first) {
  if (valid_col >= 0 && s.i64(valid_col) == 0) {
    return std::nullopt;
  }
  CompileId c;
  c.compiled_autograd_id = opt_u32(s, first);
  c.frame_id = opt_u32(s, first + 1);
  c.frame_compile_id = opt_u32(s, first + 2);
  c.attempt = opt_u32(s, first + 3);
  return c;
}

// The leading columns of every per-event query below, so one function maps them:
// 0 event id, 1 line, 2-6 compile id (cid_valid, caid, frame, frame compile, attempt), 7 key id.
#define TORCHSCOPE_EVENT_REF_COLS                                                                  \
  "x.event_id,e.line,e.cid_valid,e.caid,e.frame_id,e.frame_compile_id,e.attempt,e.key_id"
constexpr int kFirstOwnCol = 8;

template <class T>
void read_event_ref(const Stmt& s, T& row) {
  row.event_id = s.i64(0);
  if constexpr (requires { row.line; }) {
    row.line = s.i64(1);
  }
  row.cid = cid_at(s, 2, 3);
  if constexpr (requires { row.key_id; }) {
    row.key_id = s.opt_i64(7);
  }
}

// Runs a query over one file (`file_id` bound to ?1) and maps each row with `map`.
template <class T, class Map>
std::vector<T> rows_of_file(sqlite3* db, const char* sql, int64_t file_id, Map&& map) {
  std::vector<T> out;
  Stmt s(db, sql);
  s.bind(1, file_id);
  while (s.step()) {
    out.push_back(map(s));
  }
  return out;
}

EventStatus status_from(std::string_view s) {
  if (s == "interned") {
    return EventStatus::interned;
  }
  if (s == "other_rank") {
    return EventStatus::other_rank;
  }
  if (s == "bad_envelope") {
    return EventStatus::bad_envelope;
  }
  return EventStatus::ok;
}

Event event_from(const Stmt& s) {
  Event e;
  e.id = s.i64(0);
  e.file_id = s.i64(1);
  e.line = s.i64(2);
  e.status = status_from(s.text_view(3));
  e.key = s.text(4);
  e.known_to_tlparse = s.i64(5) != 0;
  e.cid = cid_at(s, 6, 7);
  e.key_id = s.opt_i64(11);
  e.rank = opt_u32(s, 12);
  e.glog_level = s.text(13);
  e.month = static_cast<int>(s.i64(14));
  e.day = static_cast<int>(s.i64(15));
  int64_t t = s.i64(16);
  e.microsecond = static_cast<int>(t % 1000000);
  t /= 1000000;
  e.second = static_cast<int>(t % 60);
  t /= 60;
  e.minute = static_cast<int>(t % 60);
  e.hour = static_cast<int>(t / 60);
  e.thread = static_cast<uint64_t>(s.i64(17));
  e.pathname = s.text(18);
  e.source_line = s.i64(19);
  e.envelope_json = s.text(20);
  e.payload_md5 = s.opt_text(21);
  e.has_payload_data = !s.is_null(22);
  e.payload_filename = s.opt_text(23);
  e.in_raw_jsonl = s.i64(24) != 0;
  return e;
}

std::optional<std::string> inflate_payload(bool compressed, int64_t size, std::string_view data) {
  if (!compressed) {
    return std::string(data);
  }
  std::string out(static_cast<size_t>(size), '\0');
  uLongf len = static_cast<uLongf>(size);
  if (uncompress(reinterpret_cast<Bytef*>(out.data()), &len,
                 reinterpret_cast<const Bytef*>(data.data()),
                 static_cast<uLong>(data.size())) != Z_OK) {
    return std::nullopt;
  }
  out.resize(len);
  return out;
}

std::string blob(const Stmt& s, int c) {
  const void* p = sqlite3_column_blob(s.get(), c);
  const int n = sqlite3_column_bytes(s.get(), c);
  return p == nullptr ? std::string()
                      : std::string(static_cast<const char*>(p), static_cast<size_t>(n));
}

// Value of a top-level key of a JSON object, as JSON text.
std::optional<std::string> json_member(std::string_view json, std::string_view key) {
  simdjson::padded_string padded(json);
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;
  simdjson::ondemand::object obj;
  if (parser.iterate(padded).get(doc) || doc.get_object().get(obj)) {
    return std::nullopt;
  }
  for (auto field : obj) {
    std::string_view k, raw;
    simdjson::ondemand::value v;
    if (field.unescaped_key().get(k) || field.value().get(v) || ingest::raw_value_json(v, raw)) {
      return std::nullopt;
    }
    if (k == key) {
      return std::string(raw);
    }
  }
  return std::nullopt;
}

// Parses the main compilation_metrics fields out of the metadata JSON.
void parse_metrics(const std::string& json, CompilationMetrics& m) {
  using simdjson::ondemand::json_type;
  simdjson::padded_string padded(json);
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc;
  simdjson::ondemand::object obj;
  if (parser.iterate(padded).get(doc) || doc.get_object().get(obj)) {
    return;
  }
  for (auto field : obj) {
    std::string_view k, s;
    simdjson::ondemand::value v;
    json_type t;
    if (field.unescaped_key().get(k) || field.value().get(v) || v.type().get(t)) {
      return;
    }
    if (t == json_type::string) {
      if (v.get_string().get(s)) {
        return;
      }
      std::optional<std::string>* slot = k == "co_name"       ? &m.co_name
                                         : k == "co_filename" ? &m.co_filename
                                         : k == "fail_type"   ? &m.fail_type
                                         : k == "fail_reason" ? &m.fail_reason
                                         : k == "fail_user_frame_filename"
                                             ? &m.fail_user_frame_filename
                                             : nullptr;
      if (slot != nullptr) {
        *slot = std::string(s);
      }
      continue;
    }
    if (t == json_type::number) {
      std::optional<int64_t>* islot = k == "co_firstlineno"           ? &m.co_firstlineno
                                      : k == "cache_size"             ? &m.cache_size
                                      : k == "accumulated_cache_size" ? &m.accumulated_cache_size
                                      : k == "guard_count"            ? &m.guard_count
                                      : k == "shape_env_guard_count"  ? &m.shape_env_guard_count
                                      : k == "graph_op_count"         ? &m.graph_op_count
                                      : k == "graph_node_count"       ? &m.graph_node_count
                                      : k == "graph_input_count"      ? &m.graph_input_count
                                      : k == "fail_user_frame_lineno" ? &m.fail_user_frame_lineno
                                                                      : nullptr;
      std::optional<double>* dslot =
          k == "start_time"                     ? &m.start_time
          : k == "entire_frame_compile_time_s"  ? &m.entire_frame_compile_time_s
          : k == "backend_compile_time_s"       ? &m.backend_compile_time_s
          : k == "inductor_compile_time_s"      ? &m.inductor_compile_time_s
          : k == "code_gen_time_s"              ? &m.code_gen_time_s
          : k == "dynamo_time_before_restart_s" ? &m.dynamo_time_before_restart_s
                                                : nullptr;
      if (islot != nullptr) {
        int64_t i = 0;
        if (!v.get_int64().get(i)) {
          *islot = i;
        }
      } else if (dslot != nullptr) {
        double d = 0;
        if (!v.get_double().get(d)) {
          *dslot = d;
        }
      } else if (ingest::raw_value_json(v, s)) {
        return;
      }
      continue;
    }
    if (t == json_type::array &&
        (k == "restart_reasons" || k == "non_compliant_ops" || k == "compliant_custom_ops")) {
      std::vector<std::string> list;
      simdjson::ondemand::array arr;
      if (v.get_array().get(arr)) {
        return;
      }
      for (auto item : arr) {
        json_type it;
        if (item.type().get(it)) {
          return;
        }
        if (it == json_type::string) {
          if (item.get_string().get(s)) {
            return;
          }
          list.emplace_back(s);
        } else if (ingest::raw_value_json(item.value_unsafe(), s)) {
          return;
        } else {
          list.emplace_back(s);
        }
      }
      if (k == "restart_reasons") {
        m.restart_reasons = std::move(list);
      } else if (k == "non_compliant_ops") {
        m.non_compliant_ops = std::move(list);
      } else {
        m.compliant_custom_ops = std::move(list);
      }
      continue;
    }
    if (ingest::raw_value_json(v, s)) {
      return;
    }
  }
}

} // namespace

std::string_view to_string(OutputKind kind) {
  switch (kind) {
  case OutputKind::payload_text:
    return "payload_text";
  case OutputKind::json_pretty:
    return "json_pretty";
  case OutputKind::guards_html:
    return "guards_html";
  case OutputKind::output_code_html:
    return "output_code_html";
  case OutputKind::metrics_html:
    return "metrics_html";
  case OutputKind::bwd_metrics_html:
    return "bwd_metrics_html";
  case OutputKind::aot_bwd_metrics_html:
    return "aot_bwd_metrics_html";
  case OutputKind::dump_file_html:
    return "dump_file_html";
  case OutputKind::readable_html:
    return "readable_html";
  case OutputKind::link:
    return "link";
  case OutputKind::payload_copy:
    return "payload_copy";
  }
  return "payload_text";
}

std::optional<OutputKind> output_kind_from_string(std::string_view s) {
  for (int i = 0; i <= static_cast<int>(OutputKind::payload_copy); ++i) {
    const auto k = static_cast<OutputKind>(i);
    if (to_string(k) == s) {
      return k;
    }
  }
  return std::nullopt;
}

std::string_view to_string(EventStatus s) {
  switch (s) {
  case EventStatus::ok:
    return "ok";
  case EventStatus::interned:
    return "interned";
  case EventStatus::other_rank:
    return "other_rank";
  case EventStatus::bad_envelope:
    return "bad_envelope";
  }
  return "ok";
}

std::string_view to_string(CompileStatus s) {
  switch (s) {
  case CompileStatus::ok:
    return "status-ok";
  case CompileStatus::restart:
    return "status-break";
  case CompileStatus::empty:
    return "status-empty";
  case CompileStatus::error:
    return "status-error";
  case CompileStatus::missing:
    return "status-missing";
  }
  return "status-missing";
}

std::string raw_jsonl_timestamp(const Event& e, int year) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", year, e.month, e.day,
                e.hour, e.minute, e.second, e.microsecond);
  return buf;
}

struct IndexReader::Impl {
  Db db;
  std::string path;
};

IndexReader::IndexReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
IndexReader::~IndexReader() = default;

std::unique_ptr<IndexReader> IndexReader::open(const std::filesystem::path& path,
                                               std::string* error) {
  auto impl = std::make_unique<Impl>();
  impl->path = path.string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    if (error != nullptr) {
      *error = path.string() + ": no such index file";
    }
    return nullptr;
  }
  if (!impl->db.open(impl->path, SQLITE_OPEN_READONLY, error)) {
    return nullptr;
  }
  Stmt s(impl->db.get(), "SELECT value FROM meta WHERE key='schema_version'");
  if (!s.ok() || !s.step()) {
    if (error != nullptr) {
      *error = path.string() + " is not a torchscope index";
    }
    return nullptr;
  }
  if (s.text(0) != std::to_string(generated::kIndexSchemaVersion)) {
    if (error != nullptr) {
      *error = path.string() + ": index schema version " + s.text(0) + ", expected " +
               std::to_string(generated::kIndexSchemaVersion) + " (re-run `tlparse index`)";
    }
    return nullptr;
  }
  return std::unique_ptr<IndexReader>(new IndexReader(std::move(impl)));
}

std::vector<FileInfo> IndexReader::files() const {
  std::vector<FileInfo> out;
  Stmt s(impl_->db.get(), "SELECT id,path,name,size_bytes,rank,rank_from_name,lines,"
                          "timestamp_year FROM files ORDER BY id");
  while (s.step()) {
    FileInfo f;
    f.id = s.i64(0);
    f.path = s.text(1);
    f.name = s.text(2);
    f.size_bytes = static_cast<uint64_t>(s.i64(3));
    f.rank = opt_u32(s, 4);
    f.rank_from_name = opt_u32(s, 5);
    f.lines = static_cast<uint64_t>(s.i64(6));
    f.timestamp_year = static_cast<int>(s.i64(7));
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<CompileKey> IndexReader::compile_keys(int64_t file_id) const {
  std::vector<CompileKey> out;
  Stmt s(impl_->db.get(), "SELECT id,file_id,ord,display,dir_name,caid,frame_id,frame_compile_id,"
                          "attempt,is_unknown,first_line FROM compile_keys WHERE file_id=? "
                          "ORDER BY ord");
  s.bind(1, file_id);
  while (s.step()) {
    CompileKey k;
    k.id = s.i64(0);
    k.file_id = s.i64(1);
    k.order = s.i64(2);
    k.display = s.text(3);
    k.dir_name = s.text(4);
    if (s.i64(9) == 0) {
      k.cid = cid_at(s, -1, 5);
    }
    k.first_line = s.i64(10);
    out.push_back(std::move(k));
  }
  return out;
}

namespace {
constexpr const char* kOutputCols =
    "id,file_id,seq,key_id,event_id,line,event_key,kind,path,name,number,suffix,readable_url,"
    "in_directory,sanitised";
Output output_from(const Stmt& s) {
  Output o;
  o.id = s.i64(0);
  o.file_id = s.i64(1);
  o.seq = s.i64(2);
  o.key_id = s.opt_i64(3);
  o.event_id = s.i64(4);
  o.line = s.i64(5);
  o.event_key = s.text(6);
  o.kind = output_kind_from_string(s.text_view(7)).value_or(OutputKind::payload_text);
  o.path = s.text(8);
  o.name = s.text(9);
  o.number = s.i64(10);
  o.suffix = s.text(11);
  o.readable_url = s.opt_text(12);
  o.in_directory = s.i64(13) != 0;
  o.name_was_sanitised = s.i64(14) != 0;
  return o;
}
} // namespace

std::vector<Output> IndexReader::outputs(int64_t file_id) const {
  std::vector<Output> out;
  Stmt s(impl_->db.get(),
         (std::string("SELECT ") + kOutputCols + " FROM outputs WHERE file_id=? ORDER BY seq")
             .c_str());
  s.bind(1, file_id);
  while (s.step()) {
    out.push_back(output_from(s));
  }
  return out;
}

std::optional<Output> IndexReader::output(int64_t output_id) const {
  Stmt s(impl_->db.get(),
         (std::string("SELECT ") + kOutputCols + " FROM outputs WHERE id=?").c_str());
  s.bind(1, output_id);
  if (!s.step()) {
    return std::nullopt;
  }
  return output_from(s);
}

std::string IndexReader::output_metadata_json(int64_t output_id) const {
  Stmt s(impl_->db.get(), "SELECT e.envelope, o.event_key FROM outputs o JOIN events e ON "
                          "e.id=o.event_id WHERE o.id=?");
  s.bind(1, output_id);
  if (!s.step()) {
    return "{}";
  }
  return json_member(s.text_view(0), s.text_view(1)).value_or("{}");
}

std::optional<Event> IndexReader::event(int64_t event_id) const {
  Stmt s(impl_->db.get(),
         (std::string("SELECT ") + kEventCols + " FROM events e WHERE e.id=?").c_str());
  s.bind(1, event_id);
  if (!s.step()) {
    return std::nullopt;
  }
  return event_from(s);
}

std::optional<std::string> IndexReader::payload(int64_t event_id) const {
  Stmt s(impl_->db.get(), "SELECT p.compressed,p.size,p.data FROM events e JOIN payloads p ON "
                          "p.id=e.payload_id WHERE e.id=?");
  s.bind(1, event_id);
  if (!s.step()) {
    return std::nullopt;
  }
  return inflate_payload(s.i64(0) != 0, s.i64(1), blob(s, 2));
}

void IndexReader::for_each_event(int64_t file_id,
                                 const std::function<bool(const Event&)>& fn) const {
  Stmt s(impl_->db.get(),
         (std::string("SELECT ") + kEventCols + " FROM events e WHERE e.file_id=? ORDER BY e.id")
             .c_str());
  s.bind(1, file_id);
  while (s.step()) {
    if (!fn(event_from(s))) {
      break;
    }
  }
}

void IndexReader::for_each_chromium_event(
    int64_t file_id, const std::function<bool(const ChromiumEvent&)>& fn) const {
  Stmt s(impl_->db.get(),
         "SELECT c.event_id,e.line,e.cid_valid,e.caid,e.frame_id,e.frame_compile_id,e.attempt,"
         "c.name,c.ph,c.cat,c.ts,c.pid,c.tid,c.args,p.compressed,p.size,p.data FROM "
         "chromium_events c JOIN events e ON e.id=c.event_id LEFT JOIN payloads p ON "
         "p.id=e.payload_id WHERE c.file_id=? ORDER BY c.event_id");
  s.bind(1, file_id);
  while (s.step()) {
    ChromiumEvent c;
    c.event_id = s.i64(0);
    c.line = s.i64(1);
    c.cid = cid_at(s, 2, 3);
    c.name = s.text(7);
    c.ph = s.text(8);
    c.cat = s.text(9);
    c.ts = s.opt_f64(10);
    c.pid = s.opt_i64(11);
    c.tid = s.opt_i64(12);
    c.args_json = s.text(13);
    if (!s.is_null(16)) {
      c.payload_json = inflate_payload(s.i64(14) != 0, s.i64(15), blob(s, 16)).value_or("");
    }
    if (c.args_json.empty()) { // large args live only in the payload
      c.args_json = json_member(c.payload_json, "args").value_or("{}");
    }
    if (!fn(c)) {
      break;
    }
  }
}

std::vector<std::optional<std::string>> IndexReader::string_table(int64_t file_id) const {
  std::vector<std::optional<std::string>> out;
  Stmt s(impl_->db.get(), "SELECT idx,value FROM strings WHERE file_id=? ORDER BY rowid");
  s.bind(1, file_id);
  // raw.jsonl's table has max_index+1 slots; a hostile index (4 billion) must not allocate them
  // all, so indexes beyond this bound are left out of the vector (they still resolve stacks).
  constexpr size_t kMaxStringTableSlots = size_t{1} << 22;
  while (s.step()) {
    const auto idx = static_cast<size_t>(s.i64(0));
    if (idx >= kMaxStringTableSlots) {
      continue;
    }
    if (idx >= out.size()) {
      out.resize(idx + 1);
    }
    out[idx] = s.text(1);
  }
  return out;
}

namespace {
Stack load_stack(sqlite3* db, int64_t stack_id) {
  Stack out;
  Stmt s(db, "SELECT filename_idx,filename,uninterned_filename,line,name,loc FROM stack_frames "
             "WHERE stack_id=? ORDER BY pos");
  s.bind(1, stack_id);
  while (s.step()) {
    Frame f;
    f.filename_index = s.opt_i64(0);
    f.filename = s.opt_text(1);
    f.uninterned_filename = s.opt_text(2);
    f.line = s.i64(3);
    f.name = s.text(4);
    f.loc = s.opt_text(5);
    out.push_back(std::move(f));
  }
  return out;
}

// Stacks of one event by role.
Stack event_stack(sqlite3* db, int64_t event_id, const char* role) {
  Stmt s(db, "SELECT id FROM stacks WHERE event_id=? AND role=? ORDER BY id LIMIT 1");
  s.bind(1, event_id);
  s.bind(2, std::string_view(role));
  if (!s.step()) {
    return {};
  }
  return load_stack(db, s.i64(0));
}
} // namespace

std::vector<DynamoStart> IndexReader::dynamo_starts(int64_t file_id) const {
  sqlite3* db = impl_->db.get();
  return rows_of_file<DynamoStart>(db,
                                   "SELECT " TORCHSCOPE_EVENT_REF_COLS
                                   ",x.id FROM stacks x JOIN events e ON e.id=x.event_id "
                                   "WHERE x.file_id=? AND x.role='dynamo_start' ORDER BY x.id",
                                   file_id, [db](const Stmt& s) {
                                     DynamoStart d;
                                     read_event_ref(s, d);
                                     d.stack = load_stack(db, s.i64(kFirstOwnCol));
                                     return d;
                                   });
}

std::vector<UnknownStack> IndexReader::unknown_stacks(int64_t file_id) const {
  sqlite3* db = impl_->db.get();
  return rows_of_file<UnknownStack>(
      db,
      "SELECT x.event_id,e.line,x.id FROM stacks x JOIN events e ON e.id=x.event_id "
      "WHERE x.file_id=? AND x.role='unknown' ORDER BY x.id",
      file_id, [db](const Stmt& s) {
        UnknownStack u;
        u.event_id = s.i64(0);
        u.line = s.i64(1);
        u.stack = load_stack(db, s.i64(2));
        return u;
      });
}

std::vector<CompilationMetrics> IndexReader::compilation_metrics(int64_t file_id) const {
  return rows_of_file<CompilationMetrics>(
      impl_->db.get(),
      "SELECT " TORCHSCOPE_EVENT_REF_COLS ",x.id,x.event_key,x.output_id,x.json FROM "
      "compilation_metrics x JOIN events e ON e.id=x.event_id WHERE x.file_id=? "
      "ORDER BY x.event_id",
      file_id, [](const Stmt& s) {
        CompilationMetrics m;
        read_event_ref(s, m);
        m.id = s.i64(kFirstOwnCol);
        m.event_key = s.text(kFirstOwnCol + 1);
        m.output_id = s.opt_i64(kFirstOwnCol + 2);
        m.metadata_json = s.text(kFirstOwnCol + 3);
        parse_metrics(m.metadata_json, m);
        return m;
      });
}

std::vector<RestartOrFailure> IndexReader::restarts_and_failures(int64_t file_id) const {
  std::vector<RestartOrFailure> out;
  for (const auto& m : compilation_metrics(file_id)) {
    if (m.event_key != "compilation_metrics") {
      continue;
    }
    const std::string display = m.cid ? model::display_name(*m.cid) : "(unknown)";
    if (m.restart_reasons) {
      for (const auto& r : *m.restart_reasons) {
        RestartOrFailure row;
        row.display = display;
        row.metrics_output_id = m.output_id;
        row.is_restart = true;
        row.type_or_reason = r;
        out.push_back(std::move(row));
      }
    }
    if (m.fail_type) {
      RestartOrFailure row;
      row.display = display;
      row.metrics_output_id = m.output_id;
      row.type_or_reason = *m.fail_type;
      row.failure_reason = m.fail_reason.value_or("");
      row.failure_source = m.fail_user_frame_filename.value_or("N/A") + ":" +
                           std::to_string(m.fail_user_frame_lineno.value_or(0));
      out.push_back(std::move(row));
    }
  }
  return out;
}

std::vector<Specialization> IndexReader::specializations(int64_t file_id) const {
  sqlite3* db = impl_->db.get();
  return rows_of_file<Specialization>(
      db,
      "SELECT " TORCHSCOPE_EVENT_REF_COLS ",x.symbol,x.sources,x.value,x.reason,e.envelope "
      "FROM specializations x JOIN events e ON e.id=x.event_id WHERE x.file_id=? "
      "ORDER BY x.event_id",
      file_id, [db](const Stmt& s) {
        Specialization x;
        read_event_ref(s, x);
        x.symbol = s.text(kFirstOwnCol);
        x.value = s.text(kFirstOwnCol + 2);
        x.reason = s.text(kFirstOwnCol + 3);
        // sources: a JSON list of strings.
        simdjson::padded_string padded(s.text(kFirstOwnCol + 1));
        simdjson::ondemand::parser parser;
        simdjson::ondemand::document doc;
        simdjson::ondemand::array arr;
        if (!parser.iterate(padded).get(doc) && !doc.get_array().get(arr)) {
          for (auto item : arr) {
            std::string_view sv;
            if (item.get_string().get(sv)) {
              break;
            }
            x.sources.emplace_back(sv);
          }
        }
        x.metadata_json =
            json_member(s.text_view(kFirstOwnCol + 4), "symbolic_shape_specialization")
                .value_or("{}");
        x.stack = event_stack(db, x.event_id, "stack");
        x.user_stack = event_stack(db, x.event_id, "user_stack");
        return x;
      });
}

std::vector<GuardAddedFast> IndexReader::guards_added_fast(int64_t file_id) const {
  sqlite3* db = impl_->db.get();
  return rows_of_file<GuardAddedFast>(db,
                                      "SELECT " TORCHSCOPE_EVENT_REF_COLS
                                      ",x.expr FROM guards_added_fast x JOIN events e ON "
                                      "e.id=x.event_id WHERE x.file_id=? ORDER BY x.event_id",
                                      file_id, [db](const Stmt& s) {
                                        GuardAddedFast g;
                                        read_event_ref(s, g);
                                        g.expr = s.text(kFirstOwnCol);
                                        g.stack = event_stack(db, g.event_id, "stack");
                                        g.user_stack = event_stack(db, g.event_id, "user_stack");
                                        return g;
                                      });
}

std::vector<CreatedSymbol> IndexReader::created_symbols(int64_t file_id) const {
  return rows_of_file<CreatedSymbol>(
      impl_->db.get(),
      "SELECT " TORCHSCOPE_EVENT_REF_COLS ",e.kind,x.symbol,x.val,x.vr,x.source FROM symbols x "
      "JOIN events e ON e.id=x.event_id WHERE x.file_id=? ORDER BY x.event_id",
      file_id, [](const Stmt& s) {
        CreatedSymbol c;
        read_event_ref(s, c);
        c.event_key = s.text(kFirstOwnCol);
        c.symbol = s.text(kFirstOwnCol + 1);
        c.val = s.text(kFirstOwnCol + 2);
        c.vr = s.text(kFirstOwnCol + 3);
        c.source = s.text(kFirstOwnCol + 4);
        return c;
      });
}

std::vector<CacheEvent> IndexReader::cache_events(int64_t file_id) const {
  return rows_of_file<CacheEvent>(
      impl_->db.get(),
      "SELECT " TORCHSCOPE_EVENT_REF_COLS ",x.output_id,x.artifact,x.result FROM cache_events x "
      "JOIN events e ON e.id=x.event_id WHERE x.file_id=? ORDER BY x.event_id",
      file_id, [](const Stmt& s) {
        CacheEvent c;
        read_event_ref(s, c);
        c.output_id = s.i64(kFirstOwnCol);
        c.artifact = s.text(kFirstOwnCol + 1);
        c.result = s.text(kFirstOwnCol + 2);
        return c;
      });
}

Stats IndexReader::stats(int64_t file_id) const {
  Stats st;
  Stmt s(impl_->db.get(), "SELECT counter,count FROM health WHERE file_id=?");
  s.bind(1, file_id);
  while (s.step()) {
    const std::string_view c = s.text_view(0);
    const auto v = static_cast<uint64_t>(s.i64(1));
    uint64_t* slot = c == "ok"                        ? &st.ok
                     : c == "other_rank"              ? &st.other_rank
                     : c == "fail_glog"               ? &st.fail_glog
                     : c == "fail_json"               ? &st.fail_json
                     : c == "fail_payload_md5"        ? &st.fail_payload_md5
                     : c == "fail_dynamo_guards_json" ? &st.fail_dynamo_guards_json
                     : c == "fail_parser"             ? &st.fail_parser
                     : c == "fail_key_conflict"       ? &st.fail_key_conflict
                     : c == "fail_json_serialization" ? &st.fail_json_serialization
                     : c == "unknown"                 ? &st.unknown
                                                      : nullptr;
    if (slot != nullptr) {
      *slot = v;
    }
  }
  return st;
}

std::vector<HealthCounter> IndexReader::health(int64_t file_id) const {
  return rows_of_file<HealthCounter>(
      impl_->db.get(),
      "SELECT counter,severity,description,count FROM health WHERE file_id=? ORDER BY rowid",
      file_id, [](const Stmt& s) {
        HealthCounter h;
        h.name = s.text(0);
        const std::string_view sev = s.text_view(1);
        h.severity = sev == "error"     ? Severity::error
                     : sev == "warning" ? Severity::warning
                                        : Severity::info;
        h.description = s.text(2);
        h.count = static_cast<uint64_t>(s.i64(3));
        return h;
      });
}

std::vector<std::string> IndexReader::unknown_keys(int64_t file_id) const {
  return rows_of_file<std::string>(impl_->db.get(),
                                   "SELECT key FROM unknown_keys WHERE file_id=? ORDER BY key",
                                   file_id, [](const Stmt& s) { return s.text(0); });
}

std::vector<BadLine> IndexReader::bad_lines(int64_t file_id, int64_t limit) const {
  std::vector<BadLine> out;
  Stmt s(impl_->db.get(), "SELECT file_id,line,counter,excerpt FROM bad_lines WHERE file_id=? "
                          "ORDER BY rowid LIMIT ?");
  s.bind(1, file_id);
  s.bind(2, limit);
  while (s.step()) {
    out.push_back(BadLine{s.i64(0), s.i64(1), s.text(2), s.text(3)});
  }
  return out;
}

CompileStatus compile_status(std::span<const CompilationMetrics* const> metrics) {
  if (metrics.empty()) {
    return CompileStatus::missing;
  }
  auto any = [&](auto&& pred) { return std::any_of(metrics.begin(), metrics.end(), pred); };
  if (any([](const CompilationMetrics* m) { return m->fail_type.has_value(); })) {
    return CompileStatus::error;
  }
  if (any([](const CompilationMetrics* m) {
        return !m->graph_op_count || *m->graph_op_count == 0;
      })) {
    return CompileStatus::empty;
  }
  if (any([](const CompilationMetrics* m) {
        return !m->restart_reasons || !m->restart_reasons->empty();
      })) {
    return CompileStatus::restart;
  }
  return CompileStatus::ok;
}

std::vector<FrameSummary> IndexReader::frames(int64_t file_id) const {
  std::vector<FrameSummary> out;
  std::map<std::optional<uint32_t>, size_t> frame_pos;
  // Metrics per key decide the status (§3.2).
  const std::vector<CompilationMetrics> metrics = compilation_metrics(file_id);
  std::map<int64_t, std::vector<const CompilationMetrics*>> metrics_by_key;
  for (const CompilationMetrics& m : metrics) {
    if (m.event_key == "compilation_metrics" && m.key_id) {
      metrics_by_key[*m.key_id].push_back(&m);
    }
  }
  sqlite3* db = impl_->db.get();
  for (const auto& key : compile_keys(file_id)) {
    CompileSummary c;
    c.key_id = key.id;
    c.display = key.display;
    if (key.cid) {
      c.frame_id = key.cid->frame_id;
      c.frame_compile_id = key.cid->frame_compile_id;
    }
    Stmt a(db, "SELECT DISTINCT attempt FROM events WHERE key_id=? AND attempt IS NOT NULL "
               "ORDER BY attempt");
    a.bind(1, key.id);
    while (a.step()) {
      c.attempts.push_back(static_cast<uint32_t>(a.i64(0)));
    }
    Stmt n(db, "SELECT COUNT(*) FROM outputs WHERE key_id=? AND in_directory=1");
    n.bind(1, key.id);
    if (n.step()) {
      c.output_count = n.i64(0);
    }
    Stmt r(db, "SELECT reason FROM recompile_reasons WHERE key_id=? ORDER BY rowid");
    r.bind(1, key.id);
    while (r.step()) {
      c.recompile_reasons.push_back(r.text(0));
    }
    Stmt g(db, "SELECT reason FROM graph_breaks WHERE key_id=? ORDER BY rowid");
    g.bind(1, key.id);
    while (g.step()) {
      c.graph_break_reasons.push_back(g.text(0));
    }
    if (auto it = metrics_by_key.find(key.id); it != metrics_by_key.end()) {
      c.status = compile_status(it->second);
    }
    auto [pos, inserted] = frame_pos.emplace(c.frame_id, out.size());
    if (inserted) {
      out.push_back(FrameSummary{c.frame_id, {}, 0});
    }
    out[pos->second].compiles.push_back(std::move(c));
  }
  for (auto& f : out) {
    std::set<std::optional<uint32_t>> fcids;
    for (const auto& c : f.compiles) {
      fcids.insert(c.frame_compile_id);
    }
    f.recompile_count = fcids.empty() ? 0 : static_cast<int64_t>(fcids.size()) - 1;
  }
  return out;
}

std::vector<ChromiumSpan> IndexReader::chromium_spans(int64_t file_id) const {
  std::vector<ChromiumSpan> out;
  struct Open {
    ChromiumSpan span;
    size_t index;
  };
  std::map<std::pair<int64_t, int64_t>, std::vector<Open>> stacks;
  for_each_chromium_event(file_id, [&](const ChromiumEvent& c) {
    if (!c.ts) {
      return true;
    }
    auto& st = stacks[{c.pid.value_or(0), c.tid.value_or(0)}];
    if (c.ph == "B") {
      ChromiumSpan s;
      s.name = c.name;
      s.cat = c.cat;
      s.start_us = *c.ts;
      s.depth = static_cast<int>(st.size());
      s.cid = c.cid;
      s.begin_line = c.line;
      st.push_back(Open{s, 0});
    } else if (c.ph == "E") {
      for (size_t i = st.size(); i-- > 0;) {
        if (st[i].span.name == c.name) {
          ChromiumSpan s = st[i].span;
          s.duration_us = *c.ts - s.start_us;
          out.push_back(s);
          st.erase(st.begin() + static_cast<std::ptrdiff_t>(i));
          break;
        }
      }
    } else if (c.ph == "X") {
      ChromiumSpan s;
      s.name = c.name;
      s.cat = c.cat;
      s.start_us = *c.ts;
      s.depth = static_cast<int>(st.size());
      s.cid = c.cid;
      s.begin_line = c.line;
      if (auto dur = json_member(c.payload_json, "dur")) {
        s.duration_us = std::strtod(dur->c_str(), nullptr);
      }
      out.push_back(s);
    }
    return true;
  });
  std::stable_sort(out.begin(), out.end(), [](const ChromiumSpan& a, const ChromiumSpan& b) {
    return a.start_us < b.start_us;
  });
  return out;
}

bool IndexReader::has_search_index() const {
  Stmt s(impl_->db.get(), "SELECT 1 FROM sqlite_master WHERE name='payload_fts'");
  return s.ok() && s.step();
}

std::vector<SearchHit> IndexReader::search(const std::string& query, int64_t limit) const {
  std::vector<SearchHit> out;
  if (!has_search_index()) {
    return out;
  }
  Stmt s(impl_->db.get(),
         "SELECT e.file_id,e.id,e.line,k.display,snippet(payload_fts,0,'[',']','...',12),"
         "(SELECT o.id FROM outputs o WHERE o.event_id=e.id AND o.in_directory=1 ORDER BY o.seq "
         "LIMIT 1) FROM payload_fts f JOIN events e ON e.payload_id=f.payload_id LEFT JOIN "
         "compile_keys k ON k.id=e.key_id WHERE payload_fts MATCH ? ORDER BY e.id LIMIT ?");
  if (!s.ok()) {
    return out;
  }
  s.bind(1, std::string_view(query));
  s.bind(2, limit);
  while (s.step()) {
    SearchHit h;
    h.file_id = s.i64(0);
    h.event_id = s.i64(1);
    h.line = s.i64(2);
    h.compile_display = s.is_null(3) ? "" : s.text(3);
    h.snippet = s.text(4);
    h.output_id = s.opt_i64(5);
    out.push_back(std::move(h));
  }
  return out;
}

bool IndexReader::build_search_index(const std::filesystem::path& path, std::string* error) {
  Db db;
  if (!db.open(path.string(), SQLITE_OPEN_READWRITE, error)) {
    return false;
  }
  if (!db.exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; DROP TABLE IF EXISTS "
               "payload_fts; CREATE VIRTUAL TABLE payload_fts USING fts5(text, payload_id "
               "UNINDEXED); BEGIN;",
               error)) {
    return false;
  }
  Stmt read(db.get(), "SELECT id,compressed,size,data FROM payloads ORDER BY id");
  Stmt insert(db.get(), "INSERT INTO payload_fts(text,payload_id) VALUES(?,?)");
  while (read.step()) {
    const auto text = inflate_payload(read.i64(1) != 0, read.i64(2), blob(read, 3));
    if (!text) {
      continue;
    }
    insert.bind(1, std::string_view(*text));
    insert.bind(2, read.i64(0));
    if (!insert.run()) {
      if (error != nullptr) {
        *error = sqlite3_errmsg(db.get());
      }
      return false;
    }
  }
  return db.exec("COMMIT", error);
}

} // namespace tlparse::index
