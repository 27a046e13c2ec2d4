// Graph passes (compiler/src/passes/): each pass's rewrite on small graphs, that rewritten
// graphs compute what the originals compute, the pattern matcher's rules, and the pipeline's
// per-pass artifacts, for the pre-grad, joint-graph and post-grad stages alike.
#include "compiler/graph/graph_printer.h"
#include "compiler/graph/graph_rewrite.h"
#include "graph_builder.h"
#include "inductor_test_data.h"
#include "passes/common_subexpression_elimination.h"
#include "passes/constant_folding.h"
#include "passes/dead_code_elimination.h"
#include "passes/pass_pipeline.h"
#include "passes/pattern_rewrites.h"
#include "passes/reinplace.h"
#include "passes/remove_noop_ops.h"
#include "passes/remove_noop_views.h"
#include "support/test_paths.h"
#include "tracer/trace.h"

#include <catch2/catch.hpp>

using namespace compiler;
using graph_test::GraphBuilder;
using graph_test::op_sequence;
using graph_test::run_outputs;
using inductor_test::wave;

namespace {

void check_same_values(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].sizes() == b[i].sizes());
    CHECK(a[i].to_vector() == b[i].to_vector());
  }
}

Value dims(std::vector<std::int64_t> d) {
  return Value(std::move(d));
}

} // namespace

TEST_CASE("dead-code elimination drops unused calls and keeps placeholders", "[passes]") {
  GraphBuilder b;
  const std::size_t x = b.input("x", {4});
  const std::size_t unused_input = b.input("y", {4});
  const std::size_t s = b.call(OpKind::sin, {x});
  b.call(OpKind::cos, {s}); // unused, and so is the exp below it
  const std::size_t e = b.call(OpKind::exp, {x});
  b.call(OpKind::neg, {e});
  b.output({s});
  (void)unused_input;
  CHECK(passes::dead_code_elimination(b.g));
  CHECK(op_sequence(b.g) == "sin");
  CHECK(b.g.input_count() == 2);
  CHECK_FALSE(passes::dead_code_elimination(b.g));
}

TEST_CASE("CSE merges equal calls and tells different constants apart", "[passes]") {
  GraphBuilder b;
  const std::size_t x = b.input("x", {4});
  const std::size_t a1 = b.call(OpKind::mul, {x, 2.0});
  const std::size_t a2 = b.call(OpKind::mul, {x, 2.0});
  const std::size_t a3 = b.call(OpKind::mul, {x, 3.0});
  const std::size_t s = b.call(OpKind::add, {a1, a2});
  b.output({b.call(OpKind::add, {s, a3})});
  const Tensor in = wave({4}, 1);
  const auto before = run_outputs(b.g, {in});
  CHECK(passes::common_subexpression_elimination(b.g));
  passes::dead_code_elimination(b.g);
  CHECK(op_sequence(b.g) == "mul mul add add");
  // The kept mul stands for both (provenance).
  CHECK(b.g.node(1).from_nodes == std::vector<std::string>{"mul", "mul_1"});
  check_same_values(before, run_outputs(b.g, {in}));
}

TEST_CASE("constant folding folds uniform values and views of constants only", "[passes]") {
  GraphBuilder b;
  const std::size_t x = b.input("x", {2, 3});
  const Tensor weight = wave({3, 2}, 2);
  const std::size_t f =
      b.call(OpKind::full, {Value(std::vector<SymInt>{2, 3}), 2.0, Value(DType::Float32)});
  const std::size_t f3 = b.call(OpKind::mul, {f, 3.0});
  const std::size_t wt = b.call(OpKind::transpose, {weight, Value(SymInt(0)), Value(SymInt(1))});
  const std::size_t wexp = b.call(OpKind::exp, {weight}); // copies a weight: never folded
  const std::size_t y = b.call(OpKind::add, {b.call(OpKind::mul, {x, f3}), wt});
  b.output({y, wexp});
  const Tensor in = wave({2, 3}, 1);
  const auto before = run_outputs(b.g, {in});
  CHECK(passes::constant_folding(b.g));
  passes::dead_code_elimination(b.g);
  CHECK(op_sequence(b.g) == "full exp mul add");
  const graph::Node& folded = b.g.node(1);
  CHECK(std::get<double>(folded.args[1].constant) == 6.0);
  // The transposed weight is a constant view sharing the weight's storage.
  const graph::Node& add = b.g.node(4);
  const Tensor& view = std::get<Tensor>(add.args[1].constant);
  CHECK(view.shares_storage_with(weight));
  check_same_values(before, run_outputs(b.g, {in}));
  // Updating the weight in place is seen by the folded graph.
  weight.data<float>()[0] = 100.0f;
  CHECK(run_outputs(b.g, {in})[0].at({0, 0}) == Approx(in.at({0, 0}) * 6.0 + 100.0));
}

TEST_CASE("no-op views and copies are removed, value-changing round trips are not", "[passes]") {
  GraphBuilder b;
  const std::size_t x = b.input("x", {4, 6});
  const std::size_t same = b.call(OpKind::view, {x, Value(std::vector<SymInt>{4, 6})});
  const std::size_t t2 = b.call(OpKind::transpose, {x, Value(SymInt(0)), Value(SymInt(1))});
  const std::size_t back = b.call(OpKind::transpose, {t2, Value(SymInt(0)), Value(SymInt(1))});
  const std::size_t cont = b.call(OpKind::contiguous, {back});
  const std::size_t half = b.call(OpKind::to_dtype, {x, Value(DType::Float16)});
  const std::size_t round_trip = b.call(OpKind::to_dtype, {half, Value(DType::Float32)});
  const std::size_t r1 = b.call(OpKind::reshape, {x, Value(std::vector<SymInt>{24})});
  const std::size_t r2 = b.call(OpKind::reshape, {r1, Value(std::vector<SymInt>{2, 12})});
  const std::size_t sum = b.call(OpKind::add, {b.call(OpKind::add, {same, cont}), round_trip});
  b.output({sum, r2});
  const Tensor in = wave({4, 6}, 3);
  const auto before = run_outputs(b.g, {in});
  CHECK(passes::remove_noop_views(b.g));
  passes::dead_code_elimination(b.g);
  CHECK(op_sequence(b.g) == "to_dtype to_dtype reshape add add");
  // The surviving reshape reads x directly.
  for (const graph::Node& n : b.g.nodes()) {
    if (n.kind == graph::NodeKind::CallOp && n.op == OpKind::reshape) {
      CHECK(n.args[0].node == 0);
    }
  }
  check_same_values(before, run_outputs(b.g, {in}));
}

TEST_CASE("no-op ops go (same-size views, identity arithmetic) and real changes stay", "[passes]") {
  GraphBuilder b;
  const std::size_t x = b.input("x", {4, 6});
  const std::size_t same = b.call(OpKind::view, {x, Value(std::vector<SymInt>{4, 6})});
  const std::size_t times_one = b.call(OpKind::mul, {same, 1.0});
  const std::size_t s = b.call(OpKind::sin, {times_one});
  const std::size_t plus_zero = b.call(OpKind::add, {x, 0.0});
  const std::size_t twice = b.call(OpKind::mul, {plus_zero, 2.0});
  const std::size_t half = b.call(OpKind::to_dtype, {x, Value(DType::Float16)});
  b.output({b.call(OpKind::add, {s, twice}), half});
  const Tensor in = wave({4, 6}, 3);
  const auto before = run_outputs(b.g, {in});
  CHECK(passes::remove_noop_ops(b.g));
  passes::dead_code_elimination(b.g);
  CHECK(op_sequence(b.g) == "sin mul to_dtype add");
  // The sin and the mul read x itself.
  CHECK(b.g.node(1).args[0].node == 0);
  CHECK(b.g.node(2).args[0].node == 0);
  check_same_values(before, run_outputs(b.g, {in}));
  CHECK_FALSE(passes::remove_noop_ops(b.g));
}

TEST_CASE("the joint-graph stage's CSE keeps random ops apart and records no provenance",
          "[passes]") {
  GraphBuilder b;
  const std::size_t x = b.input("x", {4});
  auto noise = [&] {
    return b.call(OpKind::randn, {Value(std::vector<SymInt>{4}), Value(SymInt(3)),
                                  Value(DType::Float32), Value(Device::cpu())});
  };
  const std::size_t r1 = noise();
  const std::size_t r2 = noise();
  const std::size_t m1 = b.call(OpKind::mul, {x, 2.0});
  const std::size_t m2 = b.call(OpKind::mul, {x, 2.0});
  b.output({b.call(OpKind::add, {r1, r2}), b.call(OpKind::add, {m1, m2})});
  graph::Graph pre_grad = b.g;
  passes::run_joint_graph_passes(b.g);
  CHECK(op_sequence(b.g) == "randn randn mul add add");
  CHECK(b.g.node(3).from_nodes.empty());
  // The pre-grad stage merges both (randn is a function of its seed) and records provenance.
  passes::common_subexpression_elimination(pre_grad);
  passes::dead_code_elimination(pre_grad);
  CHECK(op_sequence(pre_grad) == "randn mul add add");
  CHECK(pre_grad.node(2).from_nodes == std::vector<std::string>{"mul", "mul_1"});
}

TEST_CASE("pattern rewrites: silu in either operand order", "[passes][pattern]") {
  for (bool swapped : {false, true}) {
    GraphBuilder b;
    const std::size_t x = b.input("x", {8});
    const std::size_t s = b.call(OpKind::sigmoid, {x});
    b.output({swapped ? b.call(OpKind::mul, {s, x}) : b.call(OpKind::mul, {x, s})});
    const Tensor in = wave({8}, 1);
    const auto before = run_outputs(b.g, {in});
    CHECK(passes::post_grad_pattern_rewrites(b.g));
    passes::dead_code_elimination(b.g);
    CHECK(op_sequence(b.g) == "silu");
    check_same_values(before, run_outputs(b.g, {in}));
    // silu stands for the two nodes it replaced.
    CHECK(b.g.node(1).from_nodes.size() == 2);
  }
}

TEST_CASE("pattern rewrites: x * sigmoid(y) is not silu, nor a sigmoid used elsewhere",
          "[passes][pattern]") {
  GraphBuilder b;
  const std::size_t x = b.input("x", {8});
  const std::size_t y = b.input("y", {8});
  const std::size_t other = b.call(OpKind::mul, {x, b.call(OpKind::sigmoid, {y})});
  const std::size_t s = b.call(OpKind::sigmoid, {x});
  const std::size_t shared = b.call(OpKind::mul, {x, s});
  b.output({other, shared, s});
  CHECK_FALSE(passes::post_grad_pattern_rewrites(b.g));
}

TEST_CASE("pattern rewrites: matmul + bias becomes addmm, with a constant bias too",
          "[passes][pattern]") {
  const Tensor bias = wave({5}, 4);
  GraphBuilder b;
  const std::size_t a = b.input("a", {3, 4});
  const std::size_t w = b.input("w", {4, 5});
  const std::size_t mm = b.call(OpKind::matmul, {a, w});
  b.output({b.call(OpKind::add, {bias, mm})});
  const Tensor ia = wave({3, 4}, 1);
  const Tensor iw = wave({4, 5}, 2);
  const auto before = run_outputs(b.g, {ia, iw});
  CHECK(passes::post_grad_pattern_rewrites(b.g));
  passes::dead_code_elimination(b.g);
  CHECK(op_sequence(b.g) == "addmm");
  check_same_values(before, run_outputs(b.g, {ia, iw}));
}

TEST_CASE("pattern rewrites: no addmm when the bias would grow the product", "[passes][pattern]") {
  GraphBuilder b;
  const std::size_t a = b.input("a", {1, 4});
  const std::size_t w = b.input("w", {4, 5});
  const std::size_t bias = b.input("bias", {3, 5});
  b.output({b.call(OpKind::add, {b.call(OpKind::matmul, {a, w}), bias})});
  CHECK_FALSE(passes::post_grad_pattern_rewrites(b.g));
}

TEST_CASE("pattern rewrites: a decomposed softmax and log_softmax become one op",
          "[passes][pattern]") {
  GraphBuilder b;
  const std::size_t x = b.input("x", {4, 6});
  const std::size_t m = b.call(OpKind::amax, {x, dims({1}), Value(true)});
  const std::size_t shifted = b.call(OpKind::sub, {x, m});
  const std::size_t e = b.call(OpKind::exp, {shifted});
  const std::size_t s = b.call(OpKind::sum, {e, dims({1}), Value(true)});
  const std::size_t sm = b.call(OpKind::div, {e, s});
  const std::size_t m2 = b.call(OpKind::amax, {x, dims({-1}), Value(true)});
  const std::size_t sh2 = b.call(OpKind::sub, {x, m2});
  const std::size_t s2 = b.call(OpKind::sum, {b.call(OpKind::exp, {sh2}), dims({-1}), Value(true)});
  const std::size_t lsm = b.call(OpKind::sub, {sh2, b.call(OpKind::log, {s2})});
  b.output({sm, lsm});
  const Tensor in = wave({4, 6}, 5);
  const auto before = run_outputs(b.g, {in});
  CHECK(passes::pre_grad_pattern_rewrites(b.g));
  passes::dead_code_elimination(b.g);
  CHECK(op_sequence(b.g) == "softmax log_softmax");
  const auto after = run_outputs(b.g, {in});
  for (std::size_t k = 0; k < 2; ++k) {
    const std::vector<double> want = before[k].to_vector();
    const std::vector<double> got = after[k].to_vector();
    for (std::size_t i = 0; i < want.size(); ++i) {
      CHECK(got[i] == Approx(want[i]).margin(1e-6));
    }
  }
}

TEST_CASE("pattern rewrites: the softmax pattern needs the same dims twice", "[passes][pattern]") {
  GraphBuilder b;
  const std::size_t x = b.input("x", {4, 6});
  const std::size_t m = b.call(OpKind::amax, {x, dims({1}), Value(true)});
  const std::size_t e = b.call(OpKind::exp, {b.call(OpKind::sub, {x, m})});
  const std::size_t s = b.call(OpKind::sum, {e, dims({0}), Value(true)});
  b.output({b.call(OpKind::div, {e, s})});
  CHECK_FALSE(passes::pre_grad_pattern_rewrites(b.g));
}

TEST_CASE("re-inplacing marks the last reader of a fresh buffer only", "[passes]") {
  GraphBuilder b;
  const std::size_t x = b.input("x", {4, 4});
  const std::size_t e = b.call(OpKind::exp, {x});  // an input: never overwritten
  const std::size_t r = b.call(OpKind::relu, {e}); // e's last reader: in place
  const std::size_t v = b.call(OpKind::view, {r, Value(std::vector<SymInt>{16})});
  const std::size_t n = b.call(OpKind::neg, {r});  // r is read later through v: not
  const std::size_t t = b.call(OpKind::tanh, {n}); // n's last reader: in place
  b.output({t, v});
  CHECK(passes::reinplace(b.g));
  CHECK(b.g.node(e).inplace_arg == -1);
  CHECK(b.g.node(r).inplace_arg == 0);
  CHECK(b.g.node(n).inplace_arg == -1);
  CHECK(b.g.node(t).inplace_arg == 0);
  const std::string printed = graph::print_graph(b.g, false);
  CHECK(printed.find("torch.ops.aten.relu_(exp)") != std::string::npos);
  CHECK(printed.find("torch.ops.aten.neg(relu)") != std::string::npos);
}

TEST_CASE("the pipeline keeps values, the order and every output", "[passes]") {
  GraphBuilder b;
  const std::size_t x = b.input("x", {4, 6});
  const std::size_t a = b.call(OpKind::mul, {x, b.call(OpKind::sigmoid, {x})});
  const std::size_t a2 = b.call(OpKind::mul, {x, b.call(OpKind::sigmoid, {x})});
  const std::size_t c = b.call(OpKind::contiguous, {a2});
  const std::size_t unused = b.call(OpKind::cos, {x});
  (void)unused;
  b.output({b.call(OpKind::add, {a, c}), a});
  const Tensor in = wave({4, 6}, 2);
  const auto before = run_outputs(b.g, {in});
  const passes::PipelineResult r =
      passes::run_pipeline(passes::Stage::PostGrad, passes::post_grad_pipeline(), b.g);
  CHECK(r.changed == std::vector<std::string>{"remove_noop_views",
                                              "common_subexpression_elimination",
                                              "pattern_rewrites"});
  CHECK(op_sequence(b.g) == "silu add");
  CHECK(graph::is_topologically_sorted(b.g));
  check_same_values(before, run_outputs(b.g, {in}));
}

TEST_CASE("the pipeline writes the graph after each pass that changed it", "[passes][trace]") {
  test_support::TempDir dir;
  REQUIRE(tracer::start({.directory = dir.path().string()}));
  GraphBuilder b;
  const std::size_t x = b.input("x", {4});
  b.call(OpKind::cos, {x});
  b.output({b.call(OpKind::sin, {x})});
  passes::run_pipeline(passes::Stage::PreGrad, passes::pre_grad_pipeline(), b.g);
  const std::string path = tracer::log_path();
  tracer::stop();
  const std::string log = test_support::read_file(path);
  CHECK(log.find("\"name\": \"after_pre_grad_pass_dead_code_elimination\"") != std::string::npos);
  CHECK(log.find("after_pre_grad_pass_common_subexpression_elimination") == std::string::npos);
  CHECK(log.find("\"name\": \"pass.pre_grad_passes.dead_code_elimination\"") != std::string::npos);
}

TEST_CASE("the joint-graph passes run through the one pipeline and dump each changing pass",
          "[passes][trace]") {
  std::vector<std::string_view> names;
  for (const passes::Pass& p : passes::joint_graph_pipeline()) {
    names.push_back(p.name);
  }
  CHECK(names == std::vector<std::string_view>{"remove_noop_ops", "cse", "dce"});

  test_support::TempDir dir;
  REQUIRE(tracer::start({.directory = dir.path().string()}));
  GraphBuilder b;
  const std::size_t x = b.input("x", {4});
  const std::size_t same = b.call(OpKind::view, {x, Value(std::vector<SymInt>{4})});
  const std::size_t s1 = b.call(OpKind::sin, {same}); // sin(x) once the view is gone
  const std::size_t s2 = b.call(OpKind::sin, {x});
  b.output({b.call(OpKind::add, {s1, s2})});
  const Tensor in = wave({4}, 1);
  const auto before = run_outputs(b.g, {in});
  const passes::PipelineResult r = passes::run_joint_graph_passes(b.g);
  // Nothing changes the second time, so nothing more is dumped.
  CHECK(passes::run_joint_graph_passes(b.g).changed.empty());
  const std::string path = tracer::log_path();
  tracer::stop();
  CHECK(r.changed == std::vector<std::string>{"remove_noop_ops", "cse", "dce"});
  CHECK(op_sequence(b.g) == "sin add");
  check_same_values(before, run_outputs(b.g, {in}));
  const std::string log = test_support::read_file(path);
  auto count = [&](const std::string& text) {
    std::size_t n = 0;
    for (std::size_t at = log.find(text); at != std::string::npos; at = log.find(text, at + 1)) {
      ++n;
    }
    return n;
  };
  for (const char* pass : {"remove_noop_ops", "cse", "dce"}) {
    INFO(pass);
    CHECK(count("\"name\": \"after_joint_graph_pass_" + std::string(pass) + "\"") == 1);
    CHECK(count("\"name\": \"pass.joint_graph_passes." + std::string(pass) + "\"") == 4);
  }
  CHECK(count("\"name\": \"_recursive_joint_graph_passes\"") == 4);
}
