// compiler/graph: the editing utilities graph passes share (find users, replace uses, insert and
// erase nodes, check the order, copy nodes into another graph). A Graph refers to nodes by
// index, so every edit that moves nodes renumbers the references in the nodes after it; passes
// never do that by hand.
#pragma once

#include "compiler/graph/graph.h"

#include <cstddef>
#include <span>
#include <string_view>
#include <vector>

namespace compiler::graph {

inline constexpr std::size_t kErased = static_cast<std::size_t>(-1);

// Calls fn(ref) for each node reference among `node`'s arguments (Node and NodeList args, and
// the Output node's results). `ref` is a std::size_t& (or const& for a const node).
template <class N, class F>
void for_each_input(N& node, F&& fn) {
  for (auto& a : node.args) {
    if (a.kind == Arg::Kind::Node) {
      fn(a.node);
    } else if (a.kind == Arg::Kind::NodeList) {
      for (auto& n : a.nodes) {
        fn(n);
      }
    }
  }
}

// For each node, the indices of the nodes that use it, in graph order (a node appears once per
// use, so `x * x` lists the mul twice).
std::vector<std::vector<std::size_t>> users_of(const Graph& graph);
// The same with each user listed once (`x * x` lists the mul once): the AOT partitioner's
// graph of uses.
std::vector<std::vector<std::size_t>> distinct_users_of(const Graph& graph);
// For each node, how many uses it has.
std::vector<std::size_t> use_counts(const Graph& graph);

// Makes every use of node `from` a use of node `to` instead.
void replace_all_uses(Graph& graph, std::size_t from, std::size_t to);

// Replacing uses within one forward sweep over the graph (CSE, no-op removal): when the sweep
// finds that node `from` computes the value of an earlier node `to` (one not replaced itself),
// replace(from, to) records it, and visit(node), called on every node as the sweep reaches it
// (before looking at it), rewrites the node's references. The graph ends as if replace_all_uses
// had run for each pair, in one pass over the arguments instead of one per pair.
class SweepReplacer {
public:
  explicit SweepReplacer(std::size_t size);
  void visit(Node& node) const;
  void replace(std::size_t from, std::size_t to);

private:
  std::vector<std::size_t> to_;
};

// Inserts `node` before position `pos` with a unique name derived from `base`; references to
// nodes at or after `pos` are renumbered. Returns the new node's index (`pos`).
std::size_t insert_node(Graph& graph, std::size_t pos, Node node, std::string_view base);

// Removes the nodes whose flag is set and renumbers the rest. No kept node may refer to an
// erased one (asserted). Returns old index -> new index (kErased for removed nodes).
std::vector<std::size_t> erase_nodes(Graph& graph, const std::vector<bool>& erase);

// `arg` with its node references mapped through `map` (an index of this graph -> an index of
// another); every node it refers to must be mapped (not kErased).
Arg remap(const Arg& arg, std::span<const std::size_t> map);
// Appends a copy of `node` to `to`, its references mapped through `map`, keeping its name;
// returns its index in `to`. The AOT partitioner builds its graphs from the joint graph so.
std::size_t copy_node(Graph& to, const Node& node, std::span<const std::size_t> map);

// True when every node refers only to nodes before it, and the Output node (if any) is last.
bool is_topologically_sorted(const Graph& graph);

// Whether two arguments are the same: the same node (or nodes), the same symbolic expression, or
// equal constants (tensors by identity, floats bit for bit). CSE and the pattern matcher use it.
bool same_arg(const Arg& a, const Arg& b);
// Whether two size lists are the same expressions, dim by dim (no guard recorded).
bool same_sizes(const std::vector<SymInt>& a, const std::vector<SymInt>& b);

// A hash consistent with same_arg.
std::size_t arg_hash(const Arg& a);

// The bytes of a node's tensor value (its sizes' hints times the element size); 0 for a
// non-tensor.
std::size_t value_bytes(const Node& node);

// The names of the captured-graph nodes `node` stands for (its from_nodes, or its own name).
std::vector<std::string> provenance_of(const Node& node);

} // namespace compiler::graph
