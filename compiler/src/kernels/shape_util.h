// kernels: shape helpers shared by the eager kernels and the meta functions: dim wrapping,
// broadcasting over SymInt sizes, argument access, and making outputs and views. Meta and eager
// share these, so both compute the same output shapes by construction.
#pragma once

#include "compiler/core/errors.h"
#include "compiler/core/value.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace compiler::kernels {

// Wraps a possibly negative dim into [0, rank); UserError when out of range. A rank of 0
// accepts -1 and 0 as PyTorch does for scalars (when allow_scalar).
std::int64_t wrap_dim(std::int64_t dim, std::int64_t rank, bool allow_scalar = true);

// Broadcasts two shapes (numpy rules). Sizes known to be 1 stretch; a symbolic size is never 1
// (capture specialises 0 and 1), so no guard is recorded for it. Two symbolic sizes that must
// match are compared with ==, which records the guard. UserError when they cannot broadcast.
std::vector<SymInt> broadcast_shapes(std::span<const SymInt> a, std::span<const SymInt> b);

// True when `s` is the concrete value v (never for a symbolic size).
inline bool is_concrete(const SymInt& s, std::int64_t v) {
  return !s.is_symbolic() && s.hint() == v;
}

// Whether two sizes are equal: structurally identical expressions (s0 and s0) are equal without
// a guard; anything else is compared with ==, which records a guard while tracing.
bool sym_equal(const SymInt& a, const SymInt& b);

// Argument i of `args`; UserError when the list is too short (run_eager and run_meta are
// public, so a short list is the caller's mistake).
const Value& arg(std::span<const Value> args, std::size_t i);
// Argument i of `args` as a tensor (UserError when missing or not a defined tensor).
const Tensor& tensor_arg(std::span<const Value> args, std::size_t i);
// UserError unless `t` has storage (eager kernels need data).
void require_real(const Tensor& t, std::string_view op);

// A new output: fake when `fake`, otherwise a real zero-filled contiguous tensor.
Tensor make_output(std::vector<SymInt> sizes, DType dtype, bool fake);
// A real contiguous output whose every element the kernel writes (no zero fill).
Tensor make_overwritten_output(std::vector<SymInt> sizes, DType dtype);
// A tensor sharing `base`'s storage (or fake like it) with new metadata.
Tensor make_view(const Tensor& base, std::vector<SymInt> sizes, std::vector<std::int64_t> strides,
                 std::int64_t storage_offset);

// Product of sizes.
SymInt sym_product(std::span<const SymInt> sizes);
std::int64_t product(std::span<const std::int64_t> sizes);

// Reduction dims: wrapped, deduplicated, sorted; empty input means all dims.
std::vector<std::int64_t> reduction_dims(std::span<const std::int64_t> dims, std::int64_t rank);
// The shape left after reducing `dims` (kept as 1 when keepdim).
std::vector<SymInt> reduced_shape(std::span<const SymInt> sizes, std::span<const std::int64_t> dims,
                                  bool keepdim);

// Strides that let `new_sizes` view memory laid out as (old_sizes, old_strides), or nullopt
// when no view can (view() then fails and reshape() copies).
std::optional<std::vector<std::int64_t>> view_strides(std::span<const std::int64_t> old_sizes,
                                                      std::span<const std::int64_t> old_strides,
                                                      std::span<const std::int64_t> new_sizes);

// "[2, 3]" for messages.
std::string shape_string(std::span<const SymInt> sizes);

} // namespace compiler::kernels
