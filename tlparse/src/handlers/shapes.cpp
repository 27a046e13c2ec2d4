// Shape-environment events that feed the model: symbolic_shape_specialization,
// guard_added_fast, create_symbol / create_unbacked_symbol, and the describe_* type checks
// (their required fields are what tlparse 0.4.3's structs require).
#include "handlers/handler.h"
#include "ingest/envelope.h"
#include "model/file_model.h"

namespace tlparse::handlers::record {
namespace {

struct Fields {
  std::vector<std::string_view> names;
  std::vector<std::optional<std::string>> strings; // unescaped, when the value is a string
  std::vector<std::optional<std::string>> raws;    // raw JSON otherwise
};

Fields collect(simdjson::ondemand::parser& parser, std::string_view json,
               std::initializer_list<std::string_view> names) {
  using simdjson::ondemand::json_type;
  Fields f;
  f.names.assign(names.begin(), names.end());
  f.strings.resize(f.names.size());
  f.raws.resize(f.names.size());
  simdjson::ondemand::document doc;
  simdjson::ondemand::object obj;
  if (parser.iterate(json.data(), json.size(), json.size() + simdjson::SIMDJSON_PADDING).get(doc) ||
      doc.get_object().get(obj)) {
    return f;
  }
  for (auto field : obj) {
    std::string_view key, s;
    simdjson::ondemand::value v;
    json_type t;
    if (field.unescaped_key().get(key) || field.value().get(v) || v.type().get(t)) {
      return f;
    }
    size_t i = 0;
    while (i < f.names.size() && f.names[i] != key) {
      ++i;
    }
    if (i < f.names.size() && t == json_type::string) {
      if (v.get_string().get(s)) {
        return f;
      }
      f.strings[i] = std::string(s);
      continue;
    }
    if (ingest::raw_value_json(v, s)) {
      return f;
    }
    if (i < f.names.size() && t != json_type::null) {
      f.raws[i] = std::string(s);
    }
  }
  return f;
}

// The raw JSON is copied out of the envelope buffer: re-pad it for simdjson.
std::string padded(const std::string& raw) {
  std::string out = raw;
  out.resize(raw.size() + simdjson::SIMDJSON_PADDING, ' ');
  return out;
}

void add_stacks(EventContext& ctx, const std::optional<std::string>& stack,
                const std::optional<std::string>& user_stack) {
  std::vector<index::StackFrame> frames;
  for (const auto& [raw, role] : {std::pair{&stack, index::StackRole::stack},
                                  std::pair{&user_stack, index::StackRole::user_stack}}) {
    if (!*raw) {
      continue;
    }
    const std::string json = padded(**raw);
    if (ctx.model.parse_stack(std::string_view(json.data(), (*raw)->size()), frames, ctx.line)) {
      ctx.model.writer().add_stack(ctx.model.file_id(), ctx.event_id, role, frames);
    }
  }
}

// The items of a JSON list as metadata_lists rows (strings unescaped, other items as JSON).
void add_list(EventContext& ctx, std::string_view field, const std::optional<std::string>& raw) {
  using simdjson::ondemand::json_type;
  if (!raw) {
    return;
  }
  const std::string json = padded(*raw);
  simdjson::ondemand::document doc;
  simdjson::ondemand::array arr;
  if (ctx.model.parser().iterate(json.data(), raw->size(), json.size()).get(doc) ||
      doc.get_array().get(arr)) {
    return;
  }
  int64_t pos = 0;
  for (auto item : arr) {
    json_type t{};
    std::string_view s;
    if (item.type().get(t) ||
        (t == json_type::string ? item.get_string().get(s)
                                : ingest::raw_value_json(item.value_unsafe(), s))) {
      return;
    }
    ctx.model.add_list_item(ctx.event_id, field, pos++, s);
  }
}

bool validate_spec(simdjson::ondemand::parser& parser, std::string_view metadata) {
  return validate_object(parser, metadata,
                         {{"symbol", "str"},
                          {"sources", "arr"},
                          {"value", "str"},
                          {"reason", "str"},
                          {"stack", "arr"},
                          {"user_stack", "arr"}});
}
void handle_spec(EventContext& ctx) {
  const Fields f = collect(ctx.model.parser(), ctx.metadata,
                           {"symbol", "sources", "value", "reason", "stack", "user_stack"});
  ctx.model.writer().add(
      index::io::SpecializationRecord{ctx.model.file_id(), ctx.event_id, f.strings[0].value_or(""),
                                      f.strings[2].value_or(""), f.strings[3].value_or("")});
  add_list(ctx, "sources", f.raws[1]);
  add_stacks(ctx, f.raws[4], f.raws[5]);
}

bool validate_guard(simdjson::ondemand::parser& parser, std::string_view metadata) {
  return validate_object(parser, metadata,
                         {{"expr", "str"}, {"stack", "arr"}, {"user_stack", "arr"}});
}
void handle_guard(EventContext& ctx) {
  const Fields f = collect(ctx.model.parser(), ctx.metadata, {"expr", "stack", "user_stack"});
  ctx.model.writer().add(index::io::GuardAddedFastRecord{ctx.model.file_id(), ctx.event_id,
                                                         f.strings[0].value_or("")});
  add_stacks(ctx, f.raws[1], f.raws[2]);
}

void handle_symbol(EventContext& ctx) {
  const Fields f = collect(ctx.model.parser(), ctx.metadata,
                           {"symbol", "val", "vr", "source", "stack", "user_stack"});
  ctx.model.writer().add(
      index::io::CreatedSymbolRecord{ctx.model.file_id(), ctx.event_id, f.strings[0].value_or(""),
                                     f.strings[1] ? *f.strings[1] : f.raws[1].value_or(""),
                                     f.strings[2].value_or(""), f.strings[3].value_or("")});
  add_stacks(ctx, f.raws[4], f.raws[5]);
}

bool validate_storage(simdjson::ondemand::parser& parser, std::string_view metadata) {
  return validate_object(
      parser, metadata,
      {{"id", "u64", true}, {"describer_id", "u64", true}, {"size", "u64", true}});
}
bool validate_tensor(simdjson::ondemand::parser& parser, std::string_view metadata) {
  return validate_object(parser, metadata,
                         {{"id", "u64", true},
                          {"describer_id", "u64", true},
                          {"ndim", "u64", true},
                          {"dtype", "str", true},
                          {"device", "str", true},
                          {"size", "arr", true}});
}
bool validate_source(simdjson::ondemand::parser& parser, std::string_view metadata) {
  return validate_object(
      parser, metadata,
      {{"describer_id", "u64", true}, {"id", "u64", true}, {"source", "str", true}});
}
} // namespace

const Handler symbolic_shape_specialization{&validate_spec, &handle_spec};
const Handler guard_added_fast{&validate_guard, &handle_guard};
const Handler symbol{nullptr, &handle_symbol};
const Handler describe_storage{&validate_storage, nullptr};
const Handler describe_tensor{&validate_tensor, nullptr};
const Handler describe_source{&validate_source, nullptr};

} // namespace tlparse::handlers::record
