// link: a compile-directory entry pointing at an external url; consumes a number, writes no file.
#include "ingest/handlers/handler.h"
#include "ingest/trackers/file_state.h"

namespace tlparse::ingest::handlers::output {
namespace {
bool validate(EventContext& ctx) {
  return validate_object(ctx.file.parser(), ctx.metadata,
                         {{"name", "str", true}, {"url", "str", true}});
}
void handle(EventContext& ctx) {
  const auto name = string_field(ctx.file.parser(), ctx.metadata, "name").value_or("");
  const auto url = string_field(ctx.file.parser(), ctx.metadata, "url").value_or("");
  ctx.file.add_link(ctx, name, url);
}
} // namespace

const Handler link{&validate, &handle};

} // namespace tlparse::ingest::handlers::output
