// The compiler's extension points: user backends (CompileOptions::custom_backend, as
// torch.compile(backend=fn)), aot_autograd with user forward/backward compilers, and user graph
// passes registered into the built-in pipelines (compiler/passes/custom_passes.h).
#include "compiler/aot/aot.h"
#include "compiler/autograd/autograd.h"
#include "compiler/capture/compile.h"
#include "compiler/graph/graph_rewrite.h"
#include "compiler/inductor/inductor.h"
#include "compiler/inductor/metrics.h"
#include "compiler/ops/custom_ops.h"
#include "compiler/ops/ops.h"
#include "compiler/passes/custom_passes.h"
#include "support/test_paths.h"
#include "tensor_test_util.h"
#include "tracer/trace.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using namespace compiler;

namespace {

Tensor ramp(std::vector<std::int64_t> sizes, bool requires_grad = false) {
  std::int64_t n = 1;
  for (std::int64_t s : sizes) {
    n *= s;
  }
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i] = 0.05 * static_cast<double>(i) - 0.4;
  }
  Tensor t = Tensor::from_values(v, std::move(sizes), DType::Float32);
  if (requires_grad) {
    t.set_requires_grad(true);
  }
  return t;
}

std::size_t count_op(const graph::Graph& g, OpKind op) {
  std::size_t n = 0;
  for (const graph::Node& node : g.nodes()) {
    n += node.kind == graph::NodeKind::CallOp && node.op == op;
  }
  return n;
}

// A user pass: every sin becomes cos (observable in the results).
bool sin_to_cos(graph::Graph& g) {
  bool changed = false;
  for (graph::Node& n : g.nodes()) {
    if (n.kind == graph::NodeKind::CallOp && n.op == OpKind::sin) {
      n.op = OpKind::cos;
      changed = true;
    }
  }
  return changed;
}

} // namespace

TEST_CASE("a custom backend gets each captured graph once and its function runs every call",
          "[compiler][extension]") {
  int compiles = 0;
  std::size_t sins = 0;
  backend::CustomBackend my_backend = [&](const graph::Graph& g) {
    ++compiles;
    sins = count_op(g, OpKind::sin);
    return backend::function_from_compiled(backend::interpret_graph(g), g);
  };
  auto f = compile([](const Tensor& x) { return mul(sin(x), 2.0); },
                   {.name = "f", .custom_backend = my_backend});
  const Tensor x = ramp({4, 3});
  const Tensor y = f(x);
  f(x);
  CHECK(compiles == 1);
  CHECK(sins == 1);
  tensor_test::check_values(y, (mul(sin(x), 2.0)).to_vector(), 0.0);
}

TEST_CASE("a custom backend's mistakes are user errors", "[compiler][extension]") {
  SECTION("a function that returns too many values") {
    backend::CustomBackend bad = [](const graph::Graph&) -> backend::GraphFunction {
      return [](std::span<const Value>, std::span<const std::int64_t>) {
        return std::vector<Value>(3);
      };
    };
    auto f = compile([](const Tensor& x) { return neg(x); }, {.custom_backend = bad});
    CHECK_THROWS_WITH(f(ramp({2})), Catch::Contains("returned 3 values for a graph with 1"));
  }
  SECTION("no function") {
    backend::CustomBackend empty = [](const graph::Graph&) { return backend::GraphFunction{}; };
    auto f = compile([](const Tensor& x) { return neg(x); }, {.custom_backend = empty});
    CHECK_THROWS_WITH(f(ramp({2})), Catch::Contains("returned an empty function"));
  }
  SECTION("a backend name and a custom backend") {
    backend::CustomBackend any = [](const graph::Graph& g) {
      return backend::function_from_compiled(backend::interpret_graph(g), g);
    };
    CHECK_THROWS_AS(compile([](const Tensor& x) { return neg(x); },
                            {.backend = "eager", .custom_backend = any}),
                    UserError);
  }
}

TEST_CASE("aot_autograd hands the forward and, at the first backward, the backward graph to "
          "the user's compilers",
          "[compiler][extension]") {
  std::vector<backend::GraphRole> roles;
  aot::UserGraphCompiler record = [&](const graph::Graph& g, backend::GraphRole role) {
    roles.push_back(role);
    for (const graph::Node& n : g.nodes()) {
      if (n.kind == graph::NodeKind::CallOp) {
        CHECK(op_level(n.op) == OpLevel::Prim); // the AOT stage decomposed the graph
      }
    }
    return backend::function_from_compiled(backend::interpret_graph(g), g);
  };
  auto f = compile(
      [](const Tensor& x) { return sum(mul(tanh(x), x)); },
      {.custom_backend = aot::aot_autograd({.fw_compiler = record, .bw_compiler = record})});
  const Tensor x = ramp({3, 5}, true);
  Tensor loss = f(x);
  REQUIRE(roles.size() == 1);
  CHECK(roles[0] == backend::GraphRole::Forward);
  loss.backward();
  REQUIRE(roles.size() == 2);
  CHECK(roles[1] == backend::GraphRole::Backward);

  const Tensor x2 = ramp({3, 5}, true);
  sum(mul(tanh(x2), x2)).backward();
  tensor_test::check_values(x.grad(), (x2.grad()).to_vector(), 1e-6);
}

TEST_CASE("a custom post-grad pass runs in Inductor's pipeline and changes the compiled code",
          "[compiler][extension]") {
  passes::CustomPassHandle handle = passes::register_custom_pass(
      {.name = "sin_to_cos", .stage = passes::Stage::PostGrad, .run = sin_to_cos, .uuid = "v1"});
  auto f = compile([](const Tensor& x) { return mul(sin(x), 3.0); }, {.backend = "inductor"});
  const Tensor x = ramp({5, 7});
  tensor_test::check_values(f(x), (mul(cos(x), 3.0)).to_vector(), 1e-6);

  SECTION("a second pass of the same name and stage is refused") {
    CHECK_THROWS_WITH(
        passes::register_custom_pass(
            {.name = "sin_to_cos", .stage = passes::Stage::PostGrad, .run = sin_to_cos}),
        Catch::Contains("already registered"));
  }
  SECTION("once unregistered, a new compile leaves sin alone") {
    handle.reset();
    auto g = compile([](const Tensor& v) { return mul(sin(v), 3.0); }, {.backend = "inductor"});
    tensor_test::check_values(g(x), (mul(sin(x), 3.0)).to_vector(), 1e-6);
  }
}

TEST_CASE("custom passes are traced like the built-in ones and checked", "[compiler][extension]") {
  test_support::TempDir dir("custom-pass-trace");
  tracer::Options o;
  o.directory = dir.path().string();
  REQUIRE(tracer::start(o));
  {
    passes::CustomPassHandle joint =
        passes::register_custom_pass({.name = "my_joint_rewrite",
                                      .stage = passes::Stage::JointGraph,
                                      .run = sin_to_cos,
                                      .placement = passes::Placement::BeforeBuiltins});
    passes::CustomPassHandle post = passes::register_custom_pass(
        {.name = "my_post_count", .stage = passes::Stage::PostGrad, .run = [](graph::Graph&) {
           return false; // runs, changes nothing: no dump
         }});
    auto f = compile([](const Tensor& x) { return sum(sin(x)); }, {.backend = "inductor"});
    const Tensor x = ramp({4}, true);
    f(x).backward();
    // The joint pass turned sin into cos before differentiation's graph was partitioned: the
    // forward computes cos, and the gradient is what the rewritten joint graph says.
  }
  const std::string path = tracer::log_path();
  tracer::stop();
  const std::string log = test_support::read_file(path);
  CHECK(log.find("\"name\": \"after_joint_graph_pass_my_joint_rewrite\"") != std::string::npos);
  CHECK(log.find("after_post_grad_pass_my_post_count") == std::string::npos);
  CHECK(log.find("pass.post_grad_passes.my_post_count") != std::string::npos); // its span
  // A post-grad pass without a uuid keeps its compiles out of the FX graph cache.
  CHECK(log.find("a custom post_grad pass has no uuid") != std::string::npos);

  SECTION("a pass that breaks the graph's order is a user error naming it") {
    passes::CustomPassHandle bad =
        passes::register_custom_pass({.name = "reverse",
                                      .stage = passes::Stage::PreGrad,
                                      .run =
                                          [](graph::Graph& g) {
                                            // Make the first call read the last call's value: a use
                                            // before its definition.
                                            std::size_t first = g.size();
                                            std::size_t last = 0;
                                            for (std::size_t i = 0; i < g.size(); ++i) {
                                              if (g.node(i).kind == graph::NodeKind::CallOp) {
                                                first = std::min(first, i);
                                                last = i;
                                              }
                                            }
                                            if (first >= last) {
                                              return false;
                                            }
                                            g.nodes()[first].args[0].kind = graph::Arg::Kind::Node;
                                            g.nodes()[first].args[0].node = last;
                                            return true;
                                          },
                                      .uuid = "r"});
    auto h = compile([](const Tensor& x) { return cos(sin(x)); }, {.backend = "inductor"});
    CHECK_THROWS_WITH(h(ramp({3})), Catch::Contains("custom pre_grad pass 'reverse'"));
  }
}

namespace {

// "ext::scale_add"(x, y, alpha) = x + alpha * y, optionally with a decomposition.
CustomOpHandle register_scale_add(bool with_decomposition) {
  CustomOpDef def{
      .name = "ext::scale_add",
      .schema = "(Tensor x, Tensor y, float alpha) -> Tensor",
      .kernel = [](std::span<const Tensor> in,
                   std::span<const double> s) { return add(in[0], mul(in[1], s[0])); },
      .backward =
          [](const CustomOpGrad& g) {
            return std::vector<Tensor>{g.grad_output, mul(g.grad_output, g.scalars[0])};
          },
  };
  if (with_decomposition) {
    def.decomposition = [](std::span<const Tensor> in, std::span<const double> s) {
      return add(in[0], mul(in[1], s[0]));
    };
  }
  return register_custom_op(std::move(def));
}

} // namespace

TEST_CASE("a custom op runs eagerly, compiled and through autograd under its own name",
          "[compiler][extension]") {
  const CustomOpHandle op = register_scale_add(false);
  const Tensor x = ramp({3, 4}, true);
  const Tensor y = ramp({3, 4}, true);
  tensor_test::check_values(call_custom_op("ext::scale_add", {x, y}, {0.5}),
                            add(x, mul(y, 0.5)).to_vector(), 1e-7);

  test_support::TempDir dir("custom-op-trace");
  tracer::Options o;
  o.directory = dir.path().string();
  REQUIRE(tracer::start(o));
  auto f = compile(
      [](const Tensor& a, const Tensor& b) {
        return sum(tanh(call_custom_op("ext::scale_add", {a, b}, {0.5})));
      },
      {.backend = "inductor"});
  const std::int64_t fallbacks = inductor::counters().fallback_runs;
  Tensor loss = f(x, y);
  CHECK(inductor::counters().fallback_runs == fallbacks + 1); // its kernel, called by the code
  loss.backward();
  const std::string path = tracer::log_path();
  tracer::stop();

  const Tensor x2 = ramp({3, 4}, true);
  const Tensor y2 = ramp({3, 4}, true);
  Tensor eager_loss = sum(tanh(call_custom_op("ext::scale_add", {x2, y2}, {0.5})));
  eager_loss.backward();
  CHECK(std::abs(loss.item_double() - eager_loss.item_double()) < 1e-5);
  tensor_test::check_values(x.grad(), x2.grad().to_vector(), 1e-5);
  tensor_test::check_values(y.grad(), y2.grad().to_vector(), 1e-5);

  const std::string log = test_support::read_file(path);
  CHECK(log.find("torch.ops.ext.scale_add(") != std::string::npos);          // dynamo graph
  CHECK(log.find("torch.ops.ext.scale_add.default([") != std::string::npos); // AOT graphs
  CHECK(log.find("the graph calls the custom op ext.scale_add") != std::string::npos);
}

TEST_CASE("a custom op with a decomposition compiles into generated kernels",
          "[compiler][extension]") {
  const CustomOpHandle op = register_scale_add(true);
  auto f = compile(
      [](const Tensor& a, const Tensor& b) {
        return mul(call_custom_op("ext::scale_add", {a, b}, {2.0}), 3.0);
      },
      {.backend = "inductor"});
  const Tensor x = ramp({5, 6});
  const Tensor y = ramp({5, 6});
  const std::int64_t fallbacks = inductor::counters().fallback_runs;
  tensor_test::check_values(f(x, y), mul(add(x, mul(y, 2.0)), 3.0).to_vector(), 1e-6);
  CHECK(inductor::counters().fallback_runs == fallbacks); // fused, not called
}

TEST_CASE("custom op mistakes are user errors", "[compiler][extension]") {
  CHECK_THROWS_WITH(call_custom_op("ext::missing", {ramp({2})}),
                    Catch::Contains("'ext::missing' is not registered"));
  CHECK_THROWS_WITH(
      register_custom_op({.name = "no_namespace", .kernel = [](auto in, auto) { return in[0]; }}),
      Catch::Contains("must be namespace::name"));
  CHECK_THROWS_WITH(register_custom_op({.name = "ext::nokernel", .kernel = {}}),
                    Catch::Contains("no kernel"));
  const CustomOpHandle op = register_scale_add(false);
  CHECK_THROWS_WITH(register_scale_add(false), Catch::Contains("already registered"));
  SECTION("no backward: differentiating it says so") {
    const CustomOpHandle plain = register_custom_op(
        {.name = "ext::plain",
         .kernel = [](std::span<const Tensor> in, std::span<const double>) { return neg(in[0]); }});
    Tensor loss = sum(call_custom_op("ext::plain", {ramp({3}, true)}));
    CHECK_THROWS_WITH(loss.backward(), Catch::Contains("'ext::plain' has no backward"));
  }
}
