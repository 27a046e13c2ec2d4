// Joint-graph pass: removes ops that return their input's value unchanged (PyTorch's
// remove_noop_ops): views, expands and reshapes to the same sizes, identity permutes, casts
// to the same dtype, whole-dim slices, one-input cats, and arithmetic with the identity
// element (x + 0, x - 0, x * 1, x / 1, x ** 1) that changes neither shape nor dtype. Uses of
// a removed node use its input instead.
#pragma once

#include "compiler/graph/graph.h"

#include <vector>

namespace compiler::aot::passes {

// Marks the no-ops of `g` in `replace` (see joint_graph_passes.h for the convention); returns
// how many it marked.
std::size_t remove_noop_ops(const graph::Graph& g, std::vector<std::size_t>& replace);

} // namespace compiler::aot::passes
