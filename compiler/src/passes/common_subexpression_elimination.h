// passes: common-subexpression elimination. Two call nodes with the same op and the same
// arguments compute the same value (ops are pure), so the later one's uses move to the earlier
// one; dead-code elimination then removes it.
#pragma once

#include "compiler/graph/graph.h"

namespace compiler::passes {

bool common_subexpression_elimination(graph::Graph& graph);

} // namespace compiler::passes
