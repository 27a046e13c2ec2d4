// THE derivative table: one entry per op, in op-list order (ops/op_list.h), the role of
// PyTorch's derivatives.yaml. Each entry says which arguments backward keeps and gives the
// formula, written with ops, from the output's gradient `g` to each input's gradient. Eager
// autograd runs these formulas on real tensors; the AOT stage runs them under its tracer to
// build the backward half of the joint graph. A static_assert checks the table follows the op
// list, so an op cannot be added without deciding its derivative.
//
// Conventions: argument positions follow ops.cpp's layouts; gradients may come back in a wider
// dtype or not yet reduced over broadcast dims only where a formula says so (sum_to); the
// backward node casts each gradient to its input's dtype.
#include "autograd/derivatives.h"

#include "autograd/formula_helpers.h"
#include "compiler/core/errors.h"
#include "compiler/ops/custom_ops.h"
#include "compiler/ops/ops.h"
#include "kernels/shape_util.h"

#include <array>
#include <cmath>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

namespace compiler::autograd::detail {

namespace {

using Ctx = GradContext;
using Sink = GradSink;

constexpr std::uint32_t args(std::initializer_list<int> positions) {
  std::uint32_t mask = 0;
  for (int p : positions) {
    mask |= 1u << p;
  }
  return mask;
}

const std::vector<SymInt>& sizes_of(const Ctx& c, std::size_t arg) {
  return c.meta(arg).sizes;
}

// ---- pointwise, binary: {a, b | scalar}

void add_grad(const Ctx& c, Sink& out) {
  out.set(0, sum_to(c.grad(), sizes_of(c, 0)));
  if (c.is_tensor(1) && c.needs(1)) {
    out.set(1, sum_to(c.grad(), sizes_of(c, 1)));
  }
}

void sub_grad(const Ctx& c, Sink& out) {
  out.set(0, sum_to(c.grad(), sizes_of(c, 0)));
  if (c.is_tensor(1) && c.needs(1)) {
    out.set(1, neg(sum_to(c.grad(), sizes_of(c, 1))));
  }
}

void mul_grad(const Ctx& c, Sink& out) {
  if (!c.is_tensor(1)) {
    out.set(0, mul(c.grad(), value_double(c.arg(1))));
    return;
  }
  if (c.needs(0)) {
    out.set(0, sum_to(mul(c.grad(), c.saved(1)), sizes_of(c, 0)));
  }
  if (c.needs(1)) {
    out.set(1, sum_to(mul(c.grad(), c.saved(0)), sizes_of(c, 1)));
  }
}

void div_grad(const Ctx& c, Sink& out) {
  if (!c.is_tensor(1)) {
    out.set(0, div(c.grad(), value_double(c.arg(1))));
    return;
  }
  const Tensor& b = c.saved(1);
  if (c.needs(0)) {
    out.set(0, sum_to(div(c.grad(), b), sizes_of(c, 0)));
  }
  if (c.needs(1)) {
    // d(a/b)/db = -a / b^2
    out.set(1, sum_to(neg(div(mul(c.grad(), c.saved(0)), mul(b, b))), sizes_of(c, 1)));
  }
}

void pow_grad(const Ctx& c, Sink& out) {
  const Tensor& a = c.saved(0);
  const Tensor& g = c.grad();
  if (!c.is_tensor(1)) {
    const double e = value_double(c.arg(1));
    if (e == 0.0) {
      out.set(0, mul(g, 0.0));
    } else {
      out.set(0, mul(mul(g, pow(a, e - 1.0)), e));
    }
    return;
  }
  const Tensor& b = c.saved(1);
  if (c.needs(0)) {
    out.set(0, sum_to(mul(mul(g, b), pow(a, sub(b, 1.0))), sizes_of(c, 0)));
  }
  if (c.needs(1)) {
    // d(a^b)/db = a^b * log(a); taken as 0 where a == 0 (log is -inf there), as PyTorch does.
    const Tensor raw = mul(g, mul(c.output(), log(a)));
    const Tensor zero = scalar_tensor(0.0, raw);
    out.set(1, sum_to(where(eq(a, 0.0), zero, raw), sizes_of(c, 1)));
  }
}

void maximum_grad(const Ctx& c, Sink& out) {
  // Ties share the gradient equally, as torch.maximum's derivative does.
  const Tensor& a = c.saved(0);
  const Tensor& g = c.grad();
  const DType dt = g.dtype();
  if (!c.is_tensor(1)) {
    const double s = value_double(c.arg(1));
    const Tensor w = add(mask_as(gt(a, s), dt), mul(mask_as(eq(a, s), dt), 0.5));
    out.set(0, mul(g, w));
    return;
  }
  const Tensor& b = c.saved(1);
  const Tensor ties = mul(mask_as(eq(a, b), dt), 0.5);
  if (c.needs(0)) {
    out.set(0, sum_to(mul(g, add(mask_as(gt(a, b), dt), ties)), sizes_of(c, 0)));
  }
  if (c.needs(1)) {
    out.set(1, sum_to(mul(g, add(mask_as(gt(b, a), dt), ties)), sizes_of(c, 1)));
  }
}

// where: {cond, a, b}
void where_grad(const Ctx& c, Sink& out) {
  const Tensor& cond = c.saved(0);
  const Tensor zero = scalar_tensor(0.0, c.grad());
  if (c.needs(1)) {
    out.set(1, sum_to(where(cond, c.grad(), zero), sizes_of(c, 1)));
  }
  if (c.needs(2)) {
    out.set(2, sum_to(where(cond, zero, c.grad()), sizes_of(c, 2)));
  }
}

// ---- pointwise, unary: {x}

void neg_grad(const Ctx& c, Sink& out) {
  out.set(0, neg(c.grad()));
}
void exp_grad(const Ctx& c, Sink& out) {
  out.set(0, mul(c.grad(), c.output()));
}
void log_grad(const Ctx& c, Sink& out) {
  out.set(0, div(c.grad(), c.saved(0)));
}
void sin_grad(const Ctx& c, Sink& out) {
  out.set(0, mul(c.grad(), cos(c.saved(0))));
}
void cos_grad(const Ctx& c, Sink& out) {
  out.set(0, neg(mul(c.grad(), sin(c.saved(0)))));
}
void tanh_grad(const Ctx& c, Sink& out) {
  const Tensor& y = c.output();
  out.set(0, mul(c.grad(), rsub(mul(y, y), 1.0)));
}
void sigmoid_grad(const Ctx& c, Sink& out) {
  const Tensor& y = c.output();
  out.set(0, mul(c.grad(), mul(y, rsub(y, 1.0))));
}
void relu_grad(const Ctx& c, Sink& out) {
  // threshold_backward: the gradient passes where the output is positive.
  out.set(0, mul(c.grad(), gt(c.output(), 0.0)));
}

// gelu: {x, approximate}
void gelu_grad(const Ctx& c, Sink& out) {
  const Tensor& x = c.saved(0);
  const Tensor& g = c.grad();
  if (value_string(c.arg(1)) == "tanh") {
    constexpr double kBeta = std::numbers::sqrt2 * std::numbers::inv_sqrtpi; // sqrt(2/pi)
    constexpr double kKappa = 0.044715;
    const Tensor x2 = mul(x, x);
    const Tensor inner = mul(add(x, mul(mul(x2, x), kKappa)), kBeta);
    const Tensor t = tanh(inner);
    const Tensor left_derivative = mul(add(t, 1.0), 0.5);
    const Tensor dinner = mul(add(mul(x2, 3.0 * kKappa), 1.0), kBeta);
    const Tensor right_derivative = mul(mul(rsub(mul(t, t), 1.0), dinner), mul(x, 0.5));
    out.set(0, mul(g, add(left_derivative, right_derivative)));
    return;
  }
  constexpr double kInvSqrt2 = std::numbers::sqrt2 / 2.0;
  constexpr double kInvSqrt2Pi = std::numbers::inv_sqrtpi * kInvSqrt2; // 1 / sqrt(2 pi)
  const Tensor cdf = mul(add(erf(mul(x, kInvSqrt2)), 1.0), 0.5);
  const Tensor pdf = mul(exp(mul(mul(x, x), -0.5)), kInvSqrt2Pi);
  out.set(0, mul(g, add(cdf, mul(x, pdf))));
}

void sqrt_grad(const Ctx& c, Sink& out) {
  out.set(0, div(c.grad(), mul(c.output(), 2.0)));
}
void rsqrt_grad(const Ctx& c, Sink& out) {
  const Tensor& y = c.output();
  out.set(0, mul(mul(c.grad(), mul(mul(y, y), y)), -0.5));
}
void abs_grad(const Ctx& c, Sink& out) {
  const Tensor& x = c.saved(0);
  const DType dt = c.grad().dtype();
  out.set(0, mul(c.grad(), sub(mask_as(gt(x, 0.0), dt), mask_as(lt(x, 0.0), dt))));
}
void erf_grad(const Ctx& c, Sink& out) {
  const Tensor& x = c.saved(0);
  constexpr double k2OverSqrtPi = 2.0 * std::numbers::inv_sqrtpi;
  out.set(0, mul(c.grad(), mul(exp(neg(mul(x, x))), k2OverSqrtPi)));
}
void to_dtype_grad(const Ctx& c, Sink& out) {
  out.set(0, to_dtype(c.grad(), c.meta(0).dtype));
}

// ---- pointwise, more

// g where `keep` holds, else 0.
Tensor grad_where(const Tensor& keep, const Tensor& g) {
  return where(keep, g, scalar_tensor(0.0, g));
}

// clamp: {x, min|None, max|None}, each bound a tensor or a scalar. As PyTorch's
// clamp_backward_min_max: x gets the gradient inside [min, max] (bounds included), min where
// x < min (and min < max), max where x > max (or max < min).
void clamp_grad(const Ctx& c, Sink& out) {
  const Tensor& x = c.saved(0);
  const Tensor& g = c.grad();
  // arg() holds tensors as monostate too: a bound is given when it is a tensor or a number.
  const bool has_min = c.is_tensor(1) || !std::holds_alternative<std::monostate>(c.arg(1));
  const bool has_max = c.is_tensor(2) || !std::holds_alternative<std::monostate>(c.arg(2));
  auto cmp = [&](Tensor (*tensor_op)(const Tensor&, const Tensor&, SourceLoc),
                 Tensor (*scalar_op)(const Tensor&, double, SourceLoc), const Tensor& a,
                 std::size_t bound) {
    return c.is_tensor(bound) ? tensor_op(a, c.saved(bound), SourceLoc::current())
                              : scalar_op(a, value_double(c.arg(bound)), SourceLoc::current());
  };
  if (c.needs(0)) {
    Tensor keep;
    if (has_min) {
      keep = cmp(&ge, &ge, x, 1);
    }
    if (has_max) {
      const Tensor below = cmp(&le, &le, x, 2);
      keep = keep.defined() ? logical_and(keep, below) : below;
    }
    out.set(0, sum_to(grad_where(keep, g), sizes_of(c, 0)));
  }
  if (has_min && c.is_tensor(1) && c.needs(1)) {
    Tensor pick = lt(x, c.saved(1));
    if (has_max) {
      pick = logical_and(pick, cmp(&lt, &lt, c.saved(1), 2));
    }
    out.set(1, sum_to(grad_where(pick, g), sizes_of(c, 1)));
  }
  if (has_max && c.is_tensor(2) && c.needs(2)) {
    Tensor pick = gt(x, c.saved(2));
    if (has_min) {
      pick = logical_or(pick, cmp(&lt, &lt, c.saved(2), 1)); // max < min
    }
    out.set(2, sum_to(grad_where(pick, g), sizes_of(c, 2)));
  }
}

// clamp_min / clamp_max: {x, bound}: x keeps the gradient where it is within the bound
// (equality included), the bound gets it elsewhere.
void clamp_min_grad(const Ctx& c, Sink& out) {
  const Tensor& x = c.saved(0);
  const Tensor& g = c.grad();
  if (!c.is_tensor(1)) {
    out.set(0, grad_where(ge(x, value_double(c.arg(1))), g));
    return;
  }
  const Tensor keep = ge(x, c.saved(1));
  if (c.needs(0)) {
    out.set(0, sum_to(grad_where(keep, g), sizes_of(c, 0)));
  }
  if (c.needs(1)) {
    out.set(1, sum_to(grad_where(logical_not(keep), g), sizes_of(c, 1)));
  }
}
void clamp_max_grad(const Ctx& c, Sink& out) {
  const Tensor& x = c.saved(0);
  const Tensor& g = c.grad();
  if (!c.is_tensor(1)) {
    out.set(0, grad_where(le(x, value_double(c.arg(1))), g));
    return;
  }
  const Tensor keep = le(x, c.saved(1));
  if (c.needs(0)) {
    out.set(0, sum_to(grad_where(keep, g), sizes_of(c, 0)));
  }
  if (c.needs(1)) {
    out.set(1, sum_to(grad_where(logical_not(keep), g), sizes_of(c, 1)));
  }
}

void minimum_grad(const Ctx& c, Sink& out) {
  // Ties share the gradient equally, as torch.minimum's derivative does.
  const Tensor& a = c.saved(0);
  const Tensor& g = c.grad();
  const DType dt = g.dtype();
  if (!c.is_tensor(1)) {
    const double s = value_double(c.arg(1));
    const Tensor w = add(mask_as(lt(a, s), dt), mul(mask_as(eq(a, s), dt), 0.5));
    out.set(0, mul(g, w));
    return;
  }
  const Tensor& b = c.saved(1);
  const Tensor ties = mul(mask_as(eq(a, b), dt), 0.5);
  if (c.needs(0)) {
    out.set(0, sum_to(mul(g, add(mask_as(lt(a, b), dt), ties)), sizes_of(c, 0)));
  }
  if (c.needs(1)) {
    out.set(1, sum_to(mul(g, add(mask_as(lt(b, a), dt), ties)), sizes_of(c, 1)));
  }
}

// floor, ceil, round, trunc, sign: piecewise constant, so zeros (PyTorch's zeros_like: not
// g * 0, which would turn an infinite or NaN incoming gradient into NaN).
void zero_grad(const Ctx& c, Sink& out) {
  out.set(0, zeros(sizes_of(c, 0), c.grad().dtype(), c.grad().device()));
}
void log1p_grad(const Ctx& c, Sink& out) {
  out.set(0, div(c.grad(), add(c.saved(0), 1.0)));
}
void expm1_grad(const Ctx& c, Sink& out) {
  out.set(0, mul(c.grad(), add(c.output(), 1.0)));
}
void tan_grad(const Ctx& c, Sink& out) {
  const Tensor& y = c.output();
  out.set(0, mul(c.grad(), add(mul(y, y), 1.0)));
}
void atan_grad(const Ctx& c, Sink& out) {
  const Tensor& x = c.saved(0);
  out.set(0, div(c.grad(), add(mul(x, x), 1.0)));
}
void asin_grad(const Ctx& c, Sink& out) {
  const Tensor& x = c.saved(0);
  out.set(0, mul(c.grad(), rsqrt(rsub(mul(x, x), 1.0))));
}
void acos_grad(const Ctx& c, Sink& out) {
  const Tensor& x = c.saved(0);
  out.set(0, neg(mul(c.grad(), rsqrt(rsub(mul(x, x), 1.0)))));
}
void sinh_grad(const Ctx& c, Sink& out) {
  out.set(0, mul(c.grad(), cosh(c.saved(0))));
}
void cosh_grad(const Ctx& c, Sink& out) {
  out.set(0, mul(c.grad(), sinh(c.saved(0))));
}

// nan_to_num: {x, ...}: the gradient passes where x is finite (PyTorch's isfinite mask).
void nan_to_num_grad(const Ctx& c, Sink& out) {
  const Tensor& x = c.saved(0);
  out.set(0, grad_where(logical_not(logical_or(isnan(x), isinf(x))), c.grad()));
}

// masked_fill: {x, mask, value}: nothing flows from the filled places.
void masked_fill_grad(const Ctx& c, Sink& out) {
  out.set(0, sum_to(grad_where(logical_not(c.saved(1)), c.grad()), sizes_of(c, 0)));
}

// leaky_relu: {x, slope}
void leaky_relu_grad(const Ctx& c, Sink& out) {
  const Tensor& g = c.grad();
  out.set(0, where(gt(c.saved(0), 0.0), g, mul(g, value_double(c.arg(1)))));
}

// elu: {x, alpha}: alpha e^x below and at 0.
void elu_grad(const Ctx& c, Sink& out) {
  const Tensor& x = c.saved(0);
  const Tensor& g = c.grad();
  out.set(0, where(gt(x, 0.0), g, mul(g, mul(exp(x), value_double(c.arg(1))))));
}

// softplus: {x, beta, threshold}: sigmoid(beta x), or 1 where beta x > threshold.
void softplus_grad(const Ctx& c, Sink& out) {
  const Tensor& x = c.saved(0);
  const Tensor& g = c.grad();
  const Tensor scaled = mul(x, value_double(c.arg(1)));
  out.set(0, where(gt(scaled, value_double(c.arg(2))), g, mul(g, sigmoid(scaled))));
}

// hardswish: {x}: 0 below -3, x/3 + 1/2 on [-3, 3], 1 above.
void hardswish_grad(const Ctx& c, Sink& out) {
  const Tensor& x = c.saved(0);
  const Tensor& g = c.grad();
  const Tensor middle = mul(g, add(div(x, 3.0), 0.5));
  out.set(0, where(lt(x, -3.0), scalar_tensor(0.0, g), where(le(x, 3.0), middle, g)));
}

// ---- reductions: {x, int[] dims, bool keepdim}

void sum_grad(const Ctx& c, Sink& out) {
  out.set(0, expand_reduced(c.grad(), sizes_of(c, 0), value_ints(c.arg(1)), value_bool(c.arg(2))));
}

void mean_grad(const Ctx& c, Sink& out) {
  const std::vector<std::int64_t>& dims = value_ints(c.arg(1));
  const Tensor g = expand_reduced(c.grad(), sizes_of(c, 0), dims, value_bool(c.arg(2)));
  out.set(0, div_by(g, reduced_count(sizes_of(c, 0), dims)));
}

// amax / amin: the gradient goes to the elements equal to the result, shared among ties.
void extremum_grad(const Ctx& c, Sink& out) {
  const std::vector<std::int64_t>& dims = value_ints(c.arg(1));
  const bool keepdim = value_bool(c.arg(2));
  const Tensor& x = c.saved(0);
  const Tensor y = expand_reduced(c.output(), sizes_of(c, 0), dims, keepdim);
  const Tensor mask = mask_as(eq(x, y), c.grad().dtype());
  const Tensor count = sum(mask, dims, true);
  const Tensor g = expand_reduced(c.grad(), sizes_of(c, 0), dims, keepdim);
  out.set(0, div(mul(g, mask), count));
}

// var: {x, dims, correction, keepdim}: g * 2 (x - mean) / (N - correction).
void var_grad(const Ctx& c, Sink& out) {
  const std::vector<std::int64_t>& dims = value_ints(c.arg(1));
  const double correction = value_double(c.arg(2));
  const Tensor& x = c.saved(0);
  const SymInt n = reduced_count(sizes_of(c, 0), dims);
  const Tensor centred = sub(x, div_by(sum(x, dims, true), n));
  const Tensor g = expand_reduced(c.grad(), sizes_of(c, 0), dims, value_bool(c.arg(3)));
  const Tensor twice = mul(mul(g, centred), 2.0);
  if (!n.is_symbolic()) {
    out.set(0, div(twice, std::max(0.0, static_cast<double>(n.hint()) - correction)));
  } else {
    out.set(0, div_by(twice, n - SymInt(integral_correction(correction))));
  }
}

// logsumexp: {x, dims, keepdim}: g * exp(x - result).
void logsumexp_grad(const Ctx& c, Sink& out) {
  const std::vector<std::int64_t>& dims = value_ints(c.arg(1));
  const bool keepdim = value_bool(c.arg(2));
  const Tensor result = expand_reduced(c.output(), sizes_of(c, 0), dims, keepdim);
  const Tensor g = expand_reduced(c.grad(), sizes_of(c, 0), dims, keepdim);
  out.set(0, mul(g, exp(sub(c.saved(0), result))));
}

// ---- linear algebra: {a, b}

void matmul_grad(const Ctx& c, Sink& out) {
  const Tensor& g = c.grad();
  const Tensor a = c.needs(1) ? c.saved(0) : Tensor();
  const Tensor b = c.needs(0) ? c.saved(1) : Tensor();
  const std::size_t ra = sizes_of(c, 0).size();
  const std::size_t rb = sizes_of(c, 1).size();
  if (ra == 1 && rb == 1) { // a dot product: g is 0-dim
    if (c.needs(0)) {
      out.set(0, mul(g, b));
    }
    if (c.needs(1)) {
      out.set(1, mul(g, a));
    }
    return;
  }
  // Bring 1-D operands to matrices, as matmul does, then reduce broadcast batch dims away.
  const Tensor a2 = !a.defined() || ra != 1 ? a : unsqueeze(a, 0);
  const Tensor b2 = !b.defined() || rb != 1 ? b : unsqueeze(b, -1);
  Tensor g2 = g;
  if (ra == 1) {
    g2 = unsqueeze(g2, -2);
  }
  if (rb == 1) {
    g2 = unsqueeze(g2, -1);
  }
  if (c.needs(0)) {
    out.set(0, sum_to(matmul(g2, transpose(b2, -1, -2)), sizes_of(c, 0)));
  }
  if (c.needs(1)) {
    Tensor gb = matmul(transpose(a2, -1, -2), g2);
    if (rb == 1) {
      gb = squeeze(gb, -1);
    }
    out.set(1, sum_to(gb, sizes_of(c, 1)));
  }
}

void mm_grad(const Ctx& c, Sink& out) {
  if (c.needs(0)) {
    out.set(0, mm(c.grad(), transpose(c.saved(1), 0, 1)));
  }
  if (c.needs(1)) {
    out.set(1, mm(transpose(c.saved(0), 0, 1), c.grad()));
  }
}

void bmm_grad(const Ctx& c, Sink& out) {
  if (c.needs(0)) {
    out.set(0, bmm(c.grad(), transpose(c.saved(1), 1, 2)));
  }
  if (c.needs(1)) {
    out.set(1, bmm(transpose(c.saved(0), 1, 2), c.grad()));
  }
}

// ---- neural-network composites

// softmax: {x, dim}
void softmax_grad(const Ctx& c, Sink& out) {
  const Tensor& y = c.output();
  const std::int64_t d = value_int(c.arg(1));
  out.set(0, mul(y, sub(c.grad(), sum(mul(c.grad(), y), {d}, true))));
}

void log_softmax_grad(const Ctx& c, Sink& out) {
  const Tensor& y = c.output();
  const std::int64_t d = value_int(c.arg(1));
  out.set(0, sub(c.grad(), mul(exp(y), sum(c.grad(), {d}, true))));
}

// layer_norm: {x, int[] shape, weight|None, bias|None, eps}. The statistics are recomputed
// from x the way the decomposition computes them, so a joint graph shares them (CSE).
void layer_norm_grad(const Ctx& c, Sink& out) {
  const Tensor& x = c.saved(0);
  const Tensor& g = c.grad();
  const std::size_t n = value_ints(c.arg(1)).size();
  const LayerNormStats s = layer_norm_stats(x, n, value_double(c.arg(4)));
  if (c.is_tensor(2) && c.needs(2)) {
    out.set(2, sum_to(mul(g, s.xhat), sizes_of(c, 2)));
  }
  if (c.is_tensor(3) && c.needs(3)) {
    out.set(3, sum_to(g, sizes_of(c, 3)));
  }
  if (c.needs(0)) {
    const std::vector<std::int64_t> axes = trailing_dims(x.dim(), n);
    const Tensor gxhat = c.is_tensor(2) ? mul(g, c.saved(2)) : g;
    const Tensor centered_grad = sub(gxhat, mean(gxhat, axes, true));
    const Tensor projection = mul(s.xhat, mean(mul(gxhat, s.xhat), axes, true));
    out.set(0, mul(sub(centered_grad, projection), s.rstd));
  }
}

// ---- convolution, pooling, normalisation

// convolution: {input, weight, bias|None, stride, padding, dilation, transposed, output_padding,
// groups}. The input's and the weight's gradients are convolution_backward with one mask bit
// each (an op returns one tensor); the bias's is the sum over every dim but the channels'.
void convolution_grad(const Ctx& c, Sink& out) {
  const std::vector<SymInt>& w = sizes_of(c, 1);
  const std::vector<std::int64_t> bias_sizes =
      c.is_tensor(2) ? std::vector<std::int64_t>{w[0].hint()} : std::vector<std::int64_t>{};
  auto backward = [&](std::vector<std::int64_t> mask) {
    return convolution_backward(c.grad(), c.saved(0), c.saved(1), bias_sizes, value_ints(c.arg(3)),
                                value_ints(c.arg(4)), value_ints(c.arg(5)), value_bool(c.arg(6)),
                                value_ints(c.arg(7)), value_int(c.arg(8)), std::move(mask));
  };
  if (c.needs(0)) {
    out.set(0, backward({1, 0, 0}));
  }
  if (c.needs(1)) {
    out.set(1, backward({0, 1, 0}));
  }
  if (c.is_tensor(2) && c.needs(2)) {
    out.set(2, sum(c.grad(), dims_but_channel(c.grad().dim())));
  }
}

// max_pool2d: {x, kernel, stride, padding, dilation, ceil_mode}
void max_pool2d_grad(const Ctx& c, Sink& out) {
  out.set(0, max_pool2d_backward(c.grad(), c.saved(0), value_ints(c.arg(1)), value_ints(c.arg(2)),
                                 value_ints(c.arg(3)), value_ints(c.arg(4)), value_bool(c.arg(5))));
}

// avg_pool2d: {x, kernel, stride, padding, ceil_mode, count_include_pad}
void avg_pool2d_grad(const Ctx& c, Sink& out) {
  out.set(0, avg_pool2d_backward(c.grad(), c.saved(0), value_ints(c.arg(1)), value_ints(c.arg(2)),
                                 value_ints(c.arg(3)), value_bool(c.arg(4)), value_bool(c.arg(5))));
}

// adaptive_avg_pool2d: {x, output_size}. Windows that tile the input evenly are avg_pool2d's
// (as the decomposition computes it); otherwise the op is A_h @ x @ A_w^T, whose gradient is
// A_h^T @ g @ A_w.
void adaptive_avg_pool2d_grad(const Ctx& c, Sink& out) {
  const std::vector<SymInt>& xs = sizes_of(c, 0);
  const std::vector<std::int64_t>& size = value_ints(c.arg(1));
  // The windows depend on the sizes: a traced graph is specialised to them (guarded).
  const std::int64_t h = xs[xs.size() - 2].guard_int();
  const std::int64_t w = xs[xs.size() - 1].guard_int();
  if (size[0] > 0 && size[1] > 0 && h % size[0] == 0 && w % size[1] == 0) {
    const std::vector<std::int64_t> kernel{h / size[0], w / size[1]};
    out.set(0, avg_pool2d_backward(c.grad(), c.saved(0), kernel, kernel, {0, 0}, false, true));
    return;
  }
  const DType dtype = c.grad().dtype();
  const Tensor ah = adaptive_pool_matrix(size[0], h, dtype, c.grad().device());
  const Tensor aw = adaptive_pool_matrix(size[1], w, dtype, c.grad().device());
  out.set(0, matmul(matmul(transpose(ah, 0, 1), c.grad()), aw));
}

// group_norm: {x, num_groups, weight|None, bias|None, eps}: layer_norm's gradient over each
// group, with the statistics recomputed as the decomposition computes them (CSE shares them).
void group_norm_grad(const Ctx& c, Sink& out) {
  const Tensor& x = c.saved(0);
  const Tensor& g = c.grad();
  const std::int64_t groups = value_int(c.arg(1));
  const LayerNormStats s = group_norm_stats(x, groups, value_double(c.arg(4)));
  const std::vector<std::int64_t> per_channel = dims_but_channel(x.dim());
  if (c.is_tensor(2) && c.needs(2)) {
    out.set(2, sum(mul(g, reshape(s.xhat, x.sym_sizes())), per_channel));
  }
  if (c.is_tensor(3) && c.needs(3)) {
    out.set(3, sum(g, per_channel));
  }
  if (c.needs(0)) {
    const Tensor weighted =
        c.is_tensor(2) ? mul(g, reshape(c.saved(2), channel_shape(x.sym_sizes()[1], x.dim()))) : g;
    const Tensor gxhat = reshape(weighted, s.xhat.sym_sizes());
    const Tensor centered_grad = sub(gxhat, mean(gxhat, {2}, true));
    const Tensor projection = mul(s.xhat, mean(mul(gxhat, s.xhat), {2}, true));
    out.set(0, reshape(mul(sub(centered_grad, projection), s.rstd), x.sym_sizes()));
  }
}

// embedding: {weight [num, dim], indices}: the rows' gradients summed into a zero table.
void embedding_grad(const Ctx& c, Sink& out) {
  const std::vector<SymInt>& w = sizes_of(c, 0);
  const Tensor& indices = c.saved(1);
  const SymInt k = indices.sym_numel();
  const Tensor rows = reshape(c.grad(), {k, w[1]});
  const Tensor index = expand(reshape(indices, {k, SymInt(1)}), {k, w[1]});
  out.set(0, scatter_add(zeros(w, c.meta(0).dtype, c.meta(0).device), 0, index, rows));
}

// cross_entropy: {logits [N, C] or [C], target}: (softmax - one_hot) * g / N.
void cross_entropy_grad(const Ctx& c, Sink& out) {
  const Tensor& logits = c.saved(0);
  const Tensor& target = c.saved(1);
  const std::vector<SymInt>& sizes = sizes_of(c, 0);
  const SymInt classes = sizes.back();
  const SymInt batch = sizes.size() == 2 ? sizes[0] : SymInt(1);
  const Tensor one_hot = mask_as(
      eq(unsqueeze(target, -1), arange(classes, DType::Int64, target.device())), logits.dtype());
  const Tensor diff = sub(softmax(logits, -1), one_hot);
  out.set(0, mul(diff, div_by(c.grad(), batch)));
}

// The output's gradient of a loss, spread over the elementwise loss's `count` elements: divided
// by the count for "mean", as it is for "sum" and "none".
Tensor loss_grad_scale(const Tensor& g, const std::string& reduction, const SymInt& count) {
  return reduction == "mean" ? div_by(g, count) : g;
}

// mse_loss: {input, target, reduction}: 2 (input - target) g, reduced to each operand's shape.
void mse_loss_grad(const Ctx& c, Sink& out) {
  const Tensor diff = sub(c.saved(0), c.saved(1));
  const Tensor g = loss_grad_scale(c.grad(), value_string(c.arg(2)), diff.sym_numel());
  const Tensor both = mul(mul(diff, 2.0), g);
  if (c.needs(0)) {
    out.set(0, sum_to(both, sizes_of(c, 0)));
  }
  if (c.needs(1)) {
    out.set(1, neg(sum_to(both, sizes_of(c, 1))));
  }
}

// binary_cross_entropy_with_logits: {input, target, reduction}: (sigmoid(input) - target) g for
// the input, -input g for the target.
void binary_cross_entropy_with_logits_grad(const Ctx& c, Sink& out) {
  const Tensor& input = c.saved(0);
  const Tensor g = loss_grad_scale(c.grad(), value_string(c.arg(2)), input.sym_numel());
  if (c.needs(0)) {
    out.set(0, mul(sub(sigmoid(input), c.saved(1)), g));
  }
  if (c.needs(1)) {
    out.set(1, mul(neg(input), g));
  }
}

// dropout: {x, p, seed, offset}: the same dropout of g. The mask is drawn again from (seed,
// offset), not saved; in a joint graph the backward's rand is the forward's, which CSE merges
// and the partitioner recomputes rather than saves (aot/partitioner.cpp).
void dropout_grad(const Ctx& c, Sink& out) {
  const Value args[] = {c.grad(), c.arg(1), c.arg(2), c.arg(3)}; // seed and offset may be symbols
  out.set(0, value_tensor(dispatch(OpKind::dropout, args)));
}

// ---- indexing

// gather: {x, dim, index}
void gather_grad(const Ctx& c, Sink& out) {
  const std::int64_t dim = value_int(c.arg(1));
  out.set(0, scatter_add(zeros(sizes_of(c, 0), c.meta(0).dtype, c.meta(0).device), dim, c.saved(2),
                         c.grad()));
}

// scatter_add: {x, dim, index, src}
void scatter_add_grad(const Ctx& c, Sink& out) {
  out.set(0, c.grad());
  if (c.needs(3)) {
    out.set(3, gather(c.grad(), value_int(c.arg(1)), c.saved(2)));
  }
}

// ---- indexing, more

// index_select: {x, dim, index}: the gradient's slices summed into zeros at the index.
void index_select_grad(const Ctx& c, Sink& out) {
  const std::vector<SymInt>& sizes = sizes_of(c, 0);
  const std::int64_t dim =
      kernels::wrap_dim(value_int(c.arg(1)), static_cast<std::int64_t>(sizes.size()));
  const Tensor& index = c.saved(2);
  std::vector<SymInt> column(sizes.size(), SymInt(1));
  column[static_cast<std::size_t>(dim)] = index.sym_numel();
  const Tensor spread = expand(reshape(index, column), c.grad().sym_sizes());
  out.set(0, scatter_add(zeros(sizes, c.meta(0).dtype, c.meta(0).device), dim, spread, c.grad()));
}

// narrow: {x, dim, start, length}: the gradient between zeros before and after it.
void narrow_grad(const Ctx& c, Sink& out) {
  const std::vector<SymInt>& sizes = sizes_of(c, 0);
  const auto d = static_cast<std::size_t>(
      kernels::wrap_dim(value_int(c.arg(1)), static_cast<std::int64_t>(sizes.size())));
  SymInt start = value_sym_int(c.arg(2));
  if (start.hint() < 0) {
    start = start + sizes[d];
  }
  const SymInt after = sizes[d] - start - value_sym_int(c.arg(3));
  std::vector<Tensor> pieces;
  auto zero_piece = [&](const SymInt& n) {
    if (!kernels::is_concrete(n, 0)) {
      std::vector<SymInt> s = sizes;
      s[d] = n;
      pieces.push_back(zeros(s, c.meta(0).dtype, c.meta(0).device));
    }
  };
  zero_piece(start);
  pieces.push_back(c.grad());
  zero_piece(after);
  out.set(0, pieces.size() == 1 ? pieces[0] : cat(pieces, static_cast<std::int64_t>(d)));
}

// tril/triu: {x, diagonal}: the same triangle of the gradient.
void tril_grad(const Ctx& c, Sink& out) {
  out.set(0, tril(c.grad(), value_int(c.arg(1))));
}
void triu_grad(const Ctx& c, Sink& out) {
  out.set(0, triu(c.grad(), value_int(c.arg(1))));
}

// repeat: {x, repeats}: the gradient viewed as [r0, s0, r1, s1, ...], summed over the r's.
void repeat_grad(const Ctx& c, Sink& out) {
  const std::vector<SymInt>& sizes = sizes_of(c, 0);
  const std::vector<std::int64_t>& repeats = value_ints(c.arg(1));
  const std::size_t lead = repeats.size() - sizes.size();
  std::vector<SymInt> tiled;
  std::vector<std::int64_t> copies;
  for (std::size_t i = 0; i < repeats.size(); ++i) {
    copies.push_back(static_cast<std::int64_t>(tiled.size()));
    tiled.insert(tiled.end(), {SymInt(repeats[i]), i < lead ? SymInt(1) : sizes[i - lead]});
  }
  out.set(0, reshape(sum(reshape(c.grad(), tiled), copies, false), sizes));
}

// roll: {x, shifts, dims}: the gradient rolled back.
void roll_grad(const Ctx& c, Sink& out) {
  std::vector<std::int64_t> back = value_ints(c.arg(1));
  for (std::int64_t& s : back) {
    s = -s;
  }
  out.set(0, roll(c.grad(), back, value_ints(c.arg(2))));
}

// ---- views: the gradient takes the input's shape back

void reshape_grad(const Ctx& c, Sink& out) {
  out.set(0, reshape(c.grad(), sizes_of(c, 0)));
}

// transpose: {x, d0, d1}
void transpose_grad(const Ctx& c, Sink& out) {
  out.set(0, transpose(c.grad(), value_int(c.arg(1)), value_int(c.arg(2))));
}

// permute: {x, dims}
void permute_grad(const Ctx& c, Sink& out) {
  const std::vector<std::int64_t>& dims = value_ints(c.arg(1));
  const auto rank = static_cast<std::int64_t>(dims.size());
  std::vector<std::int64_t> inverse(dims.size());
  for (std::size_t i = 0; i < dims.size(); ++i) {
    inverse[static_cast<std::size_t>(kernels::wrap_dim(dims[i], rank))] =
        static_cast<std::int64_t>(i);
  }
  out.set(0, permute(c.grad(), inverse));
}

// slice: {x, dim, start, end, step}: the gradient placed back among zeros.
void slice_grad(const Ctx& c, Sink& out) {
  const std::vector<SymInt>& sizes = sizes_of(c, 0);
  const Tensor& g = c.grad();
  const DType dt = c.meta(0).dtype;
  const auto d = static_cast<std::size_t>(
      kernels::wrap_dim(value_int(c.arg(1)), static_cast<std::int64_t>(sizes.size())));
  const std::int64_t step = value_int(c.arg(4));
  const SymInt& size = sizes[d];
  // The clamped start, as the slice computed it (Python slicing rules).
  SymInt start = value_sym_int(c.arg(2));
  if (!start.is_symbolic()) {
    std::int64_t s = start.hint();
    if (s < 0) {
      s = std::max<std::int64_t>(0, s + size.hint());
    }
    start = std::min(s, size.hint());
  }
  const SymInt length = g.sym_sizes()[d];
  if (step == 1) {
    std::vector<Tensor> pieces;
    auto zero_piece = [&](const SymInt& n) {
      std::vector<SymInt> s = sizes;
      s[d] = n;
      pieces.push_back(zeros(s, dt, g.device()));
    };
    if (!kernels::is_concrete(start, 0)) {
      zero_piece(start);
    }
    pieces.push_back(g);
    const SymInt after = size - start - length;
    if (!kernels::is_concrete(after, 0)) {
      zero_piece(after);
    }
    out.set(0, pieces.size() == 1 ? g : cat(pieces, static_cast<std::int64_t>(d)));
    return;
  }
  // A strided slice: scatter the gradient to positions start, start + step, ...
  const double first = static_cast<double>(start.hint());
  const double past = first + static_cast<double>(length.hint()) * static_cast<double>(step);
  std::vector<SymInt> line(sizes.size(), SymInt(1));
  line[d] = length;
  const Tensor positions =
      reshape(arange(first, past, static_cast<double>(step), DType::Int64, g.device()), line);
  const Tensor index = expand(positions, g.sym_sizes());
  out.set(0, scatter_add(zeros(sizes, dt, g.device()), static_cast<std::int64_t>(d), index, g));
}

void expand_grad(const Ctx& c, Sink& out) {
  out.set(0, sum_to(c.grad(), sizes_of(c, 0)));
}

// unsqueeze: {x, dim}
void unsqueeze_grad(const Ctx& c, Sink& out) {
  out.set(0, squeeze(c.grad(), value_int(c.arg(1))));
}

void identity_grad(const Ctx& c, Sink& out) {
  out.set(0, c.grad());
}

// ---- shape ops that copy

// cat: {xs, dim}: each input gets its slice of the gradient.
void cat_grad(const Ctx& c, Sink& out) {
  const Tensor& g = c.grad();
  const std::int64_t d = kernels::wrap_dim(value_int(c.arg(1)), g.dim());
  SymInt offset(0);
  for (std::size_t j = 0; j < c.list_size(0); ++j) {
    const SymInt& n = c.meta(0, j).sizes[static_cast<std::size_t>(d)];
    if (c.needs(0, j)) {
      out.set(0, j, slice(g, d, offset, offset + n));
    }
    offset = offset + n;
  }
}

// stack: {xs, dim}: each input gets its index of the gradient.
void stack_grad(const Ctx& c, Sink& out) {
  const Tensor& g = c.grad();
  const std::int64_t d = kernels::wrap_dim(value_int(c.arg(1)), g.dim());
  for (std::size_t j = 0; j < c.list_size(0); ++j) {
    if (c.needs(0, j)) {
      const auto i = static_cast<std::int64_t>(j);
      out.set(0, j, reshape(slice(g, d, i, i + 1), c.meta(0, j).sizes));
    }
  }
}

// ---- device transfer: {x, device}: the gradient goes back to where x lived.
void to_grad(const Ctx& c, Sink& out) {
  out.set(0, to(c.grad(), c.meta(0).device));
}

// ---- the ops Inductor's pattern rewrites produce
// silu: {x}: silu'(x) = s (1 + x (1 - s)), s = sigmoid(x)
void silu_grad(const Ctx& c, Sink& out) {
  const Tensor& x = c.saved(0);
  const Tensor s = sigmoid(x);
  out.set(0, mul(c.grad(), mul(s, add(mul(x, rsub(s, 1.0)), 1.0))));
}

// custom_op: {name, Tensor[] inputs, scalars...}: the user's registered backward
// (compiler/ops/custom_ops.h), one gradient per input.
void custom_op_grad(const Ctx& c, Sink& out) {
  const std::string& name = value_string(c.arg(0));
  const CustomOpDef& def = custom_ops::find(name);
  if (!def.backward) {
    user_error("custom op '" + name +
               "' has no backward (register one with CustomOpDef::backward to differentiate it)");
  }
  const std::size_t n = c.list_size(1);
  std::vector<Tensor> inputs;
  std::unique_ptr<bool[]> needs(new bool[n]);
  for (std::size_t j = 0; j < n; ++j) {
    inputs.push_back(c.saved(1, j));
    needs[j] = c.needs(1, j);
  }
  std::vector<double> scalars;
  for (std::size_t i = 2; i < c.num_args(); ++i) {
    scalars.push_back(std::get<double>(c.arg(i)));
  }
  const std::vector<Tensor> grads = def.backward({.grad_output = c.grad(),
                                                  .inputs = inputs,
                                                  .scalars = scalars,
                                                  .output = c.output(),
                                                  .needs = std::span<const bool>(needs.get(), n)});
  if (grads.size() != n) {
    user_error("custom op '" + name + "': its backward returned " + std::to_string(grads.size()) +
               " gradients for " + std::to_string(n) + " inputs");
  }
  for (std::size_t j = 0; j < n; ++j) {
    if (needs[j] && grads[j].defined()) {
      out.set(1, j, grads[j]);
    }
  }
}

// addmm: {bias, a, b} = mm(a, b) + bias
void addmm_grad(const Ctx& c, Sink& out) {
  if (c.needs(0)) {
    out.set(0, sum_to(c.grad(), sizes_of(c, 0)));
  }
  if (c.needs(1)) {
    out.set(1, mm(c.grad(), transpose(c.saved(2), 0, 1)));
  }
  if (c.needs(2)) {
    out.set(2, mm(transpose(c.saved(1), 0, 1), c.grad()));
  }
}

constexpr std::uint32_t kNone = 0;

// Not differentiable: comparisons, logical ops and NaN tests (bool results), bitwise ops
// (integers), argmax (indices), detach, factories, and the data-dependent ops (host values).
constexpr Derivative none(OpKind op) {
  return {op, kNone, kNone, false, nullptr, ""};
}

// clang-format off
constexpr std::array<Derivative, kNumOps> kDerivatives = {{
  //  op                      saved args      saved for others  output  formula            PyTorch's node name
  {OpKind::add,               kNone,          kNone,            false,  add_grad,          "AddBackward0"},
  {OpKind::sub,               kNone,          kNone,            false,  sub_grad,          "SubBackward0"},
  {OpKind::mul,               kNone,          args({0, 1}),     false,  mul_grad,          "MulBackward0"},
  {OpKind::div,               args({1}),      args({0}),        false,  div_grad,          "DivBackward0"},
  {OpKind::pow,               args({0, 1}),   kNone,            true,   pow_grad,          "PowBackward0"},
  {OpKind::maximum,           args({0, 1}),   kNone,            false,  maximum_grad,      "MaximumBackward0"},
  none(OpKind::eq),
  none(OpKind::ne),
  none(OpKind::lt),
  none(OpKind::le),
  none(OpKind::gt),
  none(OpKind::ge),
  {OpKind::where,             args({0}),      kNone,            false,  where_grad,        "WhereBackward0"},
  {OpKind::neg,               kNone,          kNone,            false,  neg_grad,          "NegBackward0"},
  {OpKind::exp,               kNone,          kNone,            true,   exp_grad,          "ExpBackward0"},
  {OpKind::log,               args({0}),      kNone,            false,  log_grad,          "LogBackward0"},
  {OpKind::sin,               args({0}),      kNone,            false,  sin_grad,          "SinBackward0"},
  {OpKind::cos,               args({0}),      kNone,            false,  cos_grad,          "CosBackward0"},
  {OpKind::tanh,              kNone,          kNone,            true,   tanh_grad,         "TanhBackward0"},
  {OpKind::sigmoid,           kNone,          kNone,            true,   sigmoid_grad,      "SigmoidBackward0"},
  {OpKind::relu,              kNone,          kNone,            true,   relu_grad,         "ReluBackward0"},
  {OpKind::gelu,              args({0}),      kNone,            false,  gelu_grad,         "GeluBackward0"},
  {OpKind::sqrt,              kNone,          kNone,            true,   sqrt_grad,         "SqrtBackward0"},
  {OpKind::rsqrt,             kNone,          kNone,            true,   rsqrt_grad,        "RsqrtBackward0"},
  {OpKind::abs,               args({0}),      kNone,            false,  abs_grad,          "AbsBackward0"},
  {OpKind::erf,               args({0}),      kNone,            false,  erf_grad,          "ErfBackward0"},
  {OpKind::to_dtype,          kNone,          kNone,            false,  to_dtype_grad,     "ToCopyBackward0"},
  // pointwise, more
  {OpKind::clamp,             args({0, 1, 2}), kNone,           false,  clamp_grad,        "ClampBackward1"},
  {OpKind::clamp_min,         args({0, 1}),   kNone,            false,  clamp_min_grad,    "ClampMinBackward0"},
  {OpKind::clamp_max,         args({0, 1}),   kNone,            false,  clamp_max_grad,    "ClampMaxBackward0"},
  {OpKind::minimum,           args({0, 1}),   kNone,            false,  minimum_grad,      "MinimumBackward0"},
  {OpKind::floor,             kNone,          kNone,            false,  zero_grad,         "FloorBackward0"},
  {OpKind::ceil,              kNone,          kNone,            false,  zero_grad,         "CeilBackward0"},
  {OpKind::round,             kNone,          kNone,            false,  zero_grad,         "RoundBackward0"},
  {OpKind::trunc,             kNone,          kNone,            false,  zero_grad,         "TruncBackward0"},
  {OpKind::log1p,             args({0}),      kNone,            false,  log1p_grad,        "Log1PBackward0"},
  {OpKind::expm1,             kNone,          kNone,            true,   expm1_grad,        "Expm1Backward0"},
  {OpKind::tan,               kNone,          kNone,            true,   tan_grad,          "TanBackward0"},
  {OpKind::atan,              args({0}),      kNone,            false,  atan_grad,         "AtanBackward0"},
  {OpKind::asin,              args({0}),      kNone,            false,  asin_grad,         "AsinBackward0"},
  {OpKind::acos,              args({0}),      kNone,            false,  acos_grad,         "AcosBackward0"},
  {OpKind::sinh,              args({0}),      kNone,            false,  sinh_grad,         "SinhBackward0"},
  {OpKind::cosh,              args({0}),      kNone,            false,  cosh_grad,         "CoshBackward0"},
  {OpKind::sign,              kNone,          kNone,            false,  zero_grad,         "SignBackward0"},
  none(OpKind::logical_and),
  none(OpKind::logical_or),
  none(OpKind::logical_xor),
  none(OpKind::logical_not),
  none(OpKind::bitwise_and),
  none(OpKind::bitwise_or),
  none(OpKind::bitwise_xor),
  none(OpKind::bitwise_not),
  none(OpKind::isnan),
  none(OpKind::isinf),
  {OpKind::nan_to_num,        args({0}),      kNone,            false,  nan_to_num_grad,   "NanToNumBackward0"},
  {OpKind::masked_fill,       args({1}),      kNone,            false,  masked_fill_grad,  "MaskedFillBackward0"},
  {OpKind::leaky_relu,        args({0}),      kNone,            false,  leaky_relu_grad,   "LeakyReluBackward0"},
  {OpKind::elu,               args({0}),      kNone,            false,  elu_grad,          "EluBackward0"},
  {OpKind::softplus,          args({0}),      kNone,            false,  softplus_grad,     "SoftplusBackward0"},
  {OpKind::hardswish,         args({0}),      kNone,            false,  hardswish_grad,    "HardswishBackward0"},
  {OpKind::sum,               kNone,          kNone,            false,  sum_grad,          "SumBackward1"},
  {OpKind::mean,              kNone,          kNone,            false,  mean_grad,         "MeanBackward1"},
  {OpKind::amax,              args({0}),      kNone,            true,   extremum_grad,     "AmaxBackward0"},
  {OpKind::amin,              args({0}),      kNone,            true,   extremum_grad,     "AminBackward0"},
  none(OpKind::argmax),
  {OpKind::var,               args({0}),      kNone,            false,  var_grad,          "VarBackward0"},
  {OpKind::logsumexp,         args({0}),      kNone,            true,   logsumexp_grad,    "LogsumexpBackward0"},
  {OpKind::matmul,            kNone,          args({0, 1}),     false,  matmul_grad,       "MatmulBackward0"},
  {OpKind::mm,                kNone,          args({0, 1}),     false,  mm_grad,           "MmBackward0"},
  {OpKind::bmm,               kNone,          args({0, 1}),     false,  bmm_grad,          "BmmBackward0"},
  {OpKind::softmax,           kNone,          kNone,            true,   softmax_grad,      "SoftmaxBackward0"},
  {OpKind::log_softmax,       kNone,          kNone,            true,   log_softmax_grad,  "LogSoftmaxBackward0"},
  {OpKind::layer_norm,        args({0, 2}),   kNone,            false,  layer_norm_grad,   "NativeLayerNormBackward0"},
  {OpKind::embedding,         args({1}),      kNone,            false,  embedding_grad,    "EmbeddingBackward0"},
  {OpKind::cross_entropy,     args({0, 1}),   kNone,            false,  cross_entropy_grad, "NllLossBackward0"},
  {OpKind::mse_loss,          args({0, 1}),   kNone,            false,  mse_loss_grad,     "MseLossBackward0"},
  {OpKind::binary_cross_entropy_with_logits, args({0, 1}), kNone, false, binary_cross_entropy_with_logits_grad, "BinaryCrossEntropyWithLogitsBackward0"},
  {OpKind::dropout,           kNone,          kNone,            false,  dropout_grad,      "NativeDropoutBackward0"},
  {OpKind::convolution,       args({0, 1}),   kNone,            false,  convolution_grad,  "ConvolutionBackward0"},
  // backward ops: no higher-order gradients (no create_graph), so not differentiable
  none(OpKind::convolution_backward),
  {OpKind::max_pool2d,        args({0}),      kNone,            false,  max_pool2d_grad,   "MaxPool2DWithIndicesBackward0"},
  none(OpKind::max_pool2d_backward),
  {OpKind::avg_pool2d,        args({0}),      kNone,            false,  avg_pool2d_grad,   "AvgPool2DBackward0"},
  none(OpKind::avg_pool2d_backward),
  {OpKind::adaptive_avg_pool2d, args({0}),    kNone,            false,  adaptive_avg_pool2d_grad, "AdaptiveAvgPool2DBackward0"},
  {OpKind::group_norm,        args({0, 2}),   kNone,            false,  group_norm_grad,   "NativeGroupNormBackward0"},
  {OpKind::gather,            args({2}),      kNone,            false,  gather_grad,       "GatherBackward0"},
  {OpKind::scatter_add,       args({2}),      kNone,            false,  scatter_add_grad,  "ScatterAddBackward0"},
  // indexing, more
  {OpKind::index_select,      args({2}),      kNone,            false,  index_select_grad, "IndexSelectBackward0"},
  {OpKind::narrow,            kNone,          kNone,            false,  narrow_grad,       "SliceBackward0"},
  {OpKind::tril,              kNone,          kNone,            false,  tril_grad,         "TrilBackward0"},
  {OpKind::triu,              kNone,          kNone,            false,  triu_grad,         "TriuBackward0"},
  {OpKind::repeat,            kNone,          kNone,            false,  repeat_grad,       "RepeatBackward0"},
  {OpKind::roll,              kNone,          kNone,            false,  roll_grad,         "RollBackward0"},
  {OpKind::view,              kNone,          kNone,            false,  reshape_grad,      "ViewBackward0"},
  {OpKind::reshape,           kNone,          kNone,            false,  reshape_grad,      "ReshapeAliasBackward0"},
  {OpKind::transpose,         kNone,          kNone,            false,  transpose_grad,    "TransposeBackward0"},
  {OpKind::permute,           kNone,          kNone,            false,  permute_grad,      "PermuteBackward0"},
  {OpKind::slice,             kNone,          kNone,            false,  slice_grad,        "SliceBackward0"},
  {OpKind::expand,            kNone,          kNone,            false,  expand_grad,       "ExpandBackward0"},
  {OpKind::unsqueeze,         kNone,          kNone,            false,  unsqueeze_grad,    "UnsqueezeBackward0"},
  {OpKind::squeeze,           kNone,          kNone,            false,  reshape_grad,      "SqueezeBackward0"},
  none(OpKind::detach),
  {OpKind::contiguous,        kNone,          kNone,            false,  identity_grad,     "CloneBackward0"},
  {OpKind::cat,               kNone,          kNone,            false,  cat_grad,          "CatBackward0"},
  {OpKind::stack,             kNone,          kNone,            false,  stack_grad,        "StackBackward0"},
  {OpKind::to,                kNone,          kNone,            false,  to_grad,           "ToCopyBackward0"},
  none(OpKind::arange),
  none(OpKind::full),
  none(OpKind::zeros),
  none(OpKind::ones),
  none(OpKind::randn),
  none(OpKind::rand),
  {OpKind::silu,              args({0}),      kNone,            false,  silu_grad,         "SiluBackward0"},
  {OpKind::addmm,             kNone,          args({1, 2}),     false,  addmm_grad,        "AddmmBackward0"},
  none(OpKind::item),
  none(OpKind::to_bool),
  {OpKind::custom_op,         args({1}),      kNone,            true,   custom_op_grad,    "CustomOpBackward"},
}};
// clang-format on

constexpr bool table_follows_op_list() {
  for (std::size_t i = 0; i < kDerivatives.size(); ++i) {
    if (kDerivatives[i].op != static_cast<OpKind>(i)) {
      return false;
    }
  }
  return true;
}
static_assert(table_follows_op_list(),
              "every op in ops/op_list.h needs its derivative entry here, in op-list order");

} // namespace

const Derivative& derivative_of(OpKind op) noexcept {
  return kDerivatives[static_cast<std::size_t>(op)];
}

} // namespace compiler::autograd::detail
