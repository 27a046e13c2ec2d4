// passes: constant folding. Two folds that stay right however the program's tensors change
// between calls:
// - uniform values: a pointwise op or a view whose tensor inputs are all `full`-like factories
//   (full, zeros, ones) computes one value everywhere, so it becomes a `full` of its own shape
//   (PyTorch's constant_fold_uniform_value);
// - views of graph constants: a view of a tensor the function closed over (a weight) becomes a
//   constant view of it. A view shares the weight's storage, so an optimizer step that updates
//   the weight in place is still seen; ops that would copy a weight's data are never folded.
#pragma once

#include "compiler/graph/graph.h"

namespace compiler::passes {

bool constant_folding(graph::Graph& graph);

} // namespace compiler::passes
