// passes: common-subexpression elimination (PyTorch's fx_graph_cse). Two call nodes with the
// same op and the same arguments compute the same value (ops are pure), so the later one's uses
// move to the earlier one; dead-code elimination then removes it. On the joint graph this is
// what lets a backward formula that recomputes a forward intermediate (layer_norm's statistics)
// reuse the forward's node, so the partitioner can save it instead of recomputing it.
#pragma once

#include "compiler/graph/graph.h"

namespace compiler::passes {

// How the stages differ (pass_pipeline.cpp binds them per stage).
struct CseOptions {
  // Merge random ops too. randn is a function of its seed, so the pre- and post-grad stages do;
  // the joint-graph stage, like PyTorch's, leaves random ops apart.
  bool merge_random = true;
  // Add the merged node's provenance (graph::provenance_of) to the kept node's from_nodes, for
  // Inductor's provenance artifacts. The joint-graph stage does not: its nodes are AOT-traced,
  // not captured-graph nodes.
  bool record_provenance = true;
};

bool common_subexpression_elimination(graph::Graph& graph, const CseOptions& options = {});

} // namespace compiler::passes
