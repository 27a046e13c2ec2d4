// matmul/bmm, softmax, log_softmax, layer_norm, embedding and cross_entropy against direct
// formulas.
#include "compiler/core/errors.h"
#include "tensor_test_util.h"

#include <catch2/catch.hpp>
#include <cmath>

using namespace compiler;
using tensor_test::check_values;
using tensor_test::t;

TEST_CASE("matmul multiplies matrices, vectors and batches", "[compiler][tensor]") {
  const Tensor a = t({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor b = t({7, 8, 9, 10, 11, 12}, {3, 2});
  const Tensor c = matmul(a, b);
  CHECK(c.sizes() == std::vector<std::int64_t>{2, 2});
  check_values(c, {58, 64, 139, 154});
  const Tensor v = t({1, 0, -1}, {3});
  check_values(matmul(a, v), {-2, -2});               // [2,3] @ [3] -> [2]
  check_values(matmul(t({1, 1}, {2}), a), {5, 7, 9}); // [2] @ [2,3] -> [3]
  CHECK(matmul(v, v).dim() == 0);
  CHECK(matmul(v, v).item_double() == 2);
  // Batched with a broadcast batch dim: [2,2,3] @ [3,2].
  const Tensor batch = stack({a, mul(a, 2.0)});
  const Tensor bc = matmul(batch, b);
  CHECK(bc.sizes() == std::vector<std::int64_t>{2, 2, 2});
  check_values(bc, {58, 64, 139, 154, 116, 128, 278, 308});
  // A transposed operand.
  check_values(matmul(a, a.transpose(0, 1)), {14, 32, 32, 77});
  CHECK(matmul(t({1, 2}, {1, 2}, DType::Int64), t({3, 4}, {2, 1}, DType::Int64)).dtype() ==
        DType::Int64);
}

TEST_CASE("matmul of mismatched inner dims is a user error", "[compiler][tensor]") {
  CHECK_THROWS_WITH(matmul(Tensor::empty({2, 3}), Tensor::empty({2, 3})),
                    Catch::Contains("inner dimensions"));
  CHECK_THROWS_AS(matmul(Tensor::scalar(1.0), Tensor::empty({1})), UserError);
}

TEST_CASE("bmm multiplies matching batches", "[compiler][tensor]") {
  const Tensor a = arange(12, DType::Float32).view({2, 2, 3});
  const Tensor b = ones({2, 3, 1});
  const Tensor c = bmm(a, b);
  CHECK(c.sizes() == std::vector<std::int64_t>{2, 2, 1});
  check_values(c, {3, 12, 21, 30});
  CHECK_THROWS_AS(bmm(a, ones({3, 3, 1})), UserError);
  CHECK_THROWS_AS(bmm(a.view({4, 3}), b), UserError);
}

TEST_CASE("large matmul split across threads matches a direct sum", "[compiler][tensor]") {
  const Tensor a = randn({64, 96}, 1);
  const Tensor b = randn({96, 80}, 2);
  const Tensor c = matmul(a, b);
  for (std::int64_t i : {0, 31, 63}) {
    for (std::int64_t j : {0, 40, 79}) {
      double want = 0;
      for (std::int64_t k = 0; k < 96; ++k) {
        want += a.at({i, k}) * b.at({k, j});
      }
      CHECK(std::abs(c.at({i, j}) - want) < 1e-4);
    }
  }
}

TEST_CASE("softmax and log_softmax normalise along a dim", "[compiler][tensor]") {
  const Tensor x = t({1, 2, 3, 1000, 1000, 1000}, {2, 3});
  const Tensor s = softmax(x, 1);
  const double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  check_values(
      s, {std::exp(1.0) / z, std::exp(2.0) / z, std::exp(3.0) / z, 1.0 / 3, 1.0 / 3, 1.0 / 3});
  check_values(log_softmax(x, -1), {1 - std::log(z), 2 - std::log(z), 3 - std::log(z),
                                    -std::log(3.0), -std::log(3.0), -std::log(3.0)});
  const Tensor s0 = softmax(x, 0);
  check_values(sum(s0, {0}), {1, 1, 1});
  CHECK_THROWS_AS(softmax(t({1}, {1}, DType::Int64), 0), UserError);
  CHECK_THROWS_AS(softmax(x, 2), UserError);
}

TEST_CASE("layer_norm normalises trailing dims with weight and bias", "[compiler][tensor]") {
  const Tensor x = t({1, 2, 3, 4, 2, 2, 2, 2}, {2, 4});
  const Tensor w = t({1, 1, 2, 2}, {4});
  const Tensor b = t({0, 0, 0, 1}, {4});
  const Tensor y = layer_norm(x, {4}, w, b, 1e-5);
  // Row 0: mean 2.5, var 1.25.
  const double r = 1.0 / std::sqrt(1.25 + 1e-5);
  check_values(y, {-1.5 * r, -0.5 * r, 2 * 0.5 * r, 2 * 1.5 * r + 1, 0, 0, 0, 1}, 1e-5);
  const Tensor plain = layer_norm(x, {4});
  check_values(plain, {-1.5 * r, -0.5 * r, 0.5 * r, 1.5 * r, 0, 0, 0, 0}, 1e-5);
  // Over both dims: one group of 8.
  const std::vector<double> xs = {1, 2, 3, 4, 2, 2, 2, 2};
  double m = 0;
  for (double v : xs) {
    m += v / 8;
  }
  double var = 0;
  for (double v : xs) {
    var += (v - m) * (v - m) / 8;
  }
  std::vector<double> want;
  for (double v : xs) {
    want.push_back((v - m) / std::sqrt(var + 1e-5));
  }
  check_values(layer_norm(x, {2, 4}), want, 1e-5);
  CHECK_THROWS_AS(layer_norm(x, {3}), UserError);
  CHECK_THROWS_AS(layer_norm(x, {4}, t({1, 1}, {2})), UserError);
}

TEST_CASE("embedding picks rows by index", "[compiler][tensor]") {
  const Tensor w = arange(6, DType::Float32).view({3, 2});
  const Tensor idx = t({2, 0, 2, 1}, {2, 2}, DType::Int64);
  const Tensor e = embedding(w, idx);
  CHECK(e.sizes() == std::vector<std::int64_t>{2, 2, 2});
  check_values(e, {4, 5, 0, 1, 4, 5, 2, 3});
  CHECK_THROWS_AS(embedding(w, t({3}, {1}, DType::Int64)), UserError);
  CHECK_THROWS_AS(embedding(w, t({0}, {1})), UserError);
}

TEST_CASE("cross_entropy equals the mean negative log-likelihood", "[compiler][tensor]") {
  const std::vector<double> logits = {2.0, 1.0, 0.1, 0.5, 2.5, -1.0};
  const Tensor x = t({2.0, 1.0, 0.1, 0.5, 2.5, -1.0}, {2, 3});
  const Tensor target = t({0, 1}, {2}, DType::Int64);
  double want = 0;
  for (int i = 0; i < 2; ++i) {
    double z = 0;
    for (int c = 0; c < 3; ++c) {
      z += std::exp(logits[static_cast<std::size_t>(i * 3 + c)]);
    }
    const int cls = i == 0 ? 0 : 1;
    want += -(logits[static_cast<std::size_t>(i * 3 + cls)] - std::log(z));
  }
  want /= 2;
  const Tensor loss = cross_entropy(x, target);
  CHECK(loss.dim() == 0);
  CHECK(std::abs(loss.item_double() - want) < 1e-6);
  CHECK_THROWS_AS(cross_entropy(x, t({0, 3}, {2}, DType::Int64)), UserError);
  CHECK_THROWS_AS(cross_entropy(x, t({0, 1, 1}, {3}, DType::Int64)), UserError);
  CHECK_THROWS_AS(cross_entropy(x, t({0, 1}, {2})), UserError);
}
