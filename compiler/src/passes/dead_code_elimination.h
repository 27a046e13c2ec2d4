// passes: dead-code elimination. Every op of the op list is pure (randn is a function of its
// seed), so a call node whose result nobody uses can go; placeholders stay (they are the graph's
// signature).
#pragma once

#include "compiler/graph/graph.h"

namespace compiler::passes {

bool dead_code_elimination(graph::Graph& graph);

} // namespace compiler::passes
