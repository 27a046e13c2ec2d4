// kernels: the per-op entry points behind run_eager and run_meta, declared once from the op
// list. Each op `name` has
//   Value eager_name(std::span<const Value> args);  // real tensors in, real tensors out
//   Value meta_name(std::span<const Value> args);   // output metadata over SymInt sizes
// defined in the kernels/*.cpp file of its family (elementwise.cpp, reduction.cpp, ...).
#pragma once

#include "compiler/core/value.h"
#include "compiler/ops/op_list.h"

#include <span>

namespace compiler::kernels {

#define TORCHSCOPE_DECLARE_KERNELS(name, aten, category, level)                                    \
  Value eager_##name(std::span<const Value> args);                                                 \
  Value meta_##name(std::span<const Value> args);
TORCHSCOPE_COMPILER_OPS(TORCHSCOPE_DECLARE_KERNELS)
#undef TORCHSCOPE_DECLARE_KERNELS

} // namespace compiler::kernels
