// The min-cut partitioner's decisions on hand-made graphs, and its optimality: with plain byte
// weights the cut's cost equals a brute-force minimum over every set of saved values (on random
// small graphs), and it never saves more bytes than PyTorch's save-everything default
// partition.
#include "aot_graph_builder.h"
#include "compiler/aot/aot.h"
#include "compiler/aot/partitioner.h"
#include "compiler/autograd/grad_mode.h"
#include "compiler/graph/graph_rewrite.h"
#include "compiler/graph/interpreter.h"
#include "compiler/ops/ops.h"

#include <catch2/catch.hpp>
#include <random>
#include <set>
#include <simdjson.h>
#include <string>
#include <variant>

using namespace compiler;

namespace {

using aot_test::Builder;
using R = Builder::Ref;
using Ints = std::vector<std::int64_t>;

aot::PartitionOptions bytes_only() {
  aot::PartitionOptions o;
  o.heuristic_weights = false;
  return o;
}

bool has_op(const graph::Graph& g, OpKind op) {
  for (const graph::Node& n : g.nodes()) {
    if (n.kind == graph::NodeKind::CallOp && n.op == op) {
      return true;
    }
  }
  return false;
}

// The cheapest set of saved values from which the backward can be computed, by trying every
// subset of the nodes that do not depend on a tangent; banned nodes cannot be recomputed.
// Returns -1 when there are too many such nodes to enumerate.
std::int64_t brute_force_cost(const aot::TracedGraph& joint, const aot::Partition& p) {
  const graph::Graph& g = joint.graph;
  const std::size_t n = g.size();
  std::vector<bool> tangent_dep(n, false);
  std::vector<bool> primal(n, false);
  std::size_t placeholder = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const graph::Node& node = g.node(i);
    if (node.kind == graph::NodeKind::Placeholder) {
      (placeholder++ < joint.primals.size() ? primal : tangent_dep)[i] = true;
    }
    for (const graph::Arg& a : node.args) {
      if (a.kind == graph::Arg::Kind::Node && tangent_dep[a.node] &&
          node.kind == graph::NodeKind::CallOp) {
        tangent_dep[i] = true;
      }
    }
  }
  const std::set<std::size_t> banned(p.banned.begin(), p.banned.end());
  std::vector<std::size_t> candidates;
  for (std::size_t i = 0; i < n; ++i) {
    if (!tangent_dep[i] && g.node(i).kind != graph::NodeKind::Output) {
      candidates.push_back(i);
    }
  }
  if (candidates.size() > 18) {
    return -1;
  }
  const std::size_t out_index = g.output_index();
  std::int64_t best = std::numeric_limits<std::int64_t>::max();
  std::vector<char> avail(n);
  for (std::uint64_t mask = 0; mask < (std::uint64_t{1} << candidates.size()); ++mask) {
    std::vector<char> saved(n, 0);
    std::int64_t cost = 0;
    for (std::size_t k = 0; k < candidates.size(); ++k) {
      if ((mask >> k) & 1u) {
        saved[candidates[k]] = 1;
        cost += p.weights[candidates[k]];
      }
    }
    if (cost >= best) {
      continue;
    }
    for (std::size_t i = 0; i < n; ++i) {
      const graph::Node& node = g.node(i);
      bool inputs_ok = true;
      for (const graph::Arg& a : node.args) {
        if (a.kind == graph::Arg::Kind::Node && !avail[a.node]) {
          inputs_ok = false;
        }
      }
      if (node.kind == graph::NodeKind::Placeholder) {
        avail[i] = !primal[i] || saved[i];
      } else if (saved[i]) {
        avail[i] = 1;
      } else if (node.kind == graph::NodeKind::CallOp) {
        avail[i] = inputs_ok && (tangent_dep[i] || banned.count(i) == 0);
      }
    }
    bool ok = true;
    const graph::Node& out = g.node(out_index);
    for (std::size_t k = joint.num_outputs; k < out.args.size(); ++k) {
      if (out.args[k].kind == graph::Arg::Kind::Node && !avail[out.args[k].node]) {
        ok = false;
      }
    }
    if (ok) {
      best = cost;
    }
  }
  return best;
}

// A random small graph of pointwise ops and keepdim reductions over two inputs.
graph::Graph random_graph(std::mt19937& rng) {
  Builder b;
  std::vector<R> values = {b.input({3, 4}, true), b.input({4}, true)};
  std::uniform_int_distribution<int> pick_op(0, 6);
  const int count = std::uniform_int_distribution<int>(2, 5)(rng);
  for (int k = 0; k < count; ++k) {
    auto any = [&] {
      return values[std::uniform_int_distribution<std::size_t>(0, values.size() - 1)(rng)];
    };
    switch (pick_op(rng)) {
    case 0:
      values.push_back(b.call(OpKind::add, {any(), any()}));
      break;
    case 1:
      values.push_back(b.call(OpKind::mul, {any(), any()}));
      break;
    case 2:
      values.push_back(b.call(OpKind::sin, {any()}));
      break;
    case 3:
      values.push_back(b.call(OpKind::exp, {b.call(OpKind::mul, {any(), Value(0.25)})}));
      break;
    case 4:
      values.push_back(b.call(OpKind::tanh, {any()}));
      break;
    case 5:
      values.push_back(b.call(OpKind::sum, {any(), Value(Ints{-1}), Value(true)}));
      break;
    default:
      values.push_back(b.call(OpKind::mul, {any(), Value(3.0)}));
      break;
    }
  }
  b.output({b.call(OpKind::sum, {values.back(), Value(Ints{}), Value(false)})});
  return b.g;
}

aot::TracedGraph joint_of(const graph::Graph& captured) {
  autograd::GradModeGuard grad(true);
  aot::TracedGraph t = aot::trace_joint(captured);
  REQUIRE(t.is_joint);
  return t;
}

} // namespace

TEST_CASE("min cut: cheap pointwise chains are recomputed and only the input is saved",
          "[compiler][aot][partition]") {
  Builder b;
  const R x = b.input({64}, true);
  const R y = b.call(OpKind::exp, {b.call(OpKind::mul, {b.call(OpKind::sin, {x}), Value(2.0)})});
  b.output({b.call(OpKind::sum, {y, Value(Ints{}), Value(false)})});
  const aot::TracedGraph joint = joint_of(b.g);
  const aot::Partition cut = aot::min_cut_partition(joint);
  const aot::Partition all = aot::save_all_partition(joint);
  REQUIRE(cut.saved.size() == 1);
  CHECK(cut.num_saved_primals == 1); // x itself
  CHECK(cut.saved_activation_bytes == 0);
  CHECK(has_op(cut.backward, OpKind::exp)); // recomputed in the backward
  CHECK(all.saved_activation_bytes > 0);    // save-everything keeps the intermediates
}

TEST_CASE("min cut: a matmul is never recomputed, and neither is a 4x-smaller reduction",
          "[compiler][aot][partition]") {
  Builder b;
  const R x = b.input({16, 32}, true);
  const R w = b.input({32, 8}, true);
  const R h = b.call(OpKind::mm, {x, w});
  const R s = b.call(OpKind::sum, {b.call(OpKind::exp, {h}), Value(Ints{1}), Value(true)});
  const R y = b.call(OpKind::mul, {b.call(OpKind::tanh, {h}), s});
  b.output({b.call(OpKind::sum, {y, Value(Ints{}), Value(false)})});
  const aot::TracedGraph joint = joint_of(b.g);
  const aot::Partition cut = aot::min_cut_partition(joint);
  // The forward's mm and sum are banned, so the backward reads them as saved values.
  std::size_t forward_mm = 0;
  std::size_t forward_sum = 0;
  for (std::size_t i : cut.banned) {
    forward_mm +=
        joint.graph.node(i).kind == graph::NodeKind::CallOp && joint.graph.node(i).op == OpKind::mm;
    forward_sum += joint.graph.node(i).kind == graph::NodeKind::CallOp &&
                   joint.graph.node(i).op == OpKind::sum;
  }
  CHECK(forward_mm == 1);
  CHECK(forward_sum >= 1);
  // The backward computes tanh' and exp from the saved mm instead of saving them.
  CHECK(has_op(cut.backward, OpKind::tanh));
  CHECK(cut.saved_activation_bytes <= aot::save_all_partition(joint).saved_activation_bytes);
}

TEST_CASE("min_cut_information holds the joint graph and the cut's decisions in PyTorch's shape",
          "[compiler][aot][partition]") {
  Builder b;
  const R x = b.input({16, 32}, true);
  const R w = b.input({32, 8}, true);
  const R h = b.call(OpKind::mm, {x, w});
  const R y = b.call(OpKind::tanh, {h});
  b.output({b.call(OpKind::sum, {y, Value(Ints{}), Value(false)})});
  const aot::TracedGraph joint = joint_of(b.g);
  const aot::Partition cut = aot::min_cut_partition(joint);
  const std::string text = aot::min_cut_information(joint, cut);
  INFO(text);
  REQUIRE(text.find('\n') == std::string::npos); // one line, as json.dumps writes it

  simdjson::dom::parser parser;
  simdjson::dom::object root;
  REQUIRE_FALSE(parser.parse(text).get(root));
  CHECK(root["Joint Graph Size"].get_uint64().value() == joint.graph.size());
  std::size_t edges = 0;
  for (const graph::Node& n : joint.graph.nodes()) {
    graph::for_each_input(n, [&](std::size_t) { ++edges; });
  }
  CHECK(root["Joint Graph Edges"]["Total"].get_uint64().value() == edges);
  CHECK(root["Joint Graph Edges"]["Edges"].get_array().size() == edges);

  std::set<std::string> saved_names;
  for (auto v : root["Min Cut Solution Saved Values"].get_array()) {
    saved_names.insert(std::string(v.get_string().value()));
  }
  std::set<std::string> expected_saved;
  for (std::size_t i : cut.saved) {
    expected_saved.insert(joint.graph.node(i).name);
  }
  CHECK(saved_names == expected_saved);

  // Every candidate is saved or recomputed, never both, and the lists index the candidates.
  simdjson::dom::object info = root["Joint Graph Node Information"].get_object();
  const auto order = root["Recomputable Banned Nodes Order"].get_array();
  const auto memories = root["Knapsack Input Memories"].get_array();
  const auto runtimes = root["Knapsack Input Runtimes"].get_array();
  REQUIRE(order.size() == memories.size());
  REQUIRE(order.size() == runtimes.size());
  const std::size_t n_saved = root["Knapsack Saved Nodes"].get_array().size();
  const std::size_t n_recomputed = root["Knapsack Recomputed Nodes"].get_array().size();
  CHECK(n_saved + n_recomputed == order.size());
  bool saw_mm = false;
  bool saw_recomputed_tanh = false;
  for (std::size_t i = 0; i < joint.graph.size(); ++i) {
    const graph::Node& n = joint.graph.node(i);
    simdjson::dom::object node = info[n.name].get_object();
    CHECK(node["index"].get_uint64().value() == i);
    if (!node["is_recomputable_candidate"].get_bool().value()) {
      continue;
    }
    simdjson::dom::object c = node["recomputable_candidate_info"].get_object();
    const bool saved = c["is_saved"].get_bool().value();
    CHECK(saved != c["is_recomputed"].get_bool().value());
    CHECK(saved == (saved_names.count(n.name) == 1));
    CHECK(c["memory"].get_uint64().value() == graph::value_bytes(n));
    if (n.kind == graph::NodeKind::CallOp && n.op == OpKind::mm &&
        std::string(node["target"].get_string().value()) == "aten.mm.default") {
      saw_mm = saved;                                                // a matmul is never recomputed
      CHECK(c["runtime"].get_double().value() == 2.0 * 16 * 8 * 32); // its flops
      CHECK(std::string(node["shape"].get_string().value()) == "torch.Size([16, 8])");
    }
    if (n.kind == graph::NodeKind::CallOp && n.op == OpKind::tanh && !saved) {
      saw_recomputed_tanh = true;
    }
  }
  CHECK(saw_mm);
  CHECK(saw_recomputed_tanh == !cut.recomputed.empty());
}

TEST_CASE("min cut: with byte weights the cut is a brute-force optimum on random graphs",
          "[compiler][aot][partition][property]") {
  std::mt19937 rng(20261123);
  int checked = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const graph::Graph captured = random_graph(rng);
    const aot::TracedGraph joint = joint_of(captured);
    const aot::Partition cut = aot::min_cut_partition(joint, bytes_only());
    const aot::Partition all = aot::save_all_partition(joint);
    INFO("trial " << trial << ": cut cost " << cut.cut_cost);
    CHECK(cut.saved_bytes <= all.saved_bytes);
    const std::int64_t best = brute_force_cost(joint, cut);
    if (best < 0) {
      continue; // too many nodes on the forward side to enumerate
    }
    CHECK(cut.cut_cost == best);
    ++checked;
  }
  CHECK(checked >= 15);
}

TEST_CASE("partitions compute the joint graph's values: forward then backward equals eager",
          "[compiler][aot][partition]") {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 10; ++trial) {
    const graph::Graph captured = random_graph(rng);
    const aot::TracedGraph joint = joint_of(captured);
    for (const aot::Partition& p :
         {aot::min_cut_partition(joint), aot::save_all_partition(joint)}) {
      const Tensor x =
          Tensor::from_values({0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2}, {3, 4});
      const Tensor y = Tensor::from_values({0.3, -0.2, 0.5, 0.1}, {4});
      const std::vector<Value> fw_in = {x, y};
      const std::vector<Value> fv = graph::interpret(p.forward, fw_in, {});
      const std::vector<Value> fw_out =
          graph::resolve_args(p.forward, p.forward.node(p.forward.output_index()), fv, {});
      std::vector<Value> bw_in(fw_out.begin() + 1, fw_out.end());
      bw_in.emplace_back(Tensor::scalar(1.0));
      const std::vector<Value> bv = graph::interpret(p.backward, bw_in, {});
      const std::vector<Value> grads =
          graph::resolve_args(p.backward, p.backward.node(p.backward.output_index()), bv, {});
      // Eager autograd on the same function.
      Tensor xe = x.detach();
      Tensor ye = y.detach();
      xe.set_requires_grad(true);
      ye.set_requires_grad(true);
      std::vector<Value> env;
      std::size_t k = 0;
      Tensor out;
      for (const graph::Node& n : captured.nodes()) {
        if (n.kind == graph::NodeKind::Placeholder) {
          env.emplace_back(k++ == 0 ? xe : ye);
        } else if (n.kind == graph::NodeKind::CallOp) {
          env.push_back(dispatch(n.op, graph::resolve_args(captured, n, env, {})));
        } else {
          out = std::get<Tensor>(env[n.args[0].node]);
          env.emplace_back();
        }
      }
      CHECK(std::get<Tensor>(fw_out[0]).item_double() == Approx(out.item_double()));
      out.backward();
      for (std::size_t i = 0; i < 2; ++i) {
        const Tensor want = i == 0 ? xe.grad() : ye.grad();
        const Tensor* got = std::get_if<Tensor>(&grads[i]);
        if (!want.defined()) {
          continue;
        }
        REQUIRE(got != nullptr);
        const std::vector<double> a = got->to_vector();
        const std::vector<double> e = want.to_vector();
        for (std::size_t j = 0; j < a.size(); ++j) {
          CHECK(a[j] == Approx(e[j]).margin(1e-6));
        }
      }
    }
  }
}
