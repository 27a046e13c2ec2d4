// Internal: maximum flow / minimum cut on a directed graph with integer capacities (Dinic's
// algorithm: BFS levels, then blocking flows by DFS with per-vertex edge cursors). The
// partitioner's networks have two vertices per graph node; Dinic runs in O(V^2 E) in the worst
// case and far faster on these layered, mostly-infinite networks.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace compiler::aot::detail {

class MaxFlow {
public:
  // Capacity meaning "never cut": large enough for any sum of real capacities, small enough
  // that adding a few never overflows.
  static constexpr std::int64_t kInfinite = std::numeric_limits<std::int64_t>::max() / 8;

  explicit MaxFlow(std::size_t vertices) : adjacency_(vertices) {}

  void add_edge(std::size_t from, std::size_t to, std::int64_t capacity);
  // The maximum flow from `source` to `sink` (kInfinite or more: no finite cut exists).
  std::int64_t solve(std::size_t source, std::size_t sink);
  // After solve(): the vertices that can reach the sink in the residual graph. Their
  // complement is the source side of the minimum cut with the largest source side, so
  // zero-capacity edges that lead nowhere near the sink are never cut.
  std::vector<bool> sink_side(std::size_t sink) const;

private:
  struct Edge {
    std::size_t to;
    std::size_t reverse; // index of the reverse edge in adjacency_[to]
    std::int64_t capacity;
  };
  bool levels(std::size_t source, std::size_t sink);
  std::int64_t push(std::size_t v, std::size_t sink, std::int64_t limit);

  std::vector<std::vector<Edge>> adjacency_;
  std::vector<int> level_;
  std::vector<std::size_t> cursor_;
};

} // namespace compiler::aot::detail
