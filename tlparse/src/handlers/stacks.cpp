// dynamo_start: records the user stack that reached a compile (the stack trie of index.html, and
// the compile's user location in the index).
// The metadata is {stack: Option<[frame]>}; a malformed stack is a type error (fail_json).
#include "handlers/handler.h"
#include "ingest/envelope.h"
#include "model/file_model.h"

namespace tlparse::handlers::record {
namespace {

// Finds the raw JSON of a field of an object; false on a parse error.
bool field_raw(simdjson::ondemand::parser& parser, std::string_view json, std::string_view name,
               std::optional<std::string_view>& out) {
  out.reset();
  simdjson::ondemand::document doc;
  simdjson::ondemand::object obj;
  if (parser.iterate(json.data(), json.size(), json.size() + simdjson::SIMDJSON_PADDING).get(doc) ||
      doc.get_object().get(obj)) {
    return false;
  }
  for (auto field : obj) {
    std::string_view key, raw;
    simdjson::ondemand::value v;
    if (field.unescaped_key().get(key) || field.value().get(v) || ingest::raw_value_json(v, raw)) {
      return false;
    }
    if (key == name && raw != "null") {
      out = raw;
    }
  }
  return true;
}

bool validate(simdjson::ondemand::parser& parser, std::string_view metadata) {
  return validate_object(parser, metadata, {{"stack", "arr"}});
}

void handle(EventContext& ctx) {
  std::optional<std::string_view> raw;
  if (!field_raw(ctx.model.parser(), ctx.metadata, "stack", raw) || !raw) {
    return;
  }
  std::vector<index::StackFrame> frames;
  if (ctx.model.parse_stack(*raw, frames, ctx.line)) {
    const int64_t id = ctx.model.writer().add_stack(ctx.model.file_id(), ctx.event_id,
                                                    index::StackRole::dynamo_start, frames);
    ctx.model.facts(ctx.compile_id).note_user_stack(id, frames);
  }
}
} // namespace

const Handler dynamo_start{&validate, &handle};

} // namespace tlparse::handlers::record
