// Kinds whose events produce no file in the compatible report: `none` (dynamo_start, describe_*,
// stack, ...), `intern` (str, handled by the pipeline before any handler) and `export_only`
// (kinds tlparse 0.4.3 renders only with --export; their payloads still go to payloads/).
#include "ingest/handlers/handler.h"

namespace tlparse::handlers::output {
namespace {
bool any_object(simdjson::ondemand::parser& parser, std::string_view metadata) {
  return validate_object(parser, metadata, {});
}
} // namespace

const Handler none{nullptr, nullptr};
const Handler intern{nullptr, nullptr};
const Handler export_only{&any_object, nullptr};

} // namespace tlparse::handlers::output
