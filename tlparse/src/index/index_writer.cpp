// See index_writer.h.
#include "index/index_writer.h"

#include "tlparse/index_schema.gen.h"

#include <filesystem>
#include <zlib.h>

namespace tlparse::index {
namespace {
constexpr size_t kCompressAbove = 16384;

std::string_view kind_name(OutputKind k) {
  return to_string(k);
}
} // namespace

bool IndexWriter::check(bool ok) {
  if (!ok && error_.empty()) {
    error_ = sqlite3_errmsg(db_.get());
  }
  return ok;
}

bool IndexWriter::open(const std::string& path, std::string* error) {
  std::error_code ec;
  std::filesystem::remove(path, ec);
  if (!db_.open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, error)) {
    return false;
  }
  if (!db_.exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA page_size=16384;"
                "PRAGMA cache_size=-16384; PRAGMA locking_mode=EXCLUSIVE;",
                error) ||
      !db_.exec(generated::kIndexSchemaSql, error)) {
    return false;
  }
  std::string meta = "INSERT INTO meta VALUES('schema_version','" +
                     std::to_string(generated::kIndexSchemaVersion) +
                     "'),('generator','torchscope tlparse');";
  if (!db_.exec(meta.c_str(), error)) {
    return false;
  }
  sqlite3* d = db_.get();
  file_ = Stmt(d, "INSERT INTO files(id,path,name,size_bytes,rank_from_name,timestamp_year) "
                  "VALUES(?,?,?,?,?,?)");
  file_end_ = Stmt(d, "UPDATE files SET rank=?, lines=? WHERE id=?");
  string_ = Stmt(d, "INSERT INTO strings VALUES(?,?,?)");
  key_ = Stmt(d, "INSERT INTO compile_keys VALUES(?,?,?,?,?,?,?,?,?,?,?)");
  event_ = Stmt(d, "INSERT INTO events VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  payload_ = Stmt(d, "INSERT INTO payloads VALUES(?,?,?,?,?)");
  payload_lookup_ = Stmt(d, "SELECT id FROM payloads WHERE md5=? AND size=?");
  output_ = Stmt(d, "INSERT INTO outputs VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  stack_ = Stmt(d, "INSERT INTO stacks VALUES(?,?,?,?)");
  frame_ = Stmt(d, "INSERT INTO stack_frames VALUES(?,?,?,?,?,?,?,?)");
  metrics_ = Stmt(d, "INSERT INTO compilation_metrics VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  recompile_ = Stmt(d, "INSERT INTO recompile_reasons VALUES(?,?,?,?)");
  graph_break_ = Stmt(d, "INSERT INTO graph_breaks VALUES(?,?,?,?)");
  spec_ = Stmt(d, "INSERT INTO specializations VALUES(?,?,?,?,?,?)");
  guard_fast_ = Stmt(d, "INSERT INTO guards_added_fast VALUES(?,?,?)");
  symbol_ = Stmt(d, "INSERT INTO symbols VALUES(?,?,?,?,?,?)");
  chromium_ = Stmt(d, "INSERT INTO chromium_events VALUES(?,?,?,?,?,?,?,?,?,?)");
  cache_ = Stmt(d, "INSERT INTO cache_events VALUES(?,?,?,?,?)");
  health_ = Stmt(d, "INSERT INTO health VALUES(?,?,?,?,?)");
  unknown_ = Stmt(d, "INSERT INTO unknown_keys VALUES(?,?,?,?)");
  bad_line_ = Stmt(d, "INSERT INTO bad_lines VALUES(?,?,?,?)");
  for (const Stmt* s :
       {&file_,   &file_end_, &string_,  &key_,       &event_,       &payload_, &output_,
        &stack_,  &frame_,    &metrics_, &recompile_, &graph_break_, &spec_,    &guard_fast_,
        &symbol_, &chromium_, &cache_,   &health_,    &unknown_,     &bad_line_}) {
    if (!s->ok()) {
      if (error != nullptr) {
        *error = std::string("preparing statements: ") + sqlite3_errmsg(d);
      }
      return false;
    }
  }
  return true;
}

bool IndexWriter::begin_file(const std::string& path, const std::string& name, uint64_t size,
                             std::optional<uint32_t> rank_from_name, int year, int64_t* file_id) {
  if (!check(db_.exec("BEGIN", &error_))) {
    return false;
  }
  *file_id = ++file_ids_;
  file_.bind(1, *file_id);
  file_.bind(2, std::string_view(path));
  file_.bind(3, std::string_view(name));
  file_.bind(4, static_cast<int64_t>(size));
  if (rank_from_name) {
    file_.bind(5, static_cast<int64_t>(*rank_from_name));
  } else {
    file_.bind_null(5);
  }
  file_.bind(6, static_cast<int64_t>(year));
  return check(file_.run());
}

bool IndexWriter::end_file(int64_t file_id, std::optional<uint32_t> rank, uint64_t lines) {
  if (rank) {
    file_end_.bind(1, static_cast<int64_t>(*rank));
  } else {
    file_end_.bind_null(1);
  }
  file_end_.bind(2, static_cast<int64_t>(lines));
  file_end_.bind(3, file_id);
  check(file_end_.run());
  return check(db_.exec("COMMIT", &error_)) && error_.empty();
}

bool IndexWriter::finish(std::string* error) {
  if (!error_.empty()) {
    if (error != nullptr) {
      *error = error_;
    }
    return false;
  }
  return true;
}

void IndexWriter::add_string(int64_t file_id, int64_t idx, std::string_view value) {
  string_.bind(1, file_id);
  string_.bind(2, idx);
  string_.bind(3, value);
  check(string_.run());
}

void IndexWriter::add_compile_key(int64_t id, int64_t file_id, int64_t ord,
                                  std::string_view display, std::string_view dir_name,
                                  const std::optional<CompileId>& cid, int64_t first_line) {
  key_.bind(1, id);
  key_.bind(2, file_id);
  key_.bind(3, ord);
  key_.bind(4, display);
  key_.bind(5, dir_name);
  auto opt = [&](int i, const std::optional<uint32_t>& v) {
    if (v) {
      key_.bind(i, static_cast<int64_t>(*v));
    } else {
      key_.bind_null(i);
    }
  };
  const CompileId none;
  const CompileId& c = cid ? *cid : none;
  opt(6, c.compiled_autograd_id);
  opt(7, c.frame_id);
  opt(8, c.frame_compile_id);
  opt(9, c.attempt);
  key_.bind(10, static_cast<int64_t>(cid ? 0 : 1));
  key_.bind(11, first_line);
  check(key_.run());
}

void IndexWriter::add_event(const EventRow& r) {
  Stmt& s = event_;
  auto opt = [&](int i, const std::optional<uint32_t>& v) {
    if (v) {
      s.bind(i, static_cast<int64_t>(*v));
    } else {
      s.bind_null(i);
    }
  };
  s.bind(1, r.id);
  s.bind(2, r.file_id);
  s.bind(3, r.line);
  s.bind(4, r.status);
  s.bind(5, r.kind);
  s.bind(6, static_cast<int64_t>(r.known));
  s.bind(7, static_cast<int64_t>(r.cid_valid));
  opt(8, r.cid.compiled_autograd_id);
  opt(9, r.cid.frame_id);
  opt(10, r.cid.frame_compile_id);
  opt(11, r.cid.attempt);
  s.bind(12, r.key_id);
  opt(13, r.rank);
  s.bind(14, std::string_view(&r.level, 1));
  s.bind(15, static_cast<int64_t>(r.month));
  s.bind(16, static_cast<int64_t>(r.day));
  s.bind(17, r.time_us);
  s.bind(18, static_cast<int64_t>(r.thread));
  s.bind(19, r.pathname);
  s.bind(20, static_cast<int64_t>(r.source_line));
  s.bind(21, r.envelope);
  s.bind(22, r.payload_md5);
  s.bind(23, r.payload_id);
  s.bind(24, r.payload_filename);
  s.bind(25, static_cast<int64_t>(r.in_raw_jsonl));
  check(s.run());
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
  if (payload_ids_ > static_cast<int64_t>(payload_by_key_.size())) {
    payload_lookup_.bind(1, md5_hex);
    payload_lookup_.bind(2, static_cast<int64_t>(bytes.size()));
    if (payload_lookup_.step()) {
      const int64_t found = payload_lookup_.i64(0);
      payload_lookup_.reset();
      payload_by_key_.emplace(scratch_, found);
      return found;
    }
    payload_lookup_.reset();
  }
  const int64_t id = ++payload_ids_;
  payload_by_key_.emplace(scratch_, id);
  payload_.bind(1, id);
  payload_.bind(2, md5_hex);
  payload_.bind(3, static_cast<int64_t>(bytes.size()));
  std::string compressed;
  bool is_compressed = false;
  if (bytes.size() > kCompressAbove) {
    uLongf len = compressBound(static_cast<uLong>(bytes.size()));
    compressed.resize(len);
    if (compress2(reinterpret_cast<Bytef*>(compressed.data()), &len,
                  reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uLong>(bytes.size()),
                  1) == Z_OK &&
        len < bytes.size()) {
      compressed.resize(len);
      is_compressed = true;
    }
  }
  payload_.bind(4, static_cast<int64_t>(is_compressed));
  payload_.bind_blob(5, is_compressed ? std::string_view(compressed) : bytes);
  check(payload_.run());
  return id;
}

int64_t IndexWriter::add_output(const OutputRow& r) {
  const int64_t id = ++output_ids_;
  Stmt& s = output_;
  s.bind(1, id);
  s.bind(2, r.file_id);
  s.bind(3, r.seq);
  s.bind(4, r.key_id);
  s.bind(5, r.event_id);
  s.bind(6, r.line);
  s.bind(7, r.event_key);
  s.bind(8, kind_name(r.kind));
  s.bind(9, std::string_view(r.path));
  s.bind(10, std::string_view(r.name));
  s.bind(11, r.number);
  s.bind(12, r.suffix);
  if (r.readable_url) {
    s.bind(13, std::string_view(*r.readable_url));
  } else {
    s.bind_null(13);
  }
  s.bind(14, static_cast<int64_t>(r.in_directory));
  s.bind(15, static_cast<int64_t>(r.sanitised));
  check(s.run());
  return id;
}

int64_t IndexWriter::add_stack(int64_t file_id, int64_t event_id, std::string_view role,
                               const std::vector<Frame>& frames) {
  const int64_t id = ++stack_ids_;
  stack_.bind(1, id);
  stack_.bind(2, file_id);
  stack_.bind(3, event_id);
  stack_.bind(4, role);
  check(stack_.run());
  int64_t pos = 0;
  for (const Frame& f : frames) {
    frame_.bind(1, id);
    frame_.bind(2, pos++);
    frame_.bind(3, f.filename_index);
    if (f.filename) {
      frame_.bind(4, std::string_view(*f.filename));
    } else {
      frame_.bind_null(4);
    }
    if (f.uninterned_filename) {
      frame_.bind(5, std::string_view(*f.uninterned_filename));
    } else {
      frame_.bind_null(5);
    }
    frame_.bind(6, f.line);
    frame_.bind(7, std::string_view(f.name));
    if (f.loc) {
      frame_.bind(8, std::string_view(*f.loc));
    } else {
      frame_.bind_null(8);
    }
    check(frame_.run());
  }
  return id;
}

void IndexWriter::add_metrics(const MetricsRow& r) {
  Stmt& s = metrics_;
  auto text = [&](int i, const std::optional<std::string>& v) {
    if (v) {
      s.bind(i, std::string_view(*v));
    } else {
      s.bind_null(i);
    }
  };
  s.bind(1, ++metrics_ids_);
  s.bind(2, r.file_id);
  s.bind(3, r.event_id);
  s.bind(4, r.event_key);
  s.bind(5, r.output_id);
  s.bind(6, r.json);
  text(7, r.co_name);
  text(8, r.co_filename);
  s.bind(9, r.co_firstlineno);
  s.bind(10, r.graph_op_count);
  s.bind(11, r.entire_frame_compile_time_s);
  text(12, r.fail_type);
  text(13, r.fail_reason);
  text(14, r.restart_reasons);
  check(s.run());
}

void IndexWriter::add_recompile_reason(int64_t file_id, int64_t event_id,
                                       std::optional<int64_t> key_id, std::string_view reason) {
  recompile_.bind(1, file_id);
  recompile_.bind(2, event_id);
  recompile_.bind(3, key_id);
  recompile_.bind(4, reason);
  check(recompile_.run());
}

void IndexWriter::add_graph_break(int64_t file_id, int64_t event_id, std::optional<int64_t> key_id,
                                  std::string_view reason) {
  graph_break_.bind(1, file_id);
  graph_break_.bind(2, event_id);
  graph_break_.bind(3, key_id);
  graph_break_.bind(4, reason);
  check(graph_break_.run());
}

void IndexWriter::add_specialization(int64_t file_id, int64_t event_id, std::string_view symbol,
                                     std::string_view sources, std::string_view value,
                                     std::string_view reason) {
  spec_.bind(1, file_id);
  spec_.bind(2, event_id);
  spec_.bind(3, symbol);
  spec_.bind(4, sources);
  spec_.bind(5, value);
  spec_.bind(6, reason);
  check(spec_.run());
}

void IndexWriter::add_guard_added_fast(int64_t file_id, int64_t event_id, std::string_view expr) {
  guard_fast_.bind(1, file_id);
  guard_fast_.bind(2, event_id);
  guard_fast_.bind(3, expr);
  check(guard_fast_.run());
}

void IndexWriter::add_symbol(int64_t file_id, int64_t event_id, std::string_view symbol,
                             std::string_view val, std::string_view vr, std::string_view source) {
  symbol_.bind(1, file_id);
  symbol_.bind(2, event_id);
  symbol_.bind(3, symbol);
  symbol_.bind(4, val);
  symbol_.bind(5, vr);
  symbol_.bind(6, source);
  check(symbol_.run());
}

void IndexWriter::add_chromium(const ChromiumRow& r) {
  Stmt& s = chromium_;
  s.bind(1, r.file_id);
  s.bind(2, r.event_id);
  s.bind(3, std::string_view(r.name));
  s.bind(4, std::string_view(r.ph));
  s.bind(5, r.ts);
  s.bind(6, std::string_view(r.cat));
  s.bind(7, r.pid);
  s.bind(8, r.tid);
  s.bind(9, std::string_view(r.compile_id));
  s.bind(10, std::string_view(r.args));
  check(s.run());
}

void IndexWriter::add_cache_event(int64_t file_id, int64_t event_id, int64_t output_id,
                                  std::string_view artifact, std::string_view result) {
  cache_.bind(1, file_id);
  cache_.bind(2, event_id);
  cache_.bind(3, output_id);
  cache_.bind(4, artifact);
  cache_.bind(5, result);
  check(cache_.run());
}

void IndexWriter::add_health(int64_t file_id, std::string_view counter, std::string_view severity,
                             std::string_view description, uint64_t count) {
  health_.bind(1, file_id);
  health_.bind(2, counter);
  health_.bind(3, severity);
  health_.bind(4, description);
  health_.bind(5, static_cast<int64_t>(count));
  check(health_.run());
}

void IndexWriter::add_unknown_key(int64_t file_id, std::string_view key, uint64_t count,
                                  int64_t first_line) {
  unknown_.bind(1, file_id);
  unknown_.bind(2, key);
  unknown_.bind(3, static_cast<int64_t>(count));
  unknown_.bind(4, first_line);
  check(unknown_.run());
}

void IndexWriter::add_bad_line(int64_t file_id, int64_t line, std::string_view counter,
                               std::string_view excerpt) {
  bad_line_.bind(1, file_id);
  bad_line_.bind(2, line);
  bad_line_.bind(3, counter);
  bad_line_.bind(4, excerpt);
  check(bad_line_.run());
}

} // namespace tlparse::index
