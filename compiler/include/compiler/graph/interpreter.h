// compiler/capture: runs a captured Graph on real tensors by calling the eager kernel of each
// node (run_eager), so a compiled function computes exactly what eager execution computes.
// It stands in for code generation until the later stages exist.
#pragma once

#include "compiler/graph/graph.h"

#include <span>
#include <vector>

namespace compiler::graph {

// Runs `graph`: `inputs` holds one Value per placeholder, in placeholder order; `symbols` the
// run-time value of each size symbol (for symbolic arguments such as view sizes). Returns the
// value of every node (placeholders, calls; the Output node's slot stays empty), so callers can
// read the outputs and any intermediate result later frames refer to.
std::vector<Value> interpret(const Graph& graph, std::span<const Value> inputs,
                             std::span<const std::int64_t> symbols);

// The Values of one node's arguments, resolved against `values` and `symbols`.
std::vector<Value> resolve_args(const Graph& graph, const Node& node, std::span<const Value> values,
                                std::span<const std::int64_t> symbols);

} // namespace compiler::graph
