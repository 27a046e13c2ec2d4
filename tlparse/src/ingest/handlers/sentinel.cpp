// Graph-dump kinds whose payload is written verbatim as `<key>_<N>.txt` (tlparse's
// SentinelFileParser and DynamoOutputGraphParser): aot_*_graph, dynamo_output_graph,
// dynamo_cpp_guards_str, inductor_*_grad_graph, ...
#include "ingest/handlers/handler.h"
#include "ingest/trackers/file_state.h"

namespace tlparse::ingest::handlers::output {
namespace {
bool metadata_is_object(EventContext& ctx) {
  return validate_object(ctx.file.parser(), ctx.metadata, {});
}
void write_payload(EventContext& ctx) {
  ctx.file.add_compile_file(ctx, ctx.key, "txt", index::OutputKind::payload_text, true);
}
} // namespace

const Handler sentinel_txt{&metadata_is_object, &write_payload};
const Handler payload_txt{&metadata_is_object, &write_payload};

} // namespace tlparse::ingest::handlers::output
