// inductor: the provenance artifacts, with PyTorch's names and shapes:
//   inductor_provenance_tracking_node_mappings: {"preToPost", "postToPre", "cppCodeToPost",
//     "postToCppCode", "version": 2.0}: captured-graph nodes <-> post-grad nodes <-> kernels
//     (named "kernel:debug handle", as the output code's provenance comments name them);
//   inductor_provenance_tracking_kernel_stack_traces: {"kernel:handle": ["  File ..., line N,
//     in fn\n    code\n", ...]}: the user's lines each kernel computes.
// Pre-grad names come from graph::Node::from_nodes, which every pass keeps up to date.
#pragma once

#include "compiler/graph/graph.h"
#include "inductor/scheduler/kernel_plan.h"

namespace compiler::inductor {

void write_provenance(const graph::Graph& post_grad, const LoweredGraph& ir, const Schedule& s);

} // namespace compiler::inductor
