// Building blocks shared by derivative formulas and decompositions.
#include "autograd/formula_helpers.h"

#include "compiler/core/errors.h"
#include "kernels/shape_util.h"

#include <algorithm>
#include <cmath>

namespace compiler::autograd::detail {

bool same_sizes(std::span<const SymInt> a, std::span<const SymInt> b) {
  if (a.size() != b.size()) {
    return false;
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!a[i].same_as(b[i])) {
      return false;
    }
  }
  return true;
}

Tensor sum_to(const Tensor& g, std::span<const SymInt> sizes) {
  const std::vector<SymInt>& have = g.sym_sizes();
  if (same_sizes(have, sizes)) {
    return g;
  }
  TORCHSCOPE_ASSERT(have.size() >= sizes.size(), "sum_to a larger rank");
  const std::size_t lead = have.size() - sizes.size();
  std::vector<std::int64_t> dims;
  for (std::size_t d = 0; d < lead; ++d) {
    dims.push_back(static_cast<std::int64_t>(d));
  }
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (kernels::is_concrete(sizes[i], 1) && !kernels::is_concrete(have[lead + i], 1)) {
      dims.push_back(static_cast<std::int64_t>(lead + i));
    }
  }
  Tensor r = dims.empty() ? g : sum(g, dims, true);
  if (same_sizes(r.sym_sizes(), sizes)) {
    return r;
  }
  return reshape(r, std::vector<SymInt>(sizes.begin(), sizes.end()));
}

Tensor expand_reduced(const Tensor& g, std::span<const SymInt> sizes,
                      std::span<const std::int64_t> dims, bool keepdim) {
  const auto rank = static_cast<std::int64_t>(sizes.size());
  const std::vector<std::int64_t> reduced = kernels::reduction_dims(dims, rank);
  Tensor r = g;
  if (!keepdim) {
    for (std::int64_t d : reduced) { // ascending: each unsqueeze keeps later positions right
      r = unsqueeze(r, d);
    }
  }
  if (same_sizes(r.sym_sizes(), sizes)) {
    return r;
  }
  return expand(r, std::vector<SymInt>(sizes.begin(), sizes.end()));
}

SymInt reduced_count(std::span<const SymInt> sizes, std::span<const std::int64_t> dims) {
  const std::vector<std::int64_t> reduced =
      kernels::reduction_dims(dims, static_cast<std::int64_t>(sizes.size()));
  SymInt n(1);
  for (std::int64_t d : reduced) {
    n = n * sizes[static_cast<std::size_t>(d)];
  }
  return n;
}

Tensor div_by(const Tensor& x, const SymInt& n) {
  if (!n.is_symbolic()) {
    return div(x, static_cast<double>(n.hint()));
  }
  // A SymInt scalar: the graph keeps the expression and divides by its value at run time.
  const Value args[] = {x, n};
  return std::get<Tensor>(dispatch(OpKind::div, args));
}

Tensor scalar_tensor(double value, const Tensor& like) {
  return full({}, value, like.dtype(), like.device());
}

Tensor rsub(const Tensor& x, double c) {
  return add(neg(x), c);
}

Tensor mask_as(const Tensor& mask, DType dtype) {
  return to_dtype(mask, dtype);
}

std::vector<std::int64_t> trailing_dims(std::int64_t rank, std::size_t n) {
  std::vector<std::int64_t> dims;
  for (std::int64_t d = rank - static_cast<std::int64_t>(n); d < rank; ++d) {
    dims.push_back(d);
  }
  return dims;
}

LayerNormStats layer_norm_stats(const Tensor& x, std::size_t n, double eps) {
  const std::vector<std::int64_t> axes = trailing_dims(x.dim(), n);
  LayerNormStats s;
  s.mean = mean(x, axes, true);
  const Tensor centered = sub(x, s.mean);
  const Tensor var = mean(mul(centered, centered), axes, true);
  s.rstd = rsqrt(add(var, eps));
  s.xhat = mul(centered, s.rstd);
  return s;
}

Tensor upcast_16bit(const Tensor& x) {
  const bool is_16bit = x.dtype() == DType::Float16 || x.dtype() == DType::BFloat16;
  return is_16bit ? to_dtype(x, DType::Float32) : x;
}

namespace {

Tensor cast_back(const Tensor& y, DType original) {
  return y.dtype() == original ? y : to_dtype(y, original);
}

} // namespace

std::int64_t integral_correction(double correction) {
  if (correction != std::floor(correction)) {
    user_error("var: a fractional correction (" + std::to_string(correction) +
               ") over a dynamic size is not supported; the divisor N - correction is an integer "
               "expression of the size");
  }
  return static_cast<std::int64_t>(correction);
}

Tensor variance(const Tensor& x, std::span<const std::int64_t> dims, double correction,
                bool keepdim) {
  const Tensor xf = upcast_16bit(x);
  const SymInt n = reduced_count(x.sym_sizes(), dims);
  const std::vector<std::int64_t> dim_list(dims.begin(), dims.end());
  const Tensor centred = sub(xf, div_by(sum(xf, dim_list, true), n));
  const Tensor squares = sum(mul(centred, centred), dim_list, keepdim);
  Tensor v;
  if (!n.is_symbolic()) {
    v = div(squares, std::max(0.0, static_cast<double>(n.hint()) - correction));
  } else {
    // A symbolic count: the graph divides by n - correction at run time.
    v = div_by(squares, n - SymInt(integral_correction(correction)));
  }
  return cast_back(v, x.dtype());
}

Tensor log_sum_exp(const Tensor& x, std::span<const std::int64_t> dims, bool keepdim) {
  const Tensor xf = is_floating(x.dtype()) ? upcast_16bit(x) : to_dtype(x, DType::Float32);
  const std::vector<std::int64_t> dim_list(dims.begin(), dims.end());
  if (x.numel() == 0) { // amax of nothing is an error; the sum of nothing is 0 and log 0 = -inf
    return cast_back(log(sum(exp(xf), dim_list, keepdim)),
                     is_floating(x.dtype()) ? x.dtype() : DType::Float32);
  }
  const Tensor m = amax(xf, dim_list, true);
  const Tensor finite_m = where(isinf(m), scalar_tensor(0.0, m), m);
  const Tensor total = sum(exp(sub(xf, finite_m)), dim_list, keepdim);
  const Tensor shift = keepdim ? finite_m : reshape(finite_m, total.sym_sizes());
  return cast_back(add(log(total), shift), is_floating(x.dtype()) ? x.dtype() : DType::Float32);
}

void check_reduction(const std::string& reduction, const char* op) {
  if (reduction != "none" && reduction != "mean" && reduction != "sum") {
    user_error(std::string(op) + ": " + reduction + " is not a valid value for reduction");
  }
}

Tensor reduce_loss(const Tensor& loss, const std::string& reduction) {
  if (reduction == "mean") {
    return mean(loss);
  }
  if (reduction == "sum") {
    return sum(loss);
  }
  return loss;
}

Tensor squared_error(const Tensor& input, const Tensor& target) {
  const Tensor d = sub(input, target);
  return mul(d, d);
}

// PyTorch's form: (1 - t) x + m + log(exp(-m) + exp(-x - m)) with m = max(-x, 0), so neither
// exponential overflows.
Tensor logit_cross_entropy(const Tensor& input, const Tensor& target) {
  const Tensor m = maximum(neg(input), scalar_tensor(0.0, input));
  const Tensor spread = log(add(exp(neg(m)), exp(sub(neg(input), m))));
  return add(add(mul(rsub(target, 1.0), input), m), spread);
}

Tensor dropout_with_mask(const Tensor& x, double p, const SymInt& seed, const SymInt& offset) {
  const DType draw_dtype = x.dtype() == DType::Float64 ? DType::Float64 : DType::Float32;
  // Dispatched directly: seed and offset may be symbols (capture's generator inputs).
  std::vector<Value> args = {Value(x.sym_sizes()), Value(seed), Value(offset), Value(draw_dtype)};
  if (!x.device().is_cpu()) {
    args.emplace_back(x.device());
  }
  const Tensor u = value_tensor(dispatch(OpKind::rand, args));
  const Tensor keep = lt(u, 1.0 - p);
  // x times (keep ? 1 / (1 - p) : 0), as PyTorch multiplies by its scaled mask: a dropped NaN
  // stays NaN, and p = 1 gives zeros.
  return mul(x, where(keep, scalar_tensor(1.0 / (1.0 - p), x), scalar_tensor(0.0, x)));
}

LayerNormStats group_norm_stats(const Tensor& x, std::int64_t groups, double eps) {
  const std::vector<SymInt>& sizes = x.sym_sizes();
  SymInt rest = sizes[1] / SymInt(groups);
  for (std::size_t d = 2; d < sizes.size(); ++d) {
    rest = rest * sizes[d];
  }
  return layer_norm_stats(reshape(x, {sizes[0], SymInt(groups), rest}), 1, eps);
}

std::vector<SymInt> channel_shape(const SymInt& channels, std::int64_t rank) {
  std::vector<SymInt> shape(static_cast<std::size_t>(std::max<std::int64_t>(rank - 1, 1)),
                            SymInt(1));
  shape[0] = channels;
  return shape;
}

std::vector<std::int64_t> dims_but_channel(std::int64_t rank) {
  std::vector<std::int64_t> dims{0};
  for (std::int64_t d = 2; d < rank; ++d) {
    dims.push_back(d);
  }
  return dims;
}

Tensor adaptive_pool_matrix(std::int64_t n, std::int64_t len, DType dtype, Device device) {
  // Window bounds in floating point are exact: i * len is a small integer, and a quotient that
  // is not an integer lies at least 1 / n from one, far beyond the rounding error.
  const Tensor i = reshape(arange(SymInt(n), dtype, device), {SymInt(n), SymInt(1)});
  const Tensor j = reshape(arange(SymInt(len), dtype, device), {SymInt(1), SymInt(len)});
  const auto l = static_cast<double>(len);
  const auto count = static_cast<double>(n);
  const Tensor start = floor(div(mul(i, l), count));
  const Tensor stop = ceil(div(mul(add(i, 1.0), l), count));
  const Tensor inside = logical_and(ge(j, start), lt(j, stop));
  return div(mask_as(inside, dtype), sub(stop, start));
}

} // namespace compiler::autograd::detail
