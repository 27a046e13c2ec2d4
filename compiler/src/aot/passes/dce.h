// Joint-graph pass: dead-code elimination. Call nodes whose value no output needs are
// removed; placeholders always stay (they are the graph's calling convention).
#pragma once

#include "compiler/graph/graph.h"

#include <vector>

namespace compiler::aot::passes {

// Marks the dead nodes of `g` in `replace` (see joint_graph_passes.h for the convention);
// returns how many it marked.
std::size_t dce(const graph::Graph& g, std::vector<std::size_t>& replace);

} // namespace compiler::aot::passes
