// dynamo_guards: an HTML list of guards. The payload must be a JSON list of {code, stack?,
// user_stack?}; otherwise tlparse counts fail_dynamo_guards_json and writes nothing.
#include "ingest/envelope/envelope.h"
#include "ingest/handlers/handler.h"
#include "ingest/trackers/file_state.h"

namespace tlparse::ingest::handlers::output {
namespace {
bool validate(EventContext& ctx) {
  return validate_object(ctx.file.parser(), ctx.metadata, {});
}

bool payload_is_guard_list(simdjson::ondemand::parser& parser, std::string_view payload) {
  simdjson::ondemand::document doc;
  simdjson::ondemand::array arr;
  if (!ingest::open_array(parser, payload, doc, arr)) {
    return false;
  }
  for (auto item : arr) {
    std::string_view raw;
    simdjson::ondemand::object obj;
    if (item.get_object().get(obj) || obj.raw_json().get(raw)) {
      return false;
    }
    simdjson::ondemand::parser inner;
    if (!validate_object(
            inner, raw,
            {{"code", "str", true}, {"stack", "any", false}, {"user_stack", "any", false}})) {
      return false;
    }
  }
  return true;
}

void handle(EventContext& ctx) {
  if (!payload_is_guard_list(ctx.file.parser(), ctx.payload)) {
    ++ctx.file.stats().fail_dynamo_guards_json;
    ctx.file.count(index::HealthId::fail_dynamo_guards_json, ctx.line, ctx.payload);
    return;
  }
  ctx.file.add_compile_file(ctx, "dynamo_guards", "html", index::OutputKind::guards_html, false);
}
} // namespace

const Handler guards_html{&validate, &handle};

} // namespace tlparse::ingest::handlers::output
