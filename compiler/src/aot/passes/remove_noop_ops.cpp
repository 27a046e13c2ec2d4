// remove_noop_ops: see the header.
#include "aot/passes/remove_noop_ops.h"

#include "aot/graph_edit.h"
#include "autograd/formula_helpers.h"
#include "kernels/shape_util.h"

#include <limits>

namespace compiler::aot::passes {

namespace {

using autograd::detail::same_sizes;
using graph::Arg;
using graph::Node;

const Node* tensor_input(const graph::Graph& g, const Node& n,
                         const std::vector<std::size_t>& replace) {
  if (n.args.empty() || n.args[0].kind != Arg::Kind::Node) {
    return nullptr;
  }
  return &g.node(replace[n.args[0].node]);
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

bool is_noop(const graph::Graph& g, const Node& n, const std::vector<std::size_t>& replace) {
  if (n.kind != graph::NodeKind::CallOp) {
    return false;
  }
  if (n.op == OpKind::cat) {
    return n.args[0].kind == Arg::Kind::NodeList && n.args[0].nodes.size() == 1;
  }
  const Node* in = tensor_input(g, n, replace);
  if (in == nullptr || !in->meta.is_tensor || !n.meta.is_tensor || in->meta.dtype != n.meta.dtype ||
      !same_sizes(in->meta.sizes, n.meta.sizes)) {
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

std::size_t remove_noop_ops(const graph::Graph& g, std::vector<std::size_t>& replace) {
  std::size_t removed = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    const Node& n = g.node(i);
    if (replace[i] == i && is_noop(g, n, replace)) {
      const std::size_t input = n.op == OpKind::cat ? n.args[0].nodes.front() : n.args[0].node;
      replace[i] = replace[input];
      ++removed;
    }
  }
  return removed;
}

} // namespace compiler::aot::passes
