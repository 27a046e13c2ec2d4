// Eager autograd's behaviour: leaf accumulation, backward() and grad(), no_grad and detach,
// retain_graph, in-place refusals and version checks, views, user errors, and the saved
// activation accounting the AOT stage compares against.
#include "compiler/autograd/autograd.h"
#include "compiler/core/errors.h"
#include "compiler/nn/layers.h"
#include "compiler/ops/ops.h"
#include "tensor_test_util.h"

#include <catch2/catch.hpp>
#include <string>

using namespace compiler;
using tensor_test::check_values;
using tensor_test::t;

namespace {

Tensor leaf(std::initializer_list<double> v, std::vector<std::int64_t> sizes) {
  Tensor x = t(v, std::move(sizes));
  x.set_requires_grad(true);
  return x;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.message();
  }
  return "";
}

} // namespace

TEST_CASE("backward accumulates d(loss)/d(leaf) into grad() and sums every path",
          "[compiler][autograd]") {
  const Tensor x = leaf({1, 2, 3}, {3});
  const Tensor w = leaf({0.5, -1, 2}, {3});
  // loss = sum(x*w + x*x): dloss/dx = w + 2x, dloss/dw = x
  const Tensor loss = sum(add(mul(x, w), mul(x, x)));
  CHECK(loss.requires_grad());
  CHECK_FALSE(loss.is_leaf());
  CHECK(x.is_leaf());
  loss.backward();
  check_values(x.grad(), {2.5, 3, 8});
  check_values(w.grad(), {1, 2, 3});
  // A second graph accumulates into the same grads.
  sum(mul(x, 2.0)).backward();
  check_values(x.grad(), {4.5, 5, 10});
  x.set_grad(Tensor());
  CHECK_FALSE(x.grad().defined());
}

TEST_CASE("autograd::grad returns gradients without touching grad(), including non-leaves",
          "[compiler][autograd]") {
  const Tensor x = leaf({1, 2}, {2});
  const Tensor h = exp(x);
  const Tensor y = sum(mul(h, 3.0));
  const Tensor outs[] = {y};
  const Tensor ins[] = {x, h};
  const std::vector<Tensor> g = autograd::grad(outs, ins);
  check_values(g[0], {3 * std::exp(1.0), 3 * std::exp(2.0)}, 1e-5);
  check_values(g[1], {3, 3});
  CHECK_FALSE(x.grad().defined());

  const Tensor z = leaf({1}, {1});
  const Tensor y2 = sum(mul(x, 2.0));
  const Tensor outs2[] = {y2};
  const Tensor unused[] = {z};
  CHECK(message_of([&] { autograd::grad(outs2, unused, {}, true); }).find("not have been used") !=
        std::string::npos);
  CHECK_FALSE(autograd::grad(outs2, unused, {}, false, true)[0].defined());
}

TEST_CASE("no_grad and detach stop history, grad mode is per scope", "[compiler][autograd]") {
  const Tensor x = leaf({1, 2}, {2});
  {
    autograd::NoGradGuard no_grad;
    CHECK_FALSE(autograd::is_grad_enabled());
    const Tensor y = mul(x, 2.0);
    CHECK_FALSE(y.requires_grad());
    {
      autograd::GradModeGuard enable(true);
      CHECK(mul(x, 2.0).requires_grad());
    }
    CHECK_FALSE(autograd::is_grad_enabled());
  }
  CHECK(autograd::is_grad_enabled());
  const Tensor d = x.detach();
  CHECK_FALSE(d.requires_grad());
  CHECK(d.shares_storage_with(x));
  const Tensor y = add(mul(d, x), 0.0); // d is a constant: dy/dx = d
  sum(y).backward();
  check_values(x.grad(), {1, 2});
}

TEST_CASE("views pass gradients back to their base", "[compiler][autograd]") {
  const Tensor x = leaf({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor v = slice(transpose(x, 0, 1), 0, 1, 3); // rows 1..2 of x^T: columns 1..2 of x
  sum(mul(v, v)).backward();
  check_values(x.grad(), {0, 4, 6, 0, 10, 12});
  // A view under no_grad of a tensor requiring grad does not require grad.
  autograd::NoGradGuard no_grad;
  CHECK_FALSE(view(x, {6}).requires_grad());
}

TEST_CASE("the saved graph is freed by backward unless retain_graph", "[compiler][autograd]") {
  const Tensor x = leaf({1, 2}, {2});
  const Tensor y = sum(mul(x, x));
  y.backward(Tensor(), true);
  y.backward();
  check_values(x.grad(), {4, 8});
  const std::string msg = message_of([&] { y.backward(); });
  CHECK(msg.find("backward through the graph a second time") != std::string::npos);
}

TEST_CASE("in-place updates are refused on tracked leaves and detected on saved tensors",
          "[compiler][autograd]") {
  Tensor w = leaf({1, 2}, {2});
  CHECK(message_of([&] {
          autograd::assign_(w, t({0, 0}, {2}));
        }).find("in-place") != std::string::npos);
  const Tensor y = sum(mul(w, w)); // saves w
  {
    autograd::NoGradGuard no_grad;
    autograd::assign_(w, t({5, 5}, {2}));
  }
  check_values(w, {5, 5});
  const std::string msg = message_of([&] { y.backward(); });
  CHECK(msg.find("modified by an inplace operation") != std::string::npos);
  CHECK(msg.find("expected version 0") != std::string::npos);
}

TEST_CASE("autograd user errors name the problem", "[compiler][autograd]") {
  const Tensor x = leaf({1, 2}, {2});
  CHECK(message_of([&] { mul(x, 2.0).backward(); }).find("only for scalar outputs") !=
        std::string::npos);
  CHECK(message_of([&] { t({1}, {1}).backward(); }).find("does not require grad") !=
        std::string::npos);
  Tensor i = t({1}, {1}, DType::Int64);
  CHECK(message_of([&] { i.set_requires_grad(true); }).find("floating point") != std::string::npos);
  Tensor y = mul(x, 2.0);
  CHECK(message_of([&] { y.set_requires_grad(false); }).find("leaf") != std::string::npos);
  // An explicit gradient for a non-scalar output.
  mul(x, 3.0).backward(t({1, 10}, {2}));
  check_values(x.grad(), {3, 30});
}

TEST_CASE("nn parameters are leaves that require grad and collect gradients",
          "[compiler][autograd]") {
  nn::Linear lin(3, 2, true, 7);
  for (const auto& [name, p] : lin.named_parameters()) {
    INFO(name);
    CHECK(p.is_leaf());
    CHECK(p.requires_grad());
  }
  const Tensor x = t({1, 2, 3, 4, 5, 6}, {2, 3});
  sum(lin(x)).backward();
  // d sum(x W^T + b) / dW = column sums of x for each output row; / db = batch size.
  check_values(lin.weight().grad(), {5, 7, 9, 5, 7, 9});
  check_values(lin.bias().grad(), {2, 2});
}

TEST_CASE("saved activation bytes count what backward keeps, not the inputs",
          "[compiler][autograd]") {
  const Tensor x = leaf({1, 2, 3, 4}, {4});
  const Tensor h = exp(x);         // saves its output: 16 bytes
  const Tensor y = sum(mul(h, x)); // mul saves h (an activation) and x (a leaf)
  const Tensor roots[] = {y};
  CHECK(autograd::saved_activation_bytes(roots) == 16);
  y.backward();
  CHECK(autograd::saved_activation_bytes(roots) == 0);
}
