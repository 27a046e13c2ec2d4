// The ONE registry table of event kinds, generated from the catalogue (event_kinds.gen.h): every
// kind gets its output behaviour from the catalogue's `output` column; the switch below is where
// a kind registers a recorder. Lookups by key go through one hash map built once.
#include "ingest/envelope/envelope.h"
#include "ingest/handlers/handler.h"
#include "schemas/event_kinds.gen.h"

#include <algorithm>
#include <climits>
#include <unordered_map>
#include <utility>

namespace tlparse::ingest::handlers {
namespace {

enum class KindId {
#define TORCHSCOPE_KIND_ENUM(id, key, payload, context, known, out, emitted, desc) id,
  TORCHSCOPE_EVENT_KINDS(TORCHSCOPE_KIND_ENUM)
#undef TORCHSCOPE_KIND_ENUM
};

// Kinds whose events become rows of the index beyond the output file.
const Handler* recorder_for(KindId k) {
  switch (k) {
  case KindId::stack:
    return &record::stack;
  case KindId::dynamo_start:
    return &record::dynamo_start;
  case KindId::symbolic_shape_specialization:
    return &record::symbolic_shape_specialization;
  case KindId::guard_added_fast:
    return &record::guard_added_fast;
  case KindId::create_symbol:
  case KindId::create_unbacked_symbol:
    return &record::symbol;
  case KindId::describe_storage:
    return &record::describe_storage;
  case KindId::describe_tensor:
    return &record::describe_tensor;
  case KindId::describe_source:
    return &record::describe_source;
  default:
    return nullptr;
  }
}

struct Tables {
  std::vector<KindEntry> entries;
  std::unordered_map<std::string_view, int> by_key;
};

// The flow of a kind: its output's when that is not an ordinary event, else its recorder's.
Flow flow_of(const Handler& output, const Handler* recorder) {
  if (output.flow != Flow::event || recorder == nullptr) {
    return output.flow;
  }
  return recorder->flow;
}

const Tables& tables() {
  static const Tables t = [] {
    Tables out;
#define TORCHSCOPE_KIND_ROW(id, key, payload, context, known, out_kind, emitted, desc)             \
  out.entries.push_back(KindEntry{key, known, &output::out_kind, recorder_for(KindId::id),         \
                                  flow_of(output::out_kind, recorder_for(KindId::id))});
    TORCHSCOPE_EVENT_KINDS(TORCHSCOPE_KIND_ROW)
#undef TORCHSCOPE_KIND_ROW
    for (size_t i = 0; i < out.entries.size(); ++i) {
      out.by_key.emplace(out.entries[i].key, static_cast<int>(i));
    }
    return out;
  }();
  return t;
}

bool check_type(simdjson::ondemand::value v, simdjson::ondemand::json_type t,
                std::string_view type) {
  using simdjson::ondemand::json_type;
  if (type == "any") {
    return true;
  }
  if (type == "str") {
    std::string_view s;
    return t == json_type::string && !v.get_string().get(s);
  }
  if (type == "bool") {
    bool b;
    return t == json_type::boolean && !v.get_bool().get(b);
  }
  if (type == "arr") {
    return t == json_type::array;
  }
  if (type == "obj") {
    return t == json_type::object;
  }
  if (t != json_type::number) {
    return false;
  }
  if (type == "f64") {
    double d;
    return !v.get_double().get(d);
  }
  if (type == "u32" || type == "u64") {
    uint64_t u;
    return !v.get_uint64().get(u) && (type == "u64" || u <= UINT32_MAX);
  }
  int64_t i;
  return !v.get_int64().get(i) && (type == "i64" || (i >= INT32_MIN && i <= INT32_MAX));
}

} // namespace

const std::vector<KindEntry>& registry() {
  return tables().entries;
}

int find_kind(std::string_view key) {
  const auto& m = tables().by_key;
  auto it = m.find(key);
  return it == m.end() ? -1 : it->second;
}

bool validate_object(simdjson::ondemand::parser& parser, std::string_view json,
                     std::initializer_list<FieldSpec> specs) {
  using simdjson::ondemand::json_type;
  simdjson::ondemand::document doc;
  simdjson::ondemand::object obj;
  if (!ingest::open_object(parser, json, doc, obj)) {
    return false;
  }
  uint64_t seen_required = 0;
  uint64_t required_mask = 0;
  size_t idx = 0;
  for (const FieldSpec& s : specs) {
    if (s.required) {
      required_mask |= uint64_t{1} << idx;
    }
    ++idx;
  }
  const bool valid = ingest::for_each_field(
      obj, [&](std::string_view key, simdjson::ondemand::value v, json_type t) {
        size_t i = 0;
        for (const FieldSpec& s : specs) {
          if (s.name == key) {
            seen_required |= uint64_t{1} << i;
            std::string_view skip;
            return t == json_type::null && !s.required ? !ingest::raw_value_json(v, skip)
                                                       : check_type(v, t, s.type);
          }
          ++i;
        }
        std::string_view skip;
        return !ingest::raw_value_json(v, skip);
      });
  return valid && (seen_required & required_mask) == required_mask;
}

NamedFields collect_fields(simdjson::ondemand::parser& parser, std::string_view json,
                           std::initializer_list<std::string_view> names) {
  using simdjson::ondemand::json_type;
  NamedFields f;
  f.strings.resize(names.size());
  f.raws.resize(names.size());
  simdjson::ondemand::document doc;
  simdjson::ondemand::object obj;
  if (!ingest::open_object(parser, json, doc, obj)) {
    return f;
  }
  ingest::for_each_field(obj, [&](std::string_view key, simdjson::ondemand::value v, json_type t) {
    const auto it = std::find(names.begin(), names.end(), key);
    const auto i = static_cast<size_t>(it - names.begin());
    std::string_view s;
    if (it != names.end() && t == json_type::string) {
      if (v.get_string().get(s)) {
        return false;
      }
      f.strings[i] = std::string(s);
      return true;
    }
    if (ingest::raw_value_json(v, s)) {
      return false;
    }
    if (it != names.end() && t != json_type::null) {
      f.raws[i] = std::string(s);
    }
    return true;
  });
  return f;
}

std::optional<std::string> string_field(simdjson::ondemand::parser& parser, std::string_view json,
                                        std::string_view name) {
  simdjson::ondemand::document doc;
  simdjson::ondemand::object obj;
  if (!ingest::open_object(parser, json, doc, obj)) {
    return std::nullopt;
  }
  std::optional<std::string> out;
  ingest::for_each_field(obj, [&](std::string_view key, simdjson::ondemand::value v, auto) {
    std::string_view s;
    if (key == name) {
      if (!v.get_string().get(s)) {
        out = std::string(s);
      }
      return false;
    }
    return !ingest::raw_value_json(v, s);
  });
  return out;
}

} // namespace tlparse::ingest::handlers
