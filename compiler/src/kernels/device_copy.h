// kernels: moving tensors between the host and GPUs: the eager `to` op, factories with a
// device, and item() on a GPU tensor. The bytes move through tensor/device_memory.h.
#pragma once

#include "compiler/core/value.h"

#include <span>

namespace compiler::kernels {

// `x` on `device` (resolved): `x` itself when it is already there, otherwise a contiguous copy
// of it (a strided GPU view comes back through the span of storage it covers).
Tensor to_device(const Tensor& x, Device device);

// A factory's device (its optional last argument, ops/ops.cpp's layout): the host when absent.
Device factory_device(std::span<const Value> args);

} // namespace compiler::kernels
