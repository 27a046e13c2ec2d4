// compiler/aot: the decomposition table, composite ops written with primitive ops (PyTorch's
// torch._decomp table in the role PrimTorch gives it). The AOT stage's tracer applies it to
// every composite op it meets, so the graphs it hands to code generation contain only the ops
// op_list.h marks Prim. There is one entry per op marked Composite (a static_assert checks
// the table against the op list); a test proves each entry equals the composite op's kernel
// numerically and its derivative in gradient.
#pragma once

#include "compiler/core/value.h"
#include "compiler/ops/op_hook.h"

#include <span>

namespace compiler::aot {

// A decomposition computes a composite op from other ops (dispatched, so a tracer records
// them and decomposes nested composites in turn). Arguments use the op's layout (ops.cpp).
using Decomposition = Value (*)(std::span<const Value> args);

// The decomposition of `op`; nullptr for a primitive op.
Decomposition decomposition_of(OpKind op) noexcept;

// Runs `op`'s decomposition on `args`. `op` must be Composite.
Value decompose(OpKind op, std::span<const Value> args);

} // namespace compiler::aot
