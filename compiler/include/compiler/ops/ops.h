// compiler/ops: the op functions users call. Each packs its arguments into Values and calls
// dispatch() (ops/op_hook.h) with the caller's std::source_location, so eager execution,
// capture's graph nodes and UserErrors all point at the user's line.
//
// Semantics follow PyTorch's: broadcasting, type promotion (dtype.h), negative dims counting
// from the end. Scalars are Python-float-like: `add(int_tensor, 1.0)` is f32. 16-bit float
// tensors compute in float and store rounded to nearest even.
#pragma once

#include "compiler/core/value.h"
#include "compiler/ops/op_hook.h"
#include "compiler/tensor/tensor.h"

#include <cstdint>
#include <optional>
#include <source_location>
#include <string>
#include <vector>

namespace compiler {

using SourceLoc = std::source_location;

// ---- pointwise, binary: tensor with tensor (broadcast) or with a scalar ----
Tensor add(const Tensor& a, const Tensor& b, SourceLoc loc = SourceLoc::current());
Tensor add(const Tensor& a, double b, SourceLoc loc = SourceLoc::current());
Tensor sub(const Tensor& a, const Tensor& b, SourceLoc loc = SourceLoc::current());
Tensor sub(const Tensor& a, double b, SourceLoc loc = SourceLoc::current());
Tensor mul(const Tensor& a, const Tensor& b, SourceLoc loc = SourceLoc::current());
Tensor mul(const Tensor& a, double b, SourceLoc loc = SourceLoc::current());
// True division: integer inputs give f32.
Tensor div(const Tensor& a, const Tensor& b, SourceLoc loc = SourceLoc::current());
Tensor div(const Tensor& a, double b, SourceLoc loc = SourceLoc::current());
Tensor pow(const Tensor& a, const Tensor& b, SourceLoc loc = SourceLoc::current());
Tensor pow(const Tensor& a, double b, SourceLoc loc = SourceLoc::current());
// The larger of a and b, elementwise (NaN propagates).
Tensor maximum(const Tensor& a, const Tensor& b, SourceLoc loc = SourceLoc::current());
Tensor maximum(const Tensor& a, double b, SourceLoc loc = SourceLoc::current());
// Comparisons give bool tensors.
Tensor eq(const Tensor& a, const Tensor& b, SourceLoc loc = SourceLoc::current());
Tensor eq(const Tensor& a, double b, SourceLoc loc = SourceLoc::current());
Tensor ne(const Tensor& a, const Tensor& b, SourceLoc loc = SourceLoc::current());
Tensor ne(const Tensor& a, double b, SourceLoc loc = SourceLoc::current());
Tensor lt(const Tensor& a, const Tensor& b, SourceLoc loc = SourceLoc::current());
Tensor lt(const Tensor& a, double b, SourceLoc loc = SourceLoc::current());
Tensor le(const Tensor& a, const Tensor& b, SourceLoc loc = SourceLoc::current());
Tensor le(const Tensor& a, double b, SourceLoc loc = SourceLoc::current());
Tensor gt(const Tensor& a, const Tensor& b, SourceLoc loc = SourceLoc::current());
Tensor gt(const Tensor& a, double b, SourceLoc loc = SourceLoc::current());
Tensor ge(const Tensor& a, const Tensor& b, SourceLoc loc = SourceLoc::current());
Tensor ge(const Tensor& a, double b, SourceLoc loc = SourceLoc::current());
// cond ? a : b, elementwise with broadcasting; cond must be bool.
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b,
             SourceLoc loc = SourceLoc::current());

// ---- pointwise, unary ----
Tensor neg(const Tensor& x, SourceLoc loc = SourceLoc::current());
// exp, log, sin, cos, tanh, sigmoid, sqrt, rsqrt, erf: integer inputs give f32.
Tensor exp(const Tensor& x, SourceLoc loc = SourceLoc::current());
Tensor log(const Tensor& x, SourceLoc loc = SourceLoc::current());
Tensor sin(const Tensor& x, SourceLoc loc = SourceLoc::current());
Tensor cos(const Tensor& x, SourceLoc loc = SourceLoc::current());
Tensor tanh(const Tensor& x, SourceLoc loc = SourceLoc::current());
Tensor sigmoid(const Tensor& x, SourceLoc loc = SourceLoc::current());
Tensor relu(const Tensor& x, SourceLoc loc = SourceLoc::current());
// approximate: "none" (erf form) or "tanh".
Tensor gelu(const Tensor& x, std::string approximate = "none",
            SourceLoc loc = SourceLoc::current());
Tensor sqrt(const Tensor& x, SourceLoc loc = SourceLoc::current());
// 1 / sqrt(x).
Tensor rsqrt(const Tensor& x, SourceLoc loc = SourceLoc::current());
Tensor abs(const Tensor& x, SourceLoc loc = SourceLoc::current());
// The Gauss error function.
Tensor erf(const Tensor& x, SourceLoc loc = SourceLoc::current());
// A copy converted to `dtype` (floats to integers truncate toward zero; to bool is != 0).
Tensor to_dtype(const Tensor& x, DType dtype, SourceLoc loc = SourceLoc::current());

// ---- pointwise, more ----
// x limited to [min, max]; either bound may be absent (not both). Bounds promote as a binary
// op's operands do (an integer x with a float bound gives f32); where min > max the result is
// max. An undefined Tensor bound is absent.
Tensor clamp(const Tensor& x, std::optional<double> min, std::optional<double> max,
             SourceLoc loc = SourceLoc::current());
Tensor clamp(const Tensor& x, const Tensor& min, const Tensor& max,
             SourceLoc loc = SourceLoc::current());
Tensor clamp_min(const Tensor& x, const Tensor& min, SourceLoc loc = SourceLoc::current());
Tensor clamp_min(const Tensor& x, double min, SourceLoc loc = SourceLoc::current());
Tensor clamp_max(const Tensor& x, const Tensor& max, SourceLoc loc = SourceLoc::current());
Tensor clamp_max(const Tensor& x, double max, SourceLoc loc = SourceLoc::current());
// The smaller of a and b, elementwise (NaN propagates).
Tensor minimum(const Tensor& a, const Tensor& b, SourceLoc loc = SourceLoc::current());
Tensor minimum(const Tensor& a, double b, SourceLoc loc = SourceLoc::current());
// floor, ceil, round (half to even), trunc and sign keep the dtype (integers unchanged; sign of
// NaN is 0, as in PyTorch 1.13); not for bool, except sign.
Tensor floor(const Tensor& x, SourceLoc loc = SourceLoc::current());
Tensor ceil(const Tensor& x, SourceLoc loc = SourceLoc::current());
Tensor round(const Tensor& x, SourceLoc loc = SourceLoc::current());
Tensor trunc(const Tensor& x, SourceLoc loc = SourceLoc::current());
Tensor sign(const Tensor& x, SourceLoc loc = SourceLoc::current());
// log1p, expm1, tan, atan, asin, acos, sinh, cosh: integer and bool inputs give f32.
Tensor log1p(const Tensor& x, SourceLoc loc = SourceLoc::current());
Tensor expm1(const Tensor& x, SourceLoc loc = SourceLoc::current());
Tensor tan(const Tensor& x, SourceLoc loc = SourceLoc::current());
Tensor atan(const Tensor& x, SourceLoc loc = SourceLoc::current());
Tensor asin(const Tensor& x, SourceLoc loc = SourceLoc::current());
Tensor acos(const Tensor& x, SourceLoc loc = SourceLoc::current());
Tensor sinh(const Tensor& x, SourceLoc loc = SourceLoc::current());
Tensor cosh(const Tensor& x, SourceLoc loc = SourceLoc::current());
// Logical ops take any dtype (nonzero is true) and give bool tensors.
Tensor logical_and(const Tensor& a, const Tensor& b, SourceLoc loc = SourceLoc::current());
Tensor logical_or(const Tensor& a, const Tensor& b, SourceLoc loc = SourceLoc::current());
Tensor logical_xor(const Tensor& a, const Tensor& b, SourceLoc loc = SourceLoc::current());
Tensor logical_not(const Tensor& x, SourceLoc loc = SourceLoc::current());
// Bitwise ops: integer and bool tensors only (promoted as a binary op's operands).
Tensor bitwise_and(const Tensor& a, const Tensor& b, SourceLoc loc = SourceLoc::current());
Tensor bitwise_or(const Tensor& a, const Tensor& b, SourceLoc loc = SourceLoc::current());
Tensor bitwise_xor(const Tensor& a, const Tensor& b, SourceLoc loc = SourceLoc::current());
Tensor bitwise_not(const Tensor& x, SourceLoc loc = SourceLoc::current());
// Bool tensors: where x is NaN, where x is +-infinity (false throughout for integers).
Tensor isnan(const Tensor& x, SourceLoc loc = SourceLoc::current());
Tensor isinf(const Tensor& x, SourceLoc loc = SourceLoc::current());
// NaN, +inf and -inf replaced; an absent posinf/neginf is the dtype's largest/lowest finite
// value. Integer tensors come back unchanged.
Tensor nan_to_num(const Tensor& x, double nan = 0.0, std::optional<double> posinf = std::nullopt,
                  std::optional<double> neginf = std::nullopt,
                  SourceLoc loc = SourceLoc::current());
// x with `value` (converted to x's dtype) where the bool `mask` holds; mask and x broadcast.
Tensor masked_fill(const Tensor& x, const Tensor& mask, double value,
                   SourceLoc loc = SourceLoc::current());
// Activations, floating tensors only: x > 0 ? x : negative_slope * x;
// x > 0 ? x : alpha * (exp(x) - 1); beta x > threshold ? x : log(1 + exp(beta x)) / beta;
// x * min(max(x + 3, 0), 6) / 6.
Tensor leaky_relu(const Tensor& x, double negative_slope = 0.01,
                  SourceLoc loc = SourceLoc::current());
Tensor elu(const Tensor& x, double alpha = 1.0, SourceLoc loc = SourceLoc::current());
Tensor softplus(const Tensor& x, double beta = 1.0, double threshold = 20.0,
                SourceLoc loc = SourceLoc::current());
Tensor hardswish(const Tensor& x, SourceLoc loc = SourceLoc::current());

// ---- reductions: `dims` empty reduces every dim ----
// sum: bool and integer inputs give i64.
Tensor sum(const Tensor& x, std::vector<std::int64_t> dims = {}, bool keepdim = false,
           SourceLoc loc = SourceLoc::current());
// mean: floating inputs only.
Tensor mean(const Tensor& x, std::vector<std::int64_t> dims = {}, bool keepdim = false,
            SourceLoc loc = SourceLoc::current());
Tensor amax(const Tensor& x, std::vector<std::int64_t> dims = {}, bool keepdim = false,
            SourceLoc loc = SourceLoc::current());
Tensor amin(const Tensor& x, std::vector<std::int64_t> dims = {}, bool keepdim = false,
            SourceLoc loc = SourceLoc::current());
// Index (i64) of the first maximum along `dim`, or of the flattened tensor when dim is absent.
Tensor argmax(const Tensor& x, std::optional<std::int64_t> dim = std::nullopt, bool keepdim = false,
              SourceLoc loc = SourceLoc::current());

// ---- linear algebra ----
// torch.matmul: 1-D and 2-D operands, and batched N-D with broadcast batch dims.
Tensor matmul(const Tensor& a, const Tensor& b, SourceLoc loc = SourceLoc::current());
// [n, k] x [k, m] -> [n, m].
Tensor mm(const Tensor& a, const Tensor& b, SourceLoc loc = SourceLoc::current());
// [B, n, k] x [B, k, m] -> [B, n, m].
Tensor bmm(const Tensor& a, const Tensor& b, SourceLoc loc = SourceLoc::current());

// ---- neural-network composites ----
Tensor softmax(const Tensor& x, std::int64_t dim, SourceLoc loc = SourceLoc::current());
Tensor log_softmax(const Tensor& x, std::int64_t dim, SourceLoc loc = SourceLoc::current());
// Normalises over the trailing dims `normalized_shape`; weight and bias may be undefined.
Tensor layer_norm(const Tensor& x, std::vector<std::int64_t> normalized_shape,
                  const Tensor& weight = Tensor(), const Tensor& bias = Tensor(), double eps = 1e-5,
                  SourceLoc loc = SourceLoc::current());
// Rows of `weight` [num, dim] picked by integer `indices`: result indices.shape + [dim].
Tensor embedding(const Tensor& weight, const Tensor& indices, SourceLoc loc = SourceLoc::current());
// Mean over the batch of -log_softmax(logits)[i, target[i]]; logits [N, C] (or [C]), target
// integer [N] (or 0-dim).
Tensor cross_entropy(const Tensor& logits, const Tensor& target,
                     SourceLoc loc = SourceLoc::current());

// ---- convolution, pooling, normalisation (issue 26) ----
// PyTorch's aten.convolution, 1-D and 2-D, not transposed: input [N, C, (H,) W], weight
// [O, C / groups, (kh,) kw], bias [O] or undefined; stride, padding and dilation one value per
// spatial dim; output_padding unused (transposed is refused).
Tensor convolution(const Tensor& input, const Tensor& weight, const Tensor& bias,
                   std::vector<std::int64_t> stride, std::vector<std::int64_t> padding,
                   std::vector<std::int64_t> dilation, bool transposed,
                   std::vector<std::int64_t> output_padding, std::int64_t groups,
                   SourceLoc loc = SourceLoc::current());
// PyTorch's aten.convolution_backward, returning the one gradient output_mask picks ({1, 0, 0}
// the input's, {0, 1, 0} the weight's, {0, 0, 1} the bias's): graphs hold no tuples.
Tensor convolution_backward(const Tensor& grad_output, const Tensor& input, const Tensor& weight,
                            std::vector<std::int64_t> bias_sizes, std::vector<std::int64_t> stride,
                            std::vector<std::int64_t> padding, std::vector<std::int64_t> dilation,
                            bool transposed, std::vector<std::int64_t> output_padding,
                            std::int64_t groups, std::vector<std::int64_t> output_mask,
                            SourceLoc loc = SourceLoc::current());
// F.conv2d: input [N, C, H, W] or unbatched [C, H, W]; stride, padding and dilation one value
// (both dims) or two.
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(),
              std::vector<std::int64_t> stride = {1}, std::vector<std::int64_t> padding = {0},
              std::vector<std::int64_t> dilation = {1}, std::int64_t groups = 1,
              SourceLoc loc = SourceLoc::current());
// F.conv1d: input [N, C, L] or unbatched [C, L].
Tensor conv1d(const Tensor& input, const Tensor& weight, const Tensor& bias = Tensor(),
              std::vector<std::int64_t> stride = {1}, std::vector<std::int64_t> padding = {0},
              std::vector<std::int64_t> dilation = {1}, std::int64_t groups = 1,
              SourceLoc loc = SourceLoc::current());
// F.max_pool2d over [N, C, H, W] or [C, H, W]: kernel_size, padding and dilation one value or
// two; stride empty (= kernel_size), one value or two.
Tensor max_pool2d(const Tensor& x, std::vector<std::int64_t> kernel_size,
                  std::vector<std::int64_t> stride = {}, std::vector<std::int64_t> padding = {0},
                  std::vector<std::int64_t> dilation = {1}, bool ceil_mode = false,
                  SourceLoc loc = SourceLoc::current());
// max_pool2d's input gradient: each output's gradient goes to its window's argmax, recomputed
// from x (PyTorch keeps the indices instead: max_pool2d_with_indices_backward).
Tensor max_pool2d_backward(const Tensor& grad_output, const Tensor& x,
                           std::vector<std::int64_t> kernel_size, std::vector<std::int64_t> stride,
                           std::vector<std::int64_t> padding, std::vector<std::int64_t> dilation,
                           bool ceil_mode, SourceLoc loc = SourceLoc::current());
// F.avg_pool2d (no divisor_override).
Tensor avg_pool2d(const Tensor& x, std::vector<std::int64_t> kernel_size,
                  std::vector<std::int64_t> stride = {}, std::vector<std::int64_t> padding = {0},
                  bool ceil_mode = false, bool count_include_pad = true,
                  SourceLoc loc = SourceLoc::current());
Tensor avg_pool2d_backward(const Tensor& grad_output, const Tensor& x,
                           std::vector<std::int64_t> kernel_size, std::vector<std::int64_t> stride,
                           std::vector<std::int64_t> padding, bool ceil_mode,
                           bool count_include_pad, SourceLoc loc = SourceLoc::current());
// F.adaptive_avg_pool2d: output_size {oh, ow}; window i of n over a dim of length len is
// [floor(i * len / n), ceil((i + 1) * len / n)).
Tensor adaptive_avg_pool2d(const Tensor& x, std::vector<std::int64_t> output_size,
                           SourceLoc loc = SourceLoc::current());
// F.group_norm: x [N, C, *] normalised over each of num_groups channel groups (and every
// spatial position); weight and bias [C] or undefined.
Tensor group_norm(const Tensor& x, std::int64_t num_groups, const Tensor& weight = Tensor(),
                  const Tensor& bias = Tensor(), double eps = 1e-5,
                  SourceLoc loc = SourceLoc::current());
// Instance norm without running statistics: group_norm with one group per channel.
Tensor instance_norm(const Tensor& x, const Tensor& weight = Tensor(),
                     const Tensor& bias = Tensor(), double eps = 1e-5,
                     SourceLoc loc = SourceLoc::current());

// ---- indexing along one dim (index: an integer tensor of the input's rank) ----
// out[i][j] = x[index[i][j]][j] for dim 0 (and likewise for other dims); out has index's shape.
Tensor gather(const Tensor& x, std::int64_t dim, const Tensor& index,
              SourceLoc loc = SourceLoc::current());
// A copy of x with src[i][j] added at x[index[i][j]][j] for dim 0 (and likewise for other dims);
// repeated indices accumulate.
Tensor scatter_add(const Tensor& x, std::int64_t dim, const Tensor& index, const Tensor& src,
                   SourceLoc loc = SourceLoc::current());

// ---- indexing, more ----
// The entries of x at positions `index` (an integer vector, or 0-dim) along dim: out has x's
// shape with dim's size replaced by index's length.
Tensor index_select(const Tensor& x, std::int64_t dim, const Tensor& index,
                    SourceLoc loc = SourceLoc::current());
// A view of `length` elements from `start` along dim (start may count from the end).
Tensor narrow(const Tensor& x, std::int64_t dim, SymInt start, SymInt length,
              SourceLoc loc = SourceLoc::current());
// A copy of x (at least 2-D) keeping, in each trailing matrix, the elements with
// col - row <= diagonal (tril) or >= diagonal (triu) and zeroing the rest.
Tensor tril(const Tensor& x, std::int64_t diagonal = 0, SourceLoc loc = SourceLoc::current());
Tensor triu(const Tensor& x, std::int64_t diagonal = 0, SourceLoc loc = SourceLoc::current());
// x tiled repeats[i] times along dim i (x's dims aligned to the end of repeats, which may have
// more): out has sizes repeats[i] * x's sizes (1 for the new leading dims).
Tensor repeat(const Tensor& x, std::vector<std::int64_t> repeats,
              SourceLoc loc = SourceLoc::current());
// x shifted circularly by shifts[i] along dims[i] (out[j] = x[(j - shift) mod n]); with no dims,
// the flattened x is shifted by its one shift and given x's shape back.
Tensor roll(const Tensor& x, std::vector<std::int64_t> shifts, std::vector<std::int64_t> dims = {},
            SourceLoc loc = SourceLoc::current());

// ---- views (share storage with the input) ----
// One size may be -1 (inferred). view needs strides compatible with the new shape.
Tensor view(const Tensor& x, std::vector<SymInt> sizes, SourceLoc loc = SourceLoc::current());
// A view when possible, otherwise a contiguous copy.
Tensor reshape(const Tensor& x, std::vector<SymInt> sizes, SourceLoc loc = SourceLoc::current());
Tensor transpose(const Tensor& x, std::int64_t dim0, std::int64_t dim1,
                 SourceLoc loc = SourceLoc::current());
Tensor permute(const Tensor& x, std::vector<std::int64_t> dims,
               SourceLoc loc = SourceLoc::current());
// Elements start, start+step, ... < end along dim; start/end are clamped as Python slicing
// does (negative values count from the end).
Tensor slice(const Tensor& x, std::int64_t dim, SymInt start, SymInt end, std::int64_t step = 1,
             SourceLoc loc = SourceLoc::current());
// Broadcasts size-1 dims (and new leading dims) to `sizes`; -1 keeps a size.
Tensor expand(const Tensor& x, std::vector<SymInt> sizes, SourceLoc loc = SourceLoc::current());
Tensor unsqueeze(const Tensor& x, std::int64_t dim, SourceLoc loc = SourceLoc::current());
// Removes `dim` if its size is 1 (otherwise returns a view of the same shape).
Tensor squeeze(const Tensor& x, std::int64_t dim, SourceLoc loc = SourceLoc::current());
// Removes every size-1 dim.
Tensor squeeze(const Tensor& x, SourceLoc loc = SourceLoc::current());
// The same data in a tensor that autograd does not track (requires_grad false, no history).
Tensor detach(const Tensor& x, SourceLoc loc = SourceLoc::current());

// ---- shape ops that copy ----
// The input itself when already contiguous, otherwise a contiguous copy.
Tensor contiguous(const Tensor& x, SourceLoc loc = SourceLoc::current());
Tensor cat(const std::vector<Tensor>& tensors, std::int64_t dim = 0,
           SourceLoc loc = SourceLoc::current());
Tensor stack(const std::vector<Tensor>& tensors, std::int64_t dim = 0,
             SourceLoc loc = SourceLoc::current());

// ---- device transfer ----
// `x` on `device` ("cpu", "cuda", "cuda:1"), as Tensor.to(device): `x` itself when it is
// already there, otherwise a contiguous copy. "cuda" is the thread's current CUDA device.
Tensor to(const Tensor& x, Device device, SourceLoc loc = SourceLoc::current());

// ---- factories ----
// Each takes an optional device after its dtype (PyTorch's `device=`): the host by default.
// The values are the same on every device (a GPU tensor is made on the host and copied over,
// except zeros, which are set on the device).
// 0, 1, ..., end-1 (i64 by default).
Tensor arange(SymInt end, DType dtype = DType::Int64, SourceLoc loc = SourceLoc::current());
Tensor arange(SymInt end, DType dtype, Device device, SourceLoc loc = SourceLoc::current());
// start, start+step, ... < end (ceil((end-start)/step) elements).
Tensor arange(double start, double end, double step, DType dtype = DType::Float32,
              SourceLoc loc = SourceLoc::current());
Tensor arange(double start, double end, double step, DType dtype, Device device,
              SourceLoc loc = SourceLoc::current());
Tensor full(std::vector<SymInt> sizes, double value, DType dtype = DType::Float32,
            SourceLoc loc = SourceLoc::current());
Tensor full(std::vector<SymInt> sizes, double value, DType dtype, Device device,
            SourceLoc loc = SourceLoc::current());
Tensor zeros(std::vector<SymInt> sizes, DType dtype = DType::Float32,
             SourceLoc loc = SourceLoc::current());
Tensor zeros(std::vector<SymInt> sizes, DType dtype, Device device,
             SourceLoc loc = SourceLoc::current());
Tensor ones(std::vector<SymInt> sizes, DType dtype = DType::Float32,
            SourceLoc loc = SourceLoc::current());
Tensor ones(std::vector<SymInt> sizes, DType dtype, Device device,
            SourceLoc loc = SourceLoc::current());
// Standard normal samples from a documented counter-based generator: element i of the
// (row-major) result depends only on (seed, i), so results do not depend on threading and the
// first elements of a larger draw equal a smaller draw. See kernels/factory.cpp.
Tensor randn(std::vector<SymInt> sizes, std::uint64_t seed, DType dtype = DType::Float32,
             SourceLoc loc = SourceLoc::current());
Tensor randn(std::vector<SymInt> sizes, std::uint64_t seed, DType dtype, Device device,
             SourceLoc loc = SourceLoc::current());

// ---- fused ops (what Inductor's pattern rewrites produce; also callable directly) ----
// x * sigmoid(x), computed exactly as those two ops are.
Tensor silu(const Tensor& x, SourceLoc loc = SourceLoc::current());
// matmul(a, b) + bias for 2-D a and b, computed exactly as those two ops are.
Tensor addmm(const Tensor& bias, const Tensor& a, const Tensor& b,
             SourceLoc loc = SourceLoc::current());

// ---- data-dependent (graph breaks under capture) ----
// The value of a one-element tensor (integers and bools converted to double).
double item(const Tensor& x, SourceLoc loc = SourceLoc::current());
bool to_bool(const Tensor& x, SourceLoc loc = SourceLoc::current());

} // namespace compiler
