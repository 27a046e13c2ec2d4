// nn::rms_norm and nn::RMSNorm (PyTorch 2.4's F.rms_norm, checked against its formula since the
// PyTorch 1.13 oracle lacks it): hand values, the default eps, user errors, gradients against
// central differences, and the compiled function against eager.
#include "compiler/capture/compile.h"
#include "compiler/core/errors.h"
#include "compiler/nn/layers.h"
#include "compiler/ops/ops.h"
#include "inductor_compare.h"
#include "inductor_test_data.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <span>
#include <vector>

using namespace compiler;
using inductor_test::wave;

namespace {

Tensor values(const std::vector<double>& v, std::vector<std::int64_t> sizes,
              DType dtype = DType::Float64) {
  return Tensor::from_values(std::span<const double>(v.data(), v.size()), std::move(sizes), dtype);
}

} // namespace

TEST_CASE("rms_norm divides by the root mean square of the trailing dims", "[nn][rms_norm]") {
  const Tensor x = values({1, 2, 3, 4}, {2, 2});
  const Tensor y = nn::rms_norm(x, {2}, Tensor(), 0.0);
  const std::vector<double> want = {1 / std::sqrt(2.5), 2 / std::sqrt(2.5), 3 / std::sqrt(12.5),
                                    4 / std::sqrt(12.5)};
  const std::vector<double> got = y.to_vector();
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    CHECK(got[i] == Approx(want[i]).epsilon(1e-12));
  }
  // Over both dims, with a weight, and eps added to the mean square.
  const Tensor w = values({2, -1, 0.5, 1}, {2, 2});
  const double rms = std::sqrt((1 + 4 + 9 + 16) / 4.0 + 0.5);
  const std::vector<double> both = nn::rms_norm(x, {2, 2}, w, 0.5).to_vector();
  CHECK(both[0] == Approx(2 / rms));
  CHECK(both[1] == Approx(-2 / rms));
  CHECK(both[2] == Approx(1.5 / rms));
  CHECK(both[3] == Approx(4 / rms));
}

TEST_CASE("rms_norm's default eps is the dtype's machine epsilon, as PyTorch's", "[nn][rms_norm]") {
  const Tensor zero = values({0, 0}, {1, 2}, DType::Float32);
  // 0 / sqrt(0 + eps) stays 0 only when eps > 0; a weightless zero row stays finite.
  for (double v : nn::rms_norm(zero, {2}, Tensor(), std::nullopt).to_vector()) {
    CHECK(v == 0.0);
  }
  const Tensor tiny = values({1e-4, 0}, {1, 2}, DType::Float32);
  const double ms = 1e-8 / 2;
  const double eps = 1.1920928955078125e-07; // torch.finfo(torch.float32).eps
  CHECK(nn::rms_norm(tiny, {2}, Tensor(), std::nullopt).to_vector()[0] ==
        Approx(1e-4 / std::sqrt(ms + eps)).epsilon(1e-5));
}

TEST_CASE("rms_norm rejects shapes and dtypes PyTorch rejects", "[nn][rms_norm]") {
  const Tensor x = values({1, 2, 3, 4, 5, 6}, {2, 3});
  CHECK_THROWS_AS(nn::rms_norm(x, {2}, Tensor(), 1e-5), UserError);
  CHECK_THROWS_AS(nn::rms_norm(x, {2, 2, 3}, Tensor(), 1e-5), UserError);
  CHECK_THROWS_AS(nn::rms_norm(x, {3}, values({1, 1}, {2}), 1e-5), UserError);
  CHECK_THROWS_AS(nn::rms_norm(to_dtype(x, DType::Int64), {3}, Tensor(), 1e-5), UserError);
}

TEST_CASE("rms_norm's gradients match central differences", "[nn][rms_norm]") {
  const std::vector<double> xs = {0.3, -1.2, 2.0, 0.7, -0.4, 1.1};
  const std::vector<double> ws = {1.5, -0.5, 0.25};
  auto loss = [](const Tensor& x, const Tensor& w) {
    return sum(mul(nn::rms_norm(x, {3}, w, 1e-3), values({1, 2, 3, -1, 0.5, 4}, {2, 3})));
  };
  Tensor x = values(xs, {2, 3});
  Tensor w = values(ws, {3});
  x.set_requires_grad(true);
  w.set_requires_grad(true);
  loss(x, w).backward();
  const std::vector<double> gx = x.grad().to_vector();
  const std::vector<double> gw = w.grad().to_vector();
  const double h = 1e-6;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    std::vector<double> up = xs, down = xs;
    up[i] += h;
    down[i] -= h;
    const double fd = (loss(values(up, {2, 3}), values(ws, {3})).item_double() -
                       loss(values(down, {2, 3}), values(ws, {3})).item_double()) /
                      (2 * h);
    CHECK(gx[i] == Approx(fd).epsilon(1e-6));
  }
  for (std::size_t i = 0; i < ws.size(); ++i) {
    std::vector<double> up = ws, down = ws;
    up[i] += h;
    down[i] -= h;
    const double fd = (loss(values(xs, {2, 3}), values(up, {3})).item_double() -
                       loss(values(xs, {2, 3}), values(down, {3})).item_double()) /
                      (2 * h);
    CHECK(gw[i] == Approx(fd).epsilon(1e-6));
  }
}

TEST_CASE("RMSNorm compiles to the same values as eager", "[nn][rms_norm][inductor]") {
  nn::RMSNorm norm({64});
  CHECK(norm.to_string().find("RMSNorm((64,), eps=None, elementwise_affine=True)") !=
        std::string::npos);
  CHECK(norm.named_parameters().size() == 1);
  auto f = [&](const Tensor& x) { return norm(x); };
  auto cf = compile(f);
  const Tensor x = wave({33, 64}, 1);
  CHECK_CLOSE(cf(x), f(x));
}
