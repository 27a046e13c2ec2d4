// FileState: the compile directory and output naming of tlparse 0.4.3 (docs/TLPARSE-INGEST.md),
// the compiles, the string table and the counters of one file. See file_state.h.
#include "common/content_hash.h"
#include "ingest/envelope/envelope.h"
#include "ingest/reader/md5.h"
#include "ingest/trackers/file_state.h"
#include "ingest/trackers/path_sanitizer.h"

#include <cassert>
#include <climits>
#include <cstdint>
#include <functional>
#include <string>
#include <tuple>

namespace tlparse::ingest {
namespace {

std::string_view cache_suffix(std::string_view path) {
  if (path.find("cache_miss") != std::string_view::npos) {
    return "\xE2\x9D\x8C"; // ❌
  }
  if (path.find("cache_hit") != std::string_view::npos) {
    return "\xE2\x9C\x85"; // ✅
  }
  if (path.find("cache_bypass") != std::string_view::npos) {
    return "\xE2\x9D\x93"; // ❓
  }
  return "";
}

std::string_view last_segment(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// Printable excerpt for bad_lines: invalid bytes and control characters become '?'.
std::string make_excerpt(std::string_view s) {
  std::string out;
  for (char ch : s.substr(0, 120)) {
    const auto c = static_cast<unsigned char>(ch);
    out += (c >= 0x20 && c < 0x7f) ? ch : '?';
  }
  return out;
}

} // namespace

bool compile_id_less(const CompileId& a, const CompileId& b) {
  return std::tie(a.compiled_autograd_id, a.frame_id, a.frame_compile_id, a.attempt) <
         std::tie(b.compiled_autograd_id, b.frame_id, b.frame_compile_id, b.attempt);
}

FileState::FileState(index::IndexWriter& writer, int64_t file_id,
                     const ingest::IngestOptions& options)
    : writer_(writer), file_id_(file_id), options_(options), keys_(&compile_id_less),
      compile_by_id_(&compile_id_less), spans_(writer, file_id) {}

void FileState::count(index::HealthId id, int64_t line, std::string_view excerpt) {
  ++health_[static_cast<size_t>(id)];
  const auto& info = index::health_info(id);
  constexpr uint64_t kMaxBadLines = 10000;
  if (info.severity != index::Severity::info && bad_lines_written_ < kMaxBadLines) {
    ++bad_lines_written_;
    const std::string printable = make_excerpt(excerpt);
    writer_.add(index::io::BadLineRecord{file_id_, line, info.name, printable});
  }
}

std::string FileState::dir_for(const std::optional<CompileId>& raw, int64_t line) {
  return raw ? directory_name(*raw) : "unknown_" + std::to_string(line);
}

int64_t FileState::compile_for(const std::optional<CompileId>& raw, int64_t line) {
  std::optional<int64_t>* invalid = nullptr;
  CompileId forced;
  if (!raw) {
    invalid = &invalid_compile_;
    if (*invalid) {
      return **invalid;
    }
  } else {
    forced = attempt_forced_to_zero(*raw);
    if (auto it = compile_by_id_.find(forced); it != compile_by_id_.end()) {
      return it->second;
    }
  }
  const int64_t id = writer_.next_id<index::Compile>();
  assert(compiles_.empty() ||
         id == compiles_.front().id() + static_cast<int64_t>(compiles_.size()));
  compiles_.emplace_back(id, file_id_, static_cast<int64_t>(compiles_.size()), raw, line);
  if (invalid != nullptr) {
    *invalid = id;
  } else {
    compile_by_id_.emplace(forced, id);
  }
  return id;
}

CompileFacts& FileState::facts(int64_t compile_id) {
  const auto i = static_cast<size_t>(compile_id - compiles_.front().id());
  assert(i < compiles_.size());
  return compiles_[i];
}

FileState::KeyRef FileState::key_for(const std::optional<CompileId>& raw, int64_t line) {
  const auto add_key = [&](const std::optional<CompileId>& key) {
    KeyRef ref;
    ref.compile_id = compile_for(raw, line);
    ref.key_id = writer_.next_id<index::CompileKey>();
    facts(ref.compile_id).note_attempt();
    index::io::CompileKeyRecord r;
    r.id = ref.key_id;
    r.file_id = file_id_;
    r.compile_id = ref.compile_id;
    r.ord = next_key_ord_++;
    const std::string display = key ? display_name(*key) : "unknown";
    const std::string dir = key ? directory_name(*key) : dir_for(raw, line);
    r.display = display;
    r.dir_name = dir;
    if (key) {
      const auto part = [](const std::optional<uint32_t>& v) {
        return v ? std::optional<int64_t>(*v) : std::nullopt;
      };
      r.caid = part(key->compiled_autograd_id);
      r.frame_id = part(key->frame_id);
      r.frame_compile_id = part(key->frame_compile_id);
      r.attempt = part(key->attempt);
    }
    r.is_unknown = !key;
    r.first_line = line;
    writer_.add(r);
    return ref;
  };
  if (!raw) {
    if (!unknown_key_) {
      unknown_key_ = add_key(std::nullopt);
    }
    return *unknown_key_;
  }
  const CompileId key = collapsed_key(*raw);
  auto it = keys_.find(key);
  if (it != keys_.end()) {
    return it->second;
  }
  const KeyRef ref = add_key(key);
  keys_.emplace(key, ref);
  return ref;
}

int64_t FileState::emit(handlers::EventContext& ctx, index::io::OutputRecord row) {
  row.id = writer_.next_id<index::Output>();
  row.file_id = file_id_;
  row.seq = seq_++;
  row.event_id = ctx.event_id;
  row.line = ctx.line;
  row.event_key = ctx.key;
  row.subgraph = ctx.subgraph;
  if (row.key_id && row.in_directory) {
    facts(ctx.compile_id).note_output();
  }
  writer_.add(row);
  return row.id;
}

FileState::Emitted FileState::add_compile_file(handlers::EventContext& ctx, std::string_view stem,
                                               std::string_view ext, index::OutputKind kind,
                                               bool payload_file, Readable readable,
                                               std::string_view artifact) {
  const SanitisedName safe = sanitise_output_name(stem);
  if (safe.changed) {
    count(index::HealthId::unsafe_output_name, ctx.line, stem);
  }
  const uint64_t n = output_count_++;
  Emitted out;
  out.path = dir_for(ctx.cid, ctx.line) + "/" + safe.name + "_" + std::to_string(n) + "." +
             std::string(ext);
  const std::string_view what = artifact.empty() ? stem : artifact;
  std::optional<std::string> readable_url;
  if (readable == Readable::empty_url) {
    readable_url = std::string();
  }
  if (readable == Readable::companion) {
    readable_url = out.path.substr(0, out.path.size() - ext.size() - 1) + "_readable.html";
  }
  index::io::OutputRecord row;
  row.key_id = ctx.key_id;
  row.artifact = what;
  row.kind = kind;
  row.path = out.path;
  row.name = last_segment(out.path);
  row.number = static_cast<int64_t>(readable == Readable::companion ? output_count_++ : n);
  row.suffix = cache_suffix(out.path);
  row.readable_url = readable_url;
  row.in_directory = true;
  row.sanitised = safe.changed;
  out.output_id = emit(ctx, row);
  if (readable == Readable::companion) {
    const std::string companion_artifact = std::string(what) + "_readable";
    index::io::OutputRecord companion;
    companion.key_id = ctx.key_id;
    companion.artifact = companion_artifact;
    companion.kind = index::OutputKind::readable_html;
    companion.path = *readable_url;
    companion.name = last_segment(*readable_url);
    companion.number = static_cast<int64_t>(n);
    companion.in_directory = false;
    companion.sanitised = safe.changed;
    emit(ctx, companion);
  }
  if (payload_file) {
    ctx.payload_filename = out.path;
  }
  return out;
}

FileState::Emitted FileState::add_global_file(handlers::EventContext& ctx,
                                              std::string_view relative_path,
                                              index::OutputKind kind) {
  const uint64_t n = output_count_++;
  Emitted out;
  out.path = std::string(relative_path);
  index::io::OutputRecord row;
  row.key_id = ctx.key_id;
  row.artifact = ctx.key;
  row.kind = kind;
  row.path = out.path;
  row.name = last_segment(out.path);
  row.number = static_cast<int64_t>(n);
  row.in_directory = true;
  out.output_id = emit(ctx, row);
  return out;
}

void FileState::add_link(handlers::EventContext& ctx, std::string_view name, std::string_view url) {
  const uint64_t n = output_count_++;
  index::io::OutputRecord row;
  row.key_id = ctx.key_id;
  row.artifact = name;
  row.kind = index::OutputKind::link;
  row.path = url;
  row.name = name;
  row.number = static_cast<int64_t>(n);
  row.in_directory = true;
  emit(ctx, row);
}

std::string FileState::add_payload_copy(handlers::EventContext& ctx) {
  const SanitisedName safe = sanitise_output_name(ctx.declared_md5);
  if (safe.changed) {
    count(index::HealthId::unsafe_output_name, ctx.line, ctx.declared_md5);
  }
  std::string path = "payloads/" + safe.name + ".txt";
  // Listed once per (path, content): a later duplicate would write the same bytes. The same
  // declared digest with other bytes (an MD5 mismatch) is listed again, so the renderer writes
  // the last one, as tlparse does. The set is bounded; past the bound a path may be listed
  // twice, which only makes the renderer write it twice.
  constexpr size_t kMaxRemembered = 100000;
  if (payload_copies_.size() >= kMaxRemembered) {
    payload_copies_.clear();
  }
  const std::string seen_key =
      path + '\n' + std::to_string(std::hash<std::string_view>{}(ctx.payload));
  if (payload_copies_.insert(seen_key).second) {
    index::io::OutputRecord row;
    row.artifact = "payload";
    row.kind = index::OutputKind::payload_copy;
    row.path = path;
    row.name = last_segment(path);
    row.in_directory = false;
    row.sanitised = safe.changed;
    emit(ctx, row);
  }
  return path;
}

void FileState::intern(int64_t idx, std::string value, int64_t line) {
  if (idx < 0) {
    return;
  }
  writer_.add(index::io::InternedStringRecord{file_id_, idx, value});
  if (idx >= index::kMaxStringTableSlots) {
    count(index::HealthId::string_index_beyond_table, line, value);
  }
  // A map, not a vector: an index like 4000000000 must not allocate 4 billion slots.
  auto [it, added] = strings_.try_emplace(idx);
  if (!added && it->second != value) {
    count(index::HealthId::string_rebound, line, value);
  }
  it->second = std::move(value);
}

std::optional<int64_t> FileState::add_list(int64_t event_id, std::string_view field,
                                           simdjson::ondemand::array& items) {
  int64_t pos = 0;
  for (auto item : items) {
    std::string_view text;
    if (ingest::item_text(item.value_unsafe(), text)) {
      return std::nullopt;
    }
    writer_.add(index::io::MetadataListItemRecord{event_id, field, pos++, text});
  }
  return pos;
}

int64_t FileState::store_value(std::string_view bytes) {
  const uint64_t h = common::content_hash(bytes);
  if (const auto it = stored_values_.find(h);
      it != stored_values_.end() && it->second.bytes == bytes) {
    return it->second.id;
  }
  const int64_t id = writer_.add_payload(ingest::md5_hex(bytes), bytes);
  // Bounded: a log whose large values are all different must not grow memory.
  constexpr size_t kMaxRememberedBytes = 4u << 20;
  if (stored_value_bytes_ + bytes.size() > kMaxRememberedBytes) {
    stored_values_.clear();
    stored_value_bytes_ = 0;
  }
  if (bytes.size() <= kMaxRememberedBytes) {
    auto& slot = stored_values_[h];
    stored_value_bytes_ -= slot.bytes.size(); // a hash collision replaces the older value
    slot = StoredValue{id, std::string(bytes)};
    stored_value_bytes_ += bytes.size();
  }
  return id;
}

bool FileState::parse_stack(std::string_view json, std::vector<index::StackFrame>& out,
                            int64_t line) {
  using simdjson::ondemand::json_type;
  out.clear();
  simdjson::ondemand::document doc;
  simdjson::ondemand::array arr;
  if (!ingest::open_array(parser_, json, doc, arr)) {
    return false;
  }
  for (auto item : arr) {
    simdjson::ondemand::object obj;
    if (item.get_object().get(obj)) {
      return false;
    }
    index::StackFrame f;
    bool has_line = false, has_name = false, has_file = false;
    const bool valid = ingest::for_each_field(
        obj, [&](std::string_view key, simdjson::ondemand::value v, json_type t) {
          std::string_view s;
          int64_t l = 0;
          uint64_t u = 0;
          if (key == "line") {
            has_line = !v.get_int64().get(l) && l >= INT32_MIN && l <= INT32_MAX;
            f.line = l;
            return has_line;
          }
          if (key == "name") {
            has_name = !v.get_string().get(s);
            f.name = std::string(s);
            return has_name;
          }
          if (key == "filename") {
            has_file = !v.get_uint64().get(u) && u <= UINT32_MAX;
            f.filename_idx = static_cast<int64_t>(u);
            return has_file;
          }
          if ((key == "loc" || key == "uninterned_filename") && t != json_type::null) {
            if (v.get_string().get(s)) {
              return false;
            }
            (key == "loc" ? f.loc : f.uninterned_filename) = std::string(s);
            return true;
          }
          return !ingest::raw_value_json(v, s);
        });
    if (!valid) {
      return false;
    }
    if (!has_line || !has_name || !has_file) {
      return false;
    }
    if (auto it = strings_.find(*f.filename_idx); it != strings_.end()) {
      f.filename = it->second;
    } else {
      count(index::HealthId::unresolved_string, line);
    }
    out.push_back(std::move(f));
  }
  return true;
}

void FileState::note_unknown_key(std::string_view key, int64_t line) {
  auto it = unknown_keys_.find(key);
  constexpr size_t kMaxUnknownKeyNames = 10000; // bounded memory on hostile logs
  if (it == unknown_keys_.end() && unknown_keys_.size() >= kMaxUnknownKeyNames) {
    key = "(more unknown keys)";
    it = unknown_keys_.find(key);
  }
  if (it == unknown_keys_.end()) {
    it = unknown_keys_.emplace(std::string(key), UnknownKey{0, line}).first;
  }
  ++it->second.count;
}

std::vector<std::string> FileState::unknown_key_names() const {
  std::vector<std::string> out;
  for (const auto& [key, u] : unknown_keys_) {
    out.push_back(key);
  }
  return out;
}

void FileState::finish(std::optional<uint32_t> rank, uint64_t lines) {
  stats_.copy_to(health_);
  for (CompileFacts& c : compiles_) {
    writer_.add(index::io::record_of(c.row()));
  }
  spans_.finish();
  for (size_t i = 0; i < index::kHealthCounterCount; ++i) {
    const auto& info = index::health_info(static_cast<index::HealthId>(i));
    writer_.add(index::io::HealthCounterRecord{file_id_, info.name, info.severity, info.description,
                                               static_cast<int64_t>(health_[i])});
  }
  for (const auto& [key, u] : unknown_keys_) {
    writer_.add(
        index::io::UnknownKeyRecord{file_id_, key, static_cast<int64_t>(u.count), u.first_line});
  }
  writer_.end_file(file_id_, rank ? std::optional<int64_t>(*rank) : std::nullopt,
                   static_cast<int64_t>(lines));
}

} // namespace tlparse::ingest
