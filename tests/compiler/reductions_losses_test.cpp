// Issue 26's transformer ops: var (std, var_mean), logsumexp, mse_loss,
// binary_cross_entropy_with_logits, split and chunk, rand and dropout. Eager results against
// PyTorch 1.13's (hand values below), meta shapes against eager, PyTorch's errors, compiled
// (Inductor, host) against eager with no fallback, and dropout's draws: compiled forward and
// backward equal eager bit for bit for the same seed, a new call draws new numbers without a
// recompile, and the fraction dropped is near p. In a build with NVRTC every schedule here is
// also compiled for the GPU (inductor_cuda_test.cpp turns that check on for this binary).
// Gradients are checked by autograd_gradcheck_test.cpp, decompositions by
// aot_decomposition_test.cpp.
#include "compiler/autograd/autograd.h"
#include "compiler/capture/compile.h"
#include "compiler/core/errors.h"
#include "compiler/inductor/metrics.h"
#include "compiler/nn/layers.h"
#include "compiler/ops/ops.h"
#include "inductor_compare.h"
#include "inductor_test_data.h"
#include "kernels/kernels.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

using namespace compiler;
using inductor_test::wave;

namespace {

Tensor f32(std::vector<double> v, std::vector<std::int64_t> sizes) {
  return Tensor::from_values(v, std::move(sizes), DType::Float32);
}

// Elementwise within 1e-6 relative (PyTorch's values are f32, printed to 8 digits).
void check_values(const Tensor& got, const std::vector<double>& want) {
  const std::vector<double> g = got.to_vector();
  REQUIRE(g.size() == want.size());
  for (std::size_t i = 0; i < g.size(); ++i) {
    INFO("element " << i << ": " << g[i] << " vs " << want[i]);
    CHECK(std::abs(g[i] - want[i]) <= 1e-6 * (std::abs(want[i]) + 1.0));
  }
}

// The meta kernel's result has the eager result's shape and dtype.
void check_meta(Value (*meta)(std::span<const Value>), const std::vector<Value>& args,
                const Tensor& eager) {
  const Tensor m = value_tensor(meta(args));
  CHECK(m.sizes() == eager.sizes());
  CHECK(m.dtype() == eager.dtype());
}

Tensor gradient(const Tensor& loss, const Tensor& leaf) {
  const Tensor outputs[] = {loss};
  const Tensor leaves[] = {leaf};
  return autograd::grad(outputs, leaves, {}, true)[0];
}

Tensor leaf(std::vector<std::int64_t> sizes, double seed) {
  Tensor t = wave(std::move(sizes), seed, 2.0);
  t.set_requires_grad(true);
  return t;
}

const Tensor kX = f32({1, 2, 4, -3, 0.5, 7}, {2, 3});

} // namespace

TEST_CASE("var, std and var_mean with a correction, as PyTorch computes them",
          "[compiler][reductions26]") {
  // torch.var(x), torch.var(x, 1), torch.var(x, 0, correction=0, keepdim=True),
  // torch.var(x, [0, 1], correction=2), torch.std(x, 1).
  check_values(var(kX), {11.44166660});
  check_values(var(kX, {1}), {2.33333325, 25.75});
  const Tensor biased = var(kX, {0}, 0.0, true);
  CHECK(biased.sizes() == std::vector<std::int64_t>{1, 3});
  check_values(biased, {4.0, 0.5625, 2.25});
  check_values(var(kX, {0, 1}, 2.0), {14.30208302});
  check_values(compiler::std(kX, {1}), {1.52752519, 5.07444572});
  const auto [v, m] = var_mean(kX, {1});
  check_values(v, {2.33333325, 25.75});
  check_values(m, {2.33333325, 1.5});
  // One element with Bessel's correction, or a correction past the count: 0 / 0.
  CHECK(std::isnan(var(f32({3}, {1})).to_vector()[0]));
  CHECK(std::isnan(var(f32({1, 1, 1}, {3}), {0}, 5.0).to_vector()[0]));
  check_meta(&kernels::meta_var, {kX, std::vector<std::int64_t>{1}, 1.0, false}, var(kX, {1}));
  CHECK_THROWS_WITH(var(Tensor::from_values({1.0, 2.0}, {2}, DType::Int64)),
                    Catch::Contains("std and var only support floating point"));
  CHECK_THROWS_AS(var(kX, {2}), UserError);
}

TEST_CASE("logsumexp is stable for large inputs and infinities", "[compiler][reductions26]") {
  check_values(logsumexp(kX, {1}), {4.16984606, 7.00154781});
  check_values(logsumexp(kX, {0, 1}), {7.05879021});
  check_values(logsumexp(f32({1000, 1000}, {2}), {0}), {1000.69317627});
  const Tensor ints = logsumexp(Tensor::from_values({1, 2, 3}, {3}, DType::Int64), {0}, true);
  CHECK(ints.dtype() == DType::Float32);
  CHECK(ints.sizes() == std::vector<std::int64_t>{1});
  check_values(ints, {3.40760589});
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(logsumexp(f32({inf, 1}, {2}), {0}).to_vector()[0] == inf);
  CHECK(logsumexp(f32({-inf, -inf}, {2}), {0}).to_vector()[0] == -inf);
  // An empty reduction is log(0).
  const Tensor empty = logsumexp(zeros({0, 3}), {0});
  CHECK(empty.to_vector() == std::vector<double>{-inf, -inf, -inf});
  check_meta(&kernels::meta_logsumexp, {kX, std::vector<std::int64_t>{1}, true},
             logsumexp(kX, {1}, true));
}

TEST_CASE("mse_loss and binary_cross_entropy_with_logits reduce as PyTorch's do",
          "[compiler][losses26]") {
  const Tensor t = f32({0.5, 1, 4, -1, 0, 2}, {2, 3});
  check_values(mse_loss(kX, t), {5.08333349});
  check_values(mse_loss(kX, t, "sum"), {30.5});
  check_values(mse_loss(kX, t, "none"), {0.25, 1, 0, 4, 0.25, 25});
  check_values(mse_loss(kX, f32({1, 0, 2}, {3})), {8.20833302}); // target broadcast
  CHECK_THROWS_WITH(mse_loss(kX, t, "bad"), Catch::Contains("bad is not a valid value"));
  CHECK_THROWS_WITH(mse_loss(Tensor::from_values({1.0}, {1}, DType::Int64),
                             Tensor::from_values({1.0}, {1}, DType::Int64)),
                    Catch::Contains("not implemented for"));

  const Tensor z = f32({0.3, -2, 50, -100, 1.5, 0}, {2, 3});
  const Tensor y = f32({1, 0, 1, 0, 1, 0.5}, {2, 3});
  check_values(binary_cross_entropy_with_logits(z, y), {0.26264063});
  check_values(binary_cross_entropy_with_logits(z, y, "sum"), {1.57584381});
  check_values(binary_cross_entropy_with_logits(z, y, "none"),
               {0.55435526, 0.12692805, 0, 0, 0.20141333, 0.69314718});
  CHECK_THROWS_WITH(binary_cross_entropy_with_logits(z, f32({1, 0}, {2})),
                    Catch::Contains("must be the same as input size"));
  check_meta(&kernels::meta_binary_cross_entropy_with_logits, {z, y, std::string("none")},
             binary_cross_entropy_with_logits(z, y, "none"));
  check_meta(&kernels::meta_mse_loss, {kX, t, std::string("mean")}, mse_loss(kX, t));

  // Gradients, PyTorch's: d/dz and d/dy of the mean loss, d/dx of mse's mean.
  Tensor zl = f32({0.3, -2, 50, -100, 1.5, 0}, {2, 3});
  Tensor yl = f32({1, 0, 1, 0, 1, 0.5}, {2, 3});
  zl.set_requires_grad(true);
  yl.set_requires_grad(true);
  const Tensor loss = binary_cross_entropy_with_logits(zl, yl);
  check_values(gradient(loss, zl), {-0.07092625, 0.01986715, 0, 0, -0.03040426, 0});
  check_values(gradient(loss, yl), {-0.05, 0.33333334, -8.33333302, 16.66666603, -0.25, 0});
  Tensor xl = f32({1, 2, 4, -3, 0.5, 7}, {2, 3});
  xl.set_requires_grad(true);
  check_values(gradient(mse_loss(xl, t), xl),
               {0.16666667, 0.33333334, 0, -0.66666669, 0.16666667, 1.66666675});
  check_values(gradient(sum(var(xl, {1})), xl),
               {-1.33333325, -0.33333325, 1.66666675, -4.5, -1, 5.5});
  check_values(gradient(sum(logsumexp(xl, {1})), xl),
               {4.20100652e-02, 1.14195198e-01, 8.43794703e-01, 4.53297107e-05, 1.50111387e-03,
                9.98453379e-01});
}

TEST_CASE("split and chunk are views over narrow, as torch.split and torch.chunk",
          "[compiler][shape26]") {
  const Tensor x = arange(SymInt(10), DType::Float32);
  const std::vector<Tensor> three = split(x, 4);
  REQUIRE(three.size() == 3);
  CHECK(three[2].to_vector() == std::vector<double>{8, 9});
  CHECK(three[1].storage_offset() == 4); // a view of x
  const std::vector<Tensor> sized = split(x, std::vector<std::int64_t>{3, 0, 7});
  CHECK(sized[1].numel() == 0);
  CHECK(sized[2].to_vector().front() == 3);
  // torch.chunk(zeros(5), 3) -> [2, 2, 1]; chunk(zeros(6), 4) -> [2, 2, 2] (fewer chunks).
  CHECK(chunk(zeros({5}), 3).size() == 3);
  const std::vector<Tensor> fewer = chunk(zeros({6}), 4);
  REQUIRE(fewer.size() == 3);
  CHECK(fewer[2].sizes() == std::vector<std::int64_t>{2});
  CHECK(chunk(zeros({0}), 3).size() == 3); // empty views, as PyTorch returns
  const std::vector<Tensor> cols = chunk(kX, 2, -1);
  CHECK(cols[0].to_vector() == std::vector<double>{1, 2, -3, 0.5});
  CHECK_THROWS_WITH(split(x, -1), Catch::Contains("split_size be non-negative"));
  CHECK_THROWS_WITH(split(x, std::vector<std::int64_t>{3, 3}),
                    Catch::Contains("to sum exactly to 10"));
  CHECK_THROWS_WITH(chunk(x, 0), Catch::Contains("greater than 0"));
  CHECK_THROWS_WITH(chunk(Tensor::from_values({1.0}, {}), 1),
                    Catch::Contains("at least a 1-dimensional tensor"));
}

TEST_CASE("rand draws from (seed, offset + index): prefix-stable, in the unit interval (0 "
          "included, 1 not), uniform",
          "[compiler][random]") {
  const Tensor a = rand({1000}, 7, SymInt(0));
  const Tensor b = rand({10}, 7, SymInt(990));
  const std::vector<double> av = a.to_vector();
  const std::vector<double> bv = b.to_vector();
  CHECK(std::vector<double>(av.end() - 10, av.end()) == bv); // element i is draw offset + i
  double mean = 0.0;
  for (double u : av) {
    CHECK(u >= 0.0);
    CHECK(u < 1.0);
    CHECK(u * 16777216.0 == std::floor(u * 16777216.0)); // 24 bits
    mean += u / 1000.0;
  }
  CHECK(std::abs(mean - 0.5) < 0.05);
  CHECK(rand({10}, 8, SymInt(990)).to_vector() != bv);
  for (double u : rand({200}, 3, SymInt(0), DType::Float16).to_vector()) {
    CHECK(u < 1.0);
    CHECK(u * 2048.0 == std::floor(u * 2048.0));
  }
  CHECK_THROWS_WITH(rand({3}, 1, SymInt(0), DType::Int64), Catch::Contains("not implemented"));
  // The process's generator: manual_seed restarts it; each draw advances it.
  manual_seed(5);
  const Tensor first = rand({4});
  CHECK(random_state().offset == 4);
  CHECK(first.to_vector() == rand({4}, 5, SymInt(0)).to_vector());
  CHECK(rand({4}).to_vector() == rand({4}, 5, SymInt(4)).to_vector());
}

TEST_CASE("dropout zeroes about p of the elements and scales the rest",
          "[compiler][random][dropout]") {
  manual_seed(11);
  const Tensor x = full({100000}, 2.0);
  const Tensor y = dropout(x, 0.3);
  CHECK(random_state().offset == 100000);
  std::int64_t dropped = 0;
  for (double v : y.to_vector()) {
    if (v == 0.0) {
      ++dropped;
    } else {
      CHECK(v == Approx(2.0 / 0.7));
    }
  }
  CHECK(std::abs(static_cast<double>(dropped) / 100000.0 - 0.3) < 0.01);
  // The mask is a function of (seed, offset): dropout's explicit form replays it.
  CHECK(y.to_vector() == dropout(x, 0.3, 11, SymInt(0)).to_vector());
  CHECK(dropout(x, 0.3).to_vector() != y.to_vector()); // the next call draws new numbers
  // Outside training, the input itself; p = 0 keeps everything, p = 1 drops everything.
  CHECK(dropout(x, 0.3, false).impl() == x.impl());
  CHECK(dropout(x, 0.0).to_vector() == x.to_vector());
  const std::vector<double> none = dropout(x, 1.0).to_vector();
  CHECK(std::all_of(none.begin(), none.end(), [](double v) { return v == 0.0; }));
  // A dropped NaN stays NaN, as PyTorch multiplies by its scaled mask.
  const Tensor nan = full({64}, std::numeric_limits<double>::quiet_NaN());
  for (double v : dropout(nan, 0.5).to_vector()) {
    CHECK(std::isnan(v));
  }
  CHECK_THROWS_WITH(dropout(x, 1.5), Catch::Contains("has to be between 0 and 1, but got 1.5"));
  CHECK_THROWS_AS(dropout(full({2}, 1.0, DType::Int64), 0.5), UserError);
  check_meta(&kernels::meta_dropout, {x, 0.5, SymInt(1), SymInt(0)}, y);
  // The gradient is the same mask, scaled.
  Tensor l = full({1000}, 1.0);
  l.set_requires_grad(true);
  manual_seed(3);
  const Tensor out = dropout(l, 0.25);
  CHECK(gradient(sum(out), l).to_vector() == out.to_vector());
}

TEST_CASE("nn::Dropout drops while training and is the identity in eval mode",
          "[compiler][random][dropout]") {
  nn::Dropout layer(0.5);
  const Tensor x = full({64}, 1.0);
  manual_seed(1);
  const std::vector<double> trained = layer(x).to_vector();
  CHECK(std::count(trained.begin(), trained.end(), 0.0) > 0);
  layer.eval();
  CHECK(layer(x).to_vector() == x.to_vector());
  CHECK_THROWS_AS(nn::Dropout(-0.1), UserError);
}

TEST_CASE("compiled var, logsumexp and the losses equal eager, with no fallback",
          "[compiler][reductions26][losses26]") {
  const Tensor x = wave({6, 7}, 0.4, 3.0);
  const Tensor t = wave({6, 7}, 0.9);
  auto f = [](const Tensor& a, const Tensor& b) {
    const Tensor stats = add(var(a, {1}, 1.0, true), compiler::std(a, {0}, 0.0, true));
    const Tensor lse = logsumexp(mul(a, 4.0), {1}, true);
    const Tensor losses = add(mse_loss(a, b), binary_cross_entropy_with_logits(a, sigmoid(b)));
    return add(add(stats, lse), losses);
  };
  auto cf = compile(f, {.backend = "inductor"});
  const Tensor want = f(x, t);
  inductor::reset_counters();
  const Tensor got = cf(x, t);
  const inductor::Counters c = inductor::counters();
  CHECK_CLOSE(got, want);
  CHECK(c.fallback_runs == 0);
  CHECK(c.kernel_launches > 0);

  // Training: both gradients through the compiled forward and backward.
  auto g = [](const Tensor& a, const Tensor& b) {
    return add(add(sum(var(a, {0})), sum(logsumexp(b, {1}))),
               add(mse_loss(a, b, "sum"), binary_cross_entropy_with_logits(b, sigmoid(a))));
  };
  const Tensor a1 = leaf({5, 4}, 1);
  const Tensor b1 = leaf({5, 4}, 2);
  const Tensor a2 = leaf({5, 4}, 1);
  const Tensor b2 = leaf({5, 4}, 2);
  auto cg = compile(g, {.backend = "inductor"});
  inductor::reset_counters();
  const Tensor loss = cg(a2, b2);
  loss.backward();
  CHECK(inductor::counters().fallback_runs == 0);
  const Tensor want_loss = g(a1, b1);
  want_loss.backward();
  CHECK_CLOSE(loss, want_loss);
  CHECK_CLOSE(a2.grad(), a1.grad());
  CHECK_CLOSE(b2.grad(), b1.grad());
}

TEST_CASE("compiled dropout draws eager's numbers, forward and backward, bit for bit",
          "[compiler][random][dropout]") {
  // Elementwise results (no reduction whose order could differ): the masks must be eager's.
  auto f = [](const Tensor& x, const Tensor& w) {
    return mul(dropout(mul(x, w), 0.4), dropout(x, 0.1));
  };
  auto g = [](const Tensor& x) { return dropout(x, 0.3); };
  auto cf = compile(f, {.backend = "inductor"});
  auto cg = compile(g, {.backend = "inductor"});
  for (int step = 0; step < 3; ++step) {
    INFO("step " << step);
    const Tensor x1 = leaf({8, 33}, 1 + step);
    const Tensor w1 = leaf({33}, 2);
    const Tensor x2 = leaf({8, 33}, 1 + step);
    const Tensor w2 = leaf({33}, 2);
    manual_seed(99 + static_cast<std::uint64_t>(step / 2)); // a new seed is no recompile either
    for (int k = 0; k < step; ++k) {                        // later steps start at a later offset
      (void)rand({5});
    }
    const RandomState start = random_state();
    const Tensor want = f(x1, w1);
    want.backward(full({8, 33}, 1.0));
    const Tensor want_g = g(x1);
    const RandomState after_eager = random_state();
    CHECK(after_eager.offset == start.offset + 3 * 8 * 33);
    set_random_state(start);
    inductor::reset_counters();
    const Tensor got = cf(x2, w2);
    got.backward(full({8, 33}, 1.0));
    const Tensor got_g = cg(x2);
    const inductor::Counters c = inductor::counters();
    CHECK(random_state().offset == after_eager.offset); // the graphs took the same draws
    CHECK(got.to_vector() == want.to_vector());
    CHECK(got_g.to_vector() == want_g.to_vector());
    CHECK_CLOSE(x2.grad(), x1.grad());
    CHECK_CLOSE(w2.grad(), w1.grad());
    CHECK(c.fallback_runs == 0);
    CHECK(c.graphs_compiled == (step == 0 ? 3 : 0)); // a new offset is not a recompile
  }
  // The gradient of one dropout is its mask times 1 / (1 - p), exactly as eager's.
  const Tensor a1 = leaf({300}, 5);
  const Tensor a2 = leaf({300}, 5);
  manual_seed(7);
  g(a1).backward(full({300}, 1.0));
  manual_seed(7);
  cg(a2).backward(full({300}, 1.0));
  CHECK(a2.grad().to_vector() == a1.grad().to_vector());
}

TEST_CASE("compiled dropout saves no mask: the backward draws it again from (seed, offset)",
          "[compiler][random][dropout]") {
  auto f = [](const Tensor& x) { return sum(dropout(exp(x), 0.5)); };
  auto cf = compile(f, {.backend = "inductor"});
  const Tensor x = leaf({64, 64}, 3);
  manual_seed(4);
  const Tensor out[] = {cf(x)};
  // exp's result (or x alone, a primal: 0 activation bytes) is all the backward needs; a saved
  // mask would add a bool (or a float) per element.
  const std::size_t saved = autograd::saved_activation_bytes(out);
  INFO("saved " << saved << " bytes");
  CHECK((saved == 0 || saved == 64 * 64 * 4));
}

TEST_CASE("var over a dynamic size: an integral correction compiles, a fractional one is refused",
          "[compiler][reductions26]") {
  auto whole = compile([](const Tensor& a) { return var(a, {0}, 1.0); }, {.backend = "inductor"});
  for (std::int64_t rows : {3, 4, 6}) { // the second size makes dim 0 dynamic
    const Tensor x = wave({rows, 2}, 0.5);
    CHECK_CLOSE(whole(x), var(x, {0}, 1.0));
  }
  auto fractional =
      compile([](const Tensor& a) { return var(a, {0}, 0.5); }, {.backend = "inductor"});
  const Tensor x3 = wave({3, 2}, 0.5);
  CHECK_CLOSE(fractional(x3), var(x3, {0}, 0.5)); // a static size: the divisor is a number
  CHECK_THROWS_WITH(fractional(wave({4, 2}, 0.5)), Catch::Contains("fractional correction"));
}
