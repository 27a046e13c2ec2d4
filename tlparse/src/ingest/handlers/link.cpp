// link: a compile-directory entry pointing at an external url; consumes a number, writes no file.
#include "ingest/handlers/handler.h"
#include "ingest/trackers/file_model.h"

namespace tlparse::handlers::output {
namespace {
bool validate(simdjson::ondemand::parser& parser, std::string_view metadata) {
  return validate_object(parser, metadata, {{"name", "str", true}, {"url", "str", true}});
}
void handle(EventContext& ctx) {
  const auto name = string_field(ctx.model.parser(), ctx.metadata, "name").value_or("");
  const auto url = string_field(ctx.model.parser(), ctx.metadata, "url").value_or("");
  ctx.model.add_link(ctx, name, url);
}
} // namespace

const Handler link{&validate, &handle};

} // namespace tlparse::handlers::output
