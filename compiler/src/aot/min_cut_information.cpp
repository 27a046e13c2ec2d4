// PyTorch's min_cut_information artifact for our partitioner's decisions (partitioner.h).
//
// PyTorch writes it from its activation-memory-budget solver: the joint graph (nodes, edges), the
// recomputable candidates with their memory and runtime, and which the knapsack saved or
// recomputed. Our partitioner is a pure min cut, so the candidates are the forward values the
// backward reads (each is either saved or recomputed), and the "Knapsack" lists carry the cut's
// decisions in PyTorch's shape, so that readers of PyTorch's artifact read ours unchanged.
#include "compiler/aot/partitioner.h"
#include "compiler/graph/aot_graph_printer.h"
#include "compiler/graph/graph_rewrite.h"
#include "tracer/json_writer.h"
#include "tracing/trace_util.h"

#include <algorithm>
#include <map>

namespace compiler::aot {

namespace {

using graph::Graph;
using graph::Node;
using graph::NodeKind;

// str(node.target) in PyTorch: "aten.mm.default" for an op, the node's name for a placeholder,
// "output" for the output.
std::string target_text(const Node& n) {
  switch (n.kind) {
  case NodeKind::CallOp:
    return graph::aot_op_name(n) + "." + std::string(graph::op_overload(n));
  case NodeKind::Output:
    return "output";
  default:
    return n.name;
  }
}

// str(tensor_meta.shape): "torch.Size([8, 16])"; "[]" for a node without a tensor value.
std::string shape_text(const Node& n) {
  if (n.kind == NodeKind::Output || !n.meta.is_tensor) {
    return "[]";
  }
  std::string out = "torch.Size([";
  for (std::size_t d = 0; d < n.meta.sizes.size(); ++d) {
    out += (d ? ", " : "") + n.meta.sizes[d].to_string();
  }
  return out + "])";
}

// PyTorch's flop-based runtime estimate: the flops of a matrix product, at least 1 (every other
// op counts as 1: the estimator counts only the ops its flop formulas know).
double estimated_runtime(const Graph& g, const Node& n) {
  if (n.kind != NodeKind::CallOp || !n.meta.is_tensor) {
    return 1.0;
  }
  auto hint = [](const SymInt& s) {
    return static_cast<double>(std::max<std::int64_t>(s.hint(), 0));
  };
  auto inner = [&](std::size_t arg) -> double {
    if (arg >= n.args.size() || n.args[arg].kind != graph::Arg::Kind::Node) {
      return 1.0;
    }
    const Node& a = g.node(n.args[arg].node);
    return a.meta.sizes.empty() ? 1.0 : hint(a.meta.sizes.back());
  };
  double out_elems = 1.0;
  for (const SymInt& s : n.meta.sizes) {
    out_elems *= hint(s);
  }
  switch (n.op) {
  case OpKind::mm:
  case OpKind::bmm:
  case OpKind::matmul:
    return std::max(1.0, 2.0 * out_elems * inner(0));
  case OpKind::addmm:
    return std::max(1.0, 2.0 * out_elems * inner(1));
  default:
    return 1.0;
  }
}

} // namespace

std::string min_cut_information(const TracedGraph& joint, const Partition& partition) {
  const Graph& g = joint.graph;
  // The recomputable candidates: forward values the backward reads, saved or recomputed.
  std::vector<std::size_t> candidates = partition.recomputed;
  for (std::size_t i : partition.saved) {
    if (g.node(i).kind == NodeKind::CallOp) {
      candidates.push_back(i);
    }
  }
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  std::map<std::size_t, std::size_t> candidate_index;
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    candidate_index[candidates[k]] = k;
  }
  const auto is_saved = [&](std::size_t i) {
    return std::find(partition.saved.begin(), partition.saved.end(), i) != partition.saved.end();
  };
  std::vector<double> runtimes;
  std::vector<std::int64_t> memories;
  std::vector<std::size_t> saved_idx;
  std::vector<std::size_t> recomputed_idx;
  double expected_runtime = 0;
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    const Node& n = g.node(candidates[k]);
    runtimes.push_back(estimated_runtime(g, n));
    memories.push_back(static_cast<std::int64_t>(graph::value_bytes(n)));
    if (is_saved(candidates[k])) {
      saved_idx.push_back(k);
    } else {
      recomputed_idx.push_back(k);
      expected_runtime += runtimes.back();
    }
  }

  std::string out;
  tracer::JsonWriter w(out);
  w.begin_object();
  w.member("Joint Graph Size", g.size());
  std::size_t edges = 0;
  for (const Node& n : g.nodes()) {
    graph::for_each_input(n, [&](std::size_t) { ++edges; });
  }
  w.key("Joint Graph Edges").begin_object().member("Total", edges).key("Edges").begin_array();
  for (const Node& n : g.nodes()) {
    graph::for_each_input(n, [&](std::size_t in) {
      w.begin_array().value(g.node(in).name).value(n.name).end_array();
    });
  }
  w.end_array().end_object();
  w.key("Joint Graph Node Information").begin_object();
  for (std::size_t i = 0; i < g.size(); ++i) {
    const Node& n = g.node(i);
    const auto c = candidate_index.find(i);
    w.key(n.name).begin_object();
    w.member("index", i).member("name", n.name);
    w.member("is_recomputable_candidate", c != candidate_index.end());
    w.member("target", target_text(n)).member("shape", shape_text(n));
    w.key("input_arguments").begin_array();
    graph::for_each_input(n, [&](std::size_t in) { w.value(g.node(in).name); });
    w.end_array();
    const bool has_line = n.kind == NodeKind::CallOp && n.where.file_name()[0] != '\0';
    w.member("stack_trace",
             has_line ? tracing::format_user_frame(tracing::user_frame(n.where)) : std::string());
    if (c != candidate_index.end()) {
      const std::size_t k = c->second;
      w.key("recomputable_candidate_info").begin_object();
      w.member("recomputable_node_idx", k).member("memory", memories[k]);
      w.member("runtime", runtimes[k]);
      const bool saved = is_saved(i);
      w.member("is_saved", saved).member("is_recomputed", !saved);
      w.end_object();
    }
    w.end_object();
  }
  w.end_object();
  w.key("Recomputable Banned Nodes Order").begin_array();
  for (std::size_t i : candidates) {
    w.value(g.node(i).name);
  }
  w.end_array();
  w.member("Expected Runtime", expected_runtime);
  w.key("Knapsack Saved Nodes").begin_array();
  for (std::size_t k : saved_idx) {
    w.value(k);
  }
  w.end_array().key("Knapsack Recomputed Nodes").begin_array();
  for (std::size_t k : recomputed_idx) {
    w.value(k);
  }
  w.end_array().key("Knapsack Input Memories").begin_array();
  for (std::int64_t m : memories) {
    w.value(m);
  }
  w.end_array().key("Knapsack Input Runtimes").begin_array();
  for (double r : runtimes) {
    w.value(r);
  }
  w.end_array().key("Min Cut Solution Saved Values").begin_array();
  for (std::size_t i : partition.saved) {
    w.value(g.node(i).name);
  }
  w.end_array();
  w.end_object();
  return out;
}

} // namespace compiler::aot
