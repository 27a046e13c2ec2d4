// backend: what a compiled frame must hand back to capture, made explicit in the graph the
// later stages see. Capture reads, after a run, the value of every node the request keeps
// (backend::Keep), by the node's index in the captured graph; the stages after capture are free
// to rewrite, renumber and drop nodes, and promise only the values their graph's Output node
// names. So the kept nodes become that Output node's results, in a fixed order, and an adapter
// puts the results back at the captured graph's indices.
#pragma once

#include "compiler/backend/backend.h"

#include <memory>
#include <vector>

namespace compiler::backend {

struct KeptValues {
  graph::Graph graph;             // the request's graph, its Output naming every kept node
  std::vector<std::size_t> slots; // Output result k is the captured graph's node slots[k]
};

// The graph to hand to the stages: the Output node lists the call nodes `request.keep` asks
// for (node arguments only; capture resolves constant results itself).
KeptValues keep_values(const CompileRequest& request);

// Wraps `inner`, compiled from `compiled` (kept.graph after the stages rewrote it; its run()
// returns values at `compiled`'s indices), so that run() returns them at `captured`'s indices.
std::unique_ptr<CompiledGraph> restore_indices(std::unique_ptr<CompiledGraph> inner,
                                               const graph::Graph& captured,
                                               const graph::Graph& compiled,
                                               const std::vector<std::size_t>& slots);

} // namespace compiler::backend
