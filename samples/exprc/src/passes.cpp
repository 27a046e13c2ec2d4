#include "passes.h"

#include <cmath>
#include <map>
#include <tuple>

namespace exprc {

namespace {

bool is_constant(const Graph& g, int i, double value) {
  const Node& n = g.nodes[static_cast<std::size_t>(i)];
  return n.op == Op::Constant && n.value == value;
}

// Points every use of node `from` at node `to`.
void replace_uses(Graph& g, int from, int to) {
  for (Node& n : g.nodes) {
    n.lhs = n.lhs == from ? to : n.lhs;
    n.rhs = n.rhs == from ? to : n.rhs;
  }
  g.result = g.result == from ? to : g.result;
}

// Computes operations whose operands are all constants.
bool fold_constants(Graph& g) {
  bool changed = false;
  for (Node& n : g.nodes) {
    if (n.op == Op::Input || n.op == Op::Constant) {
      continue;
    }
    const Node* a = &g.nodes[static_cast<std::size_t>(n.lhs)];
    const Node* b = n.rhs >= 0 ? &g.nodes[static_cast<std::size_t>(n.rhs)] : nullptr;
    if (a->op != Op::Constant || (b != nullptr && b->op != Op::Constant)) {
      continue;
    }
    double v = 0;
    switch (n.op) {
    case Op::Add:
      v = a->value + b->value;
      break;
    case Op::Sub:
      v = a->value - b->value;
      break;
    case Op::Mul:
      v = a->value * b->value;
      break;
    case Op::Div:
      v = a->value / b->value;
      break;
    case Op::Negate:
      v = -a->value;
      break;
    case Op::Sqrt:
      v = std::sqrt(a->value);
      break;
    default:
      continue;
    }
    n = {.op = Op::Constant, .type = n.type, .value = v};
    changed = true;
  }
  return changed;
}

// x + 0, x - 0, x * 1, x / 1 become x; x * 0 becomes 0 for integers (not for floats, where it
// would turn inf and nan into 0).
bool simplify_algebra(Graph& g) {
  bool changed = false;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node n = g.nodes[i];
    const int self = static_cast<int>(i);
    int keep = -1;
    if ((n.op == Op::Add && is_constant(g, n.lhs, 0)) ||
        (n.op == Op::Mul && is_constant(g, n.lhs, 1))) {
      keep = n.rhs;
    } else if (((n.op == Op::Add || n.op == Op::Sub) && is_constant(g, n.rhs, 0)) ||
               ((n.op == Op::Mul || n.op == Op::Div) && is_constant(g, n.rhs, 1))) {
      keep = n.lhs;
    }
    // The type may not change: int + 0.0 stays float.
    if (keep >= 0 && g.nodes[static_cast<std::size_t>(keep)].type == n.type) {
      replace_uses(g, self, keep);
      changed = true;
    } else if (n.op == Op::Mul && n.type == Type::Int &&
               (is_constant(g, n.lhs, 0) || is_constant(g, n.rhs, 0))) {
      g.nodes[i] = {.op = Op::Constant, .type = Type::Int, .value = 0};
      changed = true;
    }
  }
  return changed;
}

// Nodes that compute the same operation on the same operands are merged.
bool eliminate_common_subexpressions(Graph& g) {
  bool changed = false;
  std::map<std::tuple<Op, Type, int, int, double, int>, int> seen;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    const auto key = std::make_tuple(n.op, n.type, n.lhs, n.rhs, n.value, n.input);
    const auto [it, inserted] = seen.emplace(key, static_cast<int>(i));
    if (!inserted) {
      replace_uses(g, static_cast<int>(i), it->second);
      changed = true;
    }
  }
  return changed;
}

// Drops nodes the result does not use (inputs stay: they are the signature).
bool eliminate_dead_code(Graph& g) {
  std::vector<bool> live(g.nodes.size(), false);
  live[static_cast<std::size_t>(g.result)] = true;
  for (std::size_t i = g.nodes.size(); i-- > 0;) {
    const Node& n = g.nodes[i];
    if (n.op == Op::Input) {
      live[i] = true;
    }
    if (live[i]) {
      for (int operand : {n.lhs, n.rhs}) {
        if (operand >= 0) {
          live[static_cast<std::size_t>(operand)] = true;
        }
      }
    }
  }
  std::vector<int> renumbered(g.nodes.size(), -1);
  std::vector<Node> kept;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    if (live[i]) {
      renumbered[i] = static_cast<int>(kept.size());
      kept.push_back(g.nodes[i]);
    }
  }
  const bool changed = kept.size() != g.nodes.size();
  for (Node& n : kept) {
    n.lhs = n.lhs >= 0 ? renumbered[static_cast<std::size_t>(n.lhs)] : -1;
    n.rhs = n.rhs >= 0 ? renumbered[static_cast<std::size_t>(n.rhs)] : -1;
  }
  g.result = renumbered[static_cast<std::size_t>(g.result)];
  g.nodes = std::move(kept);
  return changed;
}

constexpr Pass kPipeline[] = {
    {"fold_constants", fold_constants},
    {"simplify_algebra", simplify_algebra},
    {"eliminate_common_subexpressions", eliminate_common_subexpressions},
    {"eliminate_dead_code", eliminate_dead_code},
};

} // namespace

std::span<const Pass> pipeline() {
  return kPipeline;
}

} // namespace exprc
