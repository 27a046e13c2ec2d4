// Pointwise ops: binary (with broadcasting and type promotion, maximum included), where, unary,
// and to_dtype.
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

enum class BinaryOp { Add, Sub, Mul, Div, Pow, Maximum, Eq, Ne, Lt, Le, Gt, Ge };

bool is_comparison(BinaryOp op) {
  return op >= BinaryOp::Eq;
}

const char* binary_name(BinaryOp op) {
  static constexpr const char* kNames[] = {"add", "sub", "mul", "div", "pow", "maximum",
                                           "eq",  "ne",  "lt",  "le",  "gt",  "ge"};
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
  Erf
};

// Transcendental ops promote integers to the default float type; the rest keep the dtype.
bool is_float_op(UnaryOp op) {
  return op != UnaryOp::Neg && op != UnaryOp::Relu && op != UnaryOp::Abs;
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
    }
  } else {
    switch (op) {
    case UnaryOp::Neg:
      return -x;
    case UnaryOp::Relu:
      return x > 0 ? x : 0;
    case UnaryOp::Abs:
      return x < 0 ? -x : x;
    default:
      break;
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
  if (x.dtype() == DType::Bool &&
      (op == UnaryOp::Neg || op == UnaryOp::Abs || op == UnaryOp::Relu)) {
    user_error(std::string(name) + " is not supported on bool tensors");
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

} // namespace compiler::kernels
