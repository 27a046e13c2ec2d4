// passes: removal of no-op views and copies. A view, reshape, expand, permute, transpose, slice,
// squeeze or unsqueeze whose result has the same dtype, sizes and strides as a tensor it was
// derived from (through a chain of such views) is that tensor; so is `contiguous` of a
// contiguous tensor and a conversion to the dtype it already has. Their uses move to the
// source; a reshape of a reshape becomes one reshape. Dead-code elimination removes the rest.
#pragma once

#include "compiler/graph/graph.h"

namespace compiler::passes {

bool remove_noop_views(graph::Graph& graph);

} // namespace compiler::passes
