// Convolution (conv1d/conv2d, aten.convolution and its backward), max/avg/adaptive pooling and
// group norm (issue 26): eager values and gradients against PyTorch 1.13's (float64,
// nn_conv_pool_values.h, written by nn_conv_pool_values.py), the errors PyTorch raises, the nn
// layers, and compiled by Inductor on the host against eager: pooling and group norm as
// generated loops with no fallback, convolution as an extern kernel call.
#include "compiler/capture/compile.h"
#include "compiler/core/errors.h"
#include "compiler/inductor/metrics.h"
#include "compiler/nn/layers.h"
#include "compiler/ops/ops.h"
#include "inductor_compare.h"
#include "inductor_test_data.h"
#include "nn_conv_pool_values.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <span>
#include <vector>

using namespace compiler;
using inductor_test::wave;
namespace values = conv_pool_values;

namespace {

// fmod(i * a, m) - off over the flat index, as nn_conv_pool_values.py's data().
Tensor data(std::vector<std::int64_t> sizes, double a = 0.37, double m = 1.3, double off = 0.6,
            DType dtype = DType::Float64) {
  std::int64_t n = 1;
  for (std::int64_t s : sizes) {
    n *= s;
  }
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    v[static_cast<std::size_t>(i)] = std::fmod(static_cast<double>(i) * a, m) - off;
  }
  return Tensor::from_values(std::span<const double>(v.data(), v.size()), std::move(sizes), dtype);
}

void expect_values(const Tensor& got, const std::vector<double>& want, const char* what) {
  INFO(what << ": " << got.type_string());
  const std::vector<double> v = got.to_vector();
  REQUIRE(v.size() == want.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    INFO("element " << i << ": " << v[i] << ", want " << want[i]);
    CHECK(std::abs(v[i] - want[i]) <= 1e-10 * (1.0 + std::abs(want[i])));
  }
}

// Runs f on `inputs` (each requiring grad), backpropagates sum(y * data(y.shape, 0.53, 0.9,
// 0.4)) and compares y and each input's gradient with PyTorch's.
void expect_case(const std::function<Tensor(std::vector<Tensor>&)>& f, std::vector<Tensor> inputs,
                 const std::vector<double>& y_want,
                 const std::vector<const std::vector<double>*>& grads_want) {
  for (Tensor& t : inputs) {
    t.set_requires_grad(true);
  }
  const Tensor y = f(inputs);
  expect_values(y, y_want, "forward");
  sum(mul(y, data(y.sizes(), 0.53, 0.9, 0.4))).backward();
  REQUIRE(grads_want.size() == inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    INFO("gradient of input " << i);
    expect_values(inputs[i].grad(), *grads_want[i], "gradient");
  }
}

} // namespace

TEST_CASE("conv2d with groups, stride, padding and dilation matches PyTorch, gradients too",
          "[nn][conv]") {
  expect_case(
      [](std::vector<Tensor>& t) {
        return conv2d(t[0], t[1], t[2], {2, 1}, {1, 2}, {1, 2}, 2);
      },
      {data({2, 4, 5, 6}), data({6, 2, 3, 3}, 0.29, 0.7, 0.3), data({6}, 0.5, 1.1, 0.5)},
      values::conv_groups_y,
      {&values::conv_groups_g0, &values::conv_groups_g1, &values::conv_groups_g2});
}

TEST_CASE("float32 convolution (the blocked GEMM) and its gradients equal float64's",
          "[nn][conv]") {
  for (const bool pointwise : {false, true}) {
    INFO((pointwise ? "1x1" : "3x3, groups 2"));
    std::vector<Tensor> leaves;
    std::vector<Tensor> results;
    for (const DType dtype : {DType::Float64, DType::Float32}) {
      Tensor x = data({3, 4, 9, 7}, 0.37, 1.3, 0.6, dtype);
      Tensor w = pointwise ? data({6, 4, 1, 1}, 0.29, 0.7, 0.3, dtype)
                           : data({6, 2, 3, 3}, 0.29, 0.7, 0.3, dtype);
      x.set_requires_grad(true);
      w.set_requires_grad(true);
      const Tensor y = pointwise ? conv2d(x, w) : conv2d(x, w, Tensor(), {2, 1}, {1}, {1}, 2);
      sum(mul(y, data(y.sizes(), 0.53, 0.9, 0.4, dtype))).backward();
      results.push_back(y);
      leaves.push_back(x);
      leaves.push_back(w);
    }
    auto close_to = [](const Tensor& f32, const Tensor& f64) {
      const std::vector<double> a = f32.to_vector();
      const std::vector<double> b = f64.to_vector();
      REQUIRE(a.size() == b.size());
      for (std::size_t i = 0; i < a.size(); ++i) {
        INFO("element " << i << ": " << a[i] << " vs " << b[i]);
        CHECK(std::abs(a[i] - b[i]) <= 1e-5 * (1.0 + std::abs(b[i])));
      }
    };
    close_to(results[1], results[0]);
    close_to(leaves[2].grad(), leaves[0].grad());
    close_to(leaves[3].grad(), leaves[1].grad());
  }
}

TEST_CASE("a 1x1 conv2d of batch 1 without bias matches PyTorch", "[nn][conv]") {
  expect_case([](std::vector<Tensor>& t) { return conv2d(t[0], t[1]); },
              {data({1, 3, 4, 4}), data({5, 3, 1, 1}, 0.29, 0.7, 0.3)}, values::conv_1x1_y,
              {&values::conv_1x1_g0, &values::conv_1x1_g1});
}

TEST_CASE("conv1d with stride and padding matches PyTorch", "[nn][conv]") {
  expect_case([](std::vector<Tensor>& t) { return conv1d(t[0], t[1], t[2], {2}, {1}); },
              {data({2, 3, 7}), data({4, 3, 3}, 0.29, 0.7, 0.3), data({4}, 0.5, 1.1, 0.5)},
              values::conv1d_y, {&values::conv1d_g0, &values::conv1d_g1, &values::conv1d_g2});
  // Unbatched: the batched result's only row.
  const Tensor x = data({2, 3, 7});
  const Tensor w = data({4, 3, 3}, 0.29, 0.7, 0.3);
  const Tensor one = conv1d(narrow(x, 0, 1, 1), w, Tensor(), {2}, {1});
  const Tensor unbatched = conv1d(reshape(narrow(x, 0, 1, 1), {3, 7}), w, Tensor(), {2}, {1});
  CHECK(unbatched.sizes() == std::vector<std::int64_t>{4, 4});
  CHECK(unbatched.to_vector() == one.to_vector());
}

TEST_CASE("an unbatched conv2d matches PyTorch", "[nn][conv]") {
  expect_case([](std::vector<Tensor>& t) { return conv2d(t[0], t[1], Tensor(), {1}, {1}); },
              {data({3, 5, 5}), data({2, 3, 2, 2}, 0.29, 0.7, 0.3)}, values::conv_unbatched_y,
              {&values::conv_unbatched_g0, &values::conv_unbatched_g1});
}

TEST_CASE("max_pool2d with padding, ceil mode and dilation matches PyTorch", "[nn][pool]") {
  expect_case([](std::vector<Tensor>& t) { return max_pool2d(t[0], {3}, {2}, {1}, {1}, true); },
              {data({2, 3, 7, 6})}, values::maxpool_ceil_y, {&values::maxpool_ceil_g0});
  expect_case(
      [](std::vector<Tensor>& t) {
        return max_pool2d(t[0], {2, 3}, {1, 2}, {0}, {2});
      },
      {data({1, 2, 7, 8})}, values::maxpool_dilated_y, {&values::maxpool_dilated_g0});
}

TEST_CASE("max_pool2d propagates NaN and sends a tie's gradient to the first maximum",
          "[nn][pool]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor x = Tensor::from_values(std::vector<double>{1, 3, 3, nan, 2, 2, 0, 1}, {1, 1, 2, 4});
  x.set_requires_grad(true);
  const Tensor y = max_pool2d(x, {2});
  const std::vector<double> v = y.to_vector();
  CHECK(v[0] == 3); // window 0 holds 1, 3, 2, 2; window 1 holds 3, NaN, 0, 1
  CHECK(std::isnan(v[1]));
  sum(y).backward();
  // torch: x.grad = [[0, 1, 0, 1], [0, 0, 0, 0]]
  CHECK(x.grad().to_vector() == std::vector<double>{0, 1, 0, 1, 0, 0, 0, 0});
  // A tie: the first of the two 3s, scanning rows.
  Tensor tie = Tensor::from_values(std::vector<double>{1, 3, 3, 2}, {1, 1, 2, 2});
  tie.set_requires_grad(true);
  sum(max_pool2d(tie, {2})).backward();
  CHECK(tie.grad().to_vector() == std::vector<double>{0, 1, 0, 0});
}

TEST_CASE("avg_pool2d with and without counting the padding matches PyTorch", "[nn][pool]") {
  expect_case([](std::vector<Tensor>& t) { return avg_pool2d(t[0], {3}, {2}, {1}, true, false); },
              {data({2, 3, 7, 6})}, values::avgpool_ceil_y, {&values::avgpool_ceil_g0});
  expect_case(
      [](std::vector<Tensor>& t) {
        return avg_pool2d(t[0], {2, 3}, {2, 1}, {1, 1});
      },
      {data({1, 2, 5, 5})}, values::avgpool_pad_y, {&values::avgpool_pad_g0});
}

TEST_CASE("adaptive_avg_pool2d over uneven windows matches PyTorch", "[nn][pool]") {
  expect_case(
      [](std::vector<Tensor>& t) {
        return adaptive_avg_pool2d(t[0], {3, 4});
      },
      {data({2, 2, 7, 6})}, values::adaptive_y, {&values::adaptive_g0});
  // Even windows are avg_pool2d's.
  const Tensor x = data({1, 2, 6, 4});
  CHECK(adaptive_avg_pool2d(x, {3, 2}).to_vector() == avg_pool2d(x, {2}, {2}).to_vector());
}

TEST_CASE("group_norm matches PyTorch, gradients of input, weight and bias too", "[nn][norm]") {
  expect_case([](std::vector<Tensor>& t) { return group_norm(t[0], 3, t[1], t[2], 1e-5); },
              {data({2, 6, 3, 4}), add(data({6}, 0.29, 0.7, 0.3), 1.0), data({6}, 0.5, 1.1, 0.5)},
              values::groupnorm_y,
              {&values::groupnorm_g0, &values::groupnorm_g1, &values::groupnorm_g2});
  // instance_norm: a group per channel.
  const Tensor x = data({2, 3, 4, 2});
  CHECK(instance_norm(x).to_vector() == group_norm(x, 3).to_vector());
}

TEST_CASE("convolution, pooling and group_norm refuse what PyTorch refuses", "[nn][conv][pool]") {
  const Tensor x = data({1, 4, 5, 5});
  const Tensor w = data({6, 2, 3, 3});
  CHECK_THROWS_AS(conv2d(data({4, 5}), w), UserError);       // wrong rank
  CHECK_THROWS_AS(conv2d(x, data({6, 3, 3, 3})), UserError); // 4 channels, weight wants 3
  CHECK_THROWS_AS(conv2d(x, data({5, 2, 3, 3}), Tensor(), {1}, {0}, {1}, 2), UserError); // 5 % 2
  CHECK_THROWS_AS(conv2d(x, w, Tensor(), {1}, {0}, {1}, 3), UserError);  // 6 % 3 ok, 4 != 2 * 3
  CHECK_THROWS_AS(conv2d(x, w, data({5}), {1}, {0}, {1}, 2), UserError); // bias size
  CHECK_THROWS_AS(conv2d(x, w, Tensor(), {0}, {0}, {1}, 2), UserError);  // stride 0
  CHECK_THROWS_AS(conv2d(x, w, Tensor(), {1}, {-1}, {1}, 2), UserError); // negative padding
  CHECK_THROWS_AS(conv2d(x, w, Tensor(), {1}, {0}, {3}, 2), UserError);  // dilated kernel > input
  CHECK_THROWS_AS(conv2d(x, w, Tensor(), {1, 1, 1}), UserError);         // 3 strides
  CHECK_THROWS_AS(conv2d(x, w, Tensor(), {1}, {0}, {1}, 0), UserError);  // groups 0
  CHECK_THROWS_AS(conv2d(to_dtype(x, DType::Float32), w, Tensor(), {1}, {0}, {1}, 2), UserError);
  CHECK_THROWS_AS(conv1d(x, data({2, 4, 3})), UserError); // 4-D input to conv1d
  try {
    (void)conv2d(x, data({6, 3, 3, 3}));
    FAIL("no error");
  } catch (const UserError& e) {
    CHECK(std::string(e.what()).find("expected input[1, 4, 5, 5] to have 3 channels, but got 4 "
                                     "channels instead") != std::string::npos);
  }
  CHECK_THROWS_AS(max_pool2d(data({4, 5}), {2}), UserError);     // 2-D
  CHECK_THROWS_AS(max_pool2d(x, {2}, {}, {2}), UserError);       // pad > kernel / 2
  CHECK_THROWS_AS(max_pool2d(x, {0}), UserError);                // kernel 0
  CHECK_THROWS_AS(max_pool2d(x, {6}), UserError);                // output too small
  CHECK_THROWS_AS(max_pool2d(x, {2}, {1, 1, 1}), UserError);     // 3 strides
  CHECK_THROWS_AS(max_pool2d(x, {2}, {2}, {0}, {0}), UserError); // dilation 0
  CHECK_THROWS_AS(avg_pool2d(x, {3}, {1}, {2}), UserError);      // pad > kernel / 2
  CHECK_THROWS_AS(avg_pool2d(data({1, 1, 5, 5}, 0.37, 1.3, 0.6, DType::Int64), {2}), UserError);
  CHECK_THROWS_AS(adaptive_avg_pool2d(x, {2}), UserError);               // one size
  CHECK_THROWS_AS(adaptive_avg_pool2d(data({4, 5}), {2, 2}), UserError); // 2-D
  CHECK_THROWS_AS(group_norm(x, 3), UserError);                          // 4 % 3
  CHECK_THROWS_AS(group_norm(x, 2, data({3})), UserError);               // weight size
  CHECK_THROWS_AS(group_norm(data({4}), 2), UserError);                  // 1-D
}

TEST_CASE("the CNN layers register their parameters, initialise from a seed and run the ops",
          "[nn][conv]") {
  nn::Conv2d conv(4, 6, {3}, {1}, {1}, {1}, 2, true, 7);
  CHECK(conv.named_parameters().size() == 2);
  CHECK(conv.weight().sizes() == std::vector<std::int64_t>{6, 2, 3, 3});
  nn::Conv2d same(4, 6, {3}, {1}, {1}, {1}, 2, true, 7);
  CHECK(conv.weight().to_vector() == same.weight().to_vector());
  CHECK(conv.to_string().find("Conv2d(4, 6, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), "
                              "groups=2)") != std::string::npos);
  CHECK_THROWS_AS(nn::Conv2d(4, 6, {3}, {1}, {0}, {1}, 3), UserError);
  nn::GroupNorm norm(2, 6);
  CHECK(norm.named_parameters().size() == 2);
  CHECK_THROWS_AS(nn::GroupNorm(4, 6), UserError);
  nn::MaxPool2d pool({2});
  nn::AvgPool2d avg({2});
  nn::AdaptiveAvgPool2d adaptive({1});
  const Tensor x = wave({2, 4, 8, 8}, 1);
  const Tensor y = adaptive(avg(pool(norm(conv(x)))));
  CHECK(y.sizes() == std::vector<std::int64_t>{2, 6, 1, 1});
  const Tensor want = adaptive_avg_pool2d(
      avg_pool2d(max_pool2d(group_norm(conv2d(x, conv.weight(), conv.bias(), {1}, {1}, {1}, 2), 2,
                                       Tensor(), Tensor()),
                            {2}),
                 {2}),
      {1, 1});
  CHECK(y.to_vector() == want.to_vector());
}

namespace {

// A small CNN: conv (extern), ReLU, max pool, group norm, avg pool, conv 1x1, adaptive pool.
Tensor cnn(const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& gw, const Tensor& gb,
           const Tensor& w2) {
  Tensor h = relu(conv2d(x, w1, b1, {1}, {1}));
  h = max_pool2d(h, {3}, {2}, {1});
  h = group_norm(h, 2, gw, gb, 1e-5);
  h = avg_pool2d(h, {2}, {2}, {0}, true, false);
  h = conv2d(h, w2);
  return adaptive_avg_pool2d(h, {1, 1});
}

} // namespace

TEST_CASE("a CNN compiles: pooling and group norm as loops, conv as an extern call, its backward "
          "on its eager kernel",
          "[nn][conv][pool][inductor]") {
  auto leaf = [](std::vector<std::int64_t> sizes, double seed, double amplitude) {
    Tensor t = wave(std::move(sizes), seed, amplitude);
    t.set_requires_grad(true);
    return t;
  };
  auto make = [&] {
    return std::vector<Tensor>{leaf({2, 3, 11, 9}, 1, 1.0), leaf({8, 3, 3, 3}, 2, 0.3),
                               leaf({8}, 3, 0.1),           leaf({8}, 4, 1.0),
                               leaf({8}, 5, 0.2),           leaf({5, 8, 1, 1}, 6, 0.4)};
  };
  std::vector<Tensor> eager = make();
  std::vector<Tensor> compiled = make();
  auto f = [](const Tensor& x, const Tensor& w1, const Tensor& b1, const Tensor& gw,
              const Tensor& gb, const Tensor& w2) { return sum(cnn(x, w1, b1, gw, gb, w2)); };
  const Tensor want = f(eager[0], eager[1], eager[2], eager[3], eager[4], eager[5]);
  want.backward();
  auto cf = compile(f, {.backend = "inductor"});
  inductor::reset_counters();
  const Tensor got =
      cf(compiled[0], compiled[1], compiled[2], compiled[3], compiled[4], compiled[5]);
  got.backward();
  const inductor::Counters c = inductor::counters();
  CHECK(c.graphs_compiled == 2);
  // The forward's two convolutions are extern calls; the backward's four convolution_backward
  // nodes (input and weight gradients of each) run on their eager kernel, as Inductor leaves
  // aten.convolution_backward to a fallback kernel; pooling and group norm are generated.
  CHECK(c.extern_calls == 2);
  CHECK(c.fallback_runs == 4);
  CHECK(c.kernel_launches > 0);
  CHECK_CLOSE(got, want);
  for (std::size_t i = 0; i < eager.size(); ++i) {
    INFO("gradient " << i);
    std::string why;
    const bool ok = inductor_test::close(compiled[i].grad(), eager[i].grad(), why, 1e-4);
    INFO(why);
    CHECK(ok);
  }
}

TEST_CASE("pooling and group norm compile for inference with no fallback", "[nn][pool][inductor]") {
  const Tensor x = wave({3, 4, 9, 7}, 2);
  const Tensor gw = wave({4}, 3);
  auto f = [&](const Tensor& t) {
    const Tensor a = max_pool2d(relu(t), {2, 3}, {1, 2}, {1}, {2}, true);
    const Tensor b = avg_pool2d(t, {3}, {2}, {1}, false, true);
    const Tensor c = adaptive_avg_pool2d(group_norm(t, 2, gw), {2, 3});
    return add(add(sum(a), sum(b)), sum(c));
  };
  auto cf = compile(f, {.backend = "inductor"});
  inductor::reset_counters();
  const Tensor got = cf(x);
  const inductor::Counters c = inductor::counters();
  CHECK(c.fallback_runs == 0);
  std::string why;
  const bool ok = inductor_test::close(got, f(x), why, 1e-4);
  INFO(why);
  CHECK(ok);
}
