// Dinic's maximum flow.
#include "aot/max_flow.h"

#include <algorithm>
#include <queue>

namespace compiler::aot::detail {

void MaxFlow::add_edge(std::size_t from, std::size_t to, std::int64_t capacity) {
  adjacency_[from].push_back(Edge{to, adjacency_[to].size(), capacity});
  adjacency_[to].push_back(Edge{from, adjacency_[from].size() - 1, 0});
}

bool MaxFlow::levels(std::size_t source, std::size_t sink) {
  level_.assign(adjacency_.size(), -1);
  std::queue<std::size_t> q;
  level_[source] = 0;
  q.push(source);
  while (!q.empty()) {
    const std::size_t v = q.front();
    q.pop();
    for (const Edge& e : adjacency_[v]) {
      if (e.capacity > 0 && level_[e.to] < 0) {
        level_[e.to] = level_[v] + 1;
        q.push(e.to);
      }
    }
  }
  return level_[sink] >= 0;
}

std::int64_t MaxFlow::push(std::size_t v, std::size_t sink, std::int64_t limit) {
  if (v == sink) {
    return limit;
  }
  for (std::size_t& i = cursor_[v]; i < adjacency_[v].size(); ++i) {
    Edge& e = adjacency_[v][i];
    if (e.capacity <= 0 || level_[e.to] != level_[v] + 1) {
      continue;
    }
    const std::int64_t pushed = push(e.to, sink, std::min(limit, e.capacity));
    if (pushed > 0) {
      e.capacity -= pushed;
      adjacency_[e.to][e.reverse].capacity += pushed;
      return pushed;
    }
  }
  return 0;
}

std::int64_t MaxFlow::solve(std::size_t source, std::size_t sink) {
  std::int64_t flow = 0;
  while (flow < kInfinite && levels(source, sink)) {
    cursor_.assign(adjacency_.size(), 0);
    while (std::int64_t pushed = push(source, sink, kInfinite)) {
      flow += pushed;
      if (flow >= kInfinite) {
        break;
      }
    }
  }
  return flow;
}

std::vector<bool> MaxFlow::sink_side(std::size_t sink) const {
  std::vector<bool> seen(adjacency_.size(), false);
  std::vector<std::size_t> stack{sink};
  seen[sink] = true;
  while (!stack.empty()) {
    const std::size_t v = stack.back();
    stack.pop_back();
    for (const Edge& e : adjacency_[v]) {
      // e.to -> v has residual capacity when its edge (the reverse of e) is not saturated.
      const Edge& into = adjacency_[e.to][e.reverse];
      if (into.capacity > 0 && !seen[e.to]) {
        seen[e.to] = true;
        stack.push_back(e.to);
      }
    }
  }
  return seen;
}

} // namespace compiler::aot::detail
