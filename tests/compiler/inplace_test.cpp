// In-place ops and functionalization (docs/COMPILER.md, "Mutation and functionalization"):
// eager values and errors against PyTorch 1.13, autograd through in-place ops and its errors,
// compiled functions that mutate intermediates, inputs and module buffers (the outputs and the
// inputs' values after the call), the copy-back in the AOT graph, batch_norm and BatchNorm2d
// against PyTorch with their running statistics, and an in-place SGD-with-momentum step.
#include "compiler/autograd/autograd.h"
#include "compiler/capture/compile.h"
#include "compiler/core/errors.h"
#include "compiler/nn/layers.h"
#include "compiler/ops/ops.h"
#include "support/test_paths.h"
#include "tensor_test_util.h"
#include "tracer/trace.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <string>

using namespace compiler;
using tensor_test::check_values;
using tensor_test::t;
using tensor_test::user_error_message;

namespace {

void check_close(const Tensor& x, const std::vector<double>& expected, double tol = 1e-5) {
  const std::vector<double> got = x.to_vector();
  REQUIRE(got.size() >= expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO("element " << i);
    CHECK(std::abs(got[i] - expected[i]) <= tol * (1.0 + std::abs(expected[i])));
  }
}

// x = sin(arange(24)).reshape(2, 3, 2, 2) * 3, as the PyTorch reference computes it.
Tensor bn_input(double scale = 1.0) {
  std::vector<double> v(24);
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i] = static_cast<double>(static_cast<float>(std::sin(static_cast<double>(i)))) * 3.0 * scale;
  }
  return Tensor::from_values(v, {2, 3, 2, 2});
}

} // namespace

TEST_CASE("in-place ops write the destination, through views, and bump its version",
          "[compiler][inplace]") {
  const Tensor x = t({1, 2, 3, 4}, {2, 2});
  const std::uint64_t v0 = x.impl()->storage->version();
  add_(slice(x, 1, 0, 1), 10.0); // x[:, 0:1].add_(10)
  check_values(x, {11, 2, 13, 4});
  CHECK(x.impl()->storage->version() == v0 + 1);

  Tensor c = t({0.5, -2, 3}, {3});
  clamp_(c, -1.0, 1.0);
  check_values(c, {0.5, -1, 1});
  Tensor chain = t({1, 2, 3}, {3});
  div_(mul_(sub_(chain, 0.5), 2.0), 4.0);
  check_values(chain, {0.25, 0.75, 1.25});
  Tensor i = t({1, 2, 3}, {3}, DType::Int64);
  copy_(i, t({1.7, -2.7, 3.2}, {3}));
  check_values(i, {1, -2, 3});
  CHECK(i.dtype() == DType::Int64);
  Tensor b = zeros({2, 3});
  copy_(b, t({1, 2, 3}, {3}));
  check_values(b, {1, 2, 3, 1, 2, 3});
  Tensor f = ones({2, 2});
  fill_(f, 2.5);
  check_values(f, {2.5, 2.5, 2.5, 2.5});
  zero_(f);
  check_values(f, {0, 0, 0, 0});
  const Tensor same = add_(f, 1.0);
  CHECK(same.is_same(f));
}

TEST_CASE("in-place ops refuse what PyTorch refuses, naming the op", "[compiler][inplace]") {
  CHECK(user_error_message([] {
          add_(t({1, 2}, {2}, DType::Int64), 1.5);
        }) == "add_: result type Float can't be cast to the desired output type Long");
  CHECK(user_error_message([] {
          clamp_(t({1, 2}, {2}, DType::Int64), 0.5, 1.5);
        }) == "clamp_: result type Float can't be cast to the desired output type Long");
  CHECK(user_error_message([] {
          add_(zeros({3}), zeros({2, 3}));
        }) == "add_: output with shape [3] doesn't match the broadcast shape [2, 3]");
  CHECK(user_error_message([] {
          add_(expand(zeros({1, 3}), {2, 3}), 1.0);
        })
            .find("more than one element of the written-to tensor refers to a single memory "
                  "location") != std::string::npos);
  Tensor w = zeros({3});
  w.set_requires_grad(true);
  CHECK(user_error_message([&] { add_(w, 1.0); }) ==
        "add_: a leaf Variable that requires grad is being used in an in-place operation.");
  CHECK(user_error_message([&] { add_(slice(w, 0, 0, 2), 1.0); }) ==
        "add_: a view of a leaf Variable that requires grad is being used in an in-place "
        "operation.");
  {
    autograd::NoGradGuard no_grad; // allowed outside autograd, as an optimizer's update
    add_(w, 1.0);
  }
  check_values(w, {1, 1, 1});
}

TEST_CASE("gradients flow through in-place ops on non-leaf tensors", "[compiler][inplace]") {
  Tensor w = t({1, 2, 3}, {3});
  w.set_requires_grad(true);
  Tensor y = mul(w, 2.0);
  mul_(y, w); // mul_ keeps the original y for w's gradient, as PyTorch saves original_self
  add_(y, 1.0);
  CHECK_FALSE(y.is_leaf());
  sum(y).backward();
  check_values(w.grad(), {4, 8, 12}); // d/dw sum(2w*w + 1), PyTorch 1.13
}

TEST_CASE("a tensor saved for backward then modified in place fails at backward",
          "[compiler][inplace]") {
  Tensor w = t({1, 2, 3}, {3});
  w.set_requires_grad(true);
  Tensor a = mul(w, 3.0);
  Tensor s = sin(a); // saves a
  add_(a, 1.0);
  CHECK(user_error_message([&] { sum(s).backward(); }).find("modified by an inplace operation") !=
        std::string::npos);
  Tensor e = exp(w); // saves its output
  mul_(e, 2.0);
  CHECK(user_error_message([&] { sum(e).backward(); }).find("modified by an inplace operation") !=
        std::string::npos);
}

TEST_CASE("compiled functions mutating intermediates and inputs match eager",
          "[compiler][inplace][capture]") {
  auto body = [](const Tensor& x, const Tensor& buf) {
    Tensor y = mul(x, 2.0);
    add_(y, 1.0); // an intermediate
    mul_(buf, 0.5);
    add_(buf, y); // an input, twice
    return sin(y);
  };
  auto compiled = compile(body, {.name = "mutate", .arg_names = {"x", "buf"}});
  for (int call = 0; call < 2; ++call) {
    const Tensor x = t({0.1, -0.4, 2.0, 0.3}, {2, 2});
    const Tensor eager_buf = t({1, 2, 3, 4}, {2, 2});
    const Tensor compiled_buf = t({1, 2, 3, 4}, {2, 2});
    const Tensor expected = body(x, eager_buf);
    const Tensor got = compiled(x, compiled_buf);
    check_close(got, expected.to_vector());
    check_close(compiled_buf, eager_buf.to_vector());
    check_close(compiled_buf, {1.7, 1.2, 6.5, 3.6});
  }
}

TEST_CASE("compiled writes through views of inputs and intermediates reach their bases",
          "[compiler][inplace][capture]") {
  auto body = [](const Tensor& x, const Tensor& w) {
    add_(slice(x, 0, 1, 3), 10.0);                  // rows 1..2 of input x
    mul_(slice(transpose(w, 0, 1), 1, 0, 1), -1.0); // column 0 of w^T: row 0 of w
    Tensor y = mul(x, 1.0);
    Tensor col = narrow(y, 1, 1, 1); // a view of an intermediate
    fill_(col, 0.5);
    zero_(view(slice(y, 0, 0, 1), {2})); // a view of a view
    return add(y, sum(w));
  };
  auto compiled = compile(body, {.name = "view_writes", .arg_names = {"x", "w"}});
  const Tensor x_eager = t({1, 2, 3, 4, 5, 6, 7, 8}, {4, 2});
  const Tensor w_eager = t({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor x_comp = t({1, 2, 3, 4, 5, 6, 7, 8}, {4, 2});
  const Tensor w_comp = t({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor expected = body(x_eager, w_eager);
  const Tensor got = compiled(x_comp, w_comp);
  check_values(x_eager, {1, 2, 13, 14, 15, 16, 7, 8}); // PyTorch 1.13's values
  check_values(w_eager, {-1, -2, -3, 4, 5, 6});
  check_close(got, expected.to_vector());
  check_close(x_comp, x_eager.to_vector());
  check_close(w_comp, w_eager.to_vector());
}

TEST_CASE("compiled writes through views functionalization cannot express are refused",
          "[compiler][inplace][capture]") {
  auto strided = compile(
      [](const Tensor& x) {
        add_(slice(x, 0, 0, 4, 2), 1.0);
        return mul(x, 2.0);
      },
      {.fullgraph = true, .name = "strided_write", .arg_names = {"x"}});
  CHECK(user_error_message([&] {
          strided(t({1, 2, 3, 4}, {4}));
        }).find("with a step other than 1") != std::string::npos);
  auto stale = compile(
      [](const Tensor& x) {
        Tensor y = mul(x, 1.0);
        Tensor v = slice(y, 0, 0, 1);
        add_(y, 1.0);
        return v; // made before its base was written
      },
      {.fullgraph = true, .name = "stale_view", .arg_names = {"x"}});
  CHECK(user_error_message([&] {
          stale(t({1, 2}, {2}));
        }).find("a view is read after its base") != std::string::npos);
}

TEST_CASE("the AOT graph computes a mutation out of place and copies it back into the input",
          "[compiler][inplace][capture]") {
  test_support::TempDir dir("inplace-trace");
  tracer::Options o;
  o.directory = dir.path().string();
  REQUIRE(tracer::start(o));
  auto compiled = compile(
      [](const Tensor& x) {
        add_(x, 1.0);
        return cos(x);
      },
      {.name = "input_mutation", .arg_names = {"x"}});
  const Tensor x = t({0.0, 1.0}, {2});
  const Tensor out = compiled(x);
  // A mutated intermediate nobody reads afterwards is re-inplaced by Inductor's post-grad pass.
  auto reinplaced = compile(
      [](const Tensor& a) {
        Tensor y = mul(a, 2.0);
        add_(y, 1.0);
        return sin(y);
      },
      {.name = "intermediate_mutation", .arg_names = {"a"}});
  check_close(reinplaced(t({0.5, 1.0}, {2})), {std::sin(2.0), std::sin(3.0)});
  const std::string path = tracer::log_path();
  tracer::stop();
  check_values(x, {1, 2});
  check_close(out, {std::cos(1.0), std::cos(2.0)});
  const std::string log = test_support::read_file(path);
  CHECK(log.find("add_: \"f32[2][1]cpu\" = torch.ops.aten.add(l_x_, 1.0)") != std::string::npos);
  CHECK(log.find("torch.ops.aten.add.Tensor(arg0_1, 1.0)") != std::string::npos);
  CHECK(log.find("copy_: \"f32[2][1]cpu\" = torch.ops.aten.copy_.default(arg0_1, add);  "
                 "arg0_1 = copy_ = None") != std::string::npos);
  CHECK(log.find("mutates_data=True") != std::string::npos); // ViewAndMutationMeta
  // The input stays alive until its copy-back.
  CHECK(log.find("(arg0_1, 1.0);  arg0_1 = None") == std::string::npos);
  CHECK(log.find("= torch.ops.aten.add_(mul, 1.0)") != std::string::npos);
}

TEST_CASE("batch_norm and BatchNorm2d match PyTorch in training and evaluation",
          "[compiler][inplace][batch_norm]") {
  nn::BatchNorm2d bn(3);
  {
    autograd::NoGradGuard no_grad;
    copy_(bn.parameter("weight"), t({1, 2, 0.5}, {3}));
    copy_(bn.parameter("bias"), t({0, 1, -1}, {3}));
  }
  const Tensor y = bn(bn_input());
  check_close(y, {-0.8617786, 0.8363045, 0.9731779, -0.5769994, -0.3290797, -1.0789742}, 1e-4);
  bn(bn_input(2.0));
  check_close(bn.running_mean(), {0.37153107, -0.34675661, 0.08177942}, 1e-4);
  check_close(bn.running_var(), {2.04762483, 2.27458549, 3.72283840}, 1e-4);
  CHECK(bn.num_batches_tracked().to_vector() == std::vector<double>{2});
  CHECK(bn.num_batches_tracked().dtype() == DType::Int64);
  bn.eval();
  check_close(bn(bn_input()), {-0.2596384, 1.5045061, 1.6467043, 0.0362198, -1.5509630, -2.3550673},
              1e-4);
  CHECK(user_error_message([] {
          batch_norm(zeros({2, 3}), Tensor(), Tensor(), Tensor(), Tensor(), false);
        }) == "batch_norm: running_mean and running_var must be defined in evaluation mode");
  CHECK(user_error_message([] {
          batch_norm(zeros({1, 3}), Tensor(), Tensor(), Tensor(), Tensor(), true);
        }).find("Expected more than 1 value per channel when training") != std::string::npos);
}

TEST_CASE("batch_norm's gradient matches PyTorch", "[compiler][inplace][batch_norm]") {
  // x = [[1, 2], [3, 5], [0, -1]] (N=3, C=2); loss = sum(bn(x) * [[1, 2], [3, 4], [5, 6]]).
  Tensor x = t({1, 2, 3, 5, 0, -1}, {3, 2});
  x.set_requires_grad(true);
  Tensor rm = zeros({2});
  Tensor rv = ones({2});
  Tensor y = batch_norm(x, rm, rv, Tensor(), Tensor(), true, 0.1, 1e-5);
  sum(mul(y, t({1, 2, 3, 4, 5, 6}, {3, 2}))).backward();
  check_close(x.grad(), {-1.7181019, -0.8164959, 0.5726973, 0.4082473, 1.1454045, 0.4082486}, 1e-4);
  check_close(rm, {0.13333334, 0.2}, 1e-5);
  check_close(rv, {1.1333333, 1.8}, 1e-5);
}

TEST_CASE("a compiled BatchNorm2d in training leaves eager's running statistics",
          "[compiler][inplace][batch_norm][capture]") {
  nn::BatchNorm2d eager_bn(3);
  nn::BatchNorm2d compiled_bn(3);
  auto step = compile([](nn::BatchNorm2d& m, const Tensor& x) { return m(x); },
                      {.name = "bn_step", .arg_names = {"m", "x"}});
  for (int i = 0; i < 3; ++i) {
    const Tensor x = bn_input(1.0 + i);
    const Tensor expected = eager_bn(x);
    const Tensor got = step(compiled_bn, x);
    check_close(got, expected.to_vector(), 1e-4);
    check_close(compiled_bn.running_mean(), eager_bn.running_mean().to_vector(), 1e-5);
    check_close(compiled_bn.running_var(), eager_bn.running_var().to_vector(), 1e-5);
    CHECK(compiled_bn.num_batches_tracked().to_vector() ==
          eager_bn.num_batches_tracked().to_vector());
  }
  compiled_bn.eval();
  eager_bn.eval();
  check_close(step(compiled_bn, bn_input()), eager_bn(bn_input()).to_vector(), 1e-4);
}

TEST_CASE("an in-place SGD-with-momentum step compiled matches eager",
          "[compiler][inplace][capture]") {
  auto sgd = [](const Tensor& param, const Tensor& grad, const Tensor& momentum_buf) {
    mul_(momentum_buf, 0.9);
    add_(momentum_buf, grad);
    sub_(param, mul(momentum_buf, 0.1));
    return param;
  };
  auto compiled = compile(sgd, {.name = "sgd", .arg_names = {"param", "grad", "buf"}});
  Tensor p_eager = t({1, 2, 3}, {3});
  Tensor b_eager = zeros({3});
  Tensor p_comp = t({1, 2, 3}, {3});
  Tensor b_comp = zeros({3});
  for (int i = 0; i < 3; ++i) {
    const Tensor g = t({0.5, -1, 2.0 + i}, {3});
    sgd(p_eager, g, b_eager);
    compiled(p_comp, g, b_comp);
  }
  check_close(p_comp, p_eager.to_vector());
  check_close(b_comp, b_eager.to_vector());
  check_close(b_comp, {0.5 * 2.71, -2.71, 2 * 0.81 + 3 * 0.9 + 4}); // PyTorch's SGD buffer
}

TEST_CASE("a mutated input is written back before a graph break reads it",
          "[compiler][inplace][capture]") {
  auto body = [](const Tensor& x) {
    mul_(x, 2.0);
    const double total = sum(x).item_double(); // a graph break: reads the written input
    add_(x, total);
    return sin(x);
  };
  auto compiled = compile(body, {.name = "mutate_then_break", .arg_names = {"x"}});
  for (int call = 0; call < 2; ++call) {
    const Tensor x_eager = t({0.5, 1.0, -0.25}, {3});
    const Tensor x_comp = t({0.5, 1.0, -0.25}, {3});
    const Tensor expected = body(x_eager);
    const Tensor got = compiled(x_comp);
    check_values(x_eager, {3.5, 4.5, 2.0});
    check_close(x_comp, x_eager.to_vector());
    check_close(got, expected.to_vector());
  }
}

TEST_CASE("a compiled BatchNorm2d training step gives eager's gradients and running statistics",
          "[compiler][inplace][batch_norm][capture]") {
  nn::BatchNorm2d eager_bn(3);
  nn::BatchNorm2d compiled_bn(3);
  auto step = compile([](nn::BatchNorm2d& m, const Tensor& x) { return sum(mul(m(x), m(x))); },
                      {.name = "bn_train", .arg_names = {"m", "x"}});
  Tensor x_eager = bn_input();
  x_eager.set_requires_grad(true);
  Tensor x_comp = bn_input();
  x_comp.set_requires_grad(true);
  sum(mul(eager_bn(x_eager), eager_bn(x_eager))).backward();
  step(compiled_bn, x_comp).backward();
  check_close(x_comp.grad(), x_eager.grad().to_vector(), 1e-4);
  check_close(compiled_bn.parameter("weight").grad(),
              eager_bn.parameter("weight").grad().to_vector(), 1e-4);
  check_close(compiled_bn.running_mean(), eager_bn.running_mean().to_vector(), 1e-5);
  check_close(compiled_bn.running_var(), eager_bn.running_var().to_vector(), 1e-5);
  CHECK(compiled_bn.num_batches_tracked().to_vector() == std::vector<double>{2});
}

TEST_CASE("a compiled write through a view of a constant (a closed-over buffer) reaches it",
          "[compiler][inplace][capture]") {
  const Tensor eager_buf = t({1, 2, 3, 4}, {2, 2});
  const Tensor compiled_buf = t({1, 2, 3, 4}, {2, 2});
  auto body_for = [](const Tensor& buf) {
    return [buf](const Tensor& x) {
      add_(slice(buf, 1, 1, 2), x); // column 1 of the buffer
      return mul(buf, 2.0);
    };
  };
  auto eager = body_for(eager_buf);
  auto compiled = compile(body_for(compiled_buf), {.name = "buffer_view", .arg_names = {"x"}});
  for (int call = 0; call < 2; ++call) {
    const Tensor x = t({10, 20}, {2, 1});
    const Tensor expected = eager(x);
    const Tensor got = compiled(x);
    check_close(got, expected.to_vector());
    check_close(compiled_buf, eager_buf.to_vector());
  }
  check_values(eager_buf, {1, 22, 3, 44});
}
