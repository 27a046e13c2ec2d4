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
#include <utility>
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
// Variance over `dims` (empty: all): sum((x - mean)^2) / max(0, N - correction), N the number
// of elements reduced (correction 1 is Bessel's, PyTorch's unbiased=True); floating inputs only.
Tensor var(const Tensor& x, std::vector<std::int64_t> dims = {}, double correction = 1.0,
           bool keepdim = false, SourceLoc loc = SourceLoc::current());
// sqrt(var(...)): a function over var, not an op of its own.
Tensor std(const Tensor& x, std::vector<std::int64_t> dims = {}, double correction = 1.0,
           bool keepdim = false, SourceLoc loc = SourceLoc::current());
// (var, mean) of the same reduction, as torch.var_mean returns them.
std::pair<Tensor, Tensor> var_mean(const Tensor& x, std::vector<std::int64_t> dims = {},
                                   double correction = 1.0, bool keepdim = false,
                                   SourceLoc loc = SourceLoc::current());
// log(sum(exp(x))) over `dims` (empty: all), computed as max + log(sum(exp(x - max))) so large
// inputs do not overflow; integer and bool inputs give f32.
Tensor logsumexp(const Tensor& x, std::vector<std::int64_t> dims, bool keepdim = false,
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
// (input - target)^2, reduced by `reduction`: "mean" (the default), "sum" or "none"; input and
// target broadcast (PyTorch warns when their shapes differ; so does nothing here).
Tensor mse_loss(const Tensor& input, const Tensor& target, std::string reduction = "mean",
                SourceLoc loc = SourceLoc::current());
// -(target * log(sigmoid(input)) + (1 - target) * log(1 - sigmoid(input))), written in the
// stable form (1 - target) * input + log(1 + exp(-|input|)) + max(-input, 0); reduced as
// mse_loss is. input and target have the same shape.
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                        std::string reduction = "mean",
                                        SourceLoc loc = SourceLoc::current());
// Dropout: in training, each element of x is zeroed with probability p and the rest scaled by
// 1 / (1 - p); outside training, x itself. The draws come from the process's random generator
// (manual_seed below), which each call advances by x's element count, so a call's mask is a
// function of (seed, offset) and its backward regenerates it instead of saving it.
Tensor dropout(const Tensor& x, double p = 0.5, bool train = true,
               SourceLoc loc = SourceLoc::current());
// Dropout with explicit draws: the mask of rand(x's sizes, seed, offset) < 1 - p.
Tensor dropout(const Tensor& x, double p, std::uint64_t seed, SymInt offset,
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
// Views of consecutive pieces along dim, each of `split_size` elements but the last (which may
// be smaller), as torch.split; functions over narrow, so graphs hold narrow's slices.
std::vector<Tensor> split(const Tensor& x, std::int64_t split_size, std::int64_t dim = 0,
                          SourceLoc loc = SourceLoc::current());
// Views of pieces of the given sizes along dim (they must add up to the dim's size).
std::vector<Tensor> split(const Tensor& x, const std::vector<std::int64_t>& split_sizes,
                          std::int64_t dim = 0, SourceLoc loc = SourceLoc::current());
// `chunks` views (or fewer) of ceil(size / chunks) elements along dim, as torch.chunk.
std::vector<Tensor> chunk(const Tensor& x, std::int64_t chunks, std::int64_t dim = 0,
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
// Uniform samples in [0, 1) from a counter-based generator: element i of the (row-major) result
// depends only on (seed, offset + i), as Inductor's Philox draws do, so eager kernels and
// generated code draw the same numbers and a later draw can be replayed from (seed, offset).
// Each value has the dtype's mantissa width of random bits (24 for f32, 53 for f64, 11 for f16,
// 8 for bf16), so it is exact in the dtype and never rounds up to 1. See kernels/factory.cpp.
Tensor rand(std::vector<SymInt> sizes, std::uint64_t seed, SymInt offset,
            DType dtype = DType::Float32, SourceLoc loc = SourceLoc::current());
Tensor rand(std::vector<SymInt> sizes, std::uint64_t seed, SymInt offset, DType dtype,
            Device device, SourceLoc loc = SourceLoc::current());
// rand drawn from the process's generator (advancing it by the element count).
Tensor rand(std::vector<SymInt> sizes, DType dtype = DType::Float32,
            SourceLoc loc = SourceLoc::current());

// ---- the process's random generator (PyTorch's default generator) ----
// A seed and an offset: a draw of n numbers uses offsets [offset, offset + n) and advances the
// offset by n, as PyTorch's Philox generator does. manual_seed resets the offset to 0.
struct RandomState {
  std::uint64_t seed = 0;
  std::uint64_t offset = 0;
};
void manual_seed(std::uint64_t seed);
RandomState random_state();
void set_random_state(RandomState state);
// The state before, with the offset advanced past `count` draws (thread-safe).
RandomState take_random_offsets(std::uint64_t count);
// True on this thread while dropout(x, p, train) or rand(sizes, dtype) dispatches the op that
// draws from the generator: capture then makes the op's offset the generator-offset symbol (a
// value each compiled call reads), where the explicit rand(sizes, seed, offset) keeps its own.
bool dispatching_generator_draw() noexcept;

// ---- fused ops (what Inductor's pattern rewrites produce; also callable directly) ----
// x * sigmoid(x), computed exactly as those two ops are.
Tensor silu(const Tensor& x, SourceLoc loc = SourceLoc::current());
// matmul(a, b) + bias for 2-D a and b, computed exactly as those two ops are.
Tensor addmm(const Tensor& bias, const Tensor& a, const Tensor& b,
             SourceLoc loc = SourceLoc::current());

// ---- in-place ops (PyTorch's `x.add_(y)`) ----
// Each computes its out-of-place op (add_ is add) and writes the result into `self`, which it
// returns. The result keeps self's dtype and shape: a result type that cannot be cast to self's
// (a float result into an integer tensor, a non-bool into bool) or a broadcast shape other than
// self's is a UserError naming the op, as in PyTorch. Eagerly the write goes to self's memory
// (a view's write is seen through its base) and bumps the storage's version. Under autograd:
// refused on a leaf that requires grad (or a view of one) while grad mode is on; on other
// tensors self takes the result's history, so gradients flow through. Under compile() the
// mutation is functionalized (docs/COMPILER.md, "Mutation and functionalization").
const Tensor& add_(const Tensor& self, const Tensor& other, SourceLoc loc = SourceLoc::current());
const Tensor& add_(const Tensor& self, double other, SourceLoc loc = SourceLoc::current());
const Tensor& sub_(const Tensor& self, const Tensor& other, SourceLoc loc = SourceLoc::current());
const Tensor& sub_(const Tensor& self, double other, SourceLoc loc = SourceLoc::current());
const Tensor& mul_(const Tensor& self, const Tensor& other, SourceLoc loc = SourceLoc::current());
const Tensor& mul_(const Tensor& self, double other, SourceLoc loc = SourceLoc::current());
const Tensor& div_(const Tensor& self, const Tensor& other, SourceLoc loc = SourceLoc::current());
const Tensor& div_(const Tensor& self, double other, SourceLoc loc = SourceLoc::current());
const Tensor& clamp_(const Tensor& self, std::optional<double> min, std::optional<double> max,
                     SourceLoc loc = SourceLoc::current());
// src broadcast to self's shape and converted to its dtype (any dtype may be copied).
const Tensor& copy_(const Tensor& self, const Tensor& src, SourceLoc loc = SourceLoc::current());
const Tensor& fill_(const Tensor& self, double value, SourceLoc loc = SourceLoc::current());
const Tensor& zero_(const Tensor& self, SourceLoc loc = SourceLoc::current());

// ---- normalisation with running statistics ----
// torch.nn.functional.batch_norm: x [N, C, ...] normalised per channel C. training: over the
// batch's statistics (biased variance), and running_mean/running_var (when given) are updated
// in place, not recorded by autograd: r = (1 - momentum) r + momentum s, with the unbiased
// variance. Otherwise the running statistics are used (they must be given). weight and bias
// ([C]) may be undefined. Written with ops (mean, sub, mul, rsqrt, ...) and the in-place ops
// above, so eager, autograd and compiled paths come from theirs.
Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight, const Tensor& bias, bool training, double momentum = 0.1,
                  double eps = 1e-5, SourceLoc loc = SourceLoc::current());

// ---- data-dependent (graph breaks under capture) ----
// The value of a one-element tensor (integers and bools converted to double).
double item(const Tensor& x, SourceLoc loc = SourceLoc::current());
bool to_bool(const Tensor& x, SourceLoc loc = SourceLoc::current());

} // namespace compiler
