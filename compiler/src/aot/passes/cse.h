// Joint-graph pass: common-subexpression elimination (PyTorch's fx_graph_cse). Two call nodes
// with the same op and the same arguments compute the same value; later ones are replaced by
// the first. Random ops are never merged. This is what lets a backward formula that recomputes
// a forward intermediate (layer_norm's statistics) reuse the forward's node, so the
// partitioner can save it instead of recomputing it.
#pragma once

#include "compiler/graph/graph.h"

#include <vector>

namespace compiler::aot::passes {

// Marks the repeated nodes of `g` in `replace` (see joint_graph_passes.h for the convention);
// returns how many it marked.
std::size_t cse(const graph::Graph& g, std::vector<std::size_t>& replace);

} // namespace compiler::aot::passes
