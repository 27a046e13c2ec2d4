// The min-cut and save-everything partitioners (partitioner.h explains the model).
#include "compiler/aot/partitioner.h"

#include "aot/max_flow.h"
#include "compiler/core/errors.h"
#include "compiler/graph/graph_rewrite.h"

#include <algorithm>
#include <cmath>
#include <queue>
#include <tuple>

namespace compiler::aot {

namespace {

using graph::Arg;
using graph::Graph;
using graph::Node;
using graph::NodeKind;

// ---------------------------------------------------------------- op classes

bool is_view(const Node& n) {
  return n.kind == NodeKind::CallOp && op_category(n.op) == OpCategory::View;
}

// PyTorch's recomputable allowlist: cheap, deterministic, bandwidth-bound ops.
bool is_recomputable(const Node& n) {
  switch (op_category(n.op)) {
  case OpCategory::Pointwise:
  case OpCategory::View:
    return true;
  case OpCategory::Reduction:
    return n.op != OpKind::argmax;
  case OpCategory::Factory:
    // rand (dropout's mask) is a function of its (seed, offset) arguments: recomputed in the
    // backward rather than saved, as PyTorch treats its Philox rand. randn keeps PyTorch's ban.
    return n.op != OpKind::randn;
  case OpCategory::Shape:
    return n.op == OpKind::contiguous;
  default:
    return false; // matmuls, indexing, cat, composites, random
  }
}

// Whether a code generator would fuse the op into a neighbour's loop.
bool is_fusible_op(const Node& n) {
  if (n.kind != NodeKind::CallOp) {
    return false;
  }
  switch (op_category(n.op)) {
  case OpCategory::Pointwise:
  case OpCategory::Reduction:
  case OpCategory::View:
  case OpCategory::Shape:
    return true;
  case OpCategory::Factory:
    return n.op != OpKind::randn;
  case OpCategory::Indexing:
    return n.op == OpKind::gather;
  default:
    return false;
  }
}

// Whether `consumer` can be fused with its producer `producer` (a cat is never a producer).
bool is_fusible(const Node& producer, const Node& consumer) {
  if (producer.kind == NodeKind::CallOp && producer.op == OpKind::cat) {
    return false;
  }
  return is_fusible_op(producer) && is_fusible_op(consumer);
}

// ---------------------------------------------------------------- classification

struct Classified {
  std::vector<bool> primal;
  std::vector<bool> parameter; // a primal that is a lifted constant
  std::vector<bool> tangent;
  std::vector<bool> required_fw; // needed to compute the forward outputs
  std::vector<bool> required_bw; // depends on a tangent
  std::vector<std::size_t> fw_order;
  std::vector<std::vector<std::size_t>> users;
  std::size_t output = 0;
};

Classified classify(const TracedGraph& joint) {
  const Graph& g = joint.graph;
  Classified c;
  const std::size_t n = g.size();
  c.primal.assign(n, false);
  c.parameter.assign(n, false);
  c.tangent.assign(n, false);
  c.required_fw.assign(n, false);
  c.required_bw.assign(n, false);
  c.fw_order.assign(n, 0);
  c.users = graph::distinct_users_of(g);
  c.output = g.output_index();
  TORCHSCOPE_ASSERT(c.output < n, "a joint graph without an output");
  std::size_t placeholder = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Node& node = g.node(i);
    if (node.kind == NodeKind::Placeholder) {
      const std::size_t k = placeholder++;
      (k < joint.primals.size() ? c.primal : c.tangent)[i] = true;
      c.parameter[i] = k < joint.primals.size() && joint.primals[k].is_constant;
    }
    if (c.tangent[i]) {
      c.required_bw[i] = true;
    }
    if (node.kind == NodeKind::CallOp) {
      graph::for_each_input(node, [&](std::size_t in) {
        if (c.required_bw[in]) {
          c.required_bw[i] = true;
        }
      });
    }
  }
  const Node& out = g.node(c.output);
  for (std::size_t k = 0; k < joint.num_outputs; ++k) {
    if (out.args[k].kind == Arg::Kind::Node) {
      c.required_fw[out.args[k].node] = true;
    }
  }
  for (std::size_t i = n; i-- > 0;) {
    if (c.required_fw[i] && !c.required_bw[i]) {
      graph::for_each_input(g.node(i), [&](std::size_t in) { c.required_fw[in] = true; });
    }
  }
  std::size_t order = 0;
  for (std::size_t i = 0; i < n; ++i) {
    c.required_fw[i] = c.required_fw[i] && !c.required_bw[i];
    if (c.required_fw[i]) {
      c.fw_order[i] = order++;
    }
  }
  return c;
}

// ---------------------------------------------------------------- extraction

// The saved values in the order the graphs exchange them: primals first, then the rest.
std::vector<std::size_t> ordered_saved(const Classified& c, const std::vector<bool>& saved,
                                       std::size_t& num_primals) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < saved.size(); ++i) {
    if (saved[i] && c.primal[i]) {
      out.push_back(i);
    }
  }
  num_primals = out.size();
  for (std::size_t i = 0; i < saved.size(); ++i) {
    if (saved[i] && !c.primal[i]) {
      out.push_back(i);
    }
  }
  return out;
}

Partition extract(const TracedGraph& joint, const Classified& c, const std::vector<bool>& saved) {
  const Graph& g = joint.graph;
  const std::size_t n = g.size();
  const Node& out = g.node(c.output);
  Partition p;
  p.saved = ordered_saved(c, saved, p.num_saved_primals);
  for (std::size_t i : p.saved) {
    const std::size_t bytes = graph::value_bytes(g.node(i));
    p.saved_bytes += bytes;
    p.saved_activation_bytes += c.primal[i] ? 0 : bytes;
  }

  // Forward: what its outputs and the saved values need.
  std::vector<bool> in_fw(n, false);
  for (std::size_t k = 0; k < joint.num_outputs; ++k) {
    if (out.args[k].kind == Arg::Kind::Node) {
      in_fw[out.args[k].node] = true;
    }
  }
  for (std::size_t i : p.saved) {
    in_fw[i] = true;
  }
  for (std::size_t i = n; i-- > 0;) {
    if (in_fw[i]) {
      TORCHSCOPE_ASSERT(!c.required_bw[i], "the forward would need a tangent");
      graph::for_each_input(g.node(i), [&](std::size_t in) { in_fw[in] = true; });
    }
  }
  std::vector<std::size_t> map(n, graph::kErased);
  p.forward.reserve(static_cast<std::size_t>(std::count(in_fw.begin(), in_fw.end(), true)) +
                    joint.primals.size() + 1);
  for (std::size_t i = 0; i < n; ++i) {
    if (c.primal[i] || (in_fw[i] && g.node(i).kind == NodeKind::CallOp)) {
      map[i] = graph::copy_node(p.forward, g.node(i), map);
    }
  }
  Node fw_out;
  fw_out.kind = NodeKind::Output;
  for (std::size_t k = 0; k < joint.num_outputs; ++k) {
    fw_out.args.push_back(graph::remap(out.args[k], map));
  }
  for (std::size_t i : p.saved) {
    Arg a;
    a.kind = Arg::Kind::Node;
    a.node = map[i];
    fw_out.args.push_back(a);
  }
  p.forward.add_node(std::move(fw_out), "output");

  // Backward: saved values and tangents in, what the gradients need recomputed from them.
  std::vector<bool> boundary(n, false);
  for (std::size_t i : p.saved) {
    boundary[i] = true;
  }
  std::vector<bool> in_bw(n, false);
  for (std::size_t k = joint.num_outputs; k < out.args.size(); ++k) {
    if (out.args[k].kind == Arg::Kind::Node) {
      in_bw[out.args[k].node] = true;
    }
  }
  for (std::size_t i = n; i-- > 0;) {
    if (in_bw[i] && !boundary[i] && !c.tangent[i]) {
      TORCHSCOPE_ASSERT(!c.primal[i], "the backward needs a primal the forward does not save");
      graph::for_each_input(g.node(i), [&](std::size_t in) { in_bw[in] = true; });
    }
  }
  std::fill(map.begin(), map.end(), graph::kErased);
  p.backward.reserve(static_cast<std::size_t>(std::count(in_bw.begin(), in_bw.end(), true)) +
                     p.saved.size() + 1);
  std::size_t inputs = 0;
  auto add_input = [&](std::size_t i) {
    Node ph;
    ph.kind = NodeKind::Placeholder;
    ph.meta = g.node(i).meta;
    ph.input = graph::InputRef{graph::InputRef::Kind::Argument, inputs++};
    map[i] = p.backward.add_node(std::move(ph), g.node(i).name);
  };
  for (std::size_t i : p.saved) {
    add_input(i);
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (c.tangent[i]) {
      add_input(i);
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (in_bw[i] && map[i] == graph::kErased && g.node(i).kind == NodeKind::CallOp) {
      map[i] = graph::copy_node(p.backward, g.node(i), map);
    }
  }
  Node bw_out;
  bw_out.kind = NodeKind::Output;
  for (std::size_t k = joint.num_outputs; k < out.args.size(); ++k) {
    bw_out.args.push_back(graph::remap(out.args[k], map));
  }
  p.backward.add_node(std::move(bw_out), "output");
  for (std::size_t i = 0; i < n; ++i) {
    if (in_bw[i] && !boundary[i] && !c.required_bw[i] && g.node(i).kind == NodeKind::CallOp) {
      p.recomputed.push_back(i);
    }
  }
  return p;
}

// ---------------------------------------------------------------- min cut

class MinCut {
public:
  MinCut(const TracedGraph& joint, const Classified& c, const PartitionOptions& o)
      : joint_(joint), g_(joint.graph), c_(c), o_(o), n_(g_.size()), banned_(n_, false),
        flow_(2 * n_ + 2) {}

  std::vector<bool> solve(Partition& p) {
    compute_distances();
    std::vector<std::int64_t> weight(n_, 0);
    for (std::size_t i = 0; i < n_; ++i) {
      const Node& node = g_.node(i);
      if (node.kind == NodeKind::Output) {
        continue;
      }
      if (c_.required_bw[i]) {
        flow_.add_edge(in(i), kSink, MaxFlow::kInfinite);
        continue;
      }
      if (c_.primal[i] || (c_.required_fw[i] && should_ban(i))) {
        ban(i);
      }
      weight[i] = node_weight(i);
      flow_.add_edge(in(i), out(i), weight[i]);
      for (std::size_t u : c_.users[i]) {
        if (g_.node(u).kind != NodeKind::Output) {
          flow_.add_edge(out(i), in(u), MaxFlow::kInfinite);
        }
      }
    }
    if (o_.ban_recompute_used_far_apart) {
      ban_used_far_apart();
    }
    if (o_.ban_recompute_long_fusible_chains) {
      ban_long_fusible_chains();
    }
    p.cut_cost = flow_.solve(kSource, kSink);
    TORCHSCOPE_ASSERT(p.cut_cost < MaxFlow::kInfinite, "the joint graph has no finite cut");
    const std::vector<bool> sink_side = flow_.sink_side(kSink);
    std::vector<bool> saved(n_, false);
    for (std::size_t i = 0; i < n_; ++i) {
      saved[i] = !sink_side[in(i)] && sink_side[out(i)];
      if (banned_[i]) {
        p.banned.push_back(i);
      }
    }
    save_bases_of_views(saved);
    p.weights = std::move(weight);
    return saved;
  }

private:
  using MaxFlow = detail::MaxFlow;
  static constexpr std::size_t kSource = 0;
  static constexpr std::size_t kSink = 1;
  static std::size_t in(std::size_t i) { return 2 + 2 * i; }
  static std::size_t out(std::size_t i) { return 3 + 2 * i; }

  void ban(std::size_t i) {
    if (is_view(g_.node(i)) || banned_[i]) {
      return; // views are never banned: they are free to recompute
    }
    banned_[i] = true;
    flow_.add_edge(kSource, in(i), MaxFlow::kInfinite);
  }

  // Distance to the nearest node outside the forward (0 for those), as dist_from_bw.
  void compute_distances() {
    dist_.assign(n_, 0);
    for (std::size_t i = n_; i-- > 0;) {
      if (!c_.required_fw[i]) {
        continue;
      }
      std::int64_t d = 1000000000;
      for (std::size_t u : c_.users[i]) {
        if (g_.node(u).kind != NodeKind::Output) {
          d = std::min(d, dist_[u] + 1);
        }
      }
      dist_[i] = d;
    }
  }

  bool materialized_in_backward(std::size_t i) const {
    if (is_view(g_.node(i))) {
      return false;
    }
    // Only chains of views are followed, so the visited list stays short.
    std::vector<std::size_t> todo{i};
    std::vector<std::size_t> seen;
    while (!todo.empty()) {
      const std::size_t cur = todo.back();
      todo.pop_back();
      for (std::size_t u : c_.users[cur]) {
        const Node& user = g_.node(u);
        if (user.kind == NodeKind::Output) {
          continue;
        }
        if (!c_.required_fw[u] && !is_fusible(g_.node(cur), user)) {
          return true;
        }
        if (is_view(user) && std::find(seen.begin(), seen.end(), u) == seen.end()) {
          seen.push_back(u);
          todo.push_back(u);
        }
      }
    }
    return false;
  }

  bool should_ban(std::size_t i) const {
    const Node& node = g_.node(i);
    if (node.kind != NodeKind::CallOp) {
      return false;
    }
    if (o_.ban_recompute_not_in_allowlist && !is_recomputable(node)) {
      return true;
    }
    if (!o_.ban_recompute_not_in_allowlist && (node.op == OpKind::randn || !is_fusible_op(node))) {
      return true; // random and compute-intensive ops are banned regardless
    }
    if (o_.ban_recompute_materialized_backward && materialized_in_backward(i)) {
      return true;
    }
    if (dist_[i] < 1000 && dist_[i] > o_.max_dist_from_bw) {
      return true;
    }
    if (o_.ban_recompute_reductions) {
      std::size_t inputs = 0;
      graph::for_each_input(node,
                            [&](std::size_t in) { inputs += graph::value_bytes(g_.node(in)); });
      return graph::value_bytes(node) * 4 < inputs;
    }
    return false;
  }

  bool is_materialized(std::size_t i) const {
    const Node& node = g_.node(i);
    if (node.kind == NodeKind::Placeholder) {
      return true;
    }
    for (std::size_t u : c_.users[i]) {
      if (g_.node(u).kind == NodeKind::Output || !is_fusible(node, g_.node(u))) {
        return true;
      }
    }
    return false;
  }

  std::int64_t node_weight(std::size_t i) const {
    const Node& node = g_.node(i);
    if (!node.meta.is_tensor) {
      return MaxFlow::kInfinite;
    }
    if (o_.treat_parameters_as_free_to_save && c_.parameter[i]) {
      return 0;
    }
    const auto bytes = static_cast<double>(graph::value_bytes(node));
    if (!o_.heuristic_weights) {
      return static_cast<std::int64_t>(bytes);
    }
    // Closer to the backward is cheaper to keep; a value no kernel writes out costs double.
    const double steps = static_cast<double>(std::clamp<std::int64_t>(dist_[i], 1, 100));
    double w = bytes * std::pow(1.1, steps);
    if (!is_materialized(i)) {
      w *= 2;
    }
    return static_cast<std::int64_t>(w);
  }

  // The forward order of the first unfusible node reachable from `start` through fusible forward
  // uses, within `max_order`.
  std::size_t first_unfusible(const std::vector<std::size_t>& start, std::size_t max_order) const {
    using Item = std::tuple<std::size_t, std::size_t, bool>; // order, node, fusible
    std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
    for (std::size_t s : start) {
      heap.emplace(c_.fw_order[s], s, true);
    }
    while (!heap.empty()) {
      auto [order, node, fusible] = heap.top();
      heap.pop();
      if (!fusible) {
        return order;
      }
      for (std::size_t u : c_.users[node]) {
        if (c_.required_fw[u] && c_.fw_order[u] <= max_order) {
          heap.emplace(c_.fw_order[u], u, is_fusible(g_.node(node), g_.node(u)));
        }
      }
    }
    return max_order;
  }

  // A value used by a nearby op and again far downstream (past an unfusible op) would not be
  // fused with both: ban recomputing the far users.
  void ban_used_far_apart() {
    for (std::size_t i = 0; i < n_; ++i) {
      if (!c_.required_fw[i]) {
        continue;
      }
      std::vector<std::size_t> fw_users;
      std::size_t max_order = 0;
      for (std::size_t u : c_.users[i]) {
        if (c_.required_fw[u]) {
          fw_users.push_back(u);
          max_order = std::max(max_order, c_.fw_order[u]);
        }
      }
      if (fw_users.empty()) {
        continue;
      }
      const std::size_t first = first_unfusible(fw_users, max_order);
      for (std::size_t u : fw_users) {
        if (c_.fw_order[u] > first && is_fusible(g_.node(i), g_.node(u))) {
          ban(u);
        }
      }
    }
  }

  // A chain of fusible ops longer than 100 (a residual stream through a whole model) should not
  // be recomputed end to end: ban the node where the chain passes 100.
  void ban_long_fusible_chains() {
    std::vector<bool> visited(n_, false);
    for (std::size_t start = 0; start < n_; ++start) {
      if (!c_.required_fw[start]) {
        continue;
      }
      using Item = std::pair<std::size_t, std::size_t>; // order, node
      std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
      heap.emplace(c_.fw_order[start], start);
      const std::size_t start_order = c_.fw_order[start];
      while (!heap.empty()) {
        const std::size_t cur = heap.top().second;
        heap.pop();
        if (visited[cur]) {
          continue;
        }
        visited[cur] = true;
        if (c_.fw_order[cur] > start_order + 100 && heap.empty()) {
          ban(cur);
          break;
        }
        for (std::size_t u : c_.users[cur]) {
          if (c_.required_fw[u] && is_fusible(g_.node(cur), g_.node(u)) && !banned_[u]) {
            heap.emplace(c_.fw_order[u], u);
          }
        }
      }
    }
  }

  // A saved view of a primal or of another saved value costs memory the base already holds:
  // save the base and recompute the view (views are free) in the backward.
  void save_bases_of_views(std::vector<bool>& saved) const {
    for (std::size_t i = 0; i < n_; ++i) {
      if (!saved[i] || !is_view(g_.node(i))) {
        continue;
      }
      std::size_t base = i;
      while (is_view(g_.node(base)) && g_.node(base).args[0].kind == Arg::Kind::Node) {
        base = g_.node(base).args[0].node;
      }
      if (base != i && (c_.primal[base] || saved[base])) {
        saved[i] = false;
        saved[base] = true;
      }
    }
  }

  const TracedGraph& joint_;
  const Graph& g_;
  const Classified& c_;
  const PartitionOptions& o_;
  std::size_t n_;
  std::vector<bool> banned_;
  std::vector<std::int64_t> dist_;
  MaxFlow flow_;
};

} // namespace

Partition min_cut_partition(const TracedGraph& joint, const PartitionOptions& options) {
  TORCHSCOPE_ASSERT(joint.is_joint, "min_cut_partition of a graph with no backward");
  const Classified c = classify(joint);
  Partition p;
  MinCut cut(joint, c, options);
  const std::vector<bool> saved = cut.solve(p);
  Partition out = extract(joint, c, saved);
  out.banned = std::move(p.banned);
  out.weights = std::move(p.weights);
  out.cut_cost = p.cut_cost;
  return out;
}

Partition save_all_partition(const TracedGraph& joint) {
  TORCHSCOPE_ASSERT(joint.is_joint, "save_all_partition of a graph with no backward");
  const Classified c = classify(joint);
  const Graph& g = joint.graph;
  std::vector<bool> saved(g.size(), false);
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (!c.required_fw[i] && !c.primal[i]) {
      continue;
    }
    for (std::size_t u : c.users[i]) {
      if (g.node(u).kind != NodeKind::Output && !c.required_fw[u]) {
        saved[i] = true;
      }
    }
  }
  return extract(joint, c, saved);
}

} // namespace compiler::aot
