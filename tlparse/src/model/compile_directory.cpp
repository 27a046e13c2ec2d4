// FileModel: the compile directory and output naming of tlparse 0.4.3 (§2.1, §1.7), the string
// table and the counters of one file. See file_model.h.
#include "ingest/envelope.h"
#include "model/file_model.h"
#include "model/path_sanitizer.h"

#include <cassert>
#include <climits>
#include <cstdint>
#include <tuple>

namespace tlparse::model {
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

FileModel::FileModel(index::IndexWriter& writer, int64_t file_id,
                     const ingest::IngestOptions& options)
    : writer_(writer), file_id_(file_id), options_(options), keys_(&compile_id_less) {}

void FileModel::count(index::HealthId id, int64_t line, std::string_view excerpt) {
  ++health_[static_cast<size_t>(id)];
  const auto& info = index::health_info(id);
  constexpr uint64_t kMaxBadLines = 10000;
  if (info.severity != index::Severity::info && bad_lines_written_ < kMaxBadLines) {
    ++bad_lines_written_;
    writer_.add_bad_line(file_id_, line, info.name, make_excerpt(excerpt));
  }
}

std::string FileModel::dir_for(const std::optional<CompileId>& raw, int64_t line) {
  return raw ? directory_name(*raw) : "unknown_" + std::to_string(line);
}

int64_t FileModel::key_for(const std::optional<CompileId>& raw, int64_t line) {
  if (!raw) {
    if (!unknown_key_) {
      const int64_t id = (file_id_ << 32) | next_key_ord_;
      unknown_key_ = id;
      writer_.add_compile_key(id, file_id_, next_key_ord_++, "unknown", dir_for(raw, line),
                              std::nullopt, line);
    }
    return *unknown_key_;
  }
  const CompileId key = collapsed_key(*raw);
  auto it = keys_.find(key);
  if (it != keys_.end()) {
    return it->second;
  }
  const int64_t id = (file_id_ << 32) | next_key_ord_;
  writer_.add_compile_key(id, file_id_, next_key_ord_++, display_name(key), directory_name(key),
                          key, line);
  keys_.emplace(key, id);
  return id;
}

int64_t FileModel::emit(handlers::EventContext& ctx, index::OutputRow row) {
  row.file_id = file_id_;
  row.seq = seq_++;
  row.event_id = ctx.event_id;
  row.line = ctx.line;
  row.event_key = ctx.key;
  return writer_.add_output(row);
}

FileModel::Emitted FileModel::add_compile_file(handlers::EventContext& ctx, std::string_view stem,
                                               std::string_view ext, index::OutputKind kind,
                                               bool payload_file, Readable readable) {
  const SanitisedName safe = sanitise_output_name(stem);
  if (safe.changed) {
    count(index::HealthId::unsafe_output_name, ctx.line, stem);
  }
  const uint64_t n = output_count_++;
  index::OutputRow row;
  row.key_id = ctx.key_id;
  row.kind = kind;
  row.path = dir_for(ctx.cid, ctx.line) + "/" + safe.name + "_" + std::to_string(n) + "." +
             std::string(ext);
  row.name = std::string(last_segment(row.path));
  row.number = static_cast<int64_t>(n);
  row.suffix = cache_suffix(row.path);
  row.sanitised = safe.changed;
  if (readable == Readable::empty_url) {
    row.readable_url = std::string();
  }
  if (readable == Readable::companion) {
    const std::string readable_path =
        row.path.substr(0, row.path.size() - ext.size() - 1) + "_readable.html";
    row.readable_url = readable_path;
    row.number = static_cast<int64_t>(output_count_++);
  }
  Emitted out;
  out.path = row.path;
  const std::optional<std::string> readable_url = row.readable_url;
  out.output_id = emit(ctx, std::move(row));
  if (readable == Readable::companion) {
    index::OutputRow companion;
    companion.kind = index::OutputKind::readable_html;
    companion.key_id = ctx.key_id;
    companion.path = *readable_url;
    companion.name = std::string(last_segment(companion.path));
    companion.number = static_cast<int64_t>(n);
    companion.in_directory = false;
    companion.sanitised = safe.changed;
    emit(ctx, std::move(companion));
  }
  if (payload_file) {
    ctx.payload_filename = out.path;
  }
  return out;
}

FileModel::Emitted FileModel::add_global_file(handlers::EventContext& ctx,
                                              std::string_view relative_path,
                                              index::OutputKind kind) {
  const uint64_t n = output_count_++;
  index::OutputRow row;
  row.key_id = ctx.key_id;
  row.kind = kind;
  row.path = std::string(relative_path);
  row.name = std::string(last_segment(row.path));
  row.number = static_cast<int64_t>(n);
  Emitted out;
  out.path = row.path;
  out.output_id = emit(ctx, std::move(row));
  return out;
}

void FileModel::add_link(handlers::EventContext& ctx, std::string_view name, std::string_view url) {
  const uint64_t n = output_count_++;
  index::OutputRow row;
  row.key_id = ctx.key_id;
  row.kind = index::OutputKind::link;
  row.path = std::string(url);
  row.name = std::string(name);
  row.number = static_cast<int64_t>(n);
  emit(ctx, std::move(row));
}

std::string FileModel::add_payload_copy(handlers::EventContext& ctx) {
  const SanitisedName safe = sanitise_output_name(ctx.declared_md5);
  if (safe.changed) {
    count(index::HealthId::unsafe_output_name, ctx.line, ctx.declared_md5);
  }
  std::string path = "payloads/" + safe.name + ".txt";
  // Listed once per path (later duplicates would overwrite the same bytes). The set is bounded;
  // past the bound a path may be listed twice, which only makes the renderer write it twice.
  constexpr size_t kMaxRemembered = 100000;
  if (payload_copies_.size() >= kMaxRemembered) {
    payload_copies_.clear();
  }
  if (payload_copies_.insert(path).second) {
    index::OutputRow row;
    row.kind = index::OutputKind::payload_copy;
    row.path = path;
    row.name = std::string(last_segment(path));
    row.in_directory = false;
    row.sanitised = safe.changed;
    emit(ctx, std::move(row));
  }
  return path;
}

void FileModel::intern(int64_t idx, std::string value) {
  if (idx < 0) {
    return;
  }
  writer_.add_string(file_id_, idx, value);
  // A map, not a vector: an index like 4000000000 must not allocate 4 billion slots.
  strings_[idx] = std::move(value);
}

bool FileModel::parse_stack(std::string_view json, std::vector<index::Frame>& out, int64_t line) {
  using simdjson::ondemand::json_type;
  out.clear();
  simdjson::ondemand::document doc;
  if (parser_.iterate(json.data(), json.size(), json.size() + simdjson::SIMDJSON_PADDING)
          .get(doc)) {
    return false;
  }
  simdjson::ondemand::array arr;
  if (doc.get_array().get(arr)) {
    return false;
  }
  for (auto item : arr) {
    simdjson::ondemand::object obj;
    if (item.get_object().get(obj)) {
      return false;
    }
    index::Frame f;
    bool has_line = false, has_name = false, has_file = false;
    for (auto field : obj) {
      std::string_view key;
      if (field.unescaped_key().get(key)) {
        return false;
      }
      simdjson::ondemand::value v = field.value();
      json_type t;
      if (v.type().get(t)) {
        return false;
      }
      if (key == "line") {
        int64_t l = 0;
        if (v.get_int64().get(l) || l < INT32_MIN || l > INT32_MAX) {
          return false;
        }
        f.line = l;
        has_line = true;
      } else if (key == "name") {
        std::string_view s;
        if (v.get_string().get(s)) {
          return false;
        }
        f.name = std::string(s);
        has_name = true;
      } else if (key == "filename") {
        uint64_t u = 0;
        if (v.get_uint64().get(u) || u > UINT32_MAX) {
          return false;
        }
        f.filename_index = static_cast<int64_t>(u);
        has_file = true;
      } else if (key == "loc" || key == "uninterned_filename") {
        if (t == json_type::null) {
          continue;
        }
        std::string_view s;
        if (v.get_string().get(s)) {
          return false;
        }
        (key == "loc" ? f.loc : f.uninterned_filename) = std::string(s);
      } else {
        std::string_view skip;
        if (ingest::raw_value_json(v, skip)) {
          return false;
        }
      }
    }
    if (!has_line || !has_name || !has_file) {
      return false;
    }
    if (auto it = strings_.find(*f.filename_index); it != strings_.end()) {
      f.filename = it->second;
    } else {
      count(index::HealthId::unresolved_string, line);
    }
    out.push_back(std::move(f));
  }
  return true;
}

void FileModel::note_unknown_key(std::string_view key, int64_t line) {
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

std::vector<std::string> FileModel::unknown_key_names() const {
  std::vector<std::string> out;
  for (const auto& [key, u] : unknown_keys_) {
    out.push_back(key);
  }
  return out;
}

void FileModel::finish(std::optional<uint32_t> rank, uint64_t lines) {
  const index::Stats& s = stats_;
  health_[static_cast<size_t>(index::HealthId::ok)] = s.ok;
  health_[static_cast<size_t>(index::HealthId::other_rank)] = s.other_rank;
  health_[static_cast<size_t>(index::HealthId::fail_glog)] = s.fail_glog;
  health_[static_cast<size_t>(index::HealthId::fail_json)] = s.fail_json;
  health_[static_cast<size_t>(index::HealthId::fail_payload_md5)] = s.fail_payload_md5;
  health_[static_cast<size_t>(index::HealthId::fail_dynamo_guards_json)] =
      s.fail_dynamo_guards_json;
  health_[static_cast<size_t>(index::HealthId::fail_parser)] = s.fail_parser;
  health_[static_cast<size_t>(index::HealthId::fail_key_conflict)] = s.fail_key_conflict;
  health_[static_cast<size_t>(index::HealthId::fail_json_serialization)] =
      s.fail_json_serialization;
  health_[static_cast<size_t>(index::HealthId::unknown)] = s.unknown;
  for (size_t i = 0; i < index::kHealthCounterCount; ++i) {
    const auto& info = index::health_info(static_cast<index::HealthId>(i));
    writer_.add_health(file_id_, info.name, index::to_string(info.severity), info.description,
                       health_[i]);
  }
  for (const auto& [key, u] : unknown_keys_) {
    writer_.add_unknown_key(file_id_, key, u.count, u.first_line);
  }
  writer_.end_file(file_id_, rank, lines);
}

} // namespace tlparse::model
