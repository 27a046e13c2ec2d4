// Gradient check, as torch.autograd.gradcheck: for every differentiable op, over randomly drawn
// shapes (broadcasting, reductions with and without keepdim, views, strided inputs), the
// gradients autograd computes in float64 equal central finite differences of the same function
// in float64. The same cases then run in float32, whose gradients must agree with float64's
// to float32's precision (the derivative table's dtype handling), and every differentiable op
// must be covered by some case.
#include "compiler/autograd/autograd.h"
#include "compiler/ops/ops.h"
#include "custom_op_fixture.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace compiler;

namespace {

using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

// One input: its values are drawn in [lo, hi]; integer inputs (indices) are fixed.
struct InputSpec {
  std::vector<std::int64_t> sizes;
  double lo = -2.0;
  double hi = 2.0;
  bool differentiable = true;
  std::vector<double> fixed; // integer inputs: their values
  DType int_dtype = DType::Int64;
};

struct Case {
  std::string name;
  OpKind op;
  std::vector<InputSpec> inputs;
  Fn f;
};

class Rng {
public:
  explicit Rng(std::uint64_t seed) : gen_(seed) {}
  double uniform(double lo, double hi) { return std::uniform_real_distribution<>(lo, hi)(gen_); }
  std::int64_t below(std::int64_t n) {
    return std::uniform_int_distribution<std::int64_t>(0, n - 1)(gen_);
  }
  std::int64_t between(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(gen_);
  }

private:
  std::mt19937_64 gen_;
};

std::int64_t numel(const std::vector<std::int64_t>& sizes) {
  std::int64_t n = 1;
  for (std::int64_t s : sizes) {
    n *= s;
  }
  return n;
}

// Builds the inputs of a case in `dtype` from values drawn once per case.
std::vector<Tensor> make_inputs(const Case& c, const std::vector<std::vector<double>>& values,
                                DType dtype) {
  std::vector<Tensor> out;
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    const InputSpec& s = c.inputs[i];
    if (!s.differentiable) {
      out.push_back(Tensor::from_values(s.fixed, s.sizes, s.int_dtype));
      continue;
    }
    Tensor t = Tensor::from_values(values[i], s.sizes, dtype);
    t.set_requires_grad(true);
    out.push_back(t);
  }
  return out;
}

// sum(f(x) * w): a scalar whose gradient weighs every output element differently.
Tensor weighted(const Tensor& y, const Tensor& w) {
  return sum(mul(y, w));
}

Tensor weights_for(const Tensor& y, DType dtype) {
  std::vector<double> w(static_cast<std::size_t>(y.numel()));
  for (std::size_t i = 0; i < w.size(); ++i) {
    w[i] = 0.5 + 0.25 * std::sin(1.7 * static_cast<double>(i) + 0.3);
  }
  return Tensor::from_values(w, y.sizes(), dtype);
}

void check_case(const Case& c, Rng& rng) {
  INFO("case: " << c.name);
  std::vector<std::vector<double>> values;
  for (const InputSpec& s : c.inputs) {
    std::vector<double> v(static_cast<std::size_t>(numel(s.sizes)));
    for (double& x : v) {
      x = rng.uniform(s.lo, s.hi);
    }
    values.push_back(std::move(v));
  }
  // Analytic gradients in f64.
  const std::vector<Tensor> x64 = make_inputs(c, values, DType::Float64);
  const Tensor y64 = c.f(x64);
  REQUIRE(y64.dtype() == DType::Float64);
  REQUIRE(y64.requires_grad());
  const Tensor w64 = weights_for(y64, DType::Float64);
  std::vector<Tensor> wrt;
  std::vector<std::size_t> wrt_index;
  for (std::size_t i = 0; i < x64.size(); ++i) {
    if (c.inputs[i].differentiable) {
      wrt.push_back(x64[i]);
      wrt_index.push_back(i);
    }
  }
  const Tensor loss = weighted(y64, w64);
  const Tensor loss_outputs[] = {loss};
  const std::vector<Tensor> analytic = autograd::grad(loss_outputs, wrt);

  // Central differences of the same scalar, in f64, with no history recorded.
  autograd::NoGradGuard no_grad;
  constexpr double kStep = 1e-6;
  for (std::size_t k = 0; k < wrt.size(); ++k) {
    const std::size_t i = wrt_index[k];
    const std::vector<double> a = analytic[k].to_vector();
    REQUIRE(a.size() == values[i].size());
    for (std::size_t e = 0; e < values[i].size(); ++e) {
      std::vector<std::vector<double>> plus = values;
      std::vector<std::vector<double>> minus = values;
      plus[i][e] += kStep;
      minus[i][e] -= kStep;
      const double fp = weighted(c.f(make_inputs(c, plus, DType::Float64)), w64).item_double();
      const double fm = weighted(c.f(make_inputs(c, minus, DType::Float64)), w64).item_double();
      const double numeric = (fp - fm) / (2 * kStep);
      INFO("input " << i << " element " << e << ": autograd " << a[e] << ", finite difference "
                    << numeric);
      CHECK(std::abs(a[e] - numeric) <= 1e-5 * std::max(1.0, std::abs(numeric)));
    }
  }

  // The same in f32: gradients come back in f32 and agree with f64's.
  autograd::GradModeGuard grad_on(true);
  const std::vector<Tensor> x32 = make_inputs(c, values, DType::Float32);
  const Tensor y32 = c.f(x32);
  const Tensor loss32 = weighted(y32, weights_for(y32, DType::Float32));
  std::vector<Tensor> wrt32;
  for (std::size_t i : wrt_index) {
    wrt32.push_back(x32[i]);
  }
  const Tensor loss32_outputs[] = {loss32};
  const std::vector<Tensor> g32 = autograd::grad(loss32_outputs, wrt32);
  for (std::size_t k = 0; k < g32.size(); ++k) {
    REQUIRE(g32[k].dtype() == DType::Float32);
    const std::vector<double> a = analytic[k].to_vector();
    const std::vector<double> b = g32[k].to_vector();
    for (std::size_t e = 0; e < a.size(); ++e) {
      INFO("f32 input " << wrt_index[k] << " element " << e);
      CHECK(std::abs(a[e] - b[e]) <= 2e-3 * std::max(1.0, std::abs(a[e])));
    }
  }
}

// A random shape of rank in [lo_rank, hi_rank], sizes in [1, 4].
std::vector<std::int64_t> random_shape(Rng& rng, std::int64_t lo_rank, std::int64_t hi_rank) {
  std::vector<std::int64_t> s(static_cast<std::size_t>(rng.between(lo_rank, hi_rank)));
  for (std::int64_t& d : s) {
    d = rng.between(1, 4);
  }
  return s;
}

// A shape `base` broadcasts from: some leading dims dropped, some dims set to 1.
std::vector<std::int64_t> broadcast_source(Rng& rng, const std::vector<std::int64_t>& base) {
  std::vector<std::int64_t> s(base.begin() + rng.between(0, static_cast<std::int64_t>(base.size())),
                              base.end());
  for (std::int64_t& d : s) {
    if (rng.below(3) == 0) {
      d = 1;
    }
  }
  return s;
}

InputSpec in(std::vector<std::int64_t> sizes, double lo = -2.0, double hi = 2.0) {
  InputSpec s;
  s.sizes = std::move(sizes);
  s.lo = lo;
  s.hi = hi;
  return s;
}

InputSpec indices(std::vector<std::int64_t> sizes, std::vector<double> values) {
  InputSpec s;
  s.sizes = std::move(sizes);
  s.differentiable = false;
  s.fixed = std::move(values);
  return s;
}

std::vector<Case> cases(Rng& rng) {
  std::vector<Case> out;
  using V = const std::vector<Tensor>&;
  auto binary = [&](std::string name, OpKind op, double lo, double hi,
                    Tensor (*f)(const Tensor&, const Tensor&, SourceLoc),
                    Tensor (*fs)(const Tensor&, double, SourceLoc)) {
    for (int k = 0; k < 3; ++k) {
      const std::vector<std::int64_t> a = random_shape(rng, 0, 3);
      const std::vector<std::int64_t> b = broadcast_source(rng, a);
      const bool swap = rng.below(2) == 0;
      out.push_back(
          {name + " broadcast", op, {in(swap ? b : a, lo, hi), in(swap ? a : b, lo, hi)}, [f](V x) {
             return f(x[0], x[1], SourceLoc::current());
           }});
    }
    out.push_back({name + " scalar", op, {in(random_shape(rng, 1, 3), lo, hi)}, [fs](V x) {
                     return fs(x[0], 1.7, SourceLoc::current());
                   }});
  };
  binary("add", OpKind::add, -2, 2, &add, &add);
  binary("sub", OpKind::sub, -2, 2, &sub, &sub);
  binary("mul", OpKind::mul, -2, 2, &mul, &mul);
  binary("div", OpKind::div, 0.5, 2, &div, &div);
  binary("pow", OpKind::pow, 0.5, 2, &pow, &pow);
  binary("maximum", OpKind::maximum, -2, 2, &maximum, &maximum);
  {
    const std::vector<std::int64_t> s = random_shape(rng, 1, 3);
    out.push_back({"where", OpKind::where, {in(s), in(broadcast_source(rng, s))}, [](V x) {
                     return where(gt(x[0], 0.0), x[0], x[1]);
                   }});
  }
  auto unary = [&](std::string name, OpKind op, double lo, double hi, Fn f) {
    out.push_back({name, op, {in(random_shape(rng, 0, 3), lo, hi)}, std::move(f)});
  };
  unary("neg", OpKind::neg, -2, 2, [](V x) { return neg(x[0]); });
  unary("exp", OpKind::exp, -2, 2, [](V x) { return exp(x[0]); });
  unary("log", OpKind::log, 0.5, 3, [](V x) { return log(x[0]); });
  unary("sin", OpKind::sin, -2, 2, [](V x) { return sin(x[0]); });
  unary("cos", OpKind::cos, -2, 2, [](V x) { return cos(x[0]); });
  unary("tanh", OpKind::tanh, -2, 2, [](V x) { return tanh(x[0]); });
  unary("sigmoid", OpKind::sigmoid, -2, 2, [](V x) { return sigmoid(x[0]); });
  unary("relu", OpKind::relu, 0.1, 2, [](V x) { return relu(sub(x[0], 1.0)); });
  unary("gelu", OpKind::gelu, -2, 2, [](V x) { return gelu(x[0]); });
  unary("gelu tanh", OpKind::gelu, -2, 2, [](V x) { return gelu(x[0], "tanh"); });
  unary("sqrt", OpKind::sqrt, 0.5, 3, [](V x) { return sqrt(x[0]); });
  unary("rsqrt", OpKind::rsqrt, 0.5, 3, [](V x) { return rsqrt(x[0]); });
  unary("abs", OpKind::abs, 0.2, 2, [](V x) { return abs(sub(x[0], 1.1)); });
  unary("erf", OpKind::erf, -2, 2, [](V x) { return erf(x[0]); });
  unary("silu", OpKind::silu, -2, 2, [](V x) { return silu(x[0]); });
  unary("to_dtype", OpKind::to_dtype, -2, 2,
        [](V x) { return to_dtype(to_dtype(x[0], DType::Float64), x[0].dtype()); });
  // On the host to the host: returns its input, as PyTorch's does (ToCopyBackward0 itself runs
  // when the device changes: the GPU test in autograd_test.cpp).
  unary("to", OpKind::to, -2, 2, [](V x) { return to(x[0], Device::cpu()); });
  // pointwise, more
  binary("minimum", OpKind::minimum, -2, 2, &minimum, &minimum);
  binary("clamp_min", OpKind::clamp_min, -2, 2, &clamp_min, &clamp_min);
  binary("clamp_max", OpKind::clamp_max, -2, 2, &clamp_max, &clamp_max);
  unary("clamp scalars", OpKind::clamp, -2, 2, [](V x) { return clamp(x[0], -0.5, 0.7); });
  {
    const std::vector<std::int64_t> s = random_shape(rng, 1, 3);
    out.push_back(
        {"clamp tensors",
         OpKind::clamp,
         {in(s), in(broadcast_source(rng, s), -1, 0), in(broadcast_source(rng, s), -1, 1)},
         [](V x) { return clamp(x[0], x[1], x[2]); }});
  }
  unary("floor", OpKind::floor, -2, 2, [](V x) { return floor(x[0]); });
  unary("ceil", OpKind::ceil, -2, 2, [](V x) { return ceil(x[0]); });
  unary("round", OpKind::round, -2, 2, [](V x) { return round(x[0]); });
  unary("trunc", OpKind::trunc, -2, 2, [](V x) { return trunc(x[0]); });
  unary("sign", OpKind::sign, -2, 2, [](V x) { return sign(x[0]); });
  unary("log1p", OpKind::log1p, -0.5, 2, [](V x) { return log1p(x[0]); });
  unary("expm1", OpKind::expm1, -2, 2, [](V x) { return expm1(x[0]); });
  unary("tan", OpKind::tan, -1.2, 1.2, [](V x) { return tan(x[0]); });
  unary("atan", OpKind::atan, -2, 2, [](V x) { return atan(x[0]); });
  unary("asin", OpKind::asin, -0.9, 0.9, [](V x) { return asin(x[0]); });
  unary("acos", OpKind::acos, -0.9, 0.9, [](V x) { return acos(x[0]); });
  unary("sinh", OpKind::sinh, -2, 2, [](V x) { return sinh(x[0]); });
  unary("cosh", OpKind::cosh, -2, 2, [](V x) { return cosh(x[0]); });
  unary("nan_to_num", OpKind::nan_to_num, -2, 2, [](V x) { return nan_to_num(x[0]); });
  unary("masked_fill", OpKind::masked_fill, -2, 2,
        [](V x) { return masked_fill(x[0], gt(x[0], 0.3), -1.5); });
  unary("leaky_relu", OpKind::leaky_relu, -2, 2, [](V x) { return leaky_relu(x[0], 0.2); });
  unary("elu", OpKind::elu, -2, 2, [](V x) { return elu(x[0], 1.5); });
  unary("softplus", OpKind::softplus, -2, 2, [](V x) { return softplus(x[0], 2.0, 1.0); });
  unary("hardswish", OpKind::hardswish, -4, 4, [](V x) { return hardswish(x[0]); });
  for (bool keepdim : {false, true}) {
    const std::string kd = keepdim ? " keepdim" : "";
    const std::vector<std::int64_t> s = random_shape(rng, 2, 3);
    const std::int64_t d = rng.between(-2, 1);
    out.push_back({"sum dim" + kd, OpKind::sum, {in(s)}, [d, keepdim](V x) {
                     return sum(x[0], {d}, keepdim);
                   }});
    out.push_back(
        {"sum all" + kd, OpKind::sum, {in(s)}, [keepdim](V x) { return sum(x[0], {}, keepdim); }});
    out.push_back({"mean dims" + kd, OpKind::mean, {in(s)}, [keepdim](V x) {
                     return mean(x[0], {0, -1}, keepdim);
                   }});
    out.push_back({"amax" + kd, OpKind::amax, {in(s)}, [d, keepdim](V x) {
                     return amax(x[0], {d}, keepdim);
                   }});
    out.push_back({"amin all" + kd, OpKind::amin, {in(s)}, [keepdim](V x) {
                     return amin(x[0], {}, keepdim);
                   }});
  }
  {
    const std::int64_t n = rng.between(1, 4);
    const std::int64_t k = rng.between(1, 4);
    const std::int64_t m = rng.between(1, 4);
    out.push_back({"addmm", OpKind::addmm, {in({m}), in({n, k}), in({k, m})}, [](V x) {
                     return addmm(x[0], x[1], x[2]);
                   }});
    // A user op's registered backward (tests/compiler/custom_op_fixture.h).
    out.push_back({"custom op", OpKind::custom_op, {in({n, k}), in({n, k})}, [](V x) {
                     return call_custom_op(test_ops::scale_mul_name(), {x[0], x[1]}, {0.75});
                   }});
    out.push_back({"matmul 2d", OpKind::matmul, {in({n, k}), in({k, m})}, [](V x) {
                     return matmul(x[0], x[1]);
                   }});
    out.push_back(
        {"matmul batched broadcast", OpKind::matmul, {in({2, 1, n, k}), in({3, k, m})}, [](V x) {
           return matmul(x[0], x[1]);
         }});
    out.push_back({"matmul vector-matrix", OpKind::matmul, {in({k}), in({2, k, m})}, [](V x) {
                     return matmul(x[0], x[1]);
                   }});
    out.push_back({"matmul matrix-vector", OpKind::matmul, {in({n, k}), in({k})}, [](V x) {
                     return matmul(x[0], x[1]);
                   }});
    out.push_back(
        {"matmul dot", OpKind::matmul, {in({k}), in({k})}, [](V x) { return matmul(x[0], x[1]); }});
    out.push_back({"mm of a transposed view", OpKind::mm, {in({k, n}), in({k, m})}, [](V x) {
                     return mm(transpose(x[0], 0, 1), x[1]);
                   }});
    out.push_back(
        {"bmm", OpKind::bmm, {in({2, n, k}), in({2, k, m})}, [](V x) { return bmm(x[0], x[1]); }});
  }
  {
    const std::vector<std::int64_t> s = random_shape(rng, 1, 3);
    const std::int64_t d = -1;
    out.push_back({"softmax", OpKind::softmax, {in(s)}, [d](V x) { return softmax(x[0], d); }});
    out.push_back({"log_softmax dim 0", OpKind::log_softmax, {in(s)}, [](V x) {
                     return log_softmax(x[0], 0);
                   }});
  }
  {
    const std::int64_t c = rng.between(2, 5);
    out.push_back(
        {"layer_norm affine", OpKind::layer_norm, {in({3, c}), in({c}), in({c})}, [c](V x) {
           return layer_norm(x[0], {c}, x[1], x[2]);
         }});
    out.push_back({"layer_norm two dims, no affine", OpKind::layer_norm, {in({2, 2, c})}, [c](V x) {
                     return layer_norm(x[0], {2, c});
                   }});
  }
  // convolution, pooling, group_norm (issue 26)
  out.push_back({"conv2d groups, stride, padding, dilation",
                 OpKind::convolution,
                 {in({2, 4, 5, 6}), in({4, 2, 2, 3}), in({4})},
                 [](V x) {
                   return conv2d(x[0], x[1], x[2], {2, 1}, {1, 2}, {2, 1}, 2);
                 }});
  out.push_back(
      {"conv1d 1x1, no bias", OpKind::convolution, {in({1, 3, 5}), in({2, 3, 1})}, [](V x) {
         return conv1d(x[0], x[1]);
       }});
  out.push_back({"max_pool2d padding, ceil mode", OpKind::max_pool2d, {in({2, 2, 5, 6})}, [](V x) {
                   return max_pool2d(x[0], {3, 2}, {2}, {1}, {1}, true);
                 }});
  out.push_back({"avg_pool2d without the padding", OpKind::avg_pool2d, {in({1, 2, 5, 5})}, [](V x) {
                   return avg_pool2d(x[0], {3}, {2}, {1}, true, false);
                 }});
  out.push_back(
      {"adaptive_avg_pool2d uneven", OpKind::adaptive_avg_pool2d, {in({2, 2, 5, 7})}, [](V x) {
         return adaptive_avg_pool2d(x[0], {3, 4});
       }});
  out.push_back(
      {"group_norm affine", OpKind::group_norm, {in({2, 4, 3, 2}), in({4}), in({4})}, [](V x) {
         return group_norm(x[0], 2, x[1], x[2], 1e-5);
       }});
  out.push_back({"embedding with repeated rows",
                 OpKind::embedding,
                 {in({5, 3}), indices({2, 3}, {0, 4, 1, 4, 4, 2})},
                 [](V x) { return embedding(x[0], x[1]); }});
  out.push_back({"cross_entropy batch",
                 OpKind::cross_entropy,
                 {in({4, 3}), indices({4}, {0, 2, 1, 2})},
                 [](V x) { return cross_entropy(x[0], x[1]); }});
  out.push_back(
      {"cross_entropy single", OpKind::cross_entropy, {in({5}), indices({}, {3})}, [](V x) {
         return cross_entropy(x[0], x[1]);
       }});
  // issue 26: var, logsumexp, the losses, dropout
  out.push_back({"var over a dim, keepdim", OpKind::var, {in({3, 4})}, [](V x) {
                   return var(x[0], {1}, 1.0, true);
                 }});
  out.push_back({"var of everything, unbiased false", OpKind::var, {in({2, 3})}, [](V x) {
                   return var(x[0], {}, 0.0);
                 }});
  out.push_back({"logsumexp over two dims", OpKind::logsumexp, {in({2, 3, 2})}, [](V x) {
                   return logsumexp(x[0], {0, 2});
                 }});
  out.push_back(
      {"mse_loss with a broadcast target", OpKind::mse_loss, {in({3, 4}), in({4})}, [](V x) {
         return mse_loss(x[0], x[1]);
       }});
  out.push_back({"mse_loss unreduced", OpKind::mse_loss, {in({2, 3}), in({2, 3})}, [](V x) {
                   return mse_loss(x[0], x[1], "none");
                 }});
  out.push_back({"binary_cross_entropy_with_logits summed",
                 OpKind::binary_cross_entropy_with_logits,
                 {in({3, 2}), in({3, 2})},
                 [](V x) { return binary_cross_entropy_with_logits(x[0], sigmoid(x[1]), "sum"); }});
  out.push_back({"dropout from a fixed seed and offset", OpKind::dropout, {in({4, 5})}, [](V x) {
                   return dropout(x[0], 0.3, 17, SymInt(250));
                 }});
  out.push_back(
      {"gather", OpKind::gather, {in({3, 4}), indices({2, 4}, {0, 2, 1, 2, 2, 0, 0, 1})}, [](V x) {
         return gather(x[0], 0, x[1]);
       }});
  out.push_back({"scatter_add",
                 OpKind::scatter_add,
                 {in({3, 2}), indices({2, 2}, {0, 2, 0, 1}), in({2, 2})},
                 [](V x) { return scatter_add(x[0], 0, x[1], x[2]); }});
  // indexing, more
  out.push_back({"index_select with a repeated row",
                 OpKind::index_select,
                 {in({3, 4}), indices({4}, {2, 0, 2, 3})},
                 [](V x) { return index_select(x[0], 1, x[1]); }});
  out.push_back({"narrow from the end", OpKind::narrow, {in({5, 3})}, [](V x) {
                   return narrow(x[0], 0, -4, 2);
                 }});
  out.push_back({"tril above the diagonal", OpKind::tril, {in({2, 3, 4})}, [](V x) {
                   return tril(x[0], 1);
                 }});
  out.push_back({"repeat with a new leading dim", OpKind::repeat, {in({2, 3})}, [](V x) {
                   return repeat(x[0], {2, 1, 3});
                 }});
  out.push_back({"roll two dims", OpKind::roll, {in({3, 4})}, [](V x) {
                   return roll(x[0], {1, -5}, {0, 1});
                 }});
  out.push_back(
      {"roll flattened", OpKind::roll, {in({3, 2})}, [](V x) { return roll(x[0], {4}); }});
  out.push_back(
      {"triu below the diagonal", OpKind::triu, {in({4, 3})}, [](V x) { return triu(x[0], -1); }});
  {
    const std::vector<std::int64_t> s = {2, 3, 4};
    out.push_back({"view", OpKind::view, {in(s)}, [](V x) { return view(x[0], {6, 4}); }});
    out.push_back({"reshape of a transposed view", OpKind::reshape, {in(s)}, [](V x) {
                     return reshape(transpose(x[0], 0, 2), {-1});
                   }});
    out.push_back(
        {"transpose", OpKind::transpose, {in(s)}, [](V x) { return transpose(x[0], 0, -1); }});
    out.push_back({"permute", OpKind::permute, {in(s)}, [](V x) {
                     return permute(x[0], {2, 0, 1});
                   }});
    out.push_back({"slice", OpKind::slice, {in(s)}, [](V x) { return slice(x[0], 2, 1, 3); }});
    out.push_back({"slice negative start, step 2", OpKind::slice, {in(s)}, [](V x) {
                     return slice(x[0], -1, -4, 4, 2);
                   }});
    out.push_back({"expand", OpKind::expand, {in({3, 1})}, [](V x) {
                     return expand(x[0], {2, 3, 4});
                   }});
    out.push_back(
        {"unsqueeze", OpKind::unsqueeze, {in(s)}, [](V x) { return unsqueeze(x[0], -2); }});
    out.push_back({"squeeze", OpKind::squeeze, {in({2, 1, 3})}, [](V x) { return squeeze(x[0]); }});
    out.push_back({"contiguous of a permuted view", OpKind::contiguous, {in(s)}, [](V x) {
                     return contiguous(permute(x[0], {1, 2, 0}));
                   }});
    out.push_back({"cat", OpKind::cat, {in({2, 3}), in({1, 3}), in({3, 3})}, [](V x) {
                     return cat({x[0], x[1], x[2]}, 0);
                   }});
    out.push_back({"stack", OpKind::stack, {in({2, 3}), in({2, 3})}, [](V x) {
                     return stack({x[0], x[1]}, 1);
                   }});
  }
  // Functions written with ops rather than op-list entries: batch_norm (a composite of mean,
  // rsqrt, ...) and the in-place ops (their out-of-place op, with self rebound to its result).
  out.push_back({"batch_norm, training", OpKind::mean, {in({3, 2, 2}), in({2}), in({2})}, [](V x) {
                   return batch_norm(x[0], Tensor(), Tensor(), x[1], x[2], true);
                 }});
  out.push_back({"batch_norm, evaluation",
                 OpKind::rsqrt,
                 {in({3, 2}), in({2}), in({2}, 0.5, 2.0), in({2}), in({2})},
                 [](V x) { return batch_norm(x[0], x[1], x[2], x[3], x[4], false); }});
  out.push_back({"in-place ops on a non-leaf",
                 OpKind::mul,
                 {in({2, 3}), in({3}), in({2, 3}, 0.5, 2.0)},
                 [](V x) {
                   Tensor y = mul(x[0], 1.0);
                   mul_(y, x[1]);
                   add_(y, x[0]);
                   sub_(y, x[1]);
                   div_(y, x[2]);
                   return y;
                 }});
  return out;
}

} // namespace

namespace {
// The "pointwise, more" ops whose results are bool or integer tensors (no gradient).
bool bool_or_integer_result(OpKind op) {
  switch (op) {
  case OpKind::logical_and:
  case OpKind::logical_or:
  case OpKind::logical_xor:
  case OpKind::logical_not:
  case OpKind::bitwise_and:
  case OpKind::bitwise_or:
  case OpKind::bitwise_xor:
  case OpKind::bitwise_not:
  case OpKind::isnan:
  case OpKind::isinf:
    return true;
  default:
    return false;
  }
}
} // namespace

TEST_CASE("gradcheck: autograd's gradients equal float64 finite differences for every "
          "differentiable op",
          "[compiler][autograd]") {
  for (std::uint64_t seed : {1u, 2u}) {
    Rng rng(seed);
    const std::vector<Case> all = cases(rng);
    std::set<OpKind> covered;
    for (const Case& c : all) {
      check_case(c, rng);
      covered.insert(c.op);
    }
    // Every op whose result can require grad has a case (the backward ops' results never do).
    for (int i = 0; i < kNumOps; ++i) {
      const auto op = static_cast<OpKind>(i);
      const OpCategory cat = op_category(op);
      const bool differentiable =
          cat != OpCategory::Factory && cat != OpCategory::DataDependent && op != OpKind::argmax &&
          op != OpKind::detach && op != OpKind::eq && op != OpKind::ne && op != OpKind::lt &&
          op != OpKind::le && op != OpKind::gt && op != OpKind::ge && !bool_or_integer_result(op) &&
          // the backward ops of convolution and pooling: no higher-order gradients
          op != OpKind::convolution_backward && op != OpKind::max_pool2d_backward &&
          op != OpKind::avg_pool2d_backward;
      INFO("op " << op_name(op));
      CHECK(covered.count(op) == static_cast<std::size_t>(differentiable ? 1 : 0));
    }
  }
}
