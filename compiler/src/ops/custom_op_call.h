// Internal: what the stages ask of a custom_op node (compiler/ops/custom_ops.h): its display
// name and whether and how it decomposes.
#pragma once

#include "compiler/core/value.h"

#include <optional>
#include <span>

namespace compiler::custom_ops {

// The registered decomposition applied to custom_op's arguments {name, Tensor[] inputs,
// scalars...}: the op's result computed with built-in ops (recorded by whatever hook is
// installed), or nullopt when the op has none.
std::optional<Value> decompose(std::span<const Value> args);

} // namespace compiler::custom_ops
