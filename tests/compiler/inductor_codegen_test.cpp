// Generated code (Inductor on the CPU): compiled functions against eager for each family of ops,
// dtypes, views, dynamic sizes, graph breaks and threads; that code was generated (kernel
// launches counted) and what fell back to eager kernels is counted.
#include "compiler/capture/compile.h"
#include "compiler/inductor/metrics.h"
#include "compiler/ops/ops.h"
#include "inductor/lowering/lowering.h"
#include "inductor_compare.h"
#include "inductor_test_data.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <thread>

using namespace compiler;
using inductor_test::wave;

namespace {

// Runs `f` compiled and eager on the same arguments and checks the results, and that the
// compiled call launched generated kernels; returns the compiled call's counters.
template <class F, class... Args>
inductor::Counters check(F f, const Args&... args) {
  auto cf = compile(f, {.backend = "inductor"});
  const Tensor eager = f(args...);
  inductor::reset_counters();
  const Tensor got = cf(args...);
  CHECK_CLOSE(got, eager);
  const inductor::Counters c = inductor::counters();
  CHECK(c.kernel_launches + c.extern_calls + c.fallback_runs > 0);
  return c;
}

} // namespace

TEST_CASE("inductor: the pointwise chain of the benchmark, 1-D and broadcast 2-D",
          "[inductor][codegen]") {
  auto chain = [](const Tensor& a, const Tensor& b) {
    Tensor x = mul(a, b);
    x = add(x, a);
    x = sub(x, b);
    x = relu(x);
    x = abs(x);
    x = where(gt(x, 0.5), x, b);
    return mul(x, a);
  };
  check(chain, wave({1000}, 1), wave({1000}, 2));
  check(chain, wave({37, 19}, 1), wave({19}, 2));
  check(chain, wave({5, 1, 7}, 1), wave({3, 1}, 2));
}

TEST_CASE("inductor: unary ops over ordinary and special values", "[inductor][codegen]") {
  std::vector<double> v;
  for (int i = -400; i <= 400; ++i) {
    v.push_back(i * 0.0731);
  }
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (double s : {0.0, -0.0, 1e-40, -1e-40, 1e-30, 88.5, 89.0, -103.0, -104.0, 1e4, -3e5, 2e6, inf,
                   -inf, nan}) {
    v.push_back(s);
  }
  const Tensor x = Tensor::from_values(v, {static_cast<std::int64_t>(v.size())});
  check([](const Tensor& t) { return exp(t); }, x);
  check([](const Tensor& t) { return log(abs(t)); }, x);
  check([](const Tensor& t) { return log(t); }, x);
  check([](const Tensor& t) { return sin(t); }, x);
  check([](const Tensor& t) { return cos(t); }, x);
  check([](const Tensor& t) { return tanh(t); }, x);
  check([](const Tensor& t) { return sigmoid(t); }, x);
  check([](const Tensor& t) { return sqrt(t); }, x);
  check([](const Tensor& t) { return gelu(t); }, x);
  check([](const Tensor& t) { return gelu(t, "tanh"); }, x);
  check([](const Tensor& t) { return silu(t); }, x);
  check([](const Tensor& t) { return relu(neg(t)); }, x);
  check([](const Tensor& t) { return pow(abs(t), 1.7); }, x);
  check([](const Tensor& t) { return div(t, 3.0); }, x);
}

TEST_CASE("inductor: comparisons, where and dtype conversions", "[inductor][codegen]") {
  const Tensor a = wave({64}, 1, 300.0);
  const Tensor b = wave({64}, 2, 300.0);
  check([](const Tensor& x, const Tensor& y) { return to_dtype(ge(x, y), DType::Int64); }, a, b);
  check([](const Tensor& x, const Tensor& y) { return where(ne(x, y), x, y); }, a, b);
  for (DType d : {DType::Float16, DType::BFloat16, DType::Int32, DType::Int64, DType::Bool}) {
    INFO("dtype " << dtype_name(d));
    check([d](const Tensor& x) { return to_dtype(x, d); }, a);
    check([d](const Tensor& x) { return to_dtype(mul(to_dtype(x, d), 2.0), DType::Float32); }, a);
    const Tensor typed = to_dtype(a, d);
    check([](const Tensor& x, const Tensor& y) { return add(x, y); }, typed, typed);
  }
  // Saturating float -> int, and large values through 16-bit floats.
  check([](const Tensor& x) { return to_dtype(mul(x, 1e8), DType::Int32); }, a);
  check([](const Tensor& x) { return to_dtype(mul(x, 1e3), DType::Float16); }, a);
}

TEST_CASE("inductor: reductions over every dim, kept or not", "[inductor][codegen]") {
  const Tensor x = wave({6, 5, 7}, 1);
  for (std::int64_t d = 0; d < 3; ++d) {
    INFO("dim " << d);
    check([d](const Tensor& t) { return sum(t, {d}); }, x);
    check([d](const Tensor& t) { return mean(t, {d}, true); }, x);
    check([d](const Tensor& t) { return amax(t, {d}); }, x);
    check([d](const Tensor& t) { return amin(t, {d}, true); }, x);
    check([d](const Tensor& t) { return argmax(t, d); }, x);
  }
  check([](const Tensor& t) { return sum(t); }, x);
  check([](const Tensor& t) { return sum(t, {0, 2}); }, x);
  check([](const Tensor& t) { return argmax(t); }, x);
  check([](const Tensor& t) { return sum(to_dtype(t, DType::Int32)); }, x);
  check([](const Tensor& t) { return amax(to_dtype(t, DType::Int64), {1}); }, x);
  // A NaN wins max and argmax, as in eager; ties keep the first index.
  const Tensor special = Tensor::from_values({1, 5, 5, 2, NAN, 7, 3, 3}, {2, 4});
  check([](const Tensor& t) { return amax(t, {1}); }, special);
  check([](const Tensor& t) { return argmax(t, 1); }, special);
}

TEST_CASE("inductor: softmax, log_softmax and layer_norm", "[inductor][codegen]") {
  const Tensor x = wave({9, 33}, 1, 5.0);
  check([](const Tensor& t) { return softmax(t, -1); }, x);
  check([](const Tensor& t) { return softmax(t, 0); }, x);
  check([](const Tensor& t) { return log_softmax(t, 1); }, x);
  const Tensor w = wave({33}, 2);
  const Tensor b = wave({33}, 3);
  check([&](const Tensor& t) { return layer_norm(t, {33}, w, b); }, x);
  check([](const Tensor& t) { return layer_norm(gelu(t), {33}); }, x);
  check([](const Tensor& t) { return layer_norm(t, {9, 33}); }, x);
  check([](const Tensor& t) { return softmax(to_dtype(t, DType::Float16), -1); }, x);
}

TEST_CASE("inductor: embedding and cross_entropy, with eager's error for a bad index",
          "[inductor][codegen]") {
  const Tensor weight = wave({10, 6}, 1);
  const Tensor idx = Tensor::from_values({3, 0, 9, 3, 7, 1}, {2, 3}, DType::Int64);
  check([](const Tensor& w, const Tensor& i) { return embedding(w, i); }, weight, idx);
  const Tensor logits = wave({5, 10}, 2);
  const Tensor target = Tensor::from_values({1, 0, 9, 4, 4}, {5}, DType::Int64);
  check([](const Tensor& l, const Tensor& t) { return cross_entropy(l, t); }, logits, target);
  auto cf = compile([](const Tensor& w, const Tensor& i) { return embedding(w, i); });
  const Tensor bad = Tensor::from_values({3, 10}, {2}, DType::Int64);
  CHECK_THROWS_AS(cf(weight, bad), UserError);
}

TEST_CASE("inductor: matmul, bmm and addmm through the extern GEMM", "[inductor][codegen]") {
  const Tensor a = wave({37, 29}, 1);
  const Tensor b = wave({29, 41}, 2);
  check([](const Tensor& x, const Tensor& y) { return matmul(x, y); }, a, b);
  check([](const Tensor& x,
           const Tensor& y) { return matmul(transpose(y, 0, 1), transpose(x, 0, 1)); },
        a, b);
  check([](const Tensor& x, const Tensor& y) { return relu(add(matmul(x, y), 1.0)); }, a, b);
  const Tensor bias = wave({41}, 3);
  check([&](const Tensor& x, const Tensor& y) { return add(matmul(x, y), bias); }, a, b);
  const Tensor a3 = wave({3, 7, 29}, 4);
  check([](const Tensor& x, const Tensor& y) { return matmul(x, y); }, a3, b);
  const Tensor b3 = wave({3, 29, 5}, 5);
  check([](const Tensor& x, const Tensor& y) { return bmm(x, y); }, a3, b3);
  // Large enough for the threads: several row blocks, two slices of K (the second partial), two
  // column panels of B (the second partial, not a whole micro-panel), the bias on the first slice.
  const Tensor big_a = wave({301, 300}, 6);
  const Tensor big_b = wave({300, 2100}, 7);
  const Tensor big_bias = wave({2100}, 8);
  check([&](const Tensor& x, const Tensor& y) { return add(matmul(x, y), big_bias); }, big_a,
        big_b);
  check([](const Tensor& x, const Tensor& y) { return matmul(transpose(x, 0, 1), y); },
        wave({300, 301}, 9), big_b);
}

TEST_CASE("inductor: views as index transforms, and results that alias inputs",
          "[inductor][codegen]") {
  const Tensor x = wave({4, 6, 5}, 1);
  check([](const Tensor& t) { return contiguous(permute(t, {2, 0, 1})); }, x);
  check([](const Tensor& t) { return mul(transpose(t, 0, 2), 2.0); }, x);
  check([](const Tensor& t) { return add(slice(t, 1, 1, 6, 2), 1.0); }, x);
  check([](const Tensor& t) { return reshape(mul(transpose(t, 1, 2), 3.0), {SymInt(-1)}); }, x);
  check([](const Tensor& t) { return view(exp(t), {SymInt(24), SymInt(5)}); }, x);
  check([](const Tensor& t) { return squeeze(unsqueeze(sin(t), 1), 1); }, x);
  check(
      [](const Tensor& t) {
        return add(expand(slice(t, 0, 0, 1), {SymInt(3), SymInt(6), SymInt(5)}), 1.0);
      },
      x);
  // A result that is a view of an input shares its storage, as eager's does.
  auto cf = compile([](const Tensor& t) { return transpose(t, 0, 1); });
  const Tensor v = cf(x);
  CHECK(v.shares_storage_with(x));
  CHECK(v.strides() == transpose(x, 0, 1).strides());
}

TEST_CASE("inductor: cat, stack and factories, randn falls back, counted", "[inductor][codegen]") {
  const Tensor a = wave({3, 4}, 1);
  const Tensor b = wave({2, 4}, 2);
  check([](const Tensor& x, const Tensor& y) { return cat({x, y, x}, 0); }, a, b);
  check([](const Tensor& x) { return stack({x, neg(x)}, 1); }, a);
  check([](const Tensor& x) { return add(x, add(full({3, 4}, 2.5), ones({4}))); }, a);
  check([](const Tensor& x) { return add(x, to_dtype(arange(SymInt(4)), DType::Float32)); }, a);
  check([](const Tensor& x) { return mul(x, arange(0.5, 2.5, 0.5)); }, a);
  check([](const Tensor& x) { return add(x, randn({3, 4}, 7)); }, a);
  CHECK(inductor::counters().fallback_runs == 1);
}

TEST_CASE("inductor: one kernel serves every size of a dynamic dim", "[inductor][codegen]") {
  auto f = [](const Tensor& x) { return softmax(mul(x, 2.0), -1); };
  auto cf = compile(f, {.dynamic = true});
  for (std::int64_t rows : {3, 17, 64, 5}) {
    const Tensor x = wave({rows, 19}, static_cast<double>(rows));
    CHECK_CLOSE(cf(x), f(x));
  }
  CHECK(cf.stats().compiles == 1);
}

TEST_CASE("inductor: a graph break keeps every value the next frame reads", "[inductor][codegen]") {
  auto f = [](const Tensor& x) {
    Tensor a = cos(x);
    Tensor b = mul(a, 3.0);
    const double n = sum(b).item_double();
    return add(mul(a, n), b);
  };
  auto cf = compile(f);
  const Tensor x = wave({5, 7}, 1);
  CHECK_CLOSE(cf(x), f(x));
  CHECK_CLOSE(cf(x), f(x));
}

TEST_CASE("inductor: a compiled function called from several threads", "[inductor][codegen]") {
  auto f = [](const Tensor& x) { return layer_norm(mul(x, x), {64}); };
  auto cf = compile(f);
  const Tensor x = wave({300, 64}, 1);
  const Tensor want = f(x);
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        std::string why;
        bad += inductor_test::close(cf(x), want, why) ? 0 : 1;
      }
    });
  }
  for (std::thread& t : threads) {
    t.join();
  }
  CHECK(bad.load() == 0);
}

TEST_CASE("inductor: every primitive op (and every composite) has a lowering but randn and the "
          "data-dependent ops",
          "[inductor][codegen]") {
  // The AOT stage's graphs hold only the ops marked Prim in the op list: each must lower.
  // randn keeps its counter-based generator on the eager kernel (bit-identical draws);
  // item/to_bool end a graph (a graph break) and never reach Inductor. `to` lowers when it stays
  // on the host; graphs with tensors on another device bypass code generation as a whole.
  for (int i = 0; i < kNumOps; ++i) {
    const auto op = static_cast<OpKind>(i);
    INFO("op " << op_name(op));
    const bool eager_only = op == OpKind::randn || op_category(op) == OpCategory::DataDependent ||
                            op_category(op) == OpCategory::Extern; // a user op runs its kernel
    INFO((op_level(op) == OpLevel::Prim ? "a prim" : "a composite"));
    CHECK(inductor::has_lowering(op) != eager_only);
  }
}

TEST_CASE("inductor: the prims the AOT stage adds (maximum, rsqrt, erf, mm, gather, scatter_add, "
          "to) run as generated code",
          "[inductor][codegen]") {
  // Each compiled through Inductor's default pipeline: no node falls back to its eager kernel.
  auto no_fallback = [](auto f, const auto&... args) {
    const inductor::Counters c = check(f, args...);
    CHECK(c.kernel_launches + c.extern_calls > 0);
    CHECK(c.fallback_runs == 0);
  };
  const Tensor x = wave({6, 5}, 1, 2.0);
  const Tensor y = wave({6, 5}, 2, 2.0);
  no_fallback([](const Tensor& a, const Tensor& b) { return maximum(a, b); }, x, y);
  no_fallback([](const Tensor& a) { return rsqrt(add(abs(a), 0.25)); }, x);
  no_fallback([](const Tensor& a) { return erf(a); }, x);
  no_fallback([](const Tensor& a, const Tensor& b) { return mm(a, transpose(b, 0, 1)); }, x, y);
  no_fallback([](const Tensor& a) { return mul(to(a, Device::cpu()), 2.0); }, x);
  // Indices with negative entries (they wrap) and an index smaller than x in the other dim.
  const Tensor index =
      Tensor::from_values({0, 4, -1, 2, 1, 3, 3, 0, -5, 2, 4, 1}, {3, 4}, DType::Int64);
  no_fallback([](const Tensor& a, const Tensor& i) { return gather(a, 1, i); }, x, index);
  const Tensor rows =
      Tensor::from_values({0, 5, 2, 2, 1, 3, 3, 0, 5, 2, 4, 1}, {3, 4}, DType::Int64);
  no_fallback(
      [](const Tensor& a, const Tensor& i, const Tensor& s) { return scatter_add(a, 0, i, s); }, x,
      rows, wave({4, 5}, 3));
  no_fallback(
      [](const Tensor& a, const Tensor& i, const Tensor& s) { return scatter_add(a, 1, i, s); }, x,
      index, wave({4, 5}, 4));
}

TEST_CASE("inductor: gather and scatter_add report an index out of range as eager does",
          "[inductor][codegen]") {
  const Tensor x = wave({6, 5}, 1);
  const Tensor bad = Tensor::from_values({0, 7}, {1, 2}, DType::Int64);
  auto g = compile([](const Tensor& a, const Tensor& i) { return gather(a, 1, i); },
                   {.backend = "inductor"});
  CHECK_THROWS_AS(g(x, bad), UserError);
  auto s = compile(
      [](const Tensor& a, const Tensor& i, const Tensor& v) { return scatter_add(a, 1, i, v); },
      {.backend = "inductor"});
  CHECK_THROWS_AS(s(x, bad, wave({1, 2}, 2)), UserError);
}

TEST_CASE("inductor: a training graph's forward and backward both run as generated code",
          "[inductor][codegen]") {
  // Composites the AOT stage decomposes (matmul, layer_norm, gelu, softmax, cross_entropy,
  // embedding) and their gradients (gather, scatter_add, mm, maximum, rsqrt, erf): the forward
  // and the backward graph are compiled by Inductor, and no node falls back to eager.
  auto f = [](const Tensor& x, const Tensor& w, const Tensor& table, const Tensor& tokens,
              const Tensor& target) {
    const Tensor h = add(matmul(x, w), embedding(table, tokens)); // [6, 5]
    const Tensor n = layer_norm(gelu(h), {5});
    return cross_entropy(add(n, softmax(relu(h), -1)), target);
  };
  auto leaf = [](std::vector<std::int64_t> sizes, double seed) {
    Tensor t = wave(std::move(sizes), seed);
    t.set_requires_grad(true);
    return t;
  };
  const Tensor tokens = Tensor::from_values({0, 3, 2, 2, 1, 3}, {6}, DType::Int64);
  const Tensor target = Tensor::from_values({4, 0, 1, 3, 2, 2}, {6}, DType::Int64);
  const Tensor x = leaf({6, 4}, 1);
  const Tensor w = leaf({4, 5}, 2);
  const Tensor table = leaf({4, 5}, 3);
  const Tensor x2 = leaf({6, 4}, 1);
  const Tensor w2 = leaf({4, 5}, 2);
  const Tensor table2 = leaf({4, 5}, 3);
  f(x, w, table, tokens, target).backward();
  auto cf = compile(f, {.backend = "inductor"});
  inductor::reset_counters();
  const Tensor loss = cf(x2, w2, table2, tokens, target);
  loss.backward();
  const inductor::Counters c = inductor::counters();
  CHECK(c.graphs_compiled == 2); // the forward, and the backward when backward() reached it
  CHECK(c.fallback_runs == 0);
  CHECK_CLOSE(loss, f(x, w, table, tokens, target));
  CHECK_CLOSE(x2.grad(), x.grad());
  CHECK_CLOSE(w2.grad(), w.grad());
  CHECK_CLOSE(table2.grad(), table.grad());
}

TEST_CASE("inductor: decomposed layer_norm and softmax fuse into one persistent-row kernel each",
          "[inductor][codegen]") {
  // The AOT stage decomposes both into reductions over [rows, 1] (keepdim) and pointwise ops on
  // the rows; the scheduler fuses each reduction with its producers and consumers over the same
  // rows (a size-1 dim indexed as 0 on both sides), and the cheap x - mean is recomputed where
  // it is read instead of written between the kernels.
  const Tensor x = wave({9, 33}, 1, 3.0);
  const Tensor w = wave({33}, 2);
  const Tensor b = wave({33}, 3);
  inductor::Counters c = check([](const Tensor& t, const Tensor& wt,
                                  const Tensor& bs) { return layer_norm(t, {33}, wt, bs); },
                               x, w, b);
  CHECK(c.kernel_launches == 1);
  CHECK(c.fallback_runs == 0);
  c = check([](const Tensor& t) { return layer_norm(t, {33}); }, x);
  CHECK(c.kernel_launches == 1);
  c = check([](const Tensor& t) { return softmax(t, -1); }, x);
  CHECK(c.kernel_launches == 1);
  // Over the last two dims: a [rows, 1, 1] mean.
  c = check([](const Tensor& t) { return layer_norm(t, {3, 11}); }, wave({4, 3, 11}, 4, 2.0));
  CHECK(c.kernel_launches == 1);
}
