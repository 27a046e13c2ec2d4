// compile(): caching by guards, recompile reasons, automatic dynamic shapes, 0/1
// specialisation, the recompile limit, graph breaks with resume frames, and fullgraph errors.
#include "compiler/capture/compile.h"
#include "compiler/core/errors.h"
#include "compiler/nn/layers.h"
#include "compiler/ops/ops.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

using namespace compiler;

namespace {

Tensor filled(std::vector<std::int64_t> sizes, double start = 0.25, DType dtype = DType::Float32) {
  std::int64_t n = 1;
  for (std::int64_t s : sizes) {
    n *= s;
  }
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i] = start + 0.5 * static_cast<double>(i % 7) - 0.125 * static_cast<double>(i % 3);
  }
  return Tensor::from_values(v, std::move(sizes), dtype);
}

// Compiled and eager agree to rounding: the backend computes composite ops (layer_norm, mean)
// from primitive ops, which may round differently in the last place.
bool same_values(const Tensor& a, const Tensor& b) {
  if (a.sizes() != b.sizes() || a.dtype() != b.dtype()) {
    return false;
  }
  const std::vector<double> x = a.to_vector();
  const std::vector<double> y = b.to_vector();
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::abs(x[i] - y[i]) > 1e-6 * std::max(1.0, std::abs(y[i]))) {
      return false;
    }
  }
  return true;
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

Tensor w02_f(const Tensor& x, double scale) {
  Tensor y = mul(sin(x), scale);
  return add(relu(y), mean(x, {-1}, true));
}

} // namespace

TEST_CASE("a compiled function equals eager and reuses its entry while guards pass",
          "[compiler][capture]") {
  auto cf = compile(w02_f, {.arg_names = {"x", "scale"}});
  Tensor x = filled({8, 16});
  CHECK(same_values(cf(x, 2.0), w02_f(x, 2.0)));
  CHECK(same_values(cf(x, 2.0), w02_f(x, 2.0)));
  CHECK(cf.stats().compiles == 1);
  CHECK(cf.stats().cache_hits == 1);
  REQUIRE(cf.records().size() == 1);
  const capture::CompileRecord r = cf.records()[0];
  CHECK(r.compile_id.ends_with("/0"));
  CHECK(r.graph_op_count == 5);
  CHECK(contains(r.graph, "torch.ops.aten.sin(l_x_)"));
  CHECK(contains(r.graph, "f32[8, 16][16, 1]cpu"));
  CHECK(contains(r.guards, "TENSOR_MATCH: check_tensor(L['x']"));
  CHECK(contains(r.guards, "size=[8, 16], stride=[16, 1]"));
  CHECK(contains(r.guards, "EQUALS_MATCH: L['scale'] == 2.0"));
}

TEST_CASE("a size change recompiles with the failed guard named, then the size is symbolic",
          "[compiler][capture]") {
  auto cf = compile(w02_f, {.arg_names = {"x", "scale"}});
  for (std::int64_t n : {8, 16, 32, 64}) {
    Tensor x = filled({n, 16});
    CHECK(same_values(cf(x, 2.0), w02_f(x, 2.0)));
  }
  // 8 compiles static, 16 recompiles with dim 0 dynamic, 32 and 64 hit the dynamic entry.
  REQUIRE(cf.records().size() == 2);
  const capture::CompileRecord second = cf.records()[1];
  REQUIRE(second.recompile_reasons.size() == 1);
  CHECK(second.recompile_reasons[0].ends_with(
      ": tensor 'x' size mismatch at index 0. expected 8, actual 16"));
  REQUIRE(second.symbols.size() == 1);
  CHECK(second.symbols[0] == "s0 = L['x'].size()[0]");
  CHECK(contains(second.graph, "f32[s0, 16][16, 1]cpu"));
  CHECK(contains(second.guards, "size=[None, 16]"));
  CHECK(contains(second.guards, "2 <= L['x'].size()[0]"));
  CHECK(cf.stats().cache_hits == 2);
}

TEST_CASE("dtype and scalar changes recompile with reasons for every entry, newest first",
          "[compiler][capture]") {
  auto cf = compile(w02_f, {.arg_names = {"x", "scale"}});
  cf(filled({8, 16}), 2.0);
  cf(filled({8, 16}, 0.25, DType::Float16), 2.0);
  cf(filled({8, 16}), 3.0);
  REQUIRE(cf.records().size() == 3);
  const auto& dtype_reasons = cf.records()[1].recompile_reasons;
  REQUIRE(dtype_reasons.size() == 1);
  CHECK(dtype_reasons[0].ends_with("tensor 'x' dtype mismatch. expected Float, actual Half"));
  const auto& scalar_reasons = cf.records()[2].recompile_reasons;
  REQUIRE(scalar_reasons.size() == 2);
  CHECK(scalar_reasons[0].ends_with("tensor 'x' dtype mismatch. expected Half, actual Float"));
  CHECK(contains(scalar_reasons[1], ": scale == 2.0"));
}

TEST_CASE("sizes 0 and 1 stay specialised when a dimension is dynamic", "[compiler][capture]") {
  auto f = [](const Tensor& x) { return mul(x, 2.0); };
  auto cf = compile(f, {.dynamic = true, .arg_names = {"x"}});
  cf(filled({4, 3}));
  REQUIRE(cf.records().size() == 1);
  CHECK(cf.records()[0].symbols.size() == 2);
  Tensor one = filled({1, 3});
  CHECK(same_values(cf(one), f(one)));
  REQUIRE(cf.records().size() == 2);
  // The dynamic entry requires s0 >= 2; the new entry pins dim 0 to 1 and keeps dim 1 symbolic.
  CHECK(contains(cf.records()[1].recompile_reasons[0], "2 <= x.size()[0]"));
  CHECK(cf.records()[1].symbols.size() == 1);
  CHECK(contains(cf.records()[1].guards, "size=[1, None]"));
  cf(filled({7, 5}));
  CHECK(cf.records().size() == 2); // served by the first, fully dynamic entry
}

TEST_CASE("a branch on a symbolic size records a guard and recompiles for the other side",
          "[compiler][capture]") {
  auto f = [](const Tensor& x, const Tensor& y) {
    if (x.size(0) > 16) {
      return add(sum(mul(x, 2.0), {0}), y);
    }
    return sub(sum(x, {0}), y);
  };
  auto cf = compile(f, {.arg_names = {"x", "y"}});
  Tensor x = filled({32, 8});
  mark_dynamic(x, 0);
  Tensor y = filled({8});
  CHECK(same_values(cf(x, y), f(x, y)));
  REQUIRE(cf.records().size() == 1);
  REQUIRE(cf.records()[0].shape_guards.size() == 1);
  CHECK(cf.records()[0].shape_guards[0] == "s0 > 16");
  CHECK(contains(cf.records()[0].guards, "LAMBDA_GUARD: L['x'].size()[0] > 16"));
  Tensor x48 = filled({48, 8});
  CHECK(same_values(cf(x48, y), f(x48, y)));
  CHECK(cf.records().size() == 1); // 48 > 16 too: the same entry
  Tensor x4 = filled({4, 8});
  CHECK(same_values(cf(x4, y), f(x4, y)));
  REQUIRE(cf.records().size() == 2);
  // The decision narrowed s0's range to [17, oo], so the range guard fails first, as in PyTorch.
  CHECK(contains(cf.records()[1].recompile_reasons[0], "17 <= x.size()[0]"));
}

TEST_CASE("symbolic sizes flow into view arguments and are evaluated per call",
          "[compiler][capture]") {
  auto g = [](const Tensor& a) {
    return sum(reshape(a, {SymInt(-1), a.size(-1) / 2, SymInt(2)}), {-1});
  };
  auto cg = compile(g, {.dynamic = true, .arg_names = {"a"}});
  Tensor a = filled({3, 10});
  CHECK(same_values(cg(a), g(a)));
  Tensor b = filled({5, 12});
  CHECK(same_values(cg(b), g(b)));
  CHECK(cg.records().size() == 1);
  CHECK(contains(cg.records()[0].graph, "(s1//2)"));
}

TEST_CASE("after the recompile limit the frame runs eagerly and stays correct",
          "[compiler][capture]") {
  auto f = [](const Tensor& x, std::int64_t k) { return add(x, static_cast<double>(k)); };
  auto cf = compile(f, {.recompile_limit = 3, .arg_names = {"x", "k"}});
  Tensor x = filled({4});
  for (std::int64_t k = 0; k < 6; ++k) {
    CHECK(same_values(cf(x, k), f(x, k)));
  }
  CHECK(cf.stats().compiles == 3);
  CHECK(cf.stats().eager_frames == 3);
  CHECK(contains(cf.records()[2].recompile_reasons[0], "k == 1"));
}

TEST_CASE("item() breaks the graph: the prefix runs compiled and the rest is a resume frame",
          "[compiler][capture]") {
  auto f = [](const Tensor& x) {
    if (gt(sum(x), 0.0).to_bool()) {
      return mul(x, 2.0);
    }
    return sub(x, 1.0);
  };
  auto cf = compile(f, {.arg_names = {"x"}});
  Tensor pos = filled({10}, 1.0);
  CHECK(same_values(cf(pos), f(pos)));
  CHECK(cf.stats().graph_breaks == 1);
  REQUIRE(cf.records().size() == 2);
  const capture::CompileRecord prefix = cf.records()[0];
  const capture::CompileRecord resume = cf.records()[1];
  CHECK(contains(prefix.graph_break_reason, "Graph break in user code at"));
  CHECK(contains(prefix.graph_break_reason, "aten.is_nonzero"));
  CHECK(contains(prefix.graph, "sum: \"f32[][]cpu\" = torch.ops.aten.sum(l_x_, [], False)"));
  CHECK(contains(prefix.graph, "torch.ops.aten.gt(sum, 0.0)"));
  CHECK(contains(prefix.graph, "return (gt,)"));
  CHECK(resume.frame_id == prefix.frame_id + 1);
  CHECK(resume.compile_id == std::to_string(resume.frame_id) + "/0");
  CHECK(contains(resume.frame_name, "resume_in_"));
  CHECK(contains(resume.graph, "torch.ops.aten.mul(l_x_, 2.0)"));
  CHECK(contains(resume.guards, "L['___break_value'] == True"));
  // A second call with the same branch is all cache hits.
  CHECK(same_values(cf(pos), f(pos)));
  CHECK(cf.records().size() == 2);
  // The branch ended the graph without a restart, as a data-dependent jump does in Dynamo.
  CHECK(prefix.compile_id == std::to_string(prefix.frame_id) + "/0");
  CHECK(contains(resume.frame_name, "torch_dynamo_resume_in_"));
  // The other branch is a frame of its own (Dynamo's resume function per jump target): the
  // next frame id, compile 0, no recompile.
  Tensor negative = Tensor::from_values({-1, -2, -3, -4, -5, -6, -7, -8, -9, -10}, {10});
  CHECK(same_values(cf(negative), f(negative)));
  REQUIRE(cf.records().size() == 3);
  CHECK(cf.records()[2].frame_id == resume.frame_id + 1);
  CHECK(cf.records()[2].compile_id == std::to_string(resume.frame_id + 1) + "/0");
  CHECK(cf.records()[2].recompile_reasons.empty());
  CHECK(cf.records()[2].frame_name == resume.frame_name);
  CHECK(contains(cf.records()[2].graph, "torch.ops.aten.sub(l_x_, 1.0)"));
  CHECK(contains(cf.records()[2].guards, "L['___break_value'] == False"));
  // Both branches are cached now.
  CHECK(same_values(cf(pos), f(pos)));
  CHECK(same_values(cf(negative), f(negative)));
  CHECK(cf.records().size() == 3);
  CHECK(cf.stats().graph_breaks == 1);
}

TEST_CASE("a resume frame reads results of the frame before the break", "[compiler][capture]") {
  auto f = [](const Tensor& x) {
    Tensor a = cos(x);
    double n = sum(a).item_double();
    return add(mul(a, n), x);
  };
  auto cf = compile(f, {.arg_names = {"x"}});
  Tensor x = filled({3, 4});
  CHECK(same_values(cf(x), f(x)));
  CHECK(same_values(cf(x), f(x)));
  REQUIRE(cf.records().size() == 2);
  CHECK(contains(cf.records()[1].graph, "l_cos_"));
  CHECK(contains(cf.records()[1].guards, "L['___break_value'] =="));
  CHECK(cf.stats().cache_hits == 2);
}

TEST_CASE("fullgraph turns a graph break into a user error naming the line",
          "[compiler][capture]") {
  auto f = [](const Tensor& x) {
    Tensor y = sin(x);
    double v = y.item_double(); // the line the error must name
    return mul(y, v);
  };
  const std::uint_least32_t item_line = std::source_location::current().line() - 3;
  auto cf = compile(f, {.fullgraph = true, .arg_names = {"x"}});
  try {
    cf(filled({1}));
    FAIL("fullgraph compile of a graph break must throw");
  } catch (const UserError& e) {
    CHECK(e.where().line() == item_line);
    CHECK(contains(e.what(), "fullgraph"));
    CHECK(contains(e.what(), "Hint:"));
    CHECK(contains(e.what(), "capture_compile_test.cpp"));
  }
  CHECK(cf.stats().failed_compiles == 1);
  REQUIRE(cf.records().size() == 1);
  CHECK(cf.records()[0].failed);
}

TEST_CASE("a shape error while tracing is the user's error and compiles nothing",
          "[compiler][capture]") {
  auto f = [](const Tensor& a, const Tensor& b) { return matmul(a, b); };
  auto cf = compile(f, {.arg_names = {"a", "b"}});
  CHECK_THROWS_AS(cf(filled({2, 3}), filled({4, 5})), UserError);
  CHECK(cf.stats().compiles == 0);
  Tensor a = filled({2, 3});
  Tensor b = filled({3, 5});
  CHECK(same_values(cf(a, b), f(a, b)));
}

TEST_CASE("results can be a tensor list or a tuple", "[compiler][capture]") {
  auto f = [](const Tensor& x) { return std::vector<Tensor>{sin(x), x}; };
  auto cf = compile(f, {.arg_names = {"x"}});
  Tensor x = filled({2, 2});
  std::vector<Tensor> out = cf(x);
  REQUIRE(out.size() == 2);
  CHECK(same_values(out[0], sin(x)));
  CHECK(same_values(out[1], x));
  auto g = [](const Tensor& v) { return std::tuple<Tensor, Tensor>{exp(v), neg(v)}; };
  auto cg = compile(g, {.arg_names = {"x"}});
  auto [e, n] = cg(x);
  CHECK(same_values(e, exp(x)));
  CHECK(same_values(n, neg(x)));
}

namespace {

// A module whose forward reads its own attribute and a submodule's.
class Scaler : public nn::Module {
public:
  Scaler() : Module("Scaler") {
    set_attribute("factor", 2.0);
    register_module("lin", std::make_shared<nn::Linear>(4, 3, true, 11));
  }
  Tensor forward(const Tensor& x,
                 std::source_location loc = std::source_location::current()) override {
    Tensor y = child("lin")->forward(x, loc);
    if (child("lin")->is_training()) {
      y = relu(y);
    }
    return mul(y, attr_double("factor"), loc);
  }
};

} // namespace

TEST_CASE("module arguments are guarded by identity and by the attributes the function read",
          "[compiler][capture]") {
  Scaler m;
  auto f = [](Scaler& s, const Tensor& x) { return s(x); };
  auto cf = compile(f, {.arg_names = {"m", "x"}});
  Tensor x = filled({2, 4});
  CHECK(same_values(cf(m, x), f(m, x)));
  CHECK(same_values(cf(m, x), f(m, x)));
  REQUIRE(cf.records().size() == 1);
  const std::string guards = cf.records()[0].guards;
  CHECK(contains(guards, "ID_MATCH: ___check_obj_id(L['m']"));
  CHECK(contains(guards, "EQUALS_MATCH: L['m'].factor == 2.0"));
  CHECK(contains(guards, "EQUALS_MATCH: L['m'].lin.training == True"));
  CHECK(contains(guards, "EQUALS_MATCH: L['m'].lin.in_features == 4"));

  m.set_attribute("factor", 3.0);
  CHECK(same_values(cf(m, x), f(m, x)));
  REQUIRE(cf.records().size() == 2);
  CHECK(contains(cf.records()[1].recompile_reasons[0], "L['m'].factor == 2.0"));

  m.eval(); // the submodule's training flag flips: the relu branch goes away
  CHECK(same_values(cf(m, x), f(m, x)));
  REQUIRE(cf.records().size() == 3);
  CHECK(contains(cf.records()[2].recompile_reasons[0], "L['m'].lin.training == True"));
  CHECK_FALSE(contains(cf.records()[2].graph, "aten.relu"));

  Scaler other; // another object: ID_MATCH fails (its weights are different constants)
  CHECK(same_values(cf(other, x), f(other, x)));
  CHECK(cf.records().size() == 4);
}

TEST_CASE("an absent optional tensor is guarded as None", "[compiler][capture]") {
  auto f = [](const Tensor& x, const Tensor& w) { return layer_norm(x, {4}, w); };
  auto cf = compile(f, {.arg_names = {"x", "w"}});
  Tensor x = filled({3, 4});
  CHECK(same_values(cf(x, Tensor()), f(x, Tensor())));
  Tensor w = filled({4}, 2.0);
  CHECK(same_values(cf(x, w), f(x, w)));
  REQUIRE(cf.records().size() == 2);
  CHECK(contains(cf.records()[1].recompile_reasons[0],
                 "type of 'w' changed. expected NoneType, actual Tensor"));
  CHECK(same_values(cf(x, Tensor()), f(x, Tensor())));
  CHECK(cf.records().size() == 2);
}

TEST_CASE("odd scalars and results do not crash: NaN scale, undefined result",
          "[compiler][capture]") {
  auto f = [](const Tensor& x, double s) { return mul(x, s); };
  auto cf = compile(f, {.arg_names = {"x", "s"}});
  Tensor x = filled({3});
  double nan = std::nan("");
  Tensor r1 = cf(x, nan);
  Tensor r2 = cf(x, nan);
  CHECK(r1.to_vector().size() == 3);
  CHECK(std::isnan(r2.to_vector()[0]));
  CHECK(cf.stats().compiles == 1); // the same NaN matches its own guard
  cf(x, -0.0);
  cf(x, 0.0);
  CHECK(cf.stats().compiles == 3); // -0.0 and 0.0 are different specialisations

  auto g = [](const Tensor&) { return Tensor(); };
  auto cg = compile(g, {.arg_names = {"x"}});
  CHECK_FALSE(cg(x).defined());
}
