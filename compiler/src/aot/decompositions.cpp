// THE decomposition table: one entry per Composite op of ops/op_list.h, in op-list order, each
// written with ops. Nested composites (matmul's reshape, cross_entropy's log_softmax) are
// fine: whoever runs a decomposition under a tracer decomposes them in turn.
//
// Numerics follow the eager kernels where it matters: softmax, log_softmax and layer_norm
// compute 16-bit inputs in f32 and round once at the end (as their kernels and PyTorch's
// decompositions do); layer_norm's statistics come from the helper its derivative uses, so the
// joint graph computes them once.
#include "compiler/aot/decompositions.h"

#include "autograd/formula_helpers.h"
#include "compiler/autograd/node.h"
#include "compiler/core/errors.h"
#include "compiler/ops/ops.h"
#include "kernels/shape_util.h"

#include <array>
#include <numbers>

namespace compiler::aot {

namespace {

using autograd::detail::adaptive_pool_matrix;
using autograd::detail::channel_shape;
using autograd::detail::div_by;
using autograd::detail::group_norm_stats;
using autograd::detail::layer_norm_stats;
using autograd::detail::reduced_count;
using autograd::detail::scalar_tensor;
using Args = std::span<const Value>;

const Tensor& tensor(Args a, std::size_t i) {
  return value_tensor(a[i]);
}

bool is_16bit(DType t) {
  return t == DType::Float16 || t == DType::BFloat16;
}

// x in f32 when it is a 16-bit float (the kernels' compute type), else x.
Tensor upcast(const Tensor& x) {
  return is_16bit(x.dtype()) ? to_dtype(x, DType::Float32) : x;
}

Tensor downcast(const Tensor& y, DType original) {
  return y.dtype() == original ? y : to_dtype(y, original);
}

void require_floating(const Tensor& x, const char* name) {
  if (!is_floating(x.dtype())) {
    user_error(std::string(name) + ": needs a floating tensor, got " + x.type_string());
  }
}

// sigmoid(x) = 1 / (1 + exp(-x))
Value sigmoid_decomp(Args a) {
  return pow(add(exp(neg(tensor(a, 0))), 1.0), -1.0);
}

// relu(x) = max(x, 0), in x's dtype (integers stay integers).
Value relu_decomp(Args a) {
  const Tensor& x = tensor(a, 0);
  return maximum(x, scalar_tensor(0.0, x));
}

// gelu(x) = x/2 (1 + erf(x / sqrt 2)), or with tanh: x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
Value gelu_decomp(Args a) {
  const Tensor& x = tensor(a, 0);
  const Tensor half_x = mul(x, 0.5);
  if (a.size() > 1 && value_string(a[1]) == "tanh") {
    constexpr double kBeta = std::numbers::sqrt2 * std::numbers::inv_sqrtpi;
    const Tensor inner = mul(add(x, mul(mul(mul(x, x), x), 0.044715)), kBeta);
    return mul(half_x, add(tanh(inner), 1.0));
  }
  return mul(half_x, add(erf(mul(x, std::numbers::sqrt2 / 2.0)), 1.0));
}

// ---- pointwise, more: as Inductor decomposes them, into maximum, minimum and where.

bool given(const Value& v) {
  return !std::holds_alternative<std::monostate>(v);
}

// clamp(x, min, max) = minimum(maximum(x, min), max), each step only for a given bound.
Value clamp_decomp(Args a) {
  if (!given(a[1]) && !given(a[2])) {
    user_error("clamp: at least one of min and max must be given");
  }
  auto step = [](const Tensor& x, const Value& bound, bool lower) {
    if (const auto* t = std::get_if<Tensor>(&bound)) {
      return lower ? maximum(x, *t) : minimum(x, *t);
    }
    return lower ? maximum(x, value_double(bound)) : minimum(x, value_double(bound));
  };
  Tensor r = tensor(a, 0);
  if (given(a[1])) {
    r = step(r, a[1], true);
  }
  if (given(a[2])) {
    r = step(r, a[2], false);
  }
  return r;
}
Value clamp_min_decomp(Args a) {
  const Tensor& x = tensor(a, 0);
  const auto* t = std::get_if<Tensor>(&a[1]);
  return t != nullptr ? maximum(x, *t) : maximum(x, value_double(a[1]));
}
Value clamp_max_decomp(Args a) {
  const Tensor& x = tensor(a, 0);
  const auto* t = std::get_if<Tensor>(&a[1]);
  return t != nullptr ? minimum(x, *t) : minimum(x, value_double(a[1]));
}

// nan_to_num(x) = where(isnan(x), nan, where(isinf(x), where(x > 0, posinf, neginf), x)), the
// replacements 0-dim tensors of x's dtype; integer tensors have no NaN nor infinity.
Value nan_to_num_decomp(Args a) {
  const Tensor& x = tensor(a, 0);
  if (!is_floating(x.dtype())) {
    return to_dtype(x, x.dtype());
  }
  const double posinf = given(a[2]) ? value_double(a[2]) : largest_finite(x.dtype());
  const double neginf = given(a[3]) ? value_double(a[3]) : -largest_finite(x.dtype());
  const Tensor inf = where(gt(x, 0.0), scalar_tensor(posinf, x), scalar_tensor(neginf, x));
  return where(isnan(x), scalar_tensor(value_double(a[1]), x), where(isinf(x), inf, x));
}

// masked_fill(x, mask, value) = where(mask, value, x), value in x's dtype.
Value masked_fill_decomp(Args a) {
  const Tensor& x = tensor(a, 0);
  const Tensor& mask = tensor(a, 1);
  if (mask.dtype() != DType::Bool) {
    user_error("masked_fill: the mask must be a bool tensor, got " +
               std::string(dtype_name(mask.dtype())));
  }
  return where(mask, scalar_tensor(value_double(a[2]), x), x);
}

// The activations compute 16-bit inputs in f32 and round once, as their kernels do.
// leaky_relu(x) = where(x > 0, x, x * slope)
Value leaky_relu_decomp(Args a) {
  const Tensor& x0 = tensor(a, 0);
  require_floating(x0, "leaky_relu");
  const Tensor x = upcast(x0);
  return downcast(where(gt(x, 0.0), x, mul(x, value_double(a[1]))), x0.dtype());
}

// elu(x) = where(x > 0, x, expm1(x) * alpha)
Value elu_decomp(Args a) {
  const Tensor& x0 = tensor(a, 0);
  require_floating(x0, "elu");
  const Tensor x = upcast(x0);
  return downcast(where(gt(x, 0.0), x, mul(expm1(x), value_double(a[1]))), x0.dtype());
}

// softplus(x) = where(beta x > threshold, x, log1p(exp(beta x)) / beta)
Value softplus_decomp(Args a) {
  const Tensor& x0 = tensor(a, 0);
  require_floating(x0, "softplus");
  const Tensor x = upcast(x0);
  const double beta = value_double(a[1]);
  const Tensor scaled = mul(x, beta);
  const Tensor soft = div(log1p(exp(scaled)), beta);
  return downcast(where(gt(scaled, value_double(a[2])), x, soft), x0.dtype());
}

// hardswish(x) = x * min(max(x + 3, 0), 6) / 6
Value hardswish_decomp(Args a) {
  const Tensor& x0 = tensor(a, 0);
  require_floating(x0, "hardswish");
  const Tensor x = upcast(x0);
  const Tensor clamped = minimum(maximum(add(x, 3.0), 0.0), 6.0);
  return downcast(div(mul(x, clamped), 6.0), x0.dtype());
}

// mean = sum / count (the count may be symbolic).
Value mean_decomp(Args a) {
  const Tensor& x = tensor(a, 0);
  require_floating(x, "mean");
  const std::vector<std::int64_t>& dims = value_ints(a[1]);
  return div_by(sum(x, dims, value_bool(a[2])), reduced_count(x.sym_sizes(), dims));
}

// var, logsumexp: the formulas their eager kernels run (autograd/formula_helpers.h), after
// the kernels' argument checks.
Value var_decomp(Args a) {
  (void)run_meta(OpKind::var, a);
  return autograd::detail::variance(tensor(a, 0), value_ints(a[1]), value_double(a[2]),
                                    value_bool(a[3]));
}
Value logsumexp_decomp(Args a) {
  (void)run_meta(OpKind::logsumexp, a);
  return autograd::detail::log_sum_exp(tensor(a, 0), value_ints(a[1]), value_bool(a[2]));
}

// matmul by its cases: mm for matrices (batch dims folded into rows when only the left side
// has them), bmm over broadcast batch dims otherwise; 1-D operands become matrices first.
Value matmul_decomp(Args a) {
  const Tensor& x = tensor(a, 0);
  const Tensor& y = tensor(a, 1);
  const std::int64_t rx = x.dim();
  const std::int64_t ry = y.dim();
  if (rx == 0 || ry == 0) {
    user_error("matmul: both arguments need at least one dimension, got " + x.type_string() +
               " and " + y.type_string());
  }
  if (rx <= 2 && ry <= 2) {
    const Tensor x2 = rx == 1 ? unsqueeze(x, 0) : x;
    const Tensor y2 = ry == 1 ? unsqueeze(y, 1) : y;
    Tensor r = mm(x2, y2);
    if (rx == 1) {
      r = squeeze(r, 0);
    }
    if (ry == 1) {
      r = squeeze(r, -1);
    }
    return r;
  }
  const std::vector<SymInt>& xs = x.sym_sizes();
  const std::vector<SymInt>& ys = y.sym_sizes();
  if (ry <= 2) {
    // [..., n, k] @ [k, m]: fold the batch into the rows of one mm.
    const SymInt k = xs.back();
    const Tensor y2 = ry == 1 ? unsqueeze(y, 1) : y;
    // The row count is spelled out: with k == 0 (the gradient of a product with m == 0) a -1
    // could be any size and reshape refuses it, as PyTorch's does.
    SymInt n_rows(1);
    for (std::size_t i = 0; i + 1 < xs.size(); ++i) {
      n_rows *= xs[i];
    }
    const Tensor rows = reshape(x, {n_rows, k});
    std::vector<SymInt> out(xs.begin(), xs.end() - 1);
    if (ry == 2) {
      out.push_back(ys.back());
    }
    return reshape(mm(rows, y2), out);
  }
  // Batched: broadcast the batch dims, flatten them, bmm, and restore them.
  const Tensor x2 = rx == 1 ? unsqueeze(x, 0) : x;
  const Tensor y2 = ry == 1 ? unsqueeze(y, 1) : y;
  const std::vector<SymInt>& x2s = x2.sym_sizes();
  const std::vector<SymInt>& y2s = y2.sym_sizes();
  const SymInt n = x2s[x2s.size() - 2];
  const SymInt k = x2s.back();
  const SymInt m = y2s.back();
  const std::vector<SymInt> batch =
      kernels::broadcast_shapes(std::span<const SymInt>(x2s.data(), x2s.size() - 2),
                                std::span<const SymInt>(y2s.data(), y2s.size() - 2));
  const SymInt b = kernels::sym_product(batch);
  std::vector<SymInt> xe = batch;
  xe.push_back(n);
  xe.push_back(k);
  std::vector<SymInt> ye = batch;
  ye.push_back(k);
  ye.push_back(m);
  const Tensor xb = reshape(expand(x2, xe), {b, n, k});
  const Tensor yb = reshape(expand(y2, ye), {b, k, m});
  std::vector<SymInt> out = batch;
  if (rx > 1) {
    out.push_back(n);
  }
  if (ry > 1) {
    out.push_back(m);
  }
  return reshape(bmm(xb, yb), out);
}

// softmax(x) = exp(x - max) / sum(exp(x - max)), in f32 for 16-bit inputs.
Value softmax_decomp(Args a) {
  const Tensor& x = tensor(a, 0);
  require_floating(x, "softmax");
  const std::int64_t d = value_int(a[1]);
  const Tensor xf = upcast(x);
  const Tensor e = exp(sub(xf, amax(xf, {d}, true)));
  return downcast(div(e, sum(e, {d}, true)), x.dtype());
}

// log_softmax(x) = (x - max) - log(sum(exp(x - max))).
Value log_softmax_decomp(Args a) {
  const Tensor& x = tensor(a, 0);
  require_floating(x, "log_softmax");
  const std::int64_t d = value_int(a[1]);
  const Tensor xf = upcast(x);
  const Tensor shifted = sub(xf, amax(xf, {d}, true));
  return downcast(sub(shifted, log(sum(exp(shifted), {d}, true))), x.dtype());
}

// layer_norm: {x, shape, weight|None, bias|None, eps}
Value layer_norm_decomp(Args a) {
  const Tensor& x = tensor(a, 0);
  (void)run_meta(OpKind::layer_norm, a); // the kernel's argument checks
  const std::size_t n = value_ints(a[1]).size();
  Tensor y = layer_norm_stats(upcast(x), n, value_double(a[4])).xhat;
  const Tensor weight = value_optional_tensor(a[2]);
  const Tensor bias = value_optional_tensor(a[3]);
  if (weight.defined()) {
    y = mul(y, weight);
  }
  if (bias.defined()) {
    y = add(y, bias);
  }
  return downcast(y, x.dtype());
}

// embedding(weight, indices) = rows of weight gathered along dim 0.
Value embedding_decomp(Args a) {
  const Tensor& weight = tensor(a, 0);
  const Tensor& indices = tensor(a, 1);
  (void)run_meta(OpKind::embedding, a);
  const SymInt k = indices.sym_numel();
  const SymInt d = weight.sym_sizes()[1];
  const Tensor index = expand(reshape(indices, {k, SymInt(1)}), {k, d});
  std::vector<SymInt> out = indices.sym_sizes();
  out.push_back(d);
  return reshape(gather(weight, 0, index), out);
}

// cross_entropy = -mean(log_softmax(logits)[i, target[i]]).
Value cross_entropy_decomp(Args a) {
  const Tensor& logits = tensor(a, 0);
  const Tensor& target = tensor(a, 1);
  (void)run_meta(OpKind::cross_entropy, a);
  const Tensor picked = gather(log_softmax(logits, -1), -1, unsqueeze(target, -1));
  return neg(mean(picked));
}

// mse_loss, binary_cross_entropy_with_logits: the elementwise loss, reduced.
Value mse_loss_decomp(Args a) {
  (void)run_meta(OpKind::mse_loss, a);
  return autograd::detail::reduce_loss(autograd::detail::squared_error(tensor(a, 0), tensor(a, 1)),
                                       value_string(a[2]));
}
Value binary_cross_entropy_with_logits_decomp(Args a) {
  (void)run_meta(OpKind::binary_cross_entropy_with_logits, a);
  return autograd::detail::reduce_loss(
      autograd::detail::logit_cross_entropy(tensor(a, 0), tensor(a, 1)), value_string(a[2]));
}

// dropout = x * where(rand(seed, offset) < 1 - p, 1 / (1 - p), 0): rand is a prim the loop IR
// lowers, so compiled code draws what the eager kernel draws.
Value dropout_decomp(Args a) {
  (void)run_meta(OpKind::dropout, a);
  return autograd::detail::dropout_with_mask(tensor(a, 0), value_double(a[1]), value_sym_int(a[2]),
                                             value_sym_int(a[3]));
}

// ---- convolution, pooling, normalisation
// adaptive_avg_pool2d: {x, output_size}. Windows that tile the input evenly are avg_pool2d's
// (kernel = stride = input / output), which Inductor lowers as a window loop; otherwise the op
// is linear, A_h @ x @ A_w^T with the averaging matrices of adaptive_pool_matrix.
Value adaptive_avg_pool2d_decomp(Args a) {
  const Tensor& x = tensor(a, 0);
  (void)run_meta(OpKind::adaptive_avg_pool2d, a);
  const std::vector<std::int64_t>& size = value_ints(a[1]);
  const std::vector<SymInt>& xs = x.sym_sizes();
  // The windows depend on the sizes: a traced graph is specialised to them (guarded).
  const std::int64_t h = xs[xs.size() - 2].guard_int();
  const std::int64_t w = xs[xs.size() - 1].guard_int();
  if (size[0] > 0 && size[1] > 0 && h % size[0] == 0 && w % size[1] == 0) {
    const std::vector<std::int64_t> kernel{h / size[0], w / size[1]};
    return avg_pool2d(x, kernel, kernel);
  }
  const Tensor xf = upcast(x);
  const Tensor ah = adaptive_pool_matrix(size[0], h, xf.dtype(), x.device());
  const Tensor aw = adaptive_pool_matrix(size[1], w, xf.dtype(), x.device());
  return downcast(matmul(matmul(ah, xf), transpose(aw, 0, 1)), x.dtype());
}

// group_norm: {x, num_groups, weight|None, bias|None, eps}: layer_norm's statistics over each
// group of channels, then the per-channel affine map.
Value group_norm_decomp(Args a) {
  const Tensor& x = tensor(a, 0);
  (void)run_meta(OpKind::group_norm, a);
  const Tensor xf = upcast(x);
  Tensor y = reshape(group_norm_stats(xf, value_int(a[1]), value_double(a[4])).xhat, x.sym_sizes());
  const std::vector<SymInt> per_channel = channel_shape(x.sym_sizes()[1], x.dim());
  const Tensor weight = value_optional_tensor(a[2]);
  const Tensor bias = value_optional_tensor(a[3]);
  if (weight.defined()) {
    y = mul(y, reshape(weight, per_channel));
  }
  if (bias.defined()) {
    y = add(y, reshape(bias, per_channel));
  }
  return downcast(y, x.dtype());
}

// ---- indexing, more
// index_select = gather with the index vector broadcast along every other dim.
Value index_select_decomp(Args a) {
  const Tensor& x = tensor(a, 0);
  const Tensor meta = value_tensor(run_meta(OpKind::index_select, a));
  const auto dim = static_cast<std::size_t>(kernels::wrap_dim(value_int(a[1]), x.dim()));
  const Tensor& index = tensor(a, 2);
  std::vector<SymInt> column(x.sym_sizes().size(), SymInt(1));
  column[dim] = index.sym_numel();
  return gather(x, static_cast<std::int64_t>(dim),
                expand(reshape(index, column), meta.sym_sizes()));
}

// narrow = slice with step 1 (the kernel has checked narrow's stricter bounds).
Value narrow_decomp(Args a) {
  const Tensor& x = tensor(a, 0);
  (void)run_meta(OpKind::narrow, a);
  SymInt start = value_sym_int(a[2]);
  const auto dim = kernels::wrap_dim(value_int(a[1]), x.dim());
  if (start.hint() < 0) {
    start = start + x.sym_sizes()[static_cast<std::size_t>(dim)];
  }
  return slice(x, dim, start, start + value_sym_int(a[3]));
}

// tril/triu = where(col - row <= diagonal (>= for triu), x, 0), the mask built from aranges.
Value triangle_decomp(Args a, OpKind op) {
  const Tensor& x = tensor(a, 0);
  (void)run_meta(op, a);
  const std::vector<SymInt>& sizes = x.sym_sizes();
  const SymInt& rows = sizes[sizes.size() - 2];
  const SymInt& cols = sizes.back();
  const Tensor offset = sub(arange(cols, DType::Int64, x.device()),
                            reshape(arange(rows, DType::Int64, x.device()), {rows, SymInt(1)}));
  const auto diagonal = static_cast<double>(value_int(a[1]));
  const Tensor keep = op == OpKind::tril ? le(offset, diagonal) : ge(offset, diagonal);
  return where(keep, x, zeros({}, x.dtype(), x.device()));
}
Value tril_decomp(Args a) {
  return triangle_decomp(a, OpKind::tril);
}
Value triu_decomp(Args a) {
  return triangle_decomp(a, OpKind::triu);
}

// repeat = x viewed as [1, s0, 1, s1, ...], expanded to [r0, s0, r1, s1, ...], reshaped to
// [r0 * s0, r1 * s1, ...] (a copy).
Value repeat_decomp(Args a) {
  const Tensor& x = tensor(a, 0);
  const Tensor meta = value_tensor(run_meta(OpKind::repeat, a));
  const std::vector<std::int64_t>& repeats = value_ints(a[1]);
  const std::size_t lead = repeats.size() - x.sym_sizes().size();
  std::vector<SymInt> spread;
  std::vector<SymInt> tiled;
  for (std::size_t i = 0; i < repeats.size(); ++i) {
    const SymInt size = i < lead ? SymInt(1) : x.sym_sizes()[i - lead];
    spread.insert(spread.end(), {SymInt(1), size});
    tiled.insert(tiled.end(), {SymInt(repeats[i]), size});
  }
  return reshape(expand(reshape(x, spread), tiled), meta.sym_sizes());
}

// roll = along each dim, cat(the last `shift` elements, the rest); with no dims, the same on
// the flattened x, reshaped back.
Value roll_decomp(Args a) {
  const Tensor& x = tensor(a, 0);
  (void)run_meta(OpKind::roll, a);
  const std::vector<std::int64_t>& shifts = value_ints(a[1]);
  std::vector<std::int64_t> dims = value_ints(a[2]);
  Tensor out = dims.empty() ? reshape(x, {SymInt(-1)}) : x;
  if (dims.empty()) {
    dims.push_back(0);
  }
  for (std::size_t k = 0; k < dims.size(); ++k) {
    const std::int64_t d = kernels::wrap_dim(dims[k], out.dim(), false);
    // Where the roll cuts depends on the size. A symbolic size stays symbolic: the cut is the
    // expression shift mod n (a left shift: n - (-shift mod n), mod n), so every size this graph
    // serves cuts where it should (the trace-time hint would cut them all there; guards made here
    // would be lost).
    const SymInt n = out.size(static_cast<std::int64_t>(d));
    if (!n.is_symbolic()) {
      const std::int64_t m = n.hint();
      const std::int64_t s = m == 0 ? 0 : ((shifts[k] % m) + m) % m;
      if (s != 0) {
        out = cat({slice(out, d, SymInt(m - s), SymInt(m)), slice(out, d, 0, SymInt(m - s))}, d);
      }
      continue;
    }
    // Written over non-negative operands only, so that every mod is the same in C and Python.
    const SymInt s = shifts[k] >= 0 ? SymInt(shifts[k]) % n : (n - SymInt(-shifts[k]) % n) % n;
    out = cat({slice(out, d, n - s, n), slice(out, d, SymInt(0), n - s)}, d);
  }
  return value_ints(a[2]).empty() ? reshape(out, x.sym_sizes()) : out;
}

// reshape = view when the strides allow it, else a contiguous copy viewed.
Value reshape_decomp(Args a) {
  const Tensor& x = tensor(a, 0);
  const std::vector<SymInt>& sizes = value_sym_ints(a[1]);
  const Tensor meta = value_tensor(run_meta(OpKind::reshape, a)); // resolves -1, checks numel
  if (kernels::view_strides(x.sizes(), x.strides(), meta.sizes())) {
    return view(x, sizes);
  }
  return view(contiguous(x), sizes);
}

// transpose = permute with two dims swapped.
Value transpose_decomp(Args a) {
  const Tensor& x = tensor(a, 0);
  if (x.dim() == 0) {
    return view(x, {});
  }
  const std::int64_t d0 = kernels::wrap_dim(value_int(a[1]), x.dim());
  const std::int64_t d1 = kernels::wrap_dim(value_int(a[2]), x.dim());
  std::vector<std::int64_t> dims(static_cast<std::size_t>(x.dim()));
  for (std::size_t i = 0; i < dims.size(); ++i) {
    dims[i] = static_cast<std::int64_t>(i);
  }
  std::swap(dims[static_cast<std::size_t>(d0)], dims[static_cast<std::size_t>(d1)]);
  return permute(x, dims);
}

// unsqueeze and squeeze = views to the sizes their meta computes.
Value resize_decomp(OpKind op, Args a) {
  const Tensor& x = tensor(a, 0);
  const Tensor meta = value_tensor(run_meta(op, a));
  return view(x, meta.sym_sizes());
}
Value unsqueeze_decomp(Args a) {
  return resize_decomp(OpKind::unsqueeze, a);
}
Value squeeze_decomp(Args a) {
  return resize_decomp(OpKind::squeeze, a);
}

// detach = the same tensor under a new identity (autograd, above, stops history).
Value detach_decomp(Args a) {
  return autograd::alias_without_history(tensor(a, 0));
}

// stack = cat of the inputs unsqueezed at dim.
Value stack_decomp(Args a) {
  const std::vector<Tensor>& xs = value_tensors(a[0]);
  if (xs.empty()) {
    user_error("stack: expected a non-empty list of tensors");
  }
  const std::int64_t d = kernels::wrap_dim(value_int(a[1]), xs.front().dim() + 1, false);
  std::vector<Tensor> parts;
  parts.reserve(xs.size());
  for (const Tensor& x : xs) {
    parts.push_back(unsqueeze(x, d));
  }
  return cat(parts, d);
}

// {sizes, dtype} then the device when it is not the host.
Device factory_device(Args a, std::size_t device_at) {
  return a.size() > device_at ? value_device(a[device_at]) : Device::cpu();
}
Value zeros_decomp(Args a) {
  return full(value_sym_ints(a[0]), 0.0, value_dtype(a[1]), factory_device(a, 2));
}
Value ones_decomp(Args a) {
  return full(value_sym_ints(a[0]), 1.0, value_dtype(a[1]), factory_device(a, 2));
}

// silu(x) = x * sigmoid(x)
Value silu_decomp(Args a) {
  const Tensor& x = tensor(a, 0);
  return mul(x, sigmoid(x));
}

// addmm(bias, a, b) = mm(a, b) + bias
Value addmm_decomp(Args a) {
  return add(mm(tensor(a, 1), tensor(a, 2)), tensor(a, 0));
}

struct Entry {
  OpKind op;
  Decomposition fn;
};

// clang-format off
constexpr std::array kTable = {
  Entry{OpKind::sigmoid,       sigmoid_decomp},
  Entry{OpKind::relu,          relu_decomp},
  Entry{OpKind::gelu,          gelu_decomp},
  // pointwise, more
  Entry{OpKind::clamp,         clamp_decomp},
  Entry{OpKind::clamp_min,     clamp_min_decomp},
  Entry{OpKind::clamp_max,     clamp_max_decomp},
  Entry{OpKind::nan_to_num,    nan_to_num_decomp},
  Entry{OpKind::masked_fill,   masked_fill_decomp},
  Entry{OpKind::leaky_relu,    leaky_relu_decomp},
  Entry{OpKind::elu,           elu_decomp},
  Entry{OpKind::softplus,      softplus_decomp},
  Entry{OpKind::hardswish,     hardswish_decomp},
  Entry{OpKind::mean,          mean_decomp},
  Entry{OpKind::var,           var_decomp},
  Entry{OpKind::logsumexp,     logsumexp_decomp},
  Entry{OpKind::matmul,        matmul_decomp},
  Entry{OpKind::softmax,       softmax_decomp},
  Entry{OpKind::log_softmax,   log_softmax_decomp},
  Entry{OpKind::layer_norm,    layer_norm_decomp},
  Entry{OpKind::embedding,     embedding_decomp},
  Entry{OpKind::cross_entropy, cross_entropy_decomp},
  Entry{OpKind::mse_loss,      mse_loss_decomp},
  Entry{OpKind::binary_cross_entropy_with_logits, binary_cross_entropy_with_logits_decomp},
  Entry{OpKind::dropout,       dropout_decomp},
  Entry{OpKind::adaptive_avg_pool2d, adaptive_avg_pool2d_decomp},
  Entry{OpKind::group_norm,    group_norm_decomp},
  // indexing, more
  Entry{OpKind::index_select,  index_select_decomp},
  Entry{OpKind::narrow,        narrow_decomp},
  Entry{OpKind::tril,          tril_decomp},
  Entry{OpKind::triu,          triu_decomp},
  Entry{OpKind::repeat,        repeat_decomp},
  Entry{OpKind::roll,          roll_decomp},
  Entry{OpKind::reshape,       reshape_decomp},
  Entry{OpKind::transpose,     transpose_decomp},
  Entry{OpKind::unsqueeze,     unsqueeze_decomp},
  Entry{OpKind::squeeze,       squeeze_decomp},
  Entry{OpKind::detach,        detach_decomp},
  Entry{OpKind::stack,         stack_decomp},
  Entry{OpKind::zeros,         zeros_decomp},
  Entry{OpKind::ones,          ones_decomp},
  Entry{OpKind::silu,          silu_decomp},
  Entry{OpKind::addmm,         addmm_decomp},
};
// clang-format on

// The op list's levels, as a constant expression (op_level() is not constexpr).
constexpr std::array<bool, kNumOps> kIsComposite = {{
#define TORCHSCOPE_OP_IS_COMPOSITE(name, aten, category, level)                                    \
  OpLevel::level == OpLevel::Composite,
    TORCHSCOPE_COMPILER_OPS(TORCHSCOPE_OP_IS_COMPOSITE)
#undef TORCHSCOPE_OP_IS_COMPOSITE
}};

// The table lists exactly the composite ops, in op-list order.
constexpr bool table_matches_op_list() {
  std::size_t next = 0;
  for (std::size_t i = 0; i < kIsComposite.size(); ++i) {
    if (!kIsComposite[i]) {
      continue;
    }
    if (next >= kTable.size() || kTable[next].op != static_cast<OpKind>(i)) {
      return false;
    }
    ++next;
  }
  return next == kTable.size();
}
static_assert(table_matches_op_list(),
              "every op marked Composite in ops/op_list.h needs a decomposition here, in op-list "
              "order (and no Prim op may have one)");

constexpr std::array<Decomposition, kNumOps> by_op() {
  std::array<Decomposition, kNumOps> out{};
  for (const Entry& e : kTable) {
    out[static_cast<std::size_t>(e.op)] = e.fn;
  }
  return out;
}
constexpr std::array<Decomposition, kNumOps> kByOp = by_op();

} // namespace

Decomposition decomposition_of(OpKind op) noexcept {
  return kByOp[static_cast<std::size_t>(op)];
}

Value decompose(OpKind op, std::span<const Value> args) {
  const Decomposition fn = decomposition_of(op);
  TORCHSCOPE_ASSERT(fn != nullptr, "decompose() of a primitive op");
  return fn(args);
}

} // namespace compiler::aot
