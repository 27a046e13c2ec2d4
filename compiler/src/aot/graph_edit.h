// Internal: small graph-editing helpers the AOT stage's passes and partitioner share. Graphs
// refer to nodes by index, so edits build a new graph: nodes are copied in order with their
// references remapped through an old-index -> new-index table.
#pragma once

#include "compiler/graph/graph.h"

#include <cstddef>
#include <limits>
#include <span>
#include <vector>

namespace compiler::aot::detail {

inline constexpr std::size_t kNoNode = std::numeric_limits<std::size_t>::max();

// Calls f(index) for every node an argument list refers to (Node and NodeList arguments).
template <class F>
void for_each_input(const graph::Node& n, F&& f) {
  for (const graph::Arg& a : n.args) {
    if (a.kind == graph::Arg::Kind::Node) {
      f(a.node);
    } else if (a.kind == graph::Arg::Kind::NodeList) {
      for (std::size_t i : a.nodes) {
        f(i);
      }
    }
  }
}

// The users of every node, in node order.
std::vector<std::vector<std::size_t>> users_of(const graph::Graph& g);

// `a` with its node references mapped through `map` (every referenced node must be mapped).
graph::Arg remap(const graph::Arg& a, std::span<const std::size_t> map);
// The same, changing `a` itself.
void remap_in_place(graph::Arg& a, std::span<const std::size_t> map);

// Appends a copy of `n` (arguments remapped) to `to`, keeping its name; returns its index.
std::size_t copy_node(graph::Graph& to, const graph::Node& n, std::span<const std::size_t> map);

// A new graph from `g` where node i is kept when replace[i] == i, and otherwise dropped with
// its uses redirected to node replace[i] (an earlier node), or dropped outright when
// replace[i] == kNoNode (it must then have no remaining users).
// The graph is consumed (its nodes are moved).
graph::Graph rebuild(graph::Graph&& g, std::span<const std::size_t> replace);

// The byte size of a node's tensor value (its meta sizes' hints times the element size); 0 for
// non-tensors.
std::size_t value_bytes(const graph::Node& n);

} // namespace compiler::aot::detail
