// Internal: the joint-graph pass pipeline (the role of PyTorch's joint_graph_passes), run on
// the joint graph before partitioning and on the inference graph before it is compiled. Each
// pass is one file pair under passes/; this runs them in order, each in a chromium span named
// as PyTorch names its passes ("pass.joint_graph_passes.remove_noop_ops"), and can return the
// graph after each pass for debugging.
//
// The passes share one rewrite: `replace[i]` is i for a node kept, the (earlier, kept) node
// whose value node i's users take instead, or kNoNode for a node dropped. A pass reads
// arguments through `replace` and marks more entries; the graph is rebuilt once at the end.
#pragma once

#include "compiler/aot/joint_graph.h"
#include "compiler/graph/graph.h"

#include <string>
#include <utility>
#include <vector>

namespace compiler::aot::detail {

using aot::PassReport;

// Runs remove_noop_ops, cse and dce on `g`. With `dump`, each report holds the graph after
// its pass.
std::vector<PassReport> run_joint_graph_passes(graph::Graph& g, bool dump = false);

} // namespace compiler::aot::detail
