// The graph interpreter: one run_eager call per node.
#include "compiler/graph/interpreter.h"

#include "compiler/core/errors.h"

namespace compiler::graph {

namespace {

SymInt concrete(const SymInt& s, std::span<const std::int64_t> symbols) {
  return s.is_symbolic() ? SymInt(s.node()->evaluate(symbols)) : s;
}

Value resolve(const Arg& a, std::span<const Value> values, std::span<const std::int64_t> symbols) {
  switch (a.kind) {
  case Arg::Kind::Node:
    return values[a.node];
  case Arg::Kind::NodeList: {
    std::vector<Tensor> list;
    list.reserve(a.nodes.size());
    for (std::size_t n : a.nodes) {
      list.push_back(std::get<Tensor>(values[n]));
    }
    return list;
  }
  case Arg::Kind::Symbolic:
    return concrete(a.sym, symbols);
  case Arg::Kind::SymList: {
    std::vector<SymInt> list;
    list.reserve(a.syms.size());
    for (const SymInt& s : a.syms) {
      list.push_back(concrete(s, symbols));
    }
    return list;
  }
  case Arg::Kind::Constant:
    return a.constant;
  }
  return std::monostate{};
}

} // namespace

std::vector<Value> resolve_args(const Graph& graph, const Node& node, std::span<const Value> values,
                                std::span<const std::int64_t> symbols) {
  (void)graph;
  std::vector<Value> args;
  args.reserve(node.args.size());
  for (const Arg& a : node.args) {
    args.push_back(resolve(a, values, symbols));
  }
  return args;
}

std::vector<Value> interpret(const Graph& graph, std::span<const Value> inputs,
                             std::span<const std::int64_t> symbols) {
  std::vector<Value> values(graph.size());
  std::vector<Value> args; // reused by every node: one allocation per run, not per node
  args.reserve(8);
  std::size_t next_input = 0;
  for (std::size_t i = 0; i < graph.size(); ++i) {
    const Node& n = graph.node(i);
    switch (n.kind) {
    case NodeKind::Placeholder:
      TORCHSCOPE_ASSERT(next_input < inputs.size(), "fewer graph inputs than placeholders");
      values[i] = inputs[next_input++];
      break;
    case NodeKind::CallOp: {
      args.clear();
      for (const Arg& a : n.args) {
        args.push_back(resolve(a, values, symbols));
      }
      CallSiteScope site(n.where);
      values[i] = run_eager(n.op, args);
      break;
    }
    case NodeKind::Output:
      break;
    }
  }
  return values;
}

} // namespace compiler::graph
