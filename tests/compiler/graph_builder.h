// Test helper: builds a graph::Graph node by node, as capture would record it (each call node's
// metadata from run_meta on fake tensors), so pass and Inductor tests can state their graphs
// directly.
#pragma once

#include "compiler/graph/graph.h"
#include "compiler/graph/interpreter.h"
#include "compiler/ops/ops.h"

#include <source_location>
#include <string>
#include <variant>
#include <vector>

namespace graph_test {

using namespace compiler;

// An argument of a built call: a node of the graph, or a constant Value.
struct In {
  std::variant<std::size_t, Value> v;
  In(std::size_t node) : v(node) {}        // NOLINT: implicit on purpose
  In(Value value) : v(std::move(value)) {} // NOLINT: implicit on purpose
  In(double d) : v(Value(d)) {}            // NOLINT: implicit on purpose
  In(const Tensor& t) : v(Value(t)) {}     // NOLINT: implicit on purpose
};

class GraphBuilder {
public:
  std::size_t input(const std::string& name, std::vector<SymInt> sizes,
                    DType dtype = DType::Float32) {
    graph::Node n;
    n.kind = graph::NodeKind::Placeholder;
    n.input.index = inputs_++;
    n.input_name = "L['" + name + "']";
    Tensor fake = Tensor::fake(std::move(sizes), dtype);
    n.meta = meta_of(fake);
    fakes_.push_back(fake);
    return g.add_node(std::move(n), "l_" + name + "_");
  }

  std::size_t call(OpKind op, std::vector<In> args,
                   std::source_location where = std::source_location::current()) {
    graph::Node n;
    n.kind = graph::NodeKind::CallOp;
    n.op = op;
    n.where = where;
    n.op_index = static_cast<std::int64_t>(g.size());
    std::vector<Value> values;
    for (const In& a : args) {
      graph::Arg arg;
      if (const std::size_t* node = std::get_if<std::size_t>(&a.v)) {
        arg.kind = graph::Arg::Kind::Node;
        arg.node = *node;
        values.emplace_back(fakes_[*node]);
      } else {
        const Value& v = std::get<Value>(a.v);
        arg.kind = graph::Arg::Kind::Constant;
        arg.constant = v;
        if (const SymInt* s = std::get_if<SymInt>(&v); s != nullptr && s->is_symbolic()) {
          arg.kind = graph::Arg::Kind::Symbolic;
          arg.sym = *s;
        }
        values.push_back(v);
      }
      n.args.push_back(std::move(arg));
    }
    const Value out = run_meta(op, values);
    const Tensor& t = std::get<Tensor>(out);
    n.meta = meta_of(t);
    fakes_.push_back(t);
    return g.add_node(std::move(n), op_name(op));
  }

  void output(std::vector<std::size_t> nodes) {
    graph::Node n;
    n.kind = graph::NodeKind::Output;
    for (std::size_t i : nodes) {
      graph::Arg a;
      a.kind = graph::Arg::Kind::Node;
      a.node = i;
      n.args.push_back(a);
    }
    g.add_node(std::move(n), "output");
    fakes_.emplace_back();
  }

  graph::Graph g;

private:
  static graph::TensorMeta meta_of(const Tensor& t) {
    graph::TensorMeta m;
    m.is_tensor = true;
    m.dtype = t.dtype();
    m.sizes = t.sym_sizes();
    m.strides = t.strides();
    return m;
  }

  std::size_t inputs_ = 0;
  std::vector<Tensor> fakes_;
};

// The values of a graph's outputs for `inputs`, through the interpreter.
inline std::vector<Tensor> run_outputs(const graph::Graph& g, const std::vector<Value>& inputs,
                                       std::span<const std::int64_t> symbols = {}) {
  const std::vector<Value> values = graph::interpret(g, inputs, symbols);
  std::vector<Tensor> out;
  const graph::Node& o = g.node(g.output_index());
  for (const graph::Arg& a : o.args) {
    out.push_back(std::get<Tensor>(values[a.node]));
  }
  return out;
}

// The ops of a graph's call nodes, in order, as "aten.x" names joined by spaces.
inline std::string op_sequence(const graph::Graph& g) {
  std::string out;
  for (const graph::Node& n : g.nodes()) {
    if (n.kind == graph::NodeKind::CallOp) {
      out += (out.empty() ? "" : " ") + std::string(op_name(n.op));
    }
  }
  return out;
}

} // namespace graph_test
