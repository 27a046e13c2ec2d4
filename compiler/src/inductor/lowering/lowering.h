// inductor/lowering: turns a post-grad graph into the loop IR (Inductor's GraphLowering and
// lowering.py). One lowering per op of the op list, registered in one table; an op without one
// (or a case a lowering declines: an unsupported dtype or rank) becomes a Fallback buffer that
// runs the node's eager kernel, counted in the result.
//
// Pointwise results stay unrealized (a function of the index) and are inlined into their
// users; a value is realized into a buffer when several users read it and it costs more than a
// load, when it is a graph result, when an extern kernel or a fallback needs memory, or when a
// composite op (softmax, layer_norm) reads an expensive input several times. Reductions are
// always buffers. Views are index transforms (a view of a buffer is a new layout of the same
// storage); symbolic sizes stay symbolic (Expr symbols).
#pragma once

#include "compiler/graph/graph.h"
#include "inductor/ir/loop_ir.h"

#include <vector>

namespace compiler::inductor {

struct LoweringStats {
  std::vector<std::size_t> fallback_nodes; // graph nodes run on their eager kernel
  std::size_t extern_calls = 0;
};

// Lowers `graph` (its placeholders become Input buffers in order; its Output node's results
// become LoweredGraph::outputs).
LoweredGraph lower_graph(const graph::Graph& graph, LoweringStats& stats);

// Whether op `op` has a lowering (it may still decline particular arguments).
bool has_lowering(OpKind op) noexcept;

} // namespace compiler::inductor
