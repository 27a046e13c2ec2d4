// cat, stack and the factories, including randn's documented determinism.
#include "compiler/core/errors.h"
#include "tensor_test_util.h"

#include <catch2/catch.hpp>
#include <cmath>

using namespace compiler;
using tensor_test::check_values;
using tensor_test::t;

TEST_CASE("cat joins along a dim and promotes dtypes", "[compiler][tensor]") {
  const Tensor a = t({1, 2, 3, 4}, {2, 2});
  const Tensor b = t({5, 6}, {2, 1}, DType::Int64);
  const Tensor c = cat({a, b}, 1);
  CHECK(c.sizes() == std::vector<std::int64_t>{2, 3});
  CHECK(c.dtype() == DType::Float32);
  check_values(c, {1, 2, 5, 3, 4, 6});
  check_values(cat({a, a.transpose(0, 1)}, 0), {1, 2, 3, 4, 1, 3, 2, 4});
  CHECK_THROWS_AS(cat({a, t({1, 2, 3}, {3, 1})}, 1), UserError);
  CHECK_THROWS_AS(cat({}, 0), UserError);
}

TEST_CASE("stack adds a new dim", "[compiler][tensor]") {
  const Tensor a = t({1, 2}, {2});
  const Tensor b = t({3, 4}, {2});
  CHECK(stack({a, b}).sizes() == std::vector<std::int64_t>{2, 2});
  check_values(stack({a, b}, 1), {1, 3, 2, 4});
  check_values(stack({a, b}, -1), {1, 3, 2, 4});
  CHECK_THROWS_AS(stack({a, t({1, 2, 3}, {3})}), UserError);
}

TEST_CASE("arange, full, zeros and ones fill as asked", "[compiler][tensor]") {
  const Tensor r = arange(5);
  CHECK(r.dtype() == DType::Int64);
  check_values(r, {0, 1, 2, 3, 4});
  check_values(arange(1.0, 2.0, 0.25), {1, 1.25, 1.5, 1.75});
  check_values(arange(5.0, 1.0, -2.0, DType::Int32), {5, 3});
  CHECK_THROWS_AS(arange(0.0, 1.0, 0.0), UserError);
  CHECK_THROWS_AS(arange(0.0, 1.0, -1.0), UserError);
  const Tensor f = full({2, 2}, 3.5, DType::BFloat16);
  CHECK(f.dtype() == DType::BFloat16);
  check_values(f, {3.5, 3.5, 3.5, 3.5});
  check_values(zeros({3}, DType::Int32), {0, 0, 0});
  check_values(ones({2}, DType::Bool), {1, 1});
  CHECK_THROWS_AS(zeros({-1}), UserError);
}

TEST_CASE("randn is deterministic per seed, prefix-stable and standard normal",
          "[compiler][tensor]") {
  const Tensor a = randn({1000}, 42);
  const Tensor b = randn({1000}, 42);
  const Tensor c = randn({1000}, 43);
  CHECK(a.to_vector() == b.to_vector());
  CHECK(a.to_vector() != c.to_vector());
  // The first elements of a larger draw equal a smaller draw, whatever the shape.
  const Tensor small = randn({7}, 42);
  const std::vector<double> av = a.to_vector();
  const std::vector<double> sv = small.to_vector();
  for (std::size_t i = 0; i < sv.size(); ++i) {
    CHECK(av[i] == sv[i]);
  }
  CHECK(randn({10, 100}, 42).view({1000}).to_vector() == av);
  // Moments of 200k samples (split across threads): mean ~ 0, variance ~ 1.
  const Tensor big = randn({200000}, 7);
  CHECK(std::abs(mean(big).item_double()) < 0.01);
  CHECK(std::abs(mean(mul(big, big)).item_double() - 1.0) < 0.02);
  CHECK(randn({4}, 1, DType::Float16).dtype() == DType::Float16);
  CHECK_THROWS_AS(randn({4}, 1, DType::Int32), UserError);
}
