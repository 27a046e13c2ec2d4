// passes: re-inplacing, the last post-grad pass. A pointwise op whose tensor argument is a
// fresh intermediate (not an input, a constant, an output or anything's view) that nobody reads
// after it, with the same dtype and dense layout as the result, may write its result over that
// argument: the node's `inplace_arg` records which (printed with aten's in-place name, `add_`).
// Lowering then gives the node its argument's buffer instead of a new one.
#pragma once

#include "compiler/graph/graph.h"

namespace compiler::passes {

bool reinplace(graph::Graph& graph);

} // namespace compiler::passes
