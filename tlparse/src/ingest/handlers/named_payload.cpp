// Kinds whose payload file is named after a field of the metadata: graph_dump (`<name>_<N>.txt`)
// and optimize_ddp_split_child (`optimize_ddp_split_child_<name>_<N>.txt`). The name comes from
// the log, so FileState sanitises it.
#include "ingest/handlers/handler.h"
#include "ingest/trackers/file_state.h"

namespace tlparse::ingest::handlers::output {
namespace {
bool has_name(EventContext& ctx) {
  return validate_object(ctx.file.parser(), ctx.metadata, {{"name", "str", true}});
}
void graph_dump_file(EventContext& ctx) {
  const auto name = string_field(ctx.file.parser(), ctx.metadata, "name").value_or("");
  ctx.file.add_compile_file(ctx, name, "txt", index::OutputKind::payload_text, true);
}
void ddp_child_file(EventContext& ctx) {
  const auto name = string_field(ctx.file.parser(), ctx.metadata, "name").value_or("");
  ctx.file.add_compile_file(ctx, "optimize_ddp_split_child_" + name, "txt",
                            index::OutputKind::payload_text, true);
}
} // namespace

const Handler graph_dump{&has_name, &graph_dump_file};
const Handler ddp_split_child{&has_name, &ddp_child_file};

} // namespace tlparse::ingest::handlers::output
