// The optimizers against hand-computed updates, their convergence on a least-squares problem,
// and their user errors.
#include "compiler/autograd/autograd.h"
#include "compiler/core/errors.h"
#include "compiler/ops/ops.h"
#include "compiler/optim/optim.h"
#include "tensor_test_util.h"

#include <catch2/catch.hpp>
#include <cmath>

using namespace compiler;
using tensor_test::check_values;
using tensor_test::t;

namespace {

Tensor param(std::initializer_list<double> v) {
  Tensor p = t(v, {static_cast<std::int64_t>(v.size())});
  p.set_requires_grad(true);
  return p;
}

// loss = sum(c * p^2 / 2): gradient c * p.
void quadratic_backward(const Tensor& p, const Tensor& c) {
  sum(mul(mul(mul(p, p), c), 0.5)).backward();
}

} // namespace

TEST_CASE("SGD with momentum follows torch.optim.SGD's update", "[compiler][optim]") {
  Tensor p = param({1.0, -2.0});
  const Tensor c = t({1.0, 1.0}, {2});
  optim::SGD opt({p}, {.lr = 0.1, .momentum = 0.9});
  quadratic_backward(p, c); // g = p = [1, -2]; buf = g
  opt.step();               // p = p - 0.1 g = [0.9, -1.8]
  check_values(p, {0.9, -1.8});
  opt.zero_grad();
  CHECK_FALSE(p.grad().defined());
  quadratic_backward(p, c); // g = [0.9, -1.8]; buf = 0.9 [1, -2] + g = [1.8, -3.6]
  opt.step();               // p = [0.9 - 0.18, -1.8 + 0.36]
  check_values(p, {0.72, -1.44});
  CHECK(opt.steps() == 2);
}

TEST_CASE("Adam's first steps move each coordinate by about lr, bias-corrected",
          "[compiler][optim]") {
  Tensor p = param({1.0, -3.0});
  optim::Adam opt({p}, {.lr = 0.01});
  quadratic_backward(p, t({2.0, 0.5}, {2}));
  opt.step(); // m/(1-b1) = g, v/(1-b2) = g^2: the update is lr * g / (|g| + eps)
  check_values(p, {0.99, -2.99}, 1e-6);
  opt.zero_grad();
  quadratic_backward(p, t({2.0, 0.5}, {2}));
  opt.step();
  const std::vector<double> v = p.to_vector();
  CHECK(v[0] == Approx(0.98).epsilon(1e-4));
  CHECK(v[1] == Approx(-2.98).epsilon(1e-4));
}

TEST_CASE("SGD and Adam minimise a least-squares problem", "[compiler][optim]") {
  const Tensor x = randn({32, 4}, 11);
  const Tensor w_true = t({0.5, -1.0, 2.0, 0.25}, {4, 1});
  Tensor y;
  {
    autograd::NoGradGuard no_grad;
    y = matmul(x, w_true);
  }
  for (int which = 0; which < 2; ++which) {
    Tensor w = zeros({4, 1});
    w.set_requires_grad(true);
    std::unique_ptr<optim::Optimizer> opt;
    if (which == 0) {
      opt = std::make_unique<optim::SGD>(std::vector<Tensor>{w},
                                         optim::SGDOptions{.lr = 0.1, .momentum = 0.5});
    } else {
      opt = std::make_unique<optim::Adam>(std::vector<Tensor>{w}, optim::AdamOptions{.lr = 0.05});
    }
    double loss_value = 0;
    for (int step = 0; step < 300; ++step) {
      const Tensor diff = sub(matmul(x, w), y);
      const Tensor loss = mean(mul(diff, diff));
      loss_value = loss.item_double();
      loss.backward();
      opt->step();
      opt->zero_grad();
    }
    INFO("optimizer " << which);
    CHECK(loss_value < 1e-4);
    check_values(w, {0.5, -1.0, 2.0, 0.25}, 1e-2);
  }
}

TEST_CASE("optimizers refuse parameters autograd cannot update", "[compiler][optim]") {
  const Tensor plain = t({1.0}, {1});
  CHECK_THROWS_AS(optim::SGD({plain}, {}), UserError);
  Tensor p = param({1.0});
  const Tensor non_leaf = mul(p, 2.0);
  CHECK_THROWS_AS(optim::Adam({non_leaf}, {}), UserError);
  CHECK_THROWS_AS(optim::Adam({p}, {.beta1 = 1.0}), UserError);
}
