// kernels: the one strided copy. Every kernel that wants its inputs in a simple layout
// (contiguous, a given dtype, broadcast to the output shape) gets them from here, so only this
// file iterates over arbitrary strides.
#pragma once

#include "compiler/tensor/tensor.h"

#include <cstdint>
#include <span>

namespace compiler::kernels {

// Copies `src` (any strides, any dtype) into `dst` (contiguous, same sizes, any dtype),
// converting each element.
void copy_into(const Tensor& src, const Tensor& dst);

// A contiguous result computed in a wider type, converted to `dtype` (itself when it already is).
Tensor to_result(Tensor computed, DType dtype);

// `x` as a contiguous real tensor of `dtype`: `x` itself when it already is one.
Tensor contiguous_as(const Tensor& x, DType dtype);

// `x` broadcast to `sizes` (which it must broadcast to), contiguous, of `dtype`.
Tensor broadcast_contiguous_as(const Tensor& x, std::span<const std::int64_t> sizes, DType dtype);

// A stride-0 view of `x` broadcast to `sizes` (no copy).
Tensor broadcast_view(const Tensor& x, std::span<const std::int64_t> sizes);

} // namespace compiler::kernels
