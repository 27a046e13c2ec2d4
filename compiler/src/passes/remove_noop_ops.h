// passes: removal of no-op ops, PyTorch's remove_noop_ops (the joint-graph stage runs it first;
// no-ops hide equal subexpressions from CSE). A node is a no-op when it returns its input's
// value unchanged: a view, expand or reshape to the same sizes, an identity permute, a cast to
// the same dtype, a detach, a whole-dim slice, a one-input cat, or arithmetic with the identity
// element (x + 0, x - 0, x * 1, x / 1, x ** 1) that changes neither shape nor dtype. Its uses
// move to its input; dead-code elimination removes the node. Unlike remove_noop_views it
// compares sizes and dtype only, as the AOT stage's graphs carry no layout decisions yet.
#pragma once

#include "compiler/graph/graph.h"

namespace compiler::passes {

bool remove_noop_ops(graph::Graph& graph);

} // namespace compiler::passes
