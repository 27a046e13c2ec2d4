// Building blocks shared by derivative formulas and decompositions.
#include "autograd/formula_helpers.h"

#include "compiler/core/errors.h"
#include "kernels/shape_util.h"

#include <algorithm>

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
