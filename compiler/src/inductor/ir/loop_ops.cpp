// The loop-IR op table (inductor/ir/loop_ops.h).
#include "inductor/ir/loop_ops.h"

namespace compiler::inductor {

namespace {

struct OpInfo {
  std::string_view name;
  int arity;
  LoopOpCategory category;
};

constexpr OpInfo kOps[] = {
#define TORCHSCOPE_LOOP_OP_INFO(name, arity, category) {#name, arity, LoopOpCategory::category},
    TORCHSCOPE_LOOP_OPS(TORCHSCOPE_LOOP_OP_INFO)
#undef TORCHSCOPE_LOOP_OP_INFO
};

} // namespace

std::string_view loop_op_name(LoopOp op) noexcept {
  return kOps[static_cast<std::size_t>(op)].name;
}

int loop_op_arity(LoopOp op) noexcept {
  return kOps[static_cast<std::size_t>(op)].arity;
}

LoopOpCategory loop_op_category(LoopOp op) noexcept {
  return kOps[static_cast<std::size_t>(op)].category;
}

DType loop_op_result(LoopOp op, DType operand) noexcept {
  switch (loop_op_category(op)) {
  case LoopOpCategory::Arith:
  case LoopOpCategory::Select:
    return operand;
  case LoopOpCategory::Float:
  case LoopOpCategory::Random:
    return DType::Float32;
  case LoopOpCategory::Compare:
  case LoopOpCategory::Logic:
    return DType::Bool;
  }
  return operand;
}

std::string_view reduction_type_name(ReductionType t) noexcept {
  switch (t) {
#define TORCHSCOPE_REDUCTION_NAME(name)                                                            \
  case ReductionType::name:                                                                        \
    return #name;
    TORCHSCOPE_REDUCTION_TYPES(TORCHSCOPE_REDUCTION_NAME)
#undef TORCHSCOPE_REDUCTION_NAME
  }
  return "?";
}

DType compute_dtype(DType storage) noexcept {
  if (storage == DType::Bool) {
    return DType::Bool;
  }
  return compute_type(storage);
}

} // namespace compiler::inductor
