// A captured graph built by hand (placeholders and call nodes whose metadata run_meta gives),
// for the AOT stage's tests and benchmark: graphs of a chosen shape without running capture.
#pragma once

#include "compiler/graph/graph.h"
#include "compiler/ops/op_hook.h"

#include <string>
#include <variant>
#include <vector>

namespace aot_test {

using namespace compiler;

// Builds a captured graph by hand: placeholders and call nodes whose metadata run_meta gives.
class Builder {
public:
  struct Ref {
    std::size_t node;
  };
  using In = std::variant<Ref, Value>;

  Ref input(std::vector<std::int64_t> sizes, bool requires_grad) {
    graph::Node n;
    n.kind = graph::NodeKind::Placeholder;
    Tensor fake = Tensor::fake(to_sym_sizes(sizes), DType::Float32);
    n.meta = graph::tensor_meta(fake);
    n.meta.requires_grad = requires_grad;
    n.input = {graph::InputRef::Kind::Argument, inputs_++};
    values_.push_back(fake);
    return Ref{g.add_node(std::move(n), "l_x" + std::to_string(inputs_) + "_")};
  }

  Ref call(OpKind op, std::vector<In> args) {
    graph::Node n;
    n.kind = graph::NodeKind::CallOp;
    n.op = op;
    std::vector<Value> vals;
    for (const In& a : args) {
      graph::Arg arg;
      if (const Ref* r = std::get_if<Ref>(&a)) {
        arg.kind = graph::Arg::Kind::Node;
        arg.node = r->node;
        vals.push_back(values_[r->node]);
      } else {
        arg.kind = graph::Arg::Kind::Constant;
        arg.constant = std::get<Value>(a);
        vals.push_back(arg.constant);
      }
      n.args.push_back(arg);
    }
    const Tensor out = std::get<Tensor>(run_meta(op, vals));
    n.meta = graph::tensor_meta(out);
    values_.push_back(out);
    return Ref{g.add_node(std::move(n), op_name(op))};
  }

  void output(std::vector<Ref> outs) {
    graph::Node n;
    n.kind = graph::NodeKind::Output;
    for (Ref r : outs) {
      graph::Arg a;
      a.kind = graph::Arg::Kind::Node;
      a.node = r.node;
      n.args.push_back(a);
    }
    values_.emplace_back();
    g.add_node(std::move(n), "output");
  }

  graph::Graph g;

private:
  std::vector<Value> values_;
  std::size_t inputs_ = 0;
};

} // namespace aot_test
