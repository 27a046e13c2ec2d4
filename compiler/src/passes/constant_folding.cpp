// Constant folding (passes/constant_folding.h).
#include "passes/constant_folding.h"

#include "compiler/graph/graph_rewrite.h"
#include "compiler/ops/op_hook.h"

#include <cmath>
#include <optional>

namespace compiler::passes {

namespace {

using graph::Arg;
using graph::Node;

// The uniform value a factory node fills its result with, or nullopt.
std::optional<double> uniform_value(const Node& n) {
  if (n.kind != graph::NodeKind::CallOp) {
    return std::nullopt;
  }
  switch (n.op) {
  case OpKind::zeros:
    return 0.0;
  case OpKind::ones:
    return 1.0;
  case OpKind::full:
    if (n.args.size() == 3 && n.args[1].kind == Arg::Kind::Constant) {
      if (const double* v = std::get_if<double>(&n.args[1].constant)) {
        return *v;
      }
    }
    return std::nullopt;
  default:
    return std::nullopt;
  }
}

// The one-element tensor standing for a uniform factory result.
Tensor scalar_tensor(double value, DType dtype) {
  return Tensor::scalar(value, dtype);
}

// Folds node `i` into a `full` when it is a pointwise op or view over uniform inputs. Returns
// true when it did.
bool fold_uniform(graph::Graph& graph, std::size_t i) {
  Node& n = graph.nodes()[i];
  const OpCategory cat = op_category(n.op);
  if ((cat != OpCategory::Pointwise && cat != OpCategory::View) || !n.meta.is_tensor) {
    return false;
  }
  std::vector<Value> args;
  bool any_tensor = false;
  for (std::size_t k = 0; k < n.args.size(); ++k) {
    const Arg& a = n.args[k];
    if (a.kind == Arg::Kind::Node) {
      const std::optional<double> u = uniform_value(graph.node(a.node));
      if (!u) {
        return false;
      }
      any_tensor = true;
      if (cat == OpCategory::View) {
        if (k != 0) {
          return false;
        }
        continue; // a view of a uniform tensor is a uniform tensor of the view's shape
      }
      args.emplace_back(scalar_tensor(*u, graph.node(a.node).meta.dtype));
    } else if (a.kind == Arg::Kind::Constant && cat == OpCategory::Pointwise) {
      if (std::holds_alternative<Tensor>(a.constant)) {
        return false; // a real tensor's data may change between calls
      }
      args.push_back(a.constant);
    } else if (cat == OpCategory::Pointwise) {
      return false;
    }
  }
  if (!any_tensor) {
    return false;
  }
  double value = 0.0;
  if (cat == OpCategory::View) {
    value = *uniform_value(graph.node(n.args[0].node));
  } else {
    const Value out = run_eager(n.op, args);
    const Tensor& t = std::get<Tensor>(out);
    if (t.numel() != 1 || t.dtype() != n.meta.dtype) {
      return false;
    }
    value = t.to_vector()[0];
  }
  if (n.meta.dtype == DType::Int64 && std::abs(value) > 9007199254740992.0) {
    return false; // not exact as a double: leave it to run time
  }
  Arg sizes;
  sizes.kind = Arg::Kind::SymList;
  sizes.syms = n.meta.sizes;
  bool symbolic = false;
  for (const SymInt& s : n.meta.sizes) {
    symbolic = symbolic || s.is_symbolic();
  }
  if (!symbolic) {
    sizes.kind = Arg::Kind::Constant;
    sizes.constant = n.meta.sizes;
    sizes.syms.clear();
  }
  Arg fill;
  fill.kind = Arg::Kind::Constant;
  fill.constant = value;
  Arg dtype;
  dtype.kind = Arg::Kind::Constant;
  dtype.constant = n.meta.dtype;
  std::vector<std::string> from = graph::provenance_of(n);
  n.op = OpKind::full;
  n.args = {sizes, fill, dtype};
  n.from_nodes = std::move(from);
  // A full tensor is contiguous, whatever the folded view's strides were.
  std::vector<std::int64_t> hints;
  for (const SymInt& s : n.meta.sizes) {
    hints.push_back(s.hint());
  }
  n.meta.strides = contiguous_strides(hints);
  return true;
}

// Folds a view of a graph constant into a constant view. Returns true when it did.
bool fold_constant_view(graph::Graph& graph, std::size_t i,
                        const std::vector<std::vector<std::size_t>>& users) {
  const Node& n = graph.node(i);
  if (op_category(n.op) != OpCategory::View || n.args.empty() ||
      n.args[0].kind != Arg::Kind::Constant ||
      !std::holds_alternative<Tensor>(n.args[0].constant)) {
    return false;
  }
  if (std::get<Tensor>(n.args[0].constant).requires_grad()) {
    return false; // a parameter: the AOT stage lifts it into an input and needs its gradient
  }
  std::vector<Value> args;
  for (const Arg& a : n.args) {
    if (a.kind != Arg::Kind::Constant) {
      return false; // symbolic sizes: the view's shape is only known at run time
    }
    args.push_back(a.constant);
  }
  for (std::size_t u : users[i]) {
    if (graph.node(u).kind != graph::NodeKind::CallOp) {
      return false; // a graph output keeps its node
    }
  }
  const Value view = run_eager(n.op, args);
  const Tensor& t = std::get<Tensor>(view);
  if (!t.shares_storage_with(std::get<Tensor>(args[0]))) {
    return false; // reshape had to copy: the copy would go stale
  }
  for (std::size_t u : users[i]) {
    for (Arg& a : graph.nodes()[u].args) {
      if (a.kind == Arg::Kind::Node && a.node == i) {
        a.kind = Arg::Kind::Constant;
        a.constant = view;
      }
    }
  }
  return true;
}

} // namespace

bool constant_folding(graph::Graph& graph) {
  bool changed = false;
  const std::vector<std::vector<std::size_t>> users = graph::users_of(graph);
  for (std::size_t i = 0; i < graph.size(); ++i) {
    if (graph.node(i).kind != graph::NodeKind::CallOp) {
      continue;
    }
    // A folded node's users are found through `users`, computed before any fold: folds only
    // rewrite arguments of later nodes, never move nodes.
    changed = fold_uniform(graph, i) || fold_constant_view(graph, i, users) || changed;
  }
  return changed;
}

} // namespace compiler::passes
