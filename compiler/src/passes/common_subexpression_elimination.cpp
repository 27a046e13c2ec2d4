// Common-subexpression elimination (passes/common_subexpression_elimination.h): one forward
// sweep with a hash table keyed by (op, arguments); arguments compare with graph::same_arg, so
// constant tensors match by identity and floats bit for bit.
#include "passes/common_subexpression_elimination.h"

#include "compiler/graph/graph_rewrite.h"

#include <unordered_map>

namespace compiler::passes {

namespace {

bool same_call(const graph::Node& a, const graph::Node& b) {
  if (a.op != b.op || a.args.size() != b.args.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.args.size(); ++i) {
    if (!graph::same_arg(a.args[i], b.args[i])) {
      return false;
    }
  }
  return true;
}

} // namespace

bool common_subexpression_elimination(graph::Graph& graph, const CseOptions& options) {
  std::unordered_multimap<std::size_t, std::size_t> seen;
  graph::SweepReplacer replacer(graph.size());
  bool changed = false;
  for (std::size_t i = 0; i < graph.size(); ++i) {
    graph::Node& n = graph.nodes()[i];
    replacer.visit(n);
    if (n.kind != graph::NodeKind::CallOp || (!options.merge_random && n.op == OpKind::randn)) {
      continue;
    }
    std::size_t h = static_cast<std::size_t>(n.op);
    for (const graph::Arg& a : n.args) {
      h = h * 31 + graph::arg_hash(a);
    }
    std::size_t earlier = graph::kErased;
    auto [begin, end] = seen.equal_range(h);
    for (auto it = begin; it != end; ++it) {
      if (same_call(graph.node(it->second), n)) {
        earlier = it->second;
        break;
      }
    }
    if (earlier == graph::kErased) {
      seen.emplace(h, i);
      continue;
    }
    if (options.record_provenance) {
      // The kept node now also stands for this one.
      std::vector<std::string> from = graph::provenance_of(n);
      graph::Node& kept = graph.nodes()[earlier];
      if (kept.from_nodes.empty()) {
        kept.from_nodes.push_back(kept.name);
      }
      for (std::string& f : from) {
        kept.from_nodes.push_back(std::move(f));
      }
    }
    replacer.replace(i, earlier);
    changed = true;
  }
  return changed;
}

} // namespace compiler::passes
