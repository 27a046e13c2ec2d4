// Reductions over dims, with and without keepdim, and argmax.
#include "compiler/core/errors.h"
#include "tensor_test_util.h"

#include <catch2/catch.hpp>
#include <cmath>

using namespace compiler;
using tensor_test::check_values;
using tensor_test::t;

namespace {
// [[[0, 1, 2], [3, 4, 5]], [[6, 7, 8], [9, 10, 11]]]
Tensor cube() {
  return arange(12, DType::Float32).view({2, 2, 3});
}
} // namespace

TEST_CASE("sum reduces all dims or the given ones", "[compiler][tensor]") {
  const Tensor x = cube();
  const Tensor all = sum(x);
  CHECK(all.dim() == 0);
  CHECK(all.item_double() == 66);
  check_values(sum(x, {0}), {6, 8, 10, 12, 14, 16});
  check_values(sum(x, {2}), {3, 12, 21, 30});
  check_values(sum(x, {0, 2}), {3 + 21, 12 + 30});
  check_values(sum(x, {-1, 0}), {24, 42});
  CHECK(sum(x, {1}).sizes() == std::vector<std::int64_t>{2, 3});
}

TEST_CASE("keepdim keeps reduced dims as size 1", "[compiler][tensor]") {
  const Tensor x = cube();
  CHECK(sum(x, {1}, true).sizes() == std::vector<std::int64_t>{2, 1, 3});
  CHECK(mean(x, {0, 2}, true).sizes() == std::vector<std::int64_t>{1, 2, 1});
  CHECK(amax(x, {}, true).sizes() == std::vector<std::int64_t>{1, 1, 1});
  CHECK(argmax(x, 2, true).sizes() == std::vector<std::int64_t>{2, 2, 1});
}

TEST_CASE("mean, amax and amin compute per reduced group", "[compiler][tensor]") {
  const Tensor x = cube();
  check_values(mean(x, {2}), {1, 4, 7, 10});
  CHECK(mean(x).item_double() == 5.5);
  check_values(amax(x, {1}), {3, 4, 5, 9, 10, 11});
  check_values(amin(x, {0, 1}), {0, 1, 2});
  const Tensor y = t({3, -1, 7, 7, 2, -5}, {2, 3});
  check_values(amax(y, {1}), {7, 7});
  check_values(amin(y, {1}), {-1, -5});
  CHECK(std::isnan(amax(t({1, NAN, 3}, {3})).item_double()));
}

TEST_CASE("reductions over a transposed input read the logical layout", "[compiler][tensor]") {
  const Tensor y = t({1, 2, 3, 4, 5, 6}, {2, 3}).transpose(0, 1); // [[1,4],[2,5],[3,6]]
  check_values(sum(y, {1}), {5, 7, 9});
  check_values(amax(y, {0}), {3, 6});
}

TEST_CASE("sum of integers and bools gives i64, mean needs floats", "[compiler][tensor]") {
  const Tensor b = t({1, 0, 1, 1}, {4}, DType::Bool);
  CHECK(sum(b).dtype() == DType::Int64);
  CHECK(sum(b).item_double() == 3);
  CHECK(sum(t({1, 2}, {2}, DType::Int32)).dtype() == DType::Int64);
  CHECK(sum(t({1, 2}, {2}, DType::Float16)).dtype() == DType::Float16);
  CHECK_THROWS_AS(mean(t({1, 2}, {2}, DType::Int64)), UserError);
  CHECK(amax(t({1, 9}, {2}, DType::Int32)).dtype() == DType::Int32);
}

TEST_CASE("argmax returns the first maximum's index as i64", "[compiler][tensor]") {
  const Tensor y = t({3, 7, 7, 9, 2, 9}, {2, 3});
  const Tensor flat = argmax(y);
  CHECK(flat.dtype() == DType::Int64);
  CHECK(flat.item_double() == 3);
  check_values(argmax(y, 1), {1, 0});
  check_values(argmax(y, 0), {1, 0, 1});
  CHECK(argmax(t({1, NAN, 5}, {3})).item_double() == 1); // NaN counts as the maximum
}

TEST_CASE("bad reduction dims are user errors", "[compiler][tensor]") {
  const Tensor x = cube();
  CHECK_THROWS_AS(sum(x, {3}), UserError);
  CHECK_THROWS_AS(sum(x, {1, -2}), UserError); // the same dim twice
  CHECK_THROWS_AS(argmax(x, -4), UserError);
  CHECK_THROWS_AS(amax(Tensor::empty({0})), UserError);
  CHECK(sum(Tensor::empty({0})).item_double() == 0);
}
