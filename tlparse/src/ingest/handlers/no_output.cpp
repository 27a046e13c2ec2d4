// Kinds whose events produce no file in the compatible report: `none` (dynamo_start, describe_*,
// stack, ...; a recorder may still make rows of them) and `export_only` (kinds tlparse 0.4.3
// renders only with --export; their payloads still go to payloads/).
#include "ingest/handlers/handler.h"
#include "ingest/trackers/file_state.h"

namespace tlparse::ingest::handlers::output {
namespace {
bool any_object(EventContext& ctx) {
  return validate_object(ctx.file.parser(), ctx.metadata, {});
}
} // namespace

const Handler none{nullptr, nullptr};
const Handler export_only{&any_object, nullptr};

} // namespace tlparse::ingest::handlers::output
