// The compiled training path end to end: compile() with inputs or parameters that require
// grad runs the AOT stage's forward graph, and backward() through its results runs the
// compiled backward graph. Gradients must equal eager autograd's; grad mode and requires_grad
// are guarded; graph breaks, dynamic shapes and recompiles keep working with grad on; the
// saved activations are no more than eager autograd keeps.
#include "compiler/aot/aot.h"
#include "compiler/autograd/autograd.h"
#include "compiler/capture/compile.h"
#include "compiler/core/errors.h"
#include "compiler/cuda/cuda.h"
#include "compiler/nn/layers.h"
#include "compiler/ops/ops.h"
#include "compiler/optim/optim.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>

using namespace compiler;

namespace {

Tensor wave(std::vector<std::int64_t> sizes, double seed) {
  std::int64_t n = 1;
  for (std::int64_t s : sizes) {
    n *= s;
  }
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i] = std::sin(0.37 * static_cast<double>(i) + seed);
  }
  return Tensor::from_values(v, std::move(sizes));
}

Tensor leaf(std::vector<std::int64_t> sizes, double seed) {
  Tensor t = wave(std::move(sizes), seed);
  t.set_requires_grad(true);
  return t;
}

void check_close(const Tensor& got, const Tensor& want, double tol = 1e-5) {
  REQUIRE(got.defined());
  REQUIRE(want.defined());
  REQUIRE(got.sizes() == want.sizes());
  const std::vector<double> a = got.to_vector();
  const std::vector<double> b = want.to_vector();
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO("element " << i << ": compiled " << a[i] << ", eager " << b[i]);
    CHECK(std::abs(a[i] - b[i]) <= tol * std::max(1.0, std::abs(b[i])));
  }
}

bool contains(const std::string& s, const std::string& needle) {
  return s.find(needle) != std::string::npos;
}

} // namespace

TEST_CASE("a compiled function's gradients equal eager autograd's", "[compiler][aot]") {
  auto f = [](const Tensor& x, const Tensor& w) {
    return sum(mul(gelu(matmul(x, w)), softmax(matmul(x, w), -1)));
  };
  auto cf = compile(f, {.arg_names = {"x", "w"}});
  const Tensor x = leaf({4, 3}, 0.1);
  const Tensor w = leaf({3, 5}, 0.2);
  const Tensor xe = leaf({4, 3}, 0.1);
  const Tensor we = leaf({3, 5}, 0.2);
  const Tensor y = cf(x, w);
  const Tensor ye = f(xe, we);
  check_close(y, ye);
  REQUIRE(y.requires_grad());
  CHECK(autograd::grad_fn_of(y)->name() == "CompiledFunctionBackward");
  y.backward();
  ye.backward();
  check_close(x.grad(), xe.grad());
  check_close(w.grad(), we.grad());
}

TEST_CASE("module parameters are lifted: a compiled MLP trains like the eager one",
          "[compiler][aot]") {
  auto make = [] {
    return std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
        std::make_shared<nn::Linear>(6, 8, true, 1), std::make_shared<nn::GELU>(),
        std::make_shared<nn::LayerNorm>(std::vector<std::int64_t>{8}),
        std::make_shared<nn::Linear>(8, 3, true, 2)});
  };
  auto compiled_model = make();
  auto eager_model = make();
  auto forward = [](nn::Sequential& m, const Tensor& x) { return m(x); };
  auto cforward = compile(forward, {.name = "mlp", .arg_names = {"model", "x"}});
  optim::SGD copt(compiled_model->parameters(), {.lr = 0.1, .momentum = 0.9});
  optim::SGD eopt(eager_model->parameters(), {.lr = 0.1, .momentum = 0.9});
  const Tensor target = Tensor::from_values({0, 2, 1, 1, 0}, {5}, DType::Int64);
  for (int step = 0; step < 5; ++step) {
    const Tensor x = wave({5, 6}, step);
    const Tensor closs = cross_entropy(cforward(*compiled_model, x), target);
    const Tensor eloss = cross_entropy(forward(*eager_model, x), target);
    INFO("step " << step);
    CHECK(closs.item_double() == Approx(eloss.item_double()).epsilon(1e-5));
    closs.backward();
    eloss.backward();
    const auto cp = compiled_model->named_parameters();
    const auto ep = eager_model->named_parameters();
    for (std::size_t i = 0; i < cp.size(); ++i) {
      INFO("parameter " << cp[i].first);
      check_close(cp[i].second.grad(), ep[i].second.grad(), 1e-4);
    }
    copt.step();
    eopt.step();
    copt.zero_grad();
    eopt.zero_grad();
  }
  CHECK(cforward.stats().compiles == 1); // in-place parameter updates do not recompile
}

TEST_CASE("grad mode and requires_grad are guarded: no_grad compiles an inference graph",
          "[compiler][aot]") {
  auto f = [](const Tensor& x) { return sum(exp(x)); };
  auto cf = compile(f, {.arg_names = {"x"}});
  const Tensor x = leaf({3}, 0.5);
  const aot::AotStats before = aot::aot_stats();
  cf(x).backward();
  check_close(x.grad(), exp(x.detach()));
  {
    autograd::NoGradGuard no_grad;
    const Tensor y = cf(x);
    CHECK_FALSE(y.requires_grad());
  }
  REQUIRE(cf.records().size() == 2);
  CHECK(contains(cf.records()[1].recompile_reasons[0], "GLOBAL_STATE changed: grad_mode"));
  CHECK(contains(cf.records()[0].guards, "GLOBAL_STATE"));
  const Tensor plain = wave({3}, 0.5);
  CHECK_FALSE(cf(plain).requires_grad()); // requires_grad=False: a third entry
  REQUIRE(cf.records().size() == 3);
  CHECK(contains(cf.records()[2].recompile_reasons.back(), "requires_grad mismatch"));
  const aot::AotStats after = aot::aot_stats();
  CHECK(after.joint_compiles - before.joint_compiles == 1);
  CHECK(after.inference_compiles + after.cache_hits - before.inference_compiles -
            before.cache_hits ==
        2);
}

TEST_CASE("graph breaks keep gradients flowing across the frames", "[compiler][aot]") {
  auto f = [](const Tensor& x, const Tensor& w) {
    Tensor h = tanh(mul(x, w));
    const double s = sum(h).item_double(); // a graph break: two frames
    return sum(mul(h, s > 0 ? w : neg(w)));
  };
  auto cf = compile(f, {.arg_names = {"x", "w"}});
  const Tensor x = leaf({4}, 0.3);
  const Tensor w = leaf({4}, 0.9);
  const Tensor xe = leaf({4}, 0.3);
  const Tensor we = leaf({4}, 0.9);
  cf(x, w).backward();
  f(xe, we).backward();
  CHECK(cf.stats().graph_breaks >= 1);
  check_close(x.grad(), xe.grad());
  check_close(w.grad(), we.grad());
}

TEST_CASE("dynamic shapes train: a recompile with a symbolic batch keeps gradients right",
          "[compiler][aot]") {
  auto f = [](const Tensor& x, const Tensor& w) { return mean(relu(matmul(x, w))); };
  auto cf = compile(f, {.arg_names = {"x", "w"}});
  const Tensor w = leaf({3, 2}, 0.4);
  for (std::int64_t batch : {4, 6, 9}) {
    INFO("batch " << batch);
    const Tensor x = wave({batch, 3}, 0.1 * static_cast<double>(batch));
    const Tensor we = leaf({3, 2}, 0.4);
    w.set_grad(Tensor());
    cf(x, w).backward();
    f(x, we).backward();
    check_close(w.grad(), we.grad());
  }
  CHECK(cf.stats().compiles == 2); // static, then dynamic batch
}

TEST_CASE("compiled backward refuses a second run and in-place changes of what it saved",
          "[compiler][aot]") {
  auto f = [](const Tensor& x, const Tensor& w) { return sum(mul(sin(x), w)); };
  auto cf = compile(f, {.arg_names = {"x", "w"}});
  const Tensor x = leaf({3}, 0.2);
  const Tensor w = leaf({3}, 0.7);
  const Tensor y = cf(x, w);
  y.backward();
  CHECK_THROWS_AS(y.backward(), UserError);
  const Tensor y2 = cf(x, w);
  {
    autograd::NoGradGuard no_grad;
    autograd::assign_(w, Tensor::from_values({1, 1, 1}, {3}));
  }
  try {
    y2.backward();
    FAIL("expected a UserError");
  } catch (const UserError& e) {
    CHECK(contains(e.message(), "modified by an inplace operation"));
  }
}

TEST_CASE("the compiled MLP saves no more activation bytes than eager autograd",
          "[compiler][aot]") {
  nn::Sequential model({std::make_shared<nn::Linear>(16, 32, true, 3), std::make_shared<nn::GELU>(),
                        std::make_shared<nn::LayerNorm>(std::vector<std::int64_t>{32}),
                        std::make_shared<nn::Linear>(32, 4, true, 4)});
  auto forward = [](nn::Sequential& m, const Tensor& x) { return m(x); };
  auto cforward = compile(forward, {.arg_names = {"model", "x"}});
  const Tensor x = wave({8, 16}, 0.0);
  const Tensor compiled_out[] = {cforward(model, x)};
  const Tensor eager_out[] = {forward(model, x)};
  const std::size_t compiled_bytes = autograd::saved_activation_bytes(compiled_out);
  const std::size_t eager_bytes = autograd::saved_activation_bytes(eager_out);
  INFO("compiled " << compiled_bytes << " bytes, eager " << eager_bytes << " bytes");
  CHECK(compiled_bytes > 0);
  CHECK(compiled_bytes <= eager_bytes);
}

TEST_CASE("an identical graph compiled again reuses the traced graphs (AOTAutograd's cache)",
          "[compiler][aot]") {
  auto f = [](const Tensor& x) { return sum(mul(tanh(x), 3.0)); };
  auto first = compile(f, {.name = "cached", .arg_names = {"x"}});
  auto second = compile(f, {.name = "cached", .arg_names = {"x"}});
  const Tensor x = leaf({5}, 0.3);
  const Tensor x2 = leaf({5}, 0.3);
  const aot::AotStats before = aot::aot_stats();
  first(x).backward();
  second(x2).backward();
  const aot::AotStats after = aot::aot_stats();
  CHECK(after.joint_compiles - before.joint_compiles == 1);
  CHECK(after.cache_hits - before.cache_hits == 1);
  check_close(x2.grad(), x.grad());
}

TEST_CASE("a compiled function that returns its input gives it a history of its own",
          "[compiler][aot]") {
  auto f = [](const Tensor& x, const Tensor& y) { return std::make_tuple(x, mul(x, y)); };
  auto cf = compile(f, {.arg_names = {"x", "y"}});
  const Tensor x = leaf({3}, 0.1);
  const Tensor y = leaf({3}, 0.2);
  const auto [same, product] = cf(x, y);
  CHECK(x.is_leaf()); // the input itself keeps no history
  sum(add(same, product)).backward();
  check_close(x.grad(), add(y.detach(), 1.0));
  check_close(y.grad(), x.detach());
}

TEST_CASE("backward() inside a compiled function is a user error naming the line",
          "[compiler][aot]") {
  int line = 0;
  auto f = [&line](const Tensor& x) {
    Tensor loss = sum(mul(x, x));
    line = __LINE__ + 1;
    loss.backward();
    return loss;
  };
  auto cf = compile(f, {.arg_names = {"x"}});
  const Tensor x = leaf({3}, 0.1);
  try {
    cf(x);
    FAIL("expected a UserError");
  } catch (const UserError& e) {
    CHECK(contains(e.message(), "backward() inside a compiled function"));
    CHECK(e.where().line() == static_cast<std::uint_least32_t>(line));
  }
  CHECK_FALSE(x.grad().defined());
}

TEST_CASE("gradients cross devices: a host-GPU round trip, eager and compiled (needs a GPU)",
          "[compiler][aot][device]") {
  if (!cuda::is_available()) {
    WARN("SKIPPED: no usable GPU (" << cuda::unavailable_reason() << ")");
    return;
  }
  // Eager: each copy records ToCopyBackward0, whose formula copies the gradient back.
  const Tensor x = leaf({3, 4}, 0.3);
  const Tensor on_gpu = x.to("cuda");
  CHECK(on_gpu.device() == Device::cuda(0));
  REQUIRE(autograd::grad_fn_of(on_gpu) != nullptr);
  CHECK(autograd::grad_fn_of(on_gpu)->name() == "ToCopyBackward0");
  const Tensor back = on_gpu.to("cpu");
  sum(mul(back, back)).backward();
  REQUIRE(x.grad().defined());
  CHECK(x.grad().device() == Device::cpu());
  check_close(x.grad(), mul(x.detach(), 2.0));

  // Compiled: the interpreter runs the copies (its other kernels run on the host), the
  // backward graph copies the tangent to the GPU and the gradient back.
  auto f = [](const Tensor& a) { return mul(a.to("cuda").to("cpu"), 3.0); };
  auto cf = compile(f, {.arg_names = {"a"}});
  const Tensor a = leaf({3, 4}, 0.7);
  const Tensor y = cf(a);
  CHECK(y.device() == Device::cpu());
  check_close(y, mul(a.detach(), 3.0));
  sum(y).backward();
  REQUIRE(a.grad().defined());
  CHECK(a.grad().device() == Device::cpu());
  check_close(a.grad(), full({3, 4}, 3.0, DType::Float32));
}

TEST_CASE("a compiled cross-entropy's gradient on the GPU equals the host's (needs a GPU)",
          "[compiler][aot][device]") {
  if (!cuda::is_available()) {
    WARN("SKIPPED: no usable GPU (" << cuda::unavailable_reason() << ")");
    return;
  }
  // The gradient's one-hot compares the targets with class indices made on the targets' device
  // (made on the host, the backward graph's trace refused to mix devices).
  auto f = [](const Tensor& logits, const Tensor& target) { return cross_entropy(logits, target); };
  auto cf = compile(f, {.arg_names = {"logits", "target"}});
  const Tensor target = Tensor::from_values({2, 0, 3}, {3}, DType::Int64);
  const Tensor host = leaf({3, 4}, 0.4);
  Tensor on_gpu = wave({3, 4}, 0.4).to("cuda");
  on_gpu.set_requires_grad(true);
  const Tensor want = f(host, target);
  want.backward();
  const Tensor got = cf(on_gpu, target.to("cuda"));
  CHECK(got.device() == Device::cuda(0));
  check_close(got.to("cpu"), want);
  got.backward();
  REQUIRE(on_gpu.grad().defined());
  CHECK(on_gpu.grad().device() == Device::cuda(0));
  check_close(on_gpu.grad().to("cpu"), host.grad());
}
