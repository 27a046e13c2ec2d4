// ReaderCore: the connection, statement cache and row readers of the read API (reader_core.h).
#include "index/reader_core.h"

#include "tlparse/index/outputs_reader.h"

#include <cstdio>

namespace tlparse::index::detail {

namespace {

std::optional<uint32_t> u32(const std::optional<int64_t>& v) {
  if (!v || *v < 0 || *v > UINT32_MAX) {
    return std::nullopt;
  }
  return static_cast<uint32_t>(*v);
}

} // namespace

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

std::string nulls(int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    out += ",NULL";
  }
  return out;
}

Result<std::shared_ptr<const std::string>> ReaderCore::stored_value(int64_t id) const {
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

Status ReaderCore::restore_envelope(int64_t event_id, int64_t cut_values,
                                    std::string& envelope) const {
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

int ReaderCore::read_metadata(const Stmt& s, int first, int64_t event_id, std::string& out,
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

Status ReaderCore::build_temp(std::string_view what, const std::string& drop,
                              const std::string& create, const std::string& fill,
                              std::optional<int64_t> bind) {
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

Status ReaderCore::ensure_views() {
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

Error ReaderCore::damaged(std::string_view what, const std::string& detail) const {
  return Error{path.string() + ": cannot read " + std::string(what) + " (" + detail +
               "); the index is damaged or was not written by this version of tlparse: "
               "rebuild it with `tlparse index`"};
}

Result<int64_t> ReaderCore::count(std::string_view what, const std::string& sql,
                                  std::initializer_list<int64_t> binds) const {
  int64_t n = 0;
  if (const Status st = first_value(what, sql, binds, n); !st) {
    return Error{st.error()};
  }
  return n;
}

Result<std::unordered_map<int64_t, std::map<StackRole, StackFrames>>>
ReaderCore::stacks_by_event(int64_t file_id, std::string_view roles) const {
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

Result<std::unordered_map<int64_t, std::map<std::string, std::vector<std::string>>>>
ReaderCore::lists_by_event(int64_t file_id, std::string_view owner) const {
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

} // namespace tlparse::index::detail
