// Internal: the trace event keys and artifact names every compiler stage writes, taken from the
// generated event catalogue (schemas/trace/event_kinds.json) so that a name missing from the
// catalogue fails to compile. Emit sites spell names only through these constants; a schemas
// test rejects a catalogued name spelled as a literal in compiler/.
#pragma once

#include "schemas/event_kinds.gen.h"

#include <string_view>

// Event kinds: keys::dynamo_output_graph, keys::compilation_metrics, ...
namespace compiler::tracing::keys {

#define TORCHSCOPE_EVENT_KEY(identifier, key, payload, context, known, output, emitted,            \
                             description)                                                          \
  inline constexpr std::string_view identifier = key;
TORCHSCOPE_EVENT_KINDS(TORCHSCOPE_EVENT_KEY)
#undef TORCHSCOPE_EVENT_KEY

} // namespace compiler::tracing::keys

// Artifact names, in their own namespace because some are also event kinds
// (inductor_post_grad_graph): artifacts::fx_graph_cache_hit, artifacts::torch__functorch_config.
namespace compiler::tracing::artifacts {

#define TORCHSCOPE_ARTIFACT_NAME(identifier, name, encoding)                                       \
  inline constexpr std::string_view identifier = name;
TORCHSCOPE_KNOWN_ARTIFACTS(TORCHSCOPE_ARTIFACT_NAME)
#undef TORCHSCOPE_ARTIFACT_NAME

} // namespace compiler::tracing::artifacts
