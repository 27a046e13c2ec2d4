// Removal of no-op ops (passes/remove_noop_ops.h): one forward sweep; a no-op's uses move to
// its input (already the first real value when the input was a no-op too).
#include "passes/remove_noop_ops.h"

#include "compiler/graph/graph_rewrite.h"
#include "kernels/shape_util.h"

namespace compiler::passes {

namespace {

using graph::Arg;
using graph::Node;

const Node* tensor_input(const graph::Graph& g, const Node& n) {
  if (n.args.empty() || n.args[0].kind != Arg::Kind::Node) {
    return nullptr;
  }
  return &g.node(n.args[0].node);
}

bool constant_equals(const Arg& a, double v) {
  if (a.kind != Arg::Kind::Constant) {
    return false;
  }
  if (const double* d = std::get_if<double>(&a.constant)) {
    return *d == v;
  }
  if (const SymInt* s = std::get_if<SymInt>(&a.constant)) {
    return !s->is_symbolic() && static_cast<double>(s->hint()) == v;
  }
  return false;
}

bool is_noop(const graph::Graph& g, const Node& n) {
  if (n.kind != graph::NodeKind::CallOp) {
    return false;
  }
  if (n.op == OpKind::cat) {
    return n.args[0].kind == Arg::Kind::NodeList && n.args[0].nodes.size() == 1;
  }
  const Node* in = tensor_input(g, n);
  if (in == nullptr || !in->meta.is_tensor || !n.meta.is_tensor || in->meta.dtype != n.meta.dtype ||
      !graph::same_sizes(in->meta.sizes, n.meta.sizes)) {
    return false;
  }
  switch (n.op) {
  case OpKind::view:
  case OpKind::reshape:
  case OpKind::expand:
  case OpKind::to_dtype:
  case OpKind::detach:
    return true;
  case OpKind::permute: {
    const auto* dims = std::get_if<std::vector<std::int64_t>>(&n.args[1].constant);
    if (dims == nullptr) {
      return false;
    }
    for (std::size_t i = 0; i < dims->size(); ++i) {
      if (kernels::wrap_dim((*dims)[i], static_cast<std::int64_t>(dims->size())) !=
          static_cast<std::int64_t>(i)) {
        return false;
      }
    }
    return true;
  }
  case OpKind::slice:
    // Same sizes in and out with step 1 means the slice covers the whole dim.
    return constant_equals(n.args[4], 1.0);
  case OpKind::add:
  case OpKind::sub:
    return constant_equals(n.args[1], 0.0);
  case OpKind::mul:
  case OpKind::div:
  case OpKind::pow:
    return constant_equals(n.args[1], 1.0);
  default:
    return false;
  }
}

} // namespace

bool remove_noop_ops(graph::Graph& graph) {
  graph::SweepReplacer replacer(graph.size());
  bool changed = false;
  for (std::size_t i = 0; i < graph.size(); ++i) {
    Node& n = graph.nodes()[i];
    replacer.visit(n);
    if (is_noop(graph, n)) {
      const std::size_t input = n.op == OpKind::cat ? n.args[0].nodes.front() : n.args[0].node;
      replacer.replace(i, input);
      changed = true;
    }
  }
  return changed;
}

} // namespace compiler::passes
