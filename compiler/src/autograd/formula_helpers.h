// Internal: building blocks written with ops, shared by the derivative formulas
// (autograd/derivatives.cpp) and the decompositions (aot/decompositions.cpp). Sharing them
// matters beyond brevity: when a composite's derivative and its decomposition compute the same
// intermediate the same way (layer_norm's mean and rstd), the joint graph holds two identical
// nodes that common-subexpression elimination merges, so backward reuses the forward's value.
//
// Sizes are SymInts throughout, so a traced graph keeps symbolic shapes.
#pragma once

#include "compiler/ops/ops.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace compiler::autograd::detail {

// Whether two size lists are the same expressions (no guard is recorded).
bool same_sizes(std::span<const SymInt> a, std::span<const SymInt> b);

// Sums `g` down to `sizes` (the shape it was broadcast from): leading dims and dims where
// `sizes` is 1 are summed out.
Tensor sum_to(const Tensor& g, std::span<const SymInt> sizes);

// The gradient of a reduction over `dims` (empty: all) brought back to `sizes`: unsqueezed
// where keepdim dropped dims, then expanded.
Tensor expand_reduced(const Tensor& g, std::span<const SymInt> sizes,
                      std::span<const std::int64_t> dims, bool keepdim);

// The number of elements a reduction over `dims` (empty: all) of `sizes` combines.
SymInt reduced_count(std::span<const SymInt> sizes, std::span<const std::int64_t> dims);

// x / n for an integer n that may be symbolic (a graph then divides by the symbol's value).
Tensor div_by(const Tensor& x, const SymInt& n);

// A 0-dim tensor holding `value` with `like`'s dtype, on its device (broadcasts like a scalar,
// for where() and maximum()).
Tensor scalar_tensor(double value, const Tensor& like);

// 1 - x and c - x.
Tensor rsub(const Tensor& x, double c);

// A float tensor of 1 where `mask` (bool) holds, else 0, in `dtype`.
Tensor mask_as(const Tensor& mask, DType dtype);

// The normalisation statistics of layer_norm over the trailing `n` dims of x, in the order
// both the forward decomposition and the derivative compute them.
struct LayerNormStats {
  Tensor mean; // keepdim
  Tensor rstd; // keepdim: 1 / sqrt(var + eps), var biased
  Tensor xhat; // (x - mean) * rstd
};
LayerNormStats layer_norm_stats(const Tensor& x, std::size_t n, double eps);

// group_norm's statistics: x [N, C, *] viewed as [N, groups, C / groups * prod(*)] and
// normalised over its last dim (layer_norm_stats of the view), in the order both the
// decomposition and the derivative compute them.
LayerNormStats group_norm_stats(const Tensor& x, std::int64_t groups, double eps);

// [C, 1, ..., 1] for a rank-`rank` tensor with C channels in dim 1: a per-channel vector
// reshaped to broadcast against it.
std::vector<SymInt> channel_shape(const SymInt& channels, std::int64_t rank);

// Every dim of a rank-`rank` tensor but dim 1 (a per-channel reduction).
std::vector<std::int64_t> dims_but_channel(std::int64_t rank);

// adaptive_avg_pool2d along one dim as a matrix: A[i, j] = 1 / |window i| where j lies in
// window i = [floor(i * len / n), ceil((i + 1) * len / n)), else 0; [n, len].
Tensor adaptive_pool_matrix(std::int64_t n, std::int64_t len, DType dtype, Device device);

// The trailing `n` dims of a rank-`rank` tensor: [rank - n, ..., rank - 1].
std::vector<std::int64_t> trailing_dims(std::int64_t rank, std::size_t n);

// ---- composites whose eager kernel and decomposition are the same ops (issue 26): the eager
// kernel runs them on real tensors (each op its own kernel), the AOT stage traces them into
// prims, so compiled code computes what eager computes, op for op.

// x in f32 when it is a 16-bit float (the compute type of the reductions below), else x.
Tensor upcast_16bit(const Tensor& x);

// The correction as the integer a symbolic divisor N - correction needs (UserError otherwise).
std::int64_t integral_correction(double correction);

// var: {x, dims, correction, keepdim}: sum((x - mean)^2) / max(0, N - correction).
Tensor variance(const Tensor& x, std::span<const std::int64_t> dims, double correction,
                bool keepdim);

// logsumexp: {x, dims, keepdim}: m + log(sum(exp(x - m))) with m = amax(x) (0 where infinite).
Tensor log_sum_exp(const Tensor& x, std::span<const std::int64_t> dims, bool keepdim);

// A loss reduced as PyTorch's `reduction` says: "none", "mean" or "sum".
Tensor reduce_loss(const Tensor& loss, const std::string& reduction);
// Checks `reduction` (a UserError naming `op` otherwise).
void check_reduction(const std::string& reduction, const char* op);

// The elementwise losses before their reduction.
Tensor squared_error(const Tensor& input, const Tensor& target);
Tensor logit_cross_entropy(const Tensor& input, const Tensor& target);

// dropout: {x, p, seed, offset}: x * where(rand(seed, offset) < 1 - p, 1 / (1 - p), 0). The draws
// are f32 (f64 for f64 x), so p is not rounded to a 16-bit type.
Tensor dropout_with_mask(const Tensor& x, double p, const SymInt& seed, const SymInt& offset);

} // namespace compiler::autograd::detail
