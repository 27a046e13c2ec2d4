// Pointwise ops: binary (with broadcasting and type promotion, maximum, minimum, the bitwise and
// logical ops included), where, unary, and to_dtype; then the rest of the "pointwise, more"
// block of the op list: the bool tests (isnan, isinf, logical_not), the activations and
// nan_to_num (one pass with scalar parameters), clamp and masked_fill (by the kernels they
// decompose into).
//
// Every pointwise kernel has the same three steps, written once:
//   1. plan: output shape (broadcast over SymInt sizes) and dtypes (result and compute type);
//      the meta function stops here;
//   2. inputs become contiguous buffers of the compute type, broadcast to the output shape
//      (a one-element input stays a scalar, so `x + bias_scalar` copies nothing extra);
//   3. one flat loop applies the scalar function, split over parallel_for, and the result is
//      converted to the result dtype if it differs (16-bit floats round to nearest even).
#include "kernels/copy.h"
#include "kernels/element.h"
#include "kernels/kernels.h"
#include "kernels/parallel.h"
#include "kernels/shape_util.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>

namespace compiler::kernels {

namespace {

// ---------------------------------------------------------------- type rules

// torch.result_type for two tensors: a dimensioned tensor's dtype wins over a 0-dim tensor's
// of the same or lower category (as it wins over a Python scalar).
int category(DType t) {
  return t == DType::Bool ? 0 : (is_integral(t) ? 1 : 2);
}

DType result_type(const Tensor& a, const Tensor& b) {
  const bool a_scalar = a.dim() == 0;
  const bool b_scalar = b.dim() == 0;
  if (a_scalar != b_scalar) {
    const Tensor& dimensioned = a_scalar ? b : a;
    const Tensor& zero_dim = a_scalar ? a : b;
    if (category(zero_dim.dtype()) <= category(dimensioned.dtype())) {
      return dimensioned.dtype();
    }
    // A 0-dim float with an integer tensor: the default float type, as for a Python float.
    return category(zero_dim.dtype()) == 2 && category(dimensioned.dtype()) < 2
               ? DType::Float32
               : promote_types(a.dtype(), b.dtype());
  }
  return promote_types(a.dtype(), b.dtype());
}

// The ops from Eq on give bool results (comparisons, then the logical ops).
enum class BinaryOp {
  Add,
  Sub,
  Mul,
  Div,
  Pow,
  Maximum,
  Minimum,
  BitwiseAnd,
  BitwiseOr,
  BitwiseXor,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  LogicalAnd,
  LogicalOr,
  LogicalXor
};

bool is_comparison(BinaryOp op) {
  return op >= BinaryOp::Eq;
}

bool is_bitwise(BinaryOp op) {
  return op == BinaryOp::BitwiseAnd || op == BinaryOp::BitwiseOr || op == BinaryOp::BitwiseXor;
}

const char* binary_name(BinaryOp op) {
  static constexpr const char* kNames[] = {
      "add",         "sub",        "mul",         "div",        "pow",        "maximum", "minimum",
      "bitwise_and", "bitwise_or", "bitwise_xor", "eq",         "ne",         "lt",      "le",
      "gt",          "ge",         "logical_and", "logical_or", "logical_xor"};
  return kNames[static_cast<int>(op)];
}

struct Plan {
  std::vector<SymInt> sizes;
  DType result;  // dtype of the output tensor
  DType compute; // f32, f64 or i64: what the loop computes in
};

Plan plan_binary(BinaryOp op, std::span<const Value> args) {
  const Tensor& a = tensor_arg(args, 0);
  if (args.size() != 2) {
    user_error(std::string(binary_name(op)) + ": expects two arguments, got " +
               std::to_string(args.size()));
  }
  DType promoted;
  std::vector<SymInt> sizes;
  // PyTorch refuses a bool operand of sub whatever the other operand is (sub_check), rather
  // than promoting it: true - true is no number a mask should turn into.
  bool bool_operand = a.dtype() == DType::Bool;
  if (const auto* b = std::get_if<Tensor>(&arg(args, 1))) {
    if (!b->defined()) {
      user_error(std::string(binary_name(op)) + ": the second operand is an undefined tensor");
    }
    bool_operand = bool_operand || b->dtype() == DType::Bool;
    promoted = result_type(a, *b);
    sizes = broadcast_shapes(a.sym_sizes(), b->sym_sizes());
  } else {
    (void)value_double(arg(args, 1));
    promoted = promote_with_float_scalar(a.dtype());
    sizes = a.sym_sizes();
  }
  if (op == BinaryOp::Sub && bool_operand) {
    user_error("sub: subtraction with a bool tensor is not supported; use logical ops instead");
  }
  if (op == BinaryOp::Div && !is_floating(promoted)) {
    promoted = DType::Float32; // true division
  }
  if (is_bitwise(op) && is_floating(promoted)) {
    user_error(std::string(binary_name(op)) + ": needs integer or bool tensors, got " +
               std::string(dtype_name(promoted)));
  }
  const DType compute = compute_type(promoted);
  return Plan{std::move(sizes), is_comparison(op) ? DType::Bool : promoted, compute};
}

// ---------------------------------------------------------------- scalar functions

template <class C>
C int_pow(C base, C exponent) {
  if (exponent < 0) {
    // Integer to a negative power: only 1 and -1 have integer results; the rest truncate to 0.
    if (base == 1) {
      return 1;
    }
    if (base == -1) {
      return (exponent % 2 == 0) ? 1 : -1;
    }
    return 0;
  }
  C result = 1;
  while (exponent > 0) {
    if (exponent & 1) {
      result *= base;
    }
    base *= base;
    exponent >>= 1;
  }
  return result;
}

template <class C>
C apply_arith(BinaryOp op, C x, C y) {
  switch (op) {
  case BinaryOp::Add:
    return x + y;
  case BinaryOp::Sub:
    return x - y;
  case BinaryOp::Mul:
    return x * y;
  case BinaryOp::Div:
    if constexpr (std::is_floating_point_v<C>) {
      return x / y;
    } else {
      return y == 0 ? 0 : x / y; // unreachable: integer division is planned as float
    }
  case BinaryOp::Pow:
    if constexpr (std::is_floating_point_v<C>) {
      return std::pow(x, y);
    } else {
      return int_pow(x, y);
    }
  case BinaryOp::Maximum:
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(x) || std::isnan(y)) {
        return std::numeric_limits<C>::quiet_NaN(); // NaN propagates, as in torch.maximum
      }
    }
    return x > y ? x : y;
  case BinaryOp::Minimum:
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(x) || std::isnan(y)) {
        return std::numeric_limits<C>::quiet_NaN();
      }
    }
    return x < y ? x : y;
  case BinaryOp::BitwiseAnd:
  case BinaryOp::BitwiseOr:
  case BinaryOp::BitwiseXor:
    if constexpr (std::is_integral_v<C>) { // planned for integer compute types only
      return op == BinaryOp::BitwiseAnd ? (x & y) : op == BinaryOp::BitwiseOr ? (x | y) : (x ^ y);
    }
    break;
  default:
    break;
  }
  return C{};
}

template <class C>
bool apply_compare(BinaryOp op, C x, C y) {
  switch (op) {
  case BinaryOp::Eq:
    return x == y;
  case BinaryOp::Ne:
    return x != y;
  case BinaryOp::Lt:
    return x < y;
  case BinaryOp::Le:
    return x <= y;
  case BinaryOp::Gt:
    return x > y;
  case BinaryOp::Ge:
    return x >= y;
  case BinaryOp::LogicalAnd:
    return x != C{0} && y != C{0};
  case BinaryOp::LogicalOr:
    return x != C{0} || y != C{0};
  case BinaryOp::LogicalXor:
    return (x != C{0}) != (y != C{0});
  default:
    break;
  }
  return false;
}

// ---------------------------------------------------------------- loops

// An input of a pointwise loop, in the compute type: one value used everywhere (Scalar), a
// contiguous buffer of the output's numel (Full), or a smaller buffer the output broadcasts
// without copying: a Row repeats every `period` elements (a bias [N] under [M, N]), a Column
// holds one value per `period` consecutive elements (a mean [M, 1] under [M, N]). Decomposed
// normalisations broadcast such operands everywhere; materialising them would cost a pass each.
template <class C>
struct Operand {
  enum class Kind : std::uint8_t { Scalar, Full, Row, Column };
  Tensor holder; // keeps the buffer alive
  const C* data = nullptr;
  C scalar{};
  Kind kind = Kind::Full;
  std::int64_t period = 0;
  bool is_scalar = false; // kind == Scalar (or a Column within one row)

  C operator[](std::int64_t i) const { return is_scalar ? scalar : data[i]; }
  // This operand within row `r` of a loop over rows of length `length`.
  Operand row(std::int64_t r, std::int64_t length) const {
    Operand o;
    switch (kind) {
    case Kind::Scalar:
      o.is_scalar = true;
      o.scalar = scalar;
      break;
    case Kind::Full:
      o.data = data + r * length;
      break;
    case Kind::Row:
      o.data = data;
      break;
    case Kind::Column:
      o.is_scalar = true;
      o.scalar = data[r];
      break;
    }
    return o;
  }
};

// How `t` broadcasts to `out`: a Row or Column when its sizes are the output's trailing dims
// (1 before) or leading dims (1 after), with that trailing product as the period.
template <class C>
bool find_row_or_column(const Tensor& t, std::span<const std::int64_t> out, Operand<C>& op) {
  const std::size_t rank = out.size();
  std::vector<std::int64_t> ts(rank, 1);
  std::copy(t.sizes().begin(), t.sizes().end(), ts.begin() + (rank - t.sizes().size()));
  std::size_t first_same = rank; // ts[first_same..] == out[first_same..]
  while (first_same > 0 && ts[first_same - 1] == out[first_same - 1]) {
    --first_same;
  }
  bool ones_before = true;
  for (std::size_t d = 0; d < first_same; ++d) {
    ones_before = ones_before && ts[d] == 1;
  }
  if (ones_before && first_same < rank) {
    op.kind = Operand<C>::Kind::Row;
    op.period = product(out.subspan(first_same));
    return true;
  }
  std::size_t last_same = 0; // ts[..last_same] == out[..last_same]
  while (last_same < rank && ts[last_same] == out[last_same]) {
    ++last_same;
  }
  bool ones_after = last_same > 0;
  for (std::size_t d = last_same; d < rank; ++d) {
    ones_after = ones_after && ts[d] == 1;
  }
  if (ones_after) {
    op.kind = Operand<C>::Kind::Column;
    op.period = product(out.subspan(last_same));
    return true;
  }
  return false;
}

template <class C>
Operand<C> make_operand(const Tensor& t, std::span<const std::int64_t> out_sizes, DType compute,
                        bool allow_broadcast = true) {
  Operand<C> op;
  if (t.numel() == 1) {
    op.kind = Operand<C>::Kind::Scalar;
    op.is_scalar = true;
    op.scalar = load<C>(t.raw_data(), t.dtype(), 0);
    return op;
  }
  const bool same = t.sizes().size() == out_sizes.size() &&
                    std::equal(out_sizes.begin(), out_sizes.end(), t.sizes().begin());
  if (!same && allow_broadcast && find_row_or_column(t, out_sizes, op)) {
    op.holder = contiguous_as(t, compute);
  } else {
    op.kind = Operand<C>::Kind::Full;
    op.holder = broadcast_contiguous_as(t, out_sizes, compute);
  }
  op.data = static_cast<const C*>(op.holder.raw_data());
  return op;
}

// The row length a loop over `x` and `y` runs in: the period of a Row or Column operand (the
// whole output when neither is one).
template <class C>
std::int64_t row_length(const Operand<C>& x, const Operand<C>& y, std::int64_t n) {
  for (const Operand<C>* o : {&x, &y}) {
    if (o->kind == Operand<C>::Kind::Row || o->kind == Operand<C>::Kind::Column) {
      return o->period;
    }
  }
  return n;
}

template <class C>
Operand<C> make_scalar_operand(double v) {
  Operand<C> op;
  op.kind = Operand<C>::Kind::Scalar;
  op.is_scalar = true;
  if constexpr (std::is_floating_point_v<C>) {
    op.scalar = static_cast<C>(v);
  } else {
    op.scalar = saturating_cast<C>(v);
  }
  return op;
}

// Converts a compute-typed result to `result` dtype when they differ.
Tensor finish(Tensor computed, DType result) {
  if (computed.dtype() == result) {
    return computed;
  }
  Tensor out = Tensor::empty_uninitialized(computed.sizes(), result);
  copy_into(computed, out);
  out.impl()->sym_sizes = computed.sym_sizes();
  return out;
}

// The loop for one op, with the op a template constant so the switch in apply_* folds away and
// the scalar-or-buffer choice is made once per chunk rather than per element: each branch is a
// plain loop the compiler can vectorise.
template <class C, BinaryOp Op, class R>
void binary_rows(const Operand<C>& x, const Operand<C>& y, R* o, std::int64_t n);

template <class C, BinaryOp Op, class R>
void binary_kernel(const Operand<C>& x, const Operand<C>& y, R* o, std::int64_t n) {
  const std::int64_t length = row_length(x, y, n);
  if (length != n) {
    binary_rows<C, Op>(x, y, o, n);
    return;
  }
  auto f = [](C a, C b) -> R {
    if constexpr (Op >= BinaryOp::Eq) {
      return apply_compare<C>(Op, a, b);
    } else {
      return apply_arith<C>(Op, a, b);
    }
  };
  parallel_for(n, kDefaultGrain, [&](std::int64_t begin, std::int64_t end) {
    if (!x.is_scalar && !y.is_scalar) {
      for (std::int64_t i = begin; i < end; ++i) {
        o[i] = f(x.data[i], y.data[i]);
      }
    } else if (!x.is_scalar) {
      for (std::int64_t i = begin; i < end; ++i) {
        o[i] = f(x.data[i], y.scalar);
      }
    } else if (!y.is_scalar) {
      for (std::int64_t i = begin; i < end; ++i) {
        o[i] = f(x.scalar, y.data[i]);
      }
    } else {
      const R v = f(x.scalar, y.scalar);
      for (std::int64_t i = begin; i < end; ++i) {
        o[i] = v;
      }
    }
  });
}

// The loop with a broadcast (Row or Column) operand: row by row, each row one of the four plain
// loops of binary_kernel.
template <class C, BinaryOp Op, class R>
void binary_rows(const Operand<C>& x, const Operand<C>& y, R* o, std::int64_t n) {
  const std::int64_t length = row_length(x, y, n);
  const std::int64_t rows = length == 0 ? 0 : n / length;
  parallel_for(rows, std::max<std::int64_t>(1, kDefaultGrain / std::max<std::int64_t>(length, 1)),
               [&](std::int64_t begin, std::int64_t end) {
                 for (std::int64_t r = begin; r < end; ++r) {
                   const Operand<C> xr = x.row(r, length);
                   const Operand<C> yr = y.row(r, length);
                   R* out = o + r * length;
                   for (std::int64_t i = 0; i < length; ++i) {
                     if constexpr (Op >= BinaryOp::Eq) {
                       out[i] = apply_compare<C>(Op, xr[i], yr[i]);
                     } else {
                       out[i] = apply_arith<C>(Op, xr[i], yr[i]);
                     }
                   }
                 }
               });
}

template <class C>
void binary_dispatch(BinaryOp op, const Operand<C>& x, const Operand<C>& y, void* out,
                     std::int64_t n) {
  C* o = static_cast<C*>(out);
  bool* ob = static_cast<bool*>(out);
  switch (op) {
  case BinaryOp::Add:
    return binary_kernel<C, BinaryOp::Add>(x, y, o, n);
  case BinaryOp::Sub:
    return binary_kernel<C, BinaryOp::Sub>(x, y, o, n);
  case BinaryOp::Mul:
    return binary_kernel<C, BinaryOp::Mul>(x, y, o, n);
  case BinaryOp::Div:
    return binary_kernel<C, BinaryOp::Div>(x, y, o, n);
  case BinaryOp::Pow:
    return binary_kernel<C, BinaryOp::Pow>(x, y, o, n);
  case BinaryOp::Maximum:
    return binary_kernel<C, BinaryOp::Maximum>(x, y, o, n);
  case BinaryOp::Minimum:
    return binary_kernel<C, BinaryOp::Minimum>(x, y, o, n);
  case BinaryOp::BitwiseAnd:
    return binary_kernel<C, BinaryOp::BitwiseAnd>(x, y, o, n);
  case BinaryOp::BitwiseOr:
    return binary_kernel<C, BinaryOp::BitwiseOr>(x, y, o, n);
  case BinaryOp::BitwiseXor:
    return binary_kernel<C, BinaryOp::BitwiseXor>(x, y, o, n);
  case BinaryOp::Eq:
    return binary_kernel<C, BinaryOp::Eq>(x, y, ob, n);
  case BinaryOp::Ne:
    return binary_kernel<C, BinaryOp::Ne>(x, y, ob, n);
  case BinaryOp::Lt:
    return binary_kernel<C, BinaryOp::Lt>(x, y, ob, n);
  case BinaryOp::Le:
    return binary_kernel<C, BinaryOp::Le>(x, y, ob, n);
  case BinaryOp::Gt:
    return binary_kernel<C, BinaryOp::Gt>(x, y, ob, n);
  case BinaryOp::Ge:
    return binary_kernel<C, BinaryOp::Ge>(x, y, ob, n);
  case BinaryOp::LogicalAnd:
    return binary_kernel<C, BinaryOp::LogicalAnd>(x, y, ob, n);
  case BinaryOp::LogicalOr:
    return binary_kernel<C, BinaryOp::LogicalOr>(x, y, ob, n);
  case BinaryOp::LogicalXor:
    return binary_kernel<C, BinaryOp::LogicalXor>(x, y, ob, n);
  }
}

template <class C>
Tensor run_binary(BinaryOp op, const Plan& plan, std::span<const Value> args) {
  const std::vector<std::int64_t> out_sizes = size_hints(plan.sizes);
  const Tensor& a = tensor_arg(args, 0);
  const Operand<C> x = make_operand<C>(a, out_sizes, plan.compute);
  // One broadcast operand per loop: the second materialises when the first already is one.
  const bool x_broadcasts = x.kind == Operand<C>::Kind::Row || x.kind == Operand<C>::Kind::Column;
  const Operand<C> y =
      std::holds_alternative<Tensor>(arg(args, 1))
          ? make_operand<C>(std::get<Tensor>(arg(args, 1)), out_sizes, plan.compute, !x_broadcasts)
          : make_scalar_operand<C>(value_double(arg(args, 1)));
  // Comparisons write bool directly; arithmetic computes in C and converts at the end.
  Tensor out = make_overwritten_output(plan.sizes, is_comparison(op) ? DType::Bool : plan.compute);
  binary_dispatch<C>(op, x, y, out.raw_data(), product(out_sizes));
  return finish(std::move(out), plan.result);
}

Value eager_binary(BinaryOp op, std::span<const Value> args) {
  const Plan plan = plan_binary(op, args);
  require_real(tensor_arg(args, 0), binary_name(op));
  if (const auto* b = std::get_if<Tensor>(&arg(args, 1))) {
    require_real(*b, binary_name(op));
  }
  return visit_compute(plan.compute,
                       [&](auto c) { return run_binary<decltype(c)>(op, plan, args); });
}

Value meta_binary(BinaryOp op, std::span<const Value> args) {
  Plan plan = plan_binary(op, args);
  return make_output(std::move(plan.sizes), plan.result, true);
}

// ---------------------------------------------------------------- unary

enum class UnaryOp {
  Neg,
  Exp,
  Log,
  Sin,
  Cos,
  Tanh,
  Sigmoid,
  Relu,
  GeluErf,
  GeluTanh,
  Sqrt,
  Rsqrt,
  Abs,
  Erf,
  // pointwise, more
  Floor,
  Ceil,
  Round,
  Trunc,
  Sign,
  Log1p,
  Expm1,
  Tan,
  Atan,
  Asin,
  Acos,
  Sinh,
  Cosh,
  BitwiseNot
};

// Ops that keep the dtype (integers stay integers).
bool keeps_dtype(UnaryOp op) {
  switch (op) {
  case UnaryOp::Neg:
  case UnaryOp::Relu:
  case UnaryOp::Abs:
  case UnaryOp::Floor:
  case UnaryOp::Ceil:
  case UnaryOp::Round:
  case UnaryOp::Trunc:
  case UnaryOp::Sign:
  case UnaryOp::BitwiseNot:
    return true;
  default:
    return false;
  }
}

// Transcendental ops promote integers to the default float type; the rest keep the dtype.
bool is_float_op(UnaryOp op) {
  return !keeps_dtype(op);
}

template <class C>
C apply_unary(UnaryOp op, C x) {
  if constexpr (std::is_floating_point_v<C>) {
    switch (op) {
    case UnaryOp::Neg:
      return -x;
    case UnaryOp::Exp:
      return std::exp(x);
    case UnaryOp::Log:
      return std::log(x);
    case UnaryOp::Sin:
      return std::sin(x);
    case UnaryOp::Cos:
      return std::cos(x);
    case UnaryOp::Tanh:
      return std::tanh(x);
    case UnaryOp::Sigmoid:
      return C{1} / (C{1} + std::exp(-x));
    case UnaryOp::Relu:
      return (x > C{0} || std::isnan(x)) ? x : C{0}; // NaN propagates, as in PyTorch
    case UnaryOp::GeluErf:
      return C{0.5} * x * (C{1} + std::erf(x * static_cast<C>(std::numbers::sqrt2 / 2)));
    case UnaryOp::GeluTanh: {
      const C k = static_cast<C>(std::numbers::sqrt2 * std::numbers::inv_sqrtpi); // sqrt(2/pi)
      return C{0.5} * x * (C{1} + std::tanh(k * (x + C{0.044715} * x * x * x)));
    }
    case UnaryOp::Sqrt:
      return std::sqrt(x);
    case UnaryOp::Rsqrt:
      return C{1} / std::sqrt(x);
    case UnaryOp::Abs:
      return std::abs(x);
    case UnaryOp::Erf:
      return std::erf(x);
    case UnaryOp::Floor:
      return std::floor(x);
    case UnaryOp::Ceil:
      return std::ceil(x);
    case UnaryOp::Round:
      return std::nearbyint(x); // the default rounding mode: half to even, as torch.round
    case UnaryOp::Trunc:
      return std::trunc(x);
    case UnaryOp::Sign:
      return static_cast<C>((C{0} < x) - (x < C{0})); // NaN gives 0, as PyTorch 1.13's sign
    case UnaryOp::Log1p:
      return std::log1p(x);
    case UnaryOp::Expm1:
      return std::expm1(x);
    case UnaryOp::Tan:
      return std::tan(x);
    case UnaryOp::Atan:
      return std::atan(x);
    case UnaryOp::Asin:
      return std::asin(x);
    case UnaryOp::Acos:
      return std::acos(x);
    case UnaryOp::Sinh:
      return std::sinh(x);
    case UnaryOp::Cosh:
      return std::cosh(x);
    case UnaryOp::BitwiseNot:
      break; // refused for floats (plan_unary)
    }
  } else {
    switch (op) {
    case UnaryOp::Neg:
      return -x;
    case UnaryOp::Relu:
      return x > 0 ? x : 0;
    case UnaryOp::Abs:
      return x < 0 ? -x : x;
    case UnaryOp::Sign:
      return static_cast<C>((C{0} < x) - (x < C{0}));
    case UnaryOp::BitwiseNot:
      return ~x;
    default:
      break; // floor, ceil, round and trunc leave integers as they are
    }
  }
  return x;
}

struct UnaryPlan {
  UnaryOp op;
  DType result;
  DType compute;
};

UnaryPlan plan_unary(UnaryOp op, const Tensor& x, const char* name) {
  if (x.dtype() == DType::Bool && keeps_dtype(op) && op != UnaryOp::Sign &&
      op != UnaryOp::BitwiseNot) {
    user_error(std::string(name) + " is not supported on bool tensors");
  }
  if (op == UnaryOp::BitwiseNot && is_floating(x.dtype())) {
    user_error(std::string(name) + ": needs an integer or bool tensor, got " +
               std::string(dtype_name(x.dtype())));
  }
  const DType result = is_float_op(op) ? promote_with_float_scalar(x.dtype()) : x.dtype();
  return UnaryPlan{op, result, compute_type(result)};
}

// As binary_kernel: the op is a template constant so each instantiation is a plain loop.
template <class C, UnaryOp Op>
void unary_kernel(const C* src, C* dst, std::int64_t n) {
  parallel_for(n, kDefaultGrain / 8, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      dst[i] = apply_unary<C>(Op, src[i]);
    }
  });
}

template <class C>
void unary_dispatch(UnaryOp op, const C* src, C* dst, std::int64_t n) {
  switch (op) {
  case UnaryOp::Neg:
    return unary_kernel<C, UnaryOp::Neg>(src, dst, n);
  case UnaryOp::Exp:
    return unary_kernel<C, UnaryOp::Exp>(src, dst, n);
  case UnaryOp::Log:
    return unary_kernel<C, UnaryOp::Log>(src, dst, n);
  case UnaryOp::Sin:
    return unary_kernel<C, UnaryOp::Sin>(src, dst, n);
  case UnaryOp::Cos:
    return unary_kernel<C, UnaryOp::Cos>(src, dst, n);
  case UnaryOp::Tanh:
    return unary_kernel<C, UnaryOp::Tanh>(src, dst, n);
  case UnaryOp::Sigmoid:
    return unary_kernel<C, UnaryOp::Sigmoid>(src, dst, n);
  case UnaryOp::Relu:
    return unary_kernel<C, UnaryOp::Relu>(src, dst, n);
  case UnaryOp::GeluErf:
    return unary_kernel<C, UnaryOp::GeluErf>(src, dst, n);
  case UnaryOp::GeluTanh:
    return unary_kernel<C, UnaryOp::GeluTanh>(src, dst, n);
  case UnaryOp::Sqrt:
    return unary_kernel<C, UnaryOp::Sqrt>(src, dst, n);
  case UnaryOp::Rsqrt:
    return unary_kernel<C, UnaryOp::Rsqrt>(src, dst, n);
  case UnaryOp::Abs:
    return unary_kernel<C, UnaryOp::Abs>(src, dst, n);
  case UnaryOp::Erf:
    return unary_kernel<C, UnaryOp::Erf>(src, dst, n);
  case UnaryOp::Floor:
    return unary_kernel<C, UnaryOp::Floor>(src, dst, n);
  case UnaryOp::Ceil:
    return unary_kernel<C, UnaryOp::Ceil>(src, dst, n);
  case UnaryOp::Round:
    return unary_kernel<C, UnaryOp::Round>(src, dst, n);
  case UnaryOp::Trunc:
    return unary_kernel<C, UnaryOp::Trunc>(src, dst, n);
  case UnaryOp::Sign:
    return unary_kernel<C, UnaryOp::Sign>(src, dst, n);
  case UnaryOp::Log1p:
    return unary_kernel<C, UnaryOp::Log1p>(src, dst, n);
  case UnaryOp::Expm1:
    return unary_kernel<C, UnaryOp::Expm1>(src, dst, n);
  case UnaryOp::Tan:
    return unary_kernel<C, UnaryOp::Tan>(src, dst, n);
  case UnaryOp::Atan:
    return unary_kernel<C, UnaryOp::Atan>(src, dst, n);
  case UnaryOp::Asin:
    return unary_kernel<C, UnaryOp::Asin>(src, dst, n);
  case UnaryOp::Acos:
    return unary_kernel<C, UnaryOp::Acos>(src, dst, n);
  case UnaryOp::Sinh:
    return unary_kernel<C, UnaryOp::Sinh>(src, dst, n);
  case UnaryOp::Cosh:
    return unary_kernel<C, UnaryOp::Cosh>(src, dst, n);
  case UnaryOp::BitwiseNot:
    return unary_kernel<C, UnaryOp::BitwiseNot>(src, dst, n);
  }
}

template <class C>
Tensor run_unary(const UnaryPlan& plan, const Tensor& x) {
  const Tensor in = contiguous_as(x, plan.compute);
  Tensor out = make_overwritten_output(x.sym_sizes(), plan.compute);
  unary_dispatch<C>(plan.op, static_cast<const C*>(in.raw_data()), static_cast<C*>(out.raw_data()),
                    x.numel());
  return finish(std::move(out), plan.result);
}

Value eager_unary(UnaryOp op, std::span<const Value> args, const char* name) {
  const Tensor& x = tensor_arg(args, 0);
  const UnaryPlan plan = plan_unary(op, x, name);
  require_real(x, name);
  return visit_compute(plan.compute, [&](auto c) { return run_unary<decltype(c)>(plan, x); });
}

Value meta_unary(UnaryOp op, std::span<const Value> args, const char* name) {
  const Tensor& x = tensor_arg(args, 0);
  const UnaryPlan plan = plan_unary(op, x, name);
  return make_output(x.sym_sizes(), plan.result, true);
}

UnaryOp gelu_kind(std::span<const Value> args) {
  const std::string& approximate =
      args.size() > 1 ? value_string(arg(args, 1)) : std::string("none");
  if (approximate == "none") {
    return UnaryOp::GeluErf;
  }
  if (approximate == "tanh") {
    return UnaryOp::GeluTanh;
  }
  user_error("gelu: approximate must be 'none' or 'tanh', got '" + approximate + "'");
}

// ---------------------------------------------------------------- where

struct WherePlan {
  std::vector<SymInt> sizes;
  DType result;
};

WherePlan plan_where(std::span<const Value> args) {
  const Tensor& cond = tensor_arg(args, 0);
  const Tensor& a = tensor_arg(args, 1);
  const Tensor& b = tensor_arg(args, 2);
  if (cond.dtype() != DType::Bool) {
    user_error("where: the condition must be a bool tensor, got " +
               std::string(dtype_name(cond.dtype())));
  }
  std::vector<SymInt> sizes = broadcast_shapes(cond.sym_sizes(), a.sym_sizes());
  sizes = broadcast_shapes(sizes, b.sym_sizes());
  return WherePlan{std::move(sizes), result_type(a, b)};
}

template <class C>
Tensor run_where(const WherePlan& plan, const Tensor& cond, const Tensor& a, const Tensor& b) {
  const DType compute = compute_type(plan.result);
  const std::vector<std::int64_t> out_sizes = size_hints(plan.sizes);
  const Tensor c = broadcast_contiguous_as(cond, out_sizes, DType::Bool);
  const Operand<C> x = make_operand<C>(a, out_sizes, compute, false);
  const Operand<C> y = make_operand<C>(b, out_sizes, compute, false);
  const bool* cp = static_cast<const bool*>(c.raw_data());
  Tensor out = make_overwritten_output(plan.sizes, compute);
  C* o = static_cast<C*>(out.raw_data());
  parallel_for(product(out_sizes), kDefaultGrain, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      o[i] = cp[i] ? x[i] : y[i];
    }
  });
  return finish(std::move(out), plan.result);
}

// ---------------------------------------------------------------- pointwise, more

// Bool-valued tests of one input: isnan, isinf, logical_not (bitwise_not of a bool tensor).
enum class Predicate { IsNan, IsInf, LogicalNot };

template <class C>
bool apply_predicate(Predicate p, C x) {
  switch (p) {
  case Predicate::IsNan:
    if constexpr (std::is_floating_point_v<C>) {
      return std::isnan(x);
    }
    return false;
  case Predicate::IsInf:
    if constexpr (std::is_floating_point_v<C>) {
      return std::isinf(x);
    }
    return false;
  case Predicate::LogicalNot:
    return x == C{0};
  }
  return false;
}

Value eager_predicate(Predicate p, std::span<const Value> args, const char* name) {
  const Tensor& x = tensor_arg(args, 0);
  require_real(x, name);
  const DType compute = compute_type(x.dtype());
  return visit_compute(compute, [&](auto c) -> Value {
    using C = decltype(c);
    const Tensor in = contiguous_as(x, compute);
    Tensor out = make_overwritten_output(x.sym_sizes(), DType::Bool);
    const C* src = static_cast<const C*>(in.raw_data());
    bool* dst = static_cast<bool*>(out.raw_data());
    parallel_for(x.numel(), kDefaultGrain, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t i = begin; i < end; ++i) {
        dst[i] = apply_predicate<C>(p, src[i]);
      }
    });
    return out;
  });
}

Value meta_predicate(std::span<const Value> args) {
  return make_output(tensor_arg(args, 0).sym_sizes(), DType::Bool, true);
}

void require_floating(const Tensor& x, const char* name) {
  if (!is_floating(x.dtype())) {
    user_error(std::string(name) + ": needs a floating tensor, got " +
               std::string(dtype_name(x.dtype())));
  }
}

// x mapped elementwise by f in x's compute type (f32 for 16-bit floats, rounded once at the
// end), for the ops with scalar parameters: the activations and nan_to_num.
template <class F>
Tensor map_floating(const Tensor& x, F f) {
  const DType compute = compute_type(x.dtype());
  return visit_compute(compute, [&](auto c) -> Tensor {
    using C = decltype(c);
    const Tensor in = contiguous_as(x, compute);
    Tensor out = make_overwritten_output(x.sym_sizes(), compute);
    if constexpr (std::is_floating_point_v<C>) {
      const C* src = static_cast<const C*>(in.raw_data());
      C* dst = static_cast<C*>(out.raw_data());
      parallel_for(x.numel(), kDefaultGrain / 8, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i) {
          dst[i] = f(src[i]);
        }
      });
    }
    return finish(std::move(out), x.dtype());
  });
}

// An activation's meta function: a floating input of the same shape and dtype.
Value meta_activation(std::span<const Value> args, const char* name) {
  const Tensor& x = tensor_arg(args, 0);
  require_floating(x, name);
  return make_output(x.sym_sizes(), x.dtype(), true);
}

// The composites computed by the kernels of the ops they decompose into (as fused_ops.cpp
// does), so eager and decomposed results round alike.
//   clamp {x, min|None, max|None} = minimum(maximum(x, min), max)
template <Value (*Maximum)(std::span<const Value>), Value (*Minimum)(std::span<const Value>)>
Value clamp_with(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  const bool has_min = args.size() > 1 && !std::holds_alternative<std::monostate>(arg(args, 1));
  const bool has_max = args.size() > 2 && !std::holds_alternative<std::monostate>(arg(args, 2));
  if (!has_min && !has_max) {
    user_error("clamp: at least one of min and max must be given");
  }
  Value r = x;
  if (has_min) {
    const std::array<Value, 2> a = {r, arg(args, 1)};
    r = Maximum(a);
  }
  if (has_max) {
    const std::array<Value, 2> a = {r, arg(args, 2)};
    r = Minimum(a);
  }
  return r;
}

// masked_fill {x, mask, value} = where(mask, full((), value, x.dtype), x)
template <Value (*Full)(std::span<const Value>), Value (*Where)(std::span<const Value>)>
Value masked_fill_with(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  const Tensor& mask = tensor_arg(args, 1);
  if (mask.dtype() != DType::Bool) {
    user_error("masked_fill: the mask must be a bool tensor, got " +
               std::string(dtype_name(mask.dtype())));
  }
  std::vector<Value> full_args = {std::vector<SymInt>{}, value_double(arg(args, 2)), x.dtype()};
  if (!x.device().is_cpu()) {
    full_args.emplace_back(x.device());
  }
  const std::array<Value, 3> where_args = {mask, Full(full_args), x};
  return Where(where_args);
}

} // namespace

// ---------------------------------------------------------------- entry points

#define TORCHSCOPE_BINARY_KERNELS(name, kind)                                                      \
  Value eager_##name(std::span<const Value> args) {                                                \
    return eager_binary(BinaryOp::kind, args);                                                     \
  }                                                                                                \
  Value meta_##name(std::span<const Value> args) {                                                 \
    return meta_binary(BinaryOp::kind, args);                                                      \
  }
TORCHSCOPE_BINARY_KERNELS(add, Add)
TORCHSCOPE_BINARY_KERNELS(sub, Sub)
TORCHSCOPE_BINARY_KERNELS(mul, Mul)
TORCHSCOPE_BINARY_KERNELS(div, Div)
TORCHSCOPE_BINARY_KERNELS(pow, Pow)
TORCHSCOPE_BINARY_KERNELS(maximum, Maximum)
TORCHSCOPE_BINARY_KERNELS(minimum, Minimum)
TORCHSCOPE_BINARY_KERNELS(bitwise_and, BitwiseAnd)
TORCHSCOPE_BINARY_KERNELS(bitwise_or, BitwiseOr)
TORCHSCOPE_BINARY_KERNELS(bitwise_xor, BitwiseXor)
TORCHSCOPE_BINARY_KERNELS(logical_and, LogicalAnd)
TORCHSCOPE_BINARY_KERNELS(logical_or, LogicalOr)
TORCHSCOPE_BINARY_KERNELS(logical_xor, LogicalXor)
TORCHSCOPE_BINARY_KERNELS(eq, Eq)
TORCHSCOPE_BINARY_KERNELS(ne, Ne)
TORCHSCOPE_BINARY_KERNELS(lt, Lt)
TORCHSCOPE_BINARY_KERNELS(le, Le)
TORCHSCOPE_BINARY_KERNELS(gt, Gt)
TORCHSCOPE_BINARY_KERNELS(ge, Ge)
#undef TORCHSCOPE_BINARY_KERNELS

#define TORCHSCOPE_UNARY_KERNELS(name, kind)                                                       \
  Value eager_##name(std::span<const Value> args) {                                                \
    return eager_unary(UnaryOp::kind, args, #name);                                                \
  }                                                                                                \
  Value meta_##name(std::span<const Value> args) {                                                 \
    return meta_unary(UnaryOp::kind, args, #name);                                                 \
  }
TORCHSCOPE_UNARY_KERNELS(neg, Neg)
TORCHSCOPE_UNARY_KERNELS(exp, Exp)
TORCHSCOPE_UNARY_KERNELS(log, Log)
TORCHSCOPE_UNARY_KERNELS(sin, Sin)
TORCHSCOPE_UNARY_KERNELS(cos, Cos)
TORCHSCOPE_UNARY_KERNELS(tanh, Tanh)
TORCHSCOPE_UNARY_KERNELS(sigmoid, Sigmoid)
TORCHSCOPE_UNARY_KERNELS(relu, Relu)
TORCHSCOPE_UNARY_KERNELS(sqrt, Sqrt)
TORCHSCOPE_UNARY_KERNELS(rsqrt, Rsqrt)
TORCHSCOPE_UNARY_KERNELS(abs, Abs)
TORCHSCOPE_UNARY_KERNELS(erf, Erf)
TORCHSCOPE_UNARY_KERNELS(floor, Floor)
TORCHSCOPE_UNARY_KERNELS(ceil, Ceil)
TORCHSCOPE_UNARY_KERNELS(round, Round)
TORCHSCOPE_UNARY_KERNELS(trunc, Trunc)
TORCHSCOPE_UNARY_KERNELS(sign, Sign)
TORCHSCOPE_UNARY_KERNELS(log1p, Log1p)
TORCHSCOPE_UNARY_KERNELS(expm1, Expm1)
TORCHSCOPE_UNARY_KERNELS(tan, Tan)
TORCHSCOPE_UNARY_KERNELS(atan, Atan)
TORCHSCOPE_UNARY_KERNELS(asin, Asin)
TORCHSCOPE_UNARY_KERNELS(acos, Acos)
TORCHSCOPE_UNARY_KERNELS(sinh, Sinh)
TORCHSCOPE_UNARY_KERNELS(cosh, Cosh)
#undef TORCHSCOPE_UNARY_KERNELS

Value eager_gelu(std::span<const Value> args) {
  return eager_unary(gelu_kind(args), args, "gelu");
}
Value meta_gelu(std::span<const Value> args) {
  return meta_unary(gelu_kind(args), args, "gelu");
}

Value eager_where(std::span<const Value> args) {
  const WherePlan plan = plan_where(args);
  const Tensor& cond = tensor_arg(args, 0);
  const Tensor& a = tensor_arg(args, 1);
  const Tensor& b = tensor_arg(args, 2);
  require_real(cond, "where");
  require_real(a, "where");
  require_real(b, "where");
  return visit_compute(compute_type(plan.result),
                       [&](auto c) { return run_where<decltype(c)>(plan, cond, a, b); });
}

Value meta_where(std::span<const Value> args) {
  WherePlan plan = plan_where(args);
  return make_output(std::move(plan.sizes), plan.result, true);
}

Value eager_to_dtype(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  const DType dtype = value_dtype(arg(args, 1));
  require_real(x, "to_dtype");
  Tensor out = make_overwritten_output(x.sym_sizes(), dtype);
  copy_into(x, out);
  return out;
}

Value meta_to_dtype(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  return make_output(x.sym_sizes(), value_dtype(arg(args, 1)), true);
}

// ---------------------------------------------------------------- pointwise, more

Value eager_clamp(std::span<const Value> args) {
  return clamp_with<&eager_maximum, &eager_minimum>(args);
}
Value meta_clamp(std::span<const Value> args) {
  return clamp_with<&meta_maximum, &meta_minimum>(args);
}
// clamp_min = maximum, clamp_max = minimum, with errors that name the op called.
template <Value (*Kernel)(std::span<const Value>)>
Value one_bound(std::span<const Value> args, const char* name) {
  const Tensor* bound = args.size() == 2 ? std::get_if<Tensor>(&args[1]) : nullptr;
  if (args.size() != 2 || (bound != nullptr && !bound->defined())) {
    user_error(std::string(name) + ": expects a tensor and a defined bound (a tensor or a number)");
  }
  return Kernel(args);
}
Value eager_clamp_min(std::span<const Value> args) {
  return one_bound<&eager_maximum>(args, "clamp_min");
}
Value meta_clamp_min(std::span<const Value> args) {
  return one_bound<&meta_maximum>(args, "clamp_min");
}
Value eager_clamp_max(std::span<const Value> args) {
  return one_bound<&eager_minimum>(args, "clamp_max");
}
Value meta_clamp_max(std::span<const Value> args) {
  return one_bound<&meta_minimum>(args, "clamp_max");
}

// bitwise_not of a bool tensor is logical_not (~true as an integer would stay nonzero).
Value eager_bitwise_not(std::span<const Value> args) {
  if (tensor_arg(args, 0).dtype() == DType::Bool) {
    return eager_predicate(Predicate::LogicalNot, args, "bitwise_not");
  }
  return eager_unary(UnaryOp::BitwiseNot, args, "bitwise_not");
}
Value meta_bitwise_not(std::span<const Value> args) {
  return meta_unary(UnaryOp::BitwiseNot, args, "bitwise_not");
}

Value eager_logical_not(std::span<const Value> args) {
  return eager_predicate(Predicate::LogicalNot, args, "logical_not");
}
Value meta_logical_not(std::span<const Value> args) {
  return meta_predicate(args);
}
Value eager_isnan(std::span<const Value> args) {
  return eager_predicate(Predicate::IsNan, args, "isnan");
}
Value meta_isnan(std::span<const Value> args) {
  return meta_predicate(args);
}
Value eager_isinf(std::span<const Value> args) {
  return eager_predicate(Predicate::IsInf, args, "isinf");
}
Value meta_isinf(std::span<const Value> args) {
  return meta_predicate(args);
}

// nan_to_num {x, nan, posinf|None, neginf|None}: integer tensors come back as a copy.
Value eager_nan_to_num(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  require_real(x, "nan_to_num");
  if (!is_floating(x.dtype())) {
    const std::array<Value, 2> copy_args = {x, x.dtype()};
    return eager_to_dtype(copy_args);
  }
  const double nan = value_double(arg(args, 1));
  auto bound = [&](std::size_t i, double fallback) {
    return args.size() > i && !std::holds_alternative<std::monostate>(arg(args, i))
               ? value_double(arg(args, i))
               : fallback;
  };
  const double posinf = bound(2, largest_finite(x.dtype()));
  const double neginf = bound(3, -largest_finite(x.dtype()));
  return map_floating(x, [=](auto v) {
    using C = decltype(v);
    if (std::isnan(v)) {
      return static_cast<C>(nan);
    }
    if (std::isinf(v)) {
      return static_cast<C>(v > 0 ? posinf : neginf);
    }
    return v;
  });
}
Value meta_nan_to_num(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  return make_output(x.sym_sizes(), x.dtype(), true);
}

Value eager_masked_fill(std::span<const Value> args) {
  return masked_fill_with<&eager_full, &eager_where>(args);
}
Value meta_masked_fill(std::span<const Value> args) {
  return masked_fill_with<&meta_full, &meta_where>(args);
}

// The activations compute as their decompositions do (aot/decompositions.cpp), in one pass.
Value eager_leaky_relu(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  require_floating(x, "leaky_relu");
  require_real(x, "leaky_relu");
  const double slope = value_double(arg(args, 1));
  return map_floating(x, [=](auto v) { return v > 0 ? v : v * static_cast<decltype(v)>(slope); });
}
Value meta_leaky_relu(std::span<const Value> args) {
  return meta_activation(args, "leaky_relu");
}

Value eager_elu(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  require_floating(x, "elu");
  require_real(x, "elu");
  const double alpha = value_double(arg(args, 1));
  return map_floating(
      x, [=](auto v) { return v > 0 ? v : std::expm1(v) * static_cast<decltype(v)>(alpha); });
}
Value meta_elu(std::span<const Value> args) {
  return meta_activation(args, "elu");
}

Value eager_softplus(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  require_floating(x, "softplus");
  require_real(x, "softplus");
  const double beta = value_double(arg(args, 1));
  const double threshold = value_double(arg(args, 2));
  return map_floating(x, [=](auto v) {
    using C = decltype(v);
    const C scaled = v * static_cast<C>(beta);
    return scaled > static_cast<C>(threshold) ? v
                                              : std::log1p(std::exp(scaled)) / static_cast<C>(beta);
  });
}
Value meta_softplus(std::span<const Value> args) {
  return meta_activation(args, "softplus");
}

Value eager_hardswish(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  require_floating(x, "hardswish");
  require_real(x, "hardswish");
  return map_floating(x, [](auto v) {
    using C = decltype(v);
    const C shifted = v + C{3};
    // max and min propagate NaN, as the decomposition's maximum and minimum do.
    const C clamped = std::isnan(shifted) ? shifted : std::min(std::max(shifted, C{0}), C{6});
    return v * clamped / C{6};
  });
}
Value meta_hardswish(std::span<const Value> args) {
  return meta_activation(args, "hardswish");
}

} // namespace compiler::kernels
