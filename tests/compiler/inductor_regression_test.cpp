// Regressions found by checking random programs against PyTorch 1.13 (scripts/
// differential-test.sh): each case is the smallest program that showed a defect, run eagerly
// and compiled with Inductor (forward and backward), with the answer PyTorch gives.
#include "compiler/autograd/autograd.h"
#include "compiler/capture/compile.h"
#include "compiler/core/errors.h"
#include "compiler/inductor/metrics.h"
#include "compiler/nn/layers.h"
#include "compiler/ops/ops.h"
#include "inductor_compare.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <vector>

using namespace compiler;

namespace {

Tensor values(std::vector<std::int64_t> sizes, double seed, bool requires_grad = true) {
  std::int64_t n = 1;
  for (std::int64_t s : sizes) {
    n *= s;
  }
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i] = std::sin(0.71 * static_cast<double>(i) + seed);
  }
  Tensor t = Tensor::from_values(v, std::move(sizes));
  t.set_requires_grad(requires_grad);
  return t;
}

// `f` run eagerly and compiled on equal leaves of `sizes` (values from `seed`), with the
// gradients of the sum of its result.
struct Both {
  Tensor eager;
  Tensor compiled;
  Tensor eager_grad;
  Tensor compiled_grad;
};

Both run_both(const std::function<Tensor(const Tensor&)>& f, std::vector<std::int64_t> sizes,
              double seed = 0.0) {
  Both r;
  const Tensor xe = values(sizes, seed);
  const Tensor xc = values(sizes, seed);
  r.eager = f(xe);
  auto cf = compile([&f](const Tensor& x) { return f(x); }, {.arg_names = {"x"}});
  r.compiled = cf(xc);
  sum(r.eager).backward();
  sum(r.compiled).backward();
  r.eager_grad = xe.grad();
  r.compiled_grad = xc.grad();
  return r;
}

bool all_equal(const Tensor& t, double want) {
  for (double v : t.to_vector()) {
    if (!(v == want || (std::isnan(want) && std::isnan(v)))) {
      return false;
    }
  }
  return true;
}

} // namespace

TEST_CASE("size-0 tensors of rank 2 compile to empty kernels: pointwise, empty slices, matmul",
          "[compiler][inductor][regression]") {
  SECTION("neg of [1, 0]: nothing launched") {
    inductor::reset_counters();
    const Both r = run_both([](const Tensor& x) { return neg(x); }, {1, 0});
    CHECK(inductor::counters().kernel_launches == 0);
    CHECK(r.compiled.sizes() == std::vector<std::int64_t>{1, 0});
    CHECK(r.compiled_grad.sizes() == std::vector<std::int64_t>{1, 0});
  }
  SECTION("a slice starting past the end is empty; its gradient is all zeros") {
    const Both r = run_both([](const Tensor& x) { return exp(slice(x, 1, 30, -19)); }, {3, 7});
    CHECK(r.compiled.sizes() == std::vector<std::int64_t>{3, 0});
    CHECK(r.compiled_grad.sizes() == std::vector<std::int64_t>{3, 7});
    CHECK(all_equal(r.compiled_grad, 0.0));
  }
  SECTION("matmul [0, 35] x [35, 1] and its backward (the gradient of b is zeros)") {
    const Tensor be = values({35, 1}, 1.0);
    const Tensor bc = values({35, 1}, 1.0);
    const Tensor ae = values({0, 35}, 2.0);
    const Tensor ac = values({0, 35}, 2.0);
    auto f = [](const Tensor& a, const Tensor& b) { return mul(matmul(a, b), 2.0); };
    auto cf = compile(f, {.arg_names = {"a", "b"}});
    const Tensor ye = f(ae, be);
    const Tensor yc = cf(ac, bc);
    CHECK(yc.sizes() == std::vector<std::int64_t>{0, 1});
    sum(ye).backward();
    sum(yc).backward();
    CHECK(ac.grad().sizes() == std::vector<std::int64_t>{0, 35});
    REQUIRE(bc.grad().sizes() == std::vector<std::int64_t>{35, 1});
    CHECK(all_equal(bc.grad(), 0.0));
    CHECK(all_equal(be.grad(), 0.0));
  }
}

TEST_CASE("matmul of a batch by an empty matrix ([5, 1, 5] x [5, 0]) has a compiled backward",
          "[compiler][inductor][regression]") {
  const Tensor y = values({5, 0}, 1.0, false);
  const Both r = run_both([&y](const Tensor& x) { return add(matmul(x, y), 1.0); }, {5, 1, 5});
  CHECK(r.compiled.sizes() == std::vector<std::int64_t>{5, 1, 0});
  REQUIRE(r.compiled_grad.sizes() == std::vector<std::int64_t>{5, 1, 5});
  CHECK(all_equal(r.compiled_grad, 0.0));
}

TEST_CASE("a strided slice's compiled gradient is the eager one (each element once)",
          "[compiler][inductor][regression]") {
  // slice(dim 1, start -1, end 1, step 3) of a [1, 1] sum: one element, so every x gets 1.
  const Both r =
      run_both([](const Tensor& x) { return slice(sum(x, {-1}, true), 1, -1, 1, 3); }, {1, 12});
  CHECK(all_equal(r.eager_grad, 1.0));
  CHECK(all_equal(r.compiled_grad, 1.0));
  const Both s =
      run_both([](const Tensor& x) { return exp(slice(sum(x, {0}, true), 1, 1, 11, 3)); }, {2, 12});
  CHECK_CLOSE(s.compiled, s.eager);
  CHECK_CLOSE(s.compiled_grad, s.eager_grad);
}

TEST_CASE("pow(abs(x), 0.5) at 0 has PyTorch's gradient (NaN: 0 times an infinite slope)",
          "[compiler][inductor][regression]") {
  // PyTorch 1.13: torch.pow(torch.abs(zeros(1)), 0.5).sum().backward() gives tensor([nan]):
  // pow's slope at 0 is inf and abs's sign at 0 is 0.
  const Both r = run_both([](const Tensor& x) { return pow(abs(mul(x, 0.0)), 0.5); }, {2, 3});
  CHECK(all_equal(r.eager_grad, std::nan("")));
  CHECK(all_equal(r.compiled_grad, std::nan("")));
}

TEST_CASE("a dot product that cancels keeps its small result (bmm over k = 2, then rsqrt)",
          "[compiler][inductor][regression]") {
  // 1 * -1 + (1 + 2^-13)(1 - 2^-13) = -2^-26 exactly; a float product rounds the second term to
  // 1 and the sum to 0 (rsqrt: inf) unless the products are added unrounded, as PyTorch's BLAS
  // (FMA) and our GEMM do.
  const double e = std::ldexp(1.0, -13);
  const Tensor a = Tensor::from_values({1.0, 1 + e}, {1, 1, 2});
  const Tensor b = Tensor::from_values({-1.0, 1 - e}, {1, 2, 1});
  auto f = [](const Tensor& x, const Tensor& y) { return rsqrt(neg(bmm(x, y))); };
  const double want = std::ldexp(1.0, 13);
  CHECK(f(a, b).to_vector()[0] == Approx(want).epsilon(1e-6));
  auto cf = compile(f, {.arg_names = {"x", "y"}});
  CHECK(cf(a, b).to_vector()[0] == Approx(want).epsilon(1e-6));
}

TEST_CASE("ops refuse the dtypes PyTorch refuses, eagerly and in capture",
          "[compiler][inductor][regression]") {
  const Tensor f32 = Tensor::from_values({1, 2, 3, 4}, {2, 2});
  const Tensor f64 = to_dtype(f32, DType::Float64);
  const Tensor b = gt(f32, 2.0);
  auto refused = [](const std::function<Tensor()>& op, const char* name) {
    INFO(name);
    try {
      (void)op();
    } catch (const UserError& e) {
      CHECK(e.message().find(name) != std::string::npos);
      return true;
    }
    return false;
  };
  CHECK(refused([&] { return matmul(f32, f64); }, "matmul"));
  CHECK(refused([&] { return mm(f64, f32); }, "mm"));
  CHECK(refused(
      [&] {
        return layer_norm(f32, {2}, to_dtype(Tensor::from_values({1, 1}, {2}), DType::Float64));
      },
      "layer_norm"));
  CHECK(refused([&] { return sub(b, b); }, "sub"));
  CHECK(refused([&] { return sub(b, 1.0); }, "sub"));
  CHECK(refused([&] { return sub(f32, b); }, "sub"));
  CHECK(refused([&] { return silu(b); }, "silu"));
  // In capture: the same errors at trace time, not a graph that promotes.
  auto cm = compile([](const Tensor& x, const Tensor& y) { return matmul(x, y); },
                    {.arg_names = {"x", "y"}});
  CHECK(refused([&] { return cm(f32, f64); }, "matmul"));
  auto cs = compile([](const Tensor& x) { return sub(x, x); }, {.arg_names = {"x"}});
  CHECK(refused([&] { return cs(b); }, "sub"));
}

TEST_CASE("the sum of a product of two 0-dim inputs is compiled right (seeds 376 and 642)",
          "[compiler][inductor][regression]") {
  const Tensor a = Tensor::from_values({-1.61018324}, {});
  const Tensor b = Tensor::from_values({0.0381979384}, {});
  auto f = [](const Tensor& x, const Tensor& y) { return sum(mul(x, y)); };
  const double want = -1.61018324 * 0.0381979384;
  CHECK(f(a, b).to_vector()[0] == Approx(want).epsilon(1e-6));
  auto cf = compile(f, {.arg_names = {"x", "y"}});
  CHECK(cf(a, b).to_vector()[0] == Approx(want).epsilon(1e-6));
  // The straight-line kernel stored nothing (it computed the product and dropped it): every
  // reduction over nothing is stored, amax's value and argmax's position 0 included.
  auto cg =
      compile([](const Tensor& x) { return add(amax(x, {}), to_dtype(argmax(x), DType::Float32)); },
              {.arg_names = {"x"}});
  CHECK(cg(a).to_vector()[0] == Approx(-1.61018324).epsilon(1e-6));
}

TEST_CASE("reductions of a 0-dim tensor compile to its value (seeds 376, 642: sum(mul(a, b)) of "
          "two 0-dim inputs read an unwritten buffer)",
          "[inductor][regression]") {
  const std::vector<std::function<Tensor(const Tensor&)>> fs = {
      [](const Tensor& x) { return sum(mul(x, x)); },
      [](const Tensor& x) { return mean(x); },
      [](const Tensor& x) { return amax(x, {}, true); },
      [](const Tensor& x) { return amin(x, {0}); },
      [](const Tensor& x) { return add(sum(x, {}, true), 1.0); },
  };
  for (std::size_t i = 0; i < fs.size(); ++i) {
    INFO("function " << i);
    const Both r = run_both(fs[i], {}, 1.3);
    CHECK_CLOSE(r.compiled, r.eager);
    CHECK_CLOSE(r.compiled_grad, r.eager_grad);
  }
  // Without gradients: argmax (index 0) and an integer sum.
  const Tensor x = Tensor::from_values({-2.5}, {});
  auto index = compile([](const Tensor& t) { return argmax(t); }, {.arg_names = {"x"}});
  CHECK_CLOSE(index(x), argmax(x));
  auto ints =
      compile([](const Tensor& t) { return sum(to_dtype(t, DType::Int32)); }, {.arg_names = {"x"}});
  CHECK_CLOSE(ints(x), sum(to_dtype(x, DType::Int32)));
}

// Differential seed 293 (with the indexing ops): a flattened roll of a permuted input read
// element 146 as 0. Its index (L + 2 - 147 for the rolled-in tail) was simplified to
// x0 + floordiv(7*x1 + x2 - 145, 21) + ...: right in floor division, but generated code divides
// as C does, and the rest went below 0. The multiples now stay inside a dividend that can.
TEST_CASE("a flattened roll of a permuted input, and a cat of it with itself, compile right",
          "[compiler][inductor][regression]") {
  const Tensor base = values({3, 7, 7}, 0.4, false);
  const Tensor x = permute(base, {1, 0, 2}); // [7, 3, 7], non-contiguous
  auto f = [](const Tensor& t) {
    const Tensor r = roll(t, {-2}, {});
    return cat({r, r}, 0);
  };
  const Tensor want = f(x);
  auto cf = compile(f, {.arg_names = {"t"}});
  CHECK_CLOSE(cf(x), want);
  auto g = [](const Tensor& t) { return roll(t, {-2}, {}); };
  CHECK_CLOSE(compile(g, {.arg_names = {"t"}})(x), g(x));
}

TEST_CASE("a roll over a dim that became dynamic cuts each size where its own shift falls",
          "[compiler][inductor][regression]") {
  // The decomposition read the rolled dim's trace-time size, so once the dim was symbolic every
  // later size was cut at the first one's point (capture_property's indexing_more under AOT).
  auto f = [](const Tensor& t) { return roll(t, {1, -3}, {0, 1}); };
  for (const char* backend : {"aot_eager", "inductor"}) {
    INFO(backend);
    auto cf = compile(f, {.backend = backend});
    // No size here makes a cut empty (a roll by a multiple of the size), which is a decision of
    // its own: the AOT stage guards it, so such a size recompiles once.
    for (auto [m, n] : {std::pair<std::int64_t, std::int64_t>{4, 4}, {3, 5}, {2, 7}, {5, 8}}) {
      INFO(m << " x " << n);
      const Tensor x = values({m, n}, 0.3, false);
      CHECK_CLOSE(cf(x), f(x));
    }
    CHECK(cf.stats().compiles == 2); // static, then dynamic for every later size
  }
}

TEST_CASE("a decomposition's decision on a dynamic size is a guard: adaptive_avg_pool2d over "
          "sizes that tile and sizes that do not",
          "[compiler][inductor][regression]") {
  // adaptive_avg_pool2d decomposes to avg_pool2d when the windows tile the input, else to two
  // matmuls. The choice was made on the first dynamic size and reused for every later one (a
  // view error, or wrong values); now the AOT stage's guard_int joins the frame's guards.
  auto f = [](const Tensor& t) { return adaptive_avg_pool2d(t, {2, 3}); };
  for (const char* backend : {"aot_eager", "inductor"}) {
    INFO(backend);
    auto cf = compile(f, {.backend = backend});
    for (auto [h, w] : {std::pair<std::int64_t, std::int64_t>{4, 6}, {6, 9}, {5, 7}, {8, 12}}) {
      INFO(h << " x " << w);
      const Tensor x = values({2, 3, h, w}, 0.2, false);
      CHECK_CLOSE(cf(x), f(x));
    }
  }
}
