// Pointwise ops against hand-computed values, broadcasting, and type promotion.
#include "compiler/core/errors.h"
#include "tensor_test_util.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>

using namespace compiler;
using tensor_test::check_values;
using tensor_test::t;

TEST_CASE("binary arithmetic ops compute elementwise", "[compiler][tensor]") {
  const Tensor a = t({1, 2, 3, 4}, {4});
  const Tensor b = t({2, 4, 8, 16}, {4});
  check_values(add(a, b), {3, 6, 11, 20});
  check_values(sub(a, b), {-1, -2, -5, -12});
  check_values(mul(a, b), {2, 8, 24, 64});
  check_values(div(a, b), {0.5, 0.5, 0.375, 0.25});
  check_values(pow(a, t({2, 3, 0, 0.5}, {4})), {1, 8, 1, 2});
  check_values(add(a, 0.5), {1.5, 2.5, 3.5, 4.5});
  check_values(mul(a, -2.0), {-2, -4, -6, -8});
  check_values(pow(b, 2.0), {4, 16, 64, 256});
}

TEST_CASE("comparisons give bool tensors", "[compiler][tensor]") {
  const Tensor a = t({1, 2, 3}, {3});
  const Tensor b = t({3, 2, 1}, {3});
  CHECK(eq(a, b).dtype() == DType::Bool);
  check_values(eq(a, b), {0, 1, 0});
  check_values(ne(a, b), {1, 0, 1});
  check_values(lt(a, b), {1, 0, 0});
  check_values(le(a, b), {1, 1, 0});
  check_values(gt(a, b), {0, 0, 1});
  check_values(ge(a, b), {0, 1, 1});
  check_values(gt(a, 1.5), {0, 1, 1});
  // Mixed dtypes compare in the promoted type: 2 (i64) == 2.0 (f32).
  check_values(eq(t({2, 3}, {2}, DType::Int64), t({2.0, 2.5}, {2})), {1, 0});
}

TEST_CASE("unary ops match their formulas", "[compiler][tensor]") {
  const Tensor x = t({-2, -0.5, 0, 0.5, 2}, {5});
  const std::vector<double> xs = {-2, -0.5, 0, 0.5, 2};
  auto expect = [&](const Tensor& got, double (*f)(double)) {
    std::vector<double> want;
    for (double v : xs) {
      want.push_back(f(v));
    }
    check_values(got, want, 1e-6);
  };
  expect(neg(x), [](double v) { return -v; });
  expect(exp(x), [](double v) { return std::exp(v); });
  expect(sin(x), [](double v) { return std::sin(v); });
  expect(cos(x), [](double v) { return std::cos(v); });
  expect(tanh(x), [](double v) { return std::tanh(v); });
  expect(sigmoid(x), [](double v) { return 1.0 / (1.0 + std::exp(-v)); });
  expect(relu(x), [](double v) { return v > 0 ? v : 0.0; });
  expect(abs(x), [](double v) { return std::abs(v); });
  expect(gelu(x), [](double v) { return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0))); });
  expect(gelu(x, "tanh"), [](double v) {
    return 0.5 * v *
           (1.0 + std::tanh(std::sqrt(2.0 / std::numbers::pi) * (v + 0.044715 * v * v * v)));
  });
  check_values(sqrt(t({4, 9, 2}, {3})), {2, 3, std::sqrt(2.0)});
  check_values(log(t({1, std::exp(1.0), 0}, {3})), {0, 1, -INFINITY});
  CHECK(std::isnan(sqrt(t({-1}, {1})).item_double()));
  CHECK_THROWS_AS(gelu(x, "fast"), UserError);
}

TEST_CASE("broadcasting stretches size-1 and missing leading dims", "[compiler][tensor]") {
  const Tensor col = t({1, 2, 3}, {3, 1});
  const Tensor row = t({10, 20}, {2});
  const Tensor sum = add(col, row);
  CHECK(sum.sizes() == std::vector<std::int64_t>{3, 2});
  check_values(sum, {11, 21, 12, 22, 13, 23});
  const Tensor scalar = Tensor::scalar(5.0);
  check_values(mul(col, scalar), {5, 10, 15});
  const Tensor big = arange(24, DType::Float32).view({2, 3, 4});
  const Tensor bias = t({1, 2, 3, 4}, {4});
  const Tensor y = sub(big, bias);
  CHECK(y.sizes() == std::vector<std::int64_t>{2, 3, 4});
  CHECK(y.at({1, 2, 3}) == 23 - 4);
  // A strided (transposed) input broadcasts correctly too.
  const Tensor tr = t({1, 2, 3, 4, 5, 6}, {2, 3}).transpose(0, 1); // [[1,4],[2,5],[3,6]]
  check_values(add(tr, t({100, 200}, {2})), {101, 204, 102, 205, 103, 206});
}

TEST_CASE("shapes that do not broadcast are a user error", "[compiler][tensor]") {
  CHECK_THROWS_AS(add(t({1, 2, 3}, {3}), t({1, 2}, {2})), UserError);
  CHECK_THROWS_WITH(add(Tensor::empty({2, 3}), Tensor::empty({4, 3})),
                    Catch::Contains("cannot be broadcast"));
}

TEST_CASE("type promotion picks PyTorch's result dtype", "[compiler][tensor]") {
  const Tensor i32 = t({1, 2}, {2}, DType::Int32);
  const Tensor i64 = t({1, 2}, {2}, DType::Int64);
  const Tensor f32 = t({1, 2}, {2});
  const Tensor f16 = t({1, 2}, {2}, DType::Float16);
  const Tensor b8 = t({1, 0}, {2}, DType::Bool);
  CHECK(add(i32, i64).dtype() == DType::Int64);
  CHECK(add(i32, f16).dtype() == DType::Float16);
  CHECK(add(f16, f32).dtype() == DType::Float32);
  CHECK(add(b8, i32).dtype() == DType::Int32);
  CHECK(add(b8, b8).dtype() == DType::Bool);
  CHECK(add(i64, 1.0).dtype() == DType::Float32);
  CHECK(add(f16, 1.0).dtype() == DType::Float16);
  CHECK(div(i64, i64).dtype() == DType::Float32);
  check_values(div(t({7, -7}, {2}, DType::Int64), t({2, 2}, {2}, DType::Int64)), {3.5, -3.5});
  CHECK(exp(i32).dtype() == DType::Float32);
  CHECK(neg(i32).dtype() == DType::Int32);
  CHECK(pow(i64, i64).dtype() == DType::Int64);
  check_values(pow(t({2, 3}, {2}, DType::Int64), t({10, 3}, {2}, DType::Int64)), {1024, 27});
  // A 0-dim tensor of the same category does not widen a dimensioned one.
  CHECK(add(f16, Tensor::scalar(1.0, DType::Float32)).dtype() == DType::Float16);
  CHECK(add(i32, Tensor::scalar(1.0, DType::Int64)).dtype() == DType::Int32);
  CHECK(add(i32, Tensor::scalar(1.5)).dtype() == DType::Float32);
  CHECK_THROWS_AS(sub(b8, b8), UserError);
  CHECK_THROWS_AS(neg(b8), UserError);
}

TEST_CASE("integer ops stay exact in 64 bits", "[compiler][tensor]") {
  const Tensor x = Tensor::empty({1}, DType::Int64);
  x.data<std::int64_t>()[0] = (std::int64_t{1} << 53) + 1;
  const Tensor y = add(x, x);
  CHECK(y.data<std::int64_t>()[0] == (std::int64_t{1} << 54) + 2);
}

TEST_CASE("where selects elementwise with broadcasting", "[compiler][tensor]") {
  const Tensor cond = t({1, 0, 1}, {3}, DType::Bool);
  check_values(where(cond, t({1, 2, 3}, {3}), t({-1}, {1})), {1, -1, 3});
  const Tensor w = where(gt(t({1, 5}, {2, 1}), 2.0), t({10, 20}, {2}), Tensor::scalar(0.0));
  CHECK(w.sizes() == std::vector<std::int64_t>{2, 2});
  check_values(w, {0, 0, 10, 20});
  CHECK(where(cond, t({1, 2, 3}, {3}, DType::Int32), t({1, 2, 3}, {3})).dtype() == DType::Float32);
  CHECK_THROWS_AS(where(t({1}, {1}), t({1}, {1}), t({1}, {1})), UserError);
}

TEST_CASE("to_dtype converts with truncation and rounding", "[compiler][tensor]") {
  const Tensor x = t({1.7, -1.7, 0.0, 3.0}, {4});
  check_values(to_dtype(x, DType::Int32), {1, -1, 0, 3});
  check_values(to_dtype(x, DType::Bool), {1, 1, 0, 1});
  CHECK(to_dtype(t({0.1}, {1}), DType::Float16).item_double() ==
        static_cast<double>(half_bits_to_float(float_to_half_bits(0.1f))));
}

TEST_CASE("large elementwise ops split across threads give the same result", "[compiler][tensor]") {
  const std::int64_t n = 200000;
  const Tensor x = arange(0.0, static_cast<double>(n), 1.0);
  const Tensor y = add(mul(x, 2.0), 1.0);
  const float* p = y.data<float>();
  bool all = true;
  for (std::int64_t i = 0; i < n; ++i) {
    all = all && p[i] == static_cast<float>(2 * i + 1);
  }
  CHECK(all);
}
