// Internal: the trace event keys capture writes, taken from the generated event catalogue
// (schemas/trace/event_kinds.json) so that a key missing from the catalogue fails to compile.
#pragma once

#include "schemas/event_kinds.gen.h"

#include <string_view>

namespace compiler::capture::keys {

#define TORCHSCOPE_CAPTURE_EVENT_KEY(identifier, key, payload, context, known, output, emitted,    \
                                     description)                                                  \
  inline constexpr std::string_view identifier = key;
TORCHSCOPE_EVENT_KINDS(TORCHSCOPE_CAPTURE_EVENT_KEY)
#undef TORCHSCOPE_CAPTURE_EVENT_KEY

// Artifact names are not event kinds; the catalogue lists the known ones.
inline constexpr std::string_view recompile_reasons = "recompile_reasons";
inline constexpr std::string_view dynamo_graph_break_reason = "dynamo_graph_break_reason";
inline constexpr std::string_view dynamo_error = "dynamo_error";

constexpr bool known_artifact(std::string_view name) {
#define TORCHSCOPE_CAPTURE_ARTIFACT(artifact_name, encoding)                                       \
  if (name == artifact_name) {                                                                     \
    return true;                                                                                   \
  }
  TORCHSCOPE_KNOWN_ARTIFACTS(TORCHSCOPE_CAPTURE_ARTIFACT)
#undef TORCHSCOPE_CAPTURE_ARTIFACT
  return false;
}
static_assert(known_artifact(recompile_reasons), "recompile_reasons is in the catalogue");
static_assert(known_artifact(dynamo_graph_break_reason), "graph break reasons are catalogued");
static_assert(known_artifact(dynamo_error), "compile errors are catalogued");

} // namespace compiler::capture::keys
