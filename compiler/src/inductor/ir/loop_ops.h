// inductor/ir: the operations of the define-by-run loop IR, listed once, and OpsHandler, the
// interface a buffer's computation calls them on (Inductor's `ops`). A computation is a C++
// function over index expressions: run with a code generator's handler it emits machine code,
// with the printer's it writes C-like source, with the analysis handler it records which
// elements of which buffers it reads and writes. Each handler decides what a LoopValue stands
// for (an LLVM value, a C variable name, nothing).
//
// Values have a compute dtype: Float32 (every float storage type computes in f32), Int64 (every
// integer type) or Bool. load() converts from the buffer's storage dtype, store() converts back
// (rounding 16-bit floats to nearest even, saturating floats into integers, bool as != 0), and
// cast() converts exactly as to_dtype does, including the storage type's range and rounding, so
// fused code sees the value eager code would have stored.
#pragma once

#include "compiler/tensor/dtype.h"
#include "inductor/ir/expr.h"

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>

namespace compiler::inductor {

// clang-format off
// X(name, arity, category): category is Arith (f32 or i64 in and out), Float (f32 only),
// Compare (two operands of one dtype, Bool out), Logic (Bool), Select (Bool, a, b), Random
// (i64 seed and counter in, f32 out: kernels/counter_rng.h's uniform(seed, counter), the draw
// rand's eager kernel makes, computed in 64-bit integer arithmetic).
// floor, ceil, round (half to even), trunc and sign leave i64 values as they are (sign gives
// -1, 0 or 1); the bitwise ops take i64 only (the lowering never gives them floats).
#define TORCHSCOPE_LOOP_OPS(X)                                                                \
  X(add,         2, Arith)   X(sub,        2, Arith)   X(mul,        2, Arith)               \
  X(truediv,     2, Float)   X(pow,        2, Arith)   X(maximum,    2, Arith)               \
  X(minimum,     2, Arith)                                                                   \
  X(eq,          2, Compare) X(ne,         2, Compare) X(lt,         2, Compare)             \
  X(le,          2, Compare) X(gt,         2, Compare) X(ge,         2, Compare)             \
  X(logical_and, 2, Logic)   X(logical_or, 2, Logic)   X(logical_not, 1, Logic)            \
  X(where,       3, Select)                                                                  \
  X(neg,         1, Arith)   X(abs,        1, Arith)   X(relu,       1, Arith)               \
  X(exp,         1, Float)   X(log,        1, Float)   X(sin,        1, Float)               \
  X(cos,         1, Float)   X(tanh,       1, Float)   X(sigmoid,    1, Float)               \
  X(sqrt,        1, Float)   X(rsqrt,      1, Float)   X(erf,        1, Float)               \
  X(isnan,       1, Compare)                                                              \
  /* pointwise, more */                                                                    \
  X(floor,       1, Arith)   X(ceil,       1, Arith)   X(round,      1, Arith)               \
  X(trunc,       1, Arith)   X(sign,       1, Arith)                                         \
  X(log1p,       1, Float)   X(expm1,      1, Float)   X(tan,        1, Float)               \
  X(atan,        1, Float)   X(asin,       1, Float)   X(acos,       1, Float)               \
  X(sinh,        1, Float)   X(cosh,       1, Float)                                         \
  X(logical_xor, 2, Logic)   X(isinf,      1, Compare)                                       \
  X(bitwise_and, 2, Arith)   X(bitwise_or, 2, Arith)   X(bitwise_xor, 2, Arith)             \
  X(bitwise_not, 1, Arith)                                                                  \
  /* random: (seed, counter), both i64, to f32 */                                          \
  X(rand_uniform, 2, Random)
// clang-format on

enum class LoopOp : std::uint8_t {
#define TORCHSCOPE_LOOP_OP_ENUM(name, arity, category) name,
  TORCHSCOPE_LOOP_OPS(TORCHSCOPE_LOOP_OP_ENUM)
#undef TORCHSCOPE_LOOP_OP_ENUM
};

enum class LoopOpCategory : std::uint8_t { Arith, Float, Compare, Logic, Select, Random };

std::string_view loop_op_name(LoopOp op) noexcept;
int loop_op_arity(LoopOp op) noexcept;
LoopOpCategory loop_op_category(LoopOp op) noexcept;
// The dtype an op's result has for operands of compute dtype `operand`.
DType loop_op_result(LoopOp op, DType operand) noexcept;

// How a reduction combines values: listed once, like the ops.
// clang-format off
#define TORCHSCOPE_REDUCTION_TYPES(X) X(sum) X(max) X(min) X(argmax)
// clang-format on
enum class ReductionType : std::uint8_t {
#define TORCHSCOPE_REDUCTION_ENUM(name) name,
  TORCHSCOPE_REDUCTION_TYPES(TORCHSCOPE_REDUCTION_ENUM)
#undef TORCHSCOPE_REDUCTION_ENUM
};
std::string_view reduction_type_name(ReductionType t) noexcept;

// A value a handler computed; only that handler knows what `id` refers to.
struct LoopValue {
  std::int32_t id = -1;
  DType dtype = DType::Float32; // Float32, Int64 or Bool
};

// Buffers are numbered within one lowered graph (ir/loop_ir.h).
using BufferId = std::int32_t;

// The compute dtype of values stored as `storage`.
DType compute_dtype(DType storage) noexcept;

class OpsHandler {
public:
  virtual ~OpsHandler() = default;

  // Element `index` of `buffer`. Inside masked(), lanes where the mask is false read 0 and
  // touch no memory.
  virtual LoopValue load(BufferId buffer, const Expr& index) = 0;
  // where(mask, body(), other), where the loads body() makes are masked (a concatenation reads
  // each input only where its part of the index range is).
  virtual LoopValue masked(LoopValue mask, const std::function<LoopValue()>& body,
                           double other) = 0;
  // Element `offset + row * row_stride` of `buffer`, `row` an Int64 value read from data (an
  // embedding lookup). A row outside [0, rows) reads row 0 and raises the run's error flag, so
  // the wrapper can report the eager kernel's error.
  virtual LoopValue load_indirect(BufferId buffer, LoopValue row, const Expr& rows,
                                  const Expr& row_stride, const Expr& offset) = 0;
  virtual void store(BufferId buffer, const Expr& index, LoopValue value) = 0;
  virtual LoopValue constant(double value, DType dtype) = 0;
  // The value of an index expression (arange, argmax indices).
  virtual LoopValue index_expr(const Expr& e, DType dtype) = 0;
  // Converts as to_dtype(x, dtype) does; the result has compute_dtype(dtype).
  virtual LoopValue cast(LoopValue value, DType dtype) = 0;
  virtual LoopValue apply(LoopOp op, std::span<const LoopValue> args) = 0;

  // The op list as methods: ops.add(a, b), ops.exp(x), ops.where(c, a, b).
#define TORCHSCOPE_LOOP_OP_METHOD(name, arity, category) TORCHSCOPE_LOOP_OP_METHOD_##arity(name)
#define TORCHSCOPE_LOOP_OP_METHOD_1(name)                                                          \
  LoopValue name(LoopValue a) {                                                                    \
    const std::array<LoopValue, 1> args = {a};                                                     \
    return apply(LoopOp::name, args);                                                              \
  }
#define TORCHSCOPE_LOOP_OP_METHOD_2(name)                                                          \
  LoopValue name(LoopValue a, LoopValue b) {                                                       \
    const std::array<LoopValue, 2> args = {a, b};                                                  \
    return apply(LoopOp::name, args);                                                              \
  }
#define TORCHSCOPE_LOOP_OP_METHOD_3(name)                                                          \
  LoopValue name(LoopValue a, LoopValue b, LoopValue c) {                                          \
    const std::array<LoopValue, 3> args = {a, b, c};                                               \
    return apply(LoopOp::name, args);                                                              \
  }
  TORCHSCOPE_LOOP_OPS(TORCHSCOPE_LOOP_OP_METHOD)
#undef TORCHSCOPE_LOOP_OP_METHOD
#undef TORCHSCOPE_LOOP_OP_METHOD_1
#undef TORCHSCOPE_LOOP_OP_METHOD_2
#undef TORCHSCOPE_LOOP_OP_METHOD_3
};

} // namespace compiler::inductor
