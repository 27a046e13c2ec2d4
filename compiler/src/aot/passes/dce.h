// Joint-graph pass: dead-code elimination. Call nodes whose value no output needs are
// removed; placeholders always stay (they are the graph's calling convention).
#pragma once

#include "compiler/graph/graph.h"

namespace compiler::aot::passes {

// Returns how many nodes were removed.
std::size_t dce(graph::Graph& g);

} // namespace compiler::aot::passes
