// Lowerings of the pointwise ops: each result is an unrealized function of the output index
// that reads its (broadcast) inputs, computes in the type eager computes in (f32 for floats,
// i64 for integers) and ends with a cast to the result's dtype, so a fused chain sees the
// values eager would have stored between ops.
#include "compiler/core/errors.h"
#include "inductor/lowering/lowering_context.h"

#include <numbers>

namespace compiler::inductor::lowering {

namespace {

using graph::Arg;

// An operand: a tensor (broadcast to the output) or a scalar argument.
struct Operand {
  SharedValue tensor;
  Arg scalar;
  DType dtype = DType::Float32; // for a scalar: the type it promotes as
};

Operand operand(Context& ctx, const Arg& a) {
  Operand o;
  if (ctx.is_tensor_arg(a)) {
    o.tensor = share(ctx.tensor(a));
    o.dtype = o.tensor->dtype;
  } else {
    o.scalar = a;
  }
  return o;
}

LoopValue read(OpsHandler& ops, const Operand& o, std::span<const Expr> index, DType compute) {
  if (o.tensor) {
    return ops.cast(load_broadcast(ops, *o.tensor, index), compute);
  }
  return scalar_value(ops, o.scalar, compute);
}

std::optional<LoopOp> binary_loop_op(OpKind op) {
  switch (op) {
  case OpKind::add:
    return LoopOp::add;
  case OpKind::sub:
    return LoopOp::sub;
  case OpKind::mul:
    return LoopOp::mul;
  case OpKind::div:
    return LoopOp::truediv;
  case OpKind::pow:
    return LoopOp::pow;
  case OpKind::maximum:
    return LoopOp::maximum;
  case OpKind::eq:
    return LoopOp::eq;
  case OpKind::ne:
    return LoopOp::ne;
  case OpKind::lt:
    return LoopOp::lt;
  case OpKind::le:
    return LoopOp::le;
  case OpKind::gt:
    return LoopOp::gt;
  case OpKind::ge:
    return LoopOp::ge;
  // pointwise, more
  case OpKind::minimum:
    return LoopOp::minimum;
  case OpKind::logical_and:
    return LoopOp::logical_and;
  case OpKind::logical_or:
    return LoopOp::logical_or;
  case OpKind::logical_xor:
    return LoopOp::logical_xor;
  case OpKind::bitwise_and:
    return LoopOp::bitwise_and;
  case OpKind::bitwise_or:
    return LoopOp::bitwise_or;
  case OpKind::bitwise_xor:
    return LoopOp::bitwise_xor;
  default:
    return std::nullopt;
  }
}

std::optional<LoopOp> unary_loop_op(OpKind op) {
  switch (op) {
  case OpKind::neg:
    return LoopOp::neg;
  case OpKind::exp:
    return LoopOp::exp;
  case OpKind::log:
    return LoopOp::log;
  case OpKind::sin:
    return LoopOp::sin;
  case OpKind::cos:
    return LoopOp::cos;
  case OpKind::tanh:
    return LoopOp::tanh;
  case OpKind::sigmoid:
    return LoopOp::sigmoid;
  case OpKind::relu:
    return LoopOp::relu;
  case OpKind::sqrt:
    return LoopOp::sqrt;
  case OpKind::rsqrt:
    return LoopOp::rsqrt;
  case OpKind::erf:
    return LoopOp::erf;
  case OpKind::abs:
    return LoopOp::abs;
  // pointwise, more
  case OpKind::floor:
    return LoopOp::floor;
  case OpKind::ceil:
    return LoopOp::ceil;
  case OpKind::round:
    return LoopOp::round;
  case OpKind::trunc:
    return LoopOp::trunc;
  case OpKind::sign:
    return LoopOp::sign;
  case OpKind::log1p:
    return LoopOp::log1p;
  case OpKind::expm1:
    return LoopOp::expm1;
  case OpKind::tan:
    return LoopOp::tan;
  case OpKind::atan:
    return LoopOp::atan;
  case OpKind::asin:
    return LoopOp::asin;
  case OpKind::acos:
    return LoopOp::acos;
  case OpKind::sinh:
    return LoopOp::sinh;
  case OpKind::cosh:
    return LoopOp::cosh;
  case OpKind::logical_not:
    return LoopOp::logical_not;
  case OpKind::bitwise_not:
    return LoopOp::bitwise_not;
  case OpKind::isnan:
    return LoopOp::isnan;
  case OpKind::isinf:
    return LoopOp::isinf;
  default:
    return std::nullopt;
  }
}

// gelu(x) in f32: the erf form, or the tanh approximation.
LoopValue gelu(OpsHandler& ops, LoopValue x, bool tanh_form) {
  const LoopValue half = ops.constant(0.5, DType::Float32);
  const LoopValue one = ops.constant(1.0, DType::Float32);
  if (!tanh_form) {
    const LoopValue k = ops.constant(std::numbers::sqrt2 / 2, DType::Float32);
    return ops.mul(ops.mul(half, x), ops.add(one, ops.erf(ops.mul(x, k))));
  }
  const LoopValue k = ops.constant(std::numbers::sqrt2 * std::numbers::inv_sqrtpi, DType::Float32);
  const LoopValue c = ops.constant(0.044715, DType::Float32);
  const LoopValue cube = ops.mul(ops.mul(x, x), x);
  const LoopValue inner = ops.mul(k, ops.add(x, ops.mul(c, cube)));
  return ops.mul(ops.mul(half, x), ops.add(one, ops.tanh(inner)));
}

} // namespace

std::optional<TensorValue> lower_pointwise(Context& ctx, const graph::Node& n) {
  const DType result = n.meta.dtype;
  std::vector<Expr> sizes = ctx.sizes_of(n.meta);
  if (const std::optional<LoopOp> op = binary_loop_op(n.op)) {
    if (n.args.size() != 2) {
      return std::nullopt;
    }
    const Operand a = operand(ctx, n.args[0]);
    const Operand b = operand(ctx, n.args[1]);
    if (!a.tensor) {
      return std::nullopt;
    }
    // The type eager computes in: the result's, or for a comparison the operands' common type.
    DType compute = compute_type(result);
    if (loop_op_category(*op) == LoopOpCategory::Compare) {
      const DType common =
          b.tensor ? promote_types(a.dtype, b.dtype) : promote_with_float_scalar(a.dtype);
      compute = compute_type(common);
    } else if (*op == LoopOp::truediv) {
      compute = DType::Float32;
    }
    const LoopOp lop = *op;
    // A logical op reads each operand in its own compute type (0.5 is true, not 0 as an i64).
    const bool logic = loop_op_category(lop) == LoopOpCategory::Logic;
    const DType compute_a = logic ? compute_dtype(a.dtype) : compute;
    const DType compute_b = logic ? compute_dtype(b.dtype) : compute;
    return ctx.pointwise(
        result, std::move(sizes),
        [a, b, lop, compute_a, compute_b, result](OpsHandler& ops, std::span<const Expr> index) {
          const std::array<LoopValue, 2> args = {read(ops, a, index, compute_a),
                                                 read(ops, b, index, compute_b)};
          return ops.cast(ops.apply(lop, args), result);
        },
        {a.tensor.get(), b.tensor.get()});
  }
  if (n.op == OpKind::where) {
    if (n.args.size() != 3) {
      return std::nullopt;
    }
    const Operand cond = operand(ctx, n.args[0]);
    const Operand a = operand(ctx, n.args[1]);
    const Operand b = operand(ctx, n.args[2]);
    if (!cond.tensor) {
      return std::nullopt;
    }
    const DType compute = compute_type(result);
    return ctx.pointwise(
        result, std::move(sizes),
        [cond, a, b, compute, result](OpsHandler& ops, std::span<const Expr> index) {
          const LoopValue m = read(ops, cond, index, DType::Bool);
          return ops.cast(ops.where(m, read(ops, a, index, compute), read(ops, b, index, compute)),
                          result);
        },
        {cond.tensor.get(), a.tensor.get(), b.tensor.get()});
  }
  if (n.args.empty() || !ctx.is_tensor_arg(n.args[0])) {
    return std::nullopt;
  }
  const SharedValue x = share(ctx.tensor(n.args[0]));
  if (n.op == OpKind::to_dtype) {
    return ctx.pointwise(result, std::move(sizes),
                         [x, result](OpsHandler& ops, std::span<const Expr> index) {
                           return ops.cast(x->loader(ops, index), result);
                         },
                         {x.get()});
  }
  if (n.op == OpKind::gelu || n.op == OpKind::silu) {
    bool tanh_form = false;
    if (n.op == OpKind::gelu) {
      if (n.args.size() != 2 || n.args[1].kind != Arg::Kind::Constant ||
          !std::holds_alternative<std::string>(n.args[1].constant)) {
        return std::nullopt;
      }
      const std::string& approximate = std::get<std::string>(n.args[1].constant);
      if (approximate != "none" && approximate != "tanh") {
        return std::nullopt; // the eager kernel raises the error
      }
      tanh_form = approximate == "tanh";
    }
    const OpKind op = n.op;
    return ctx.pointwise(result, std::move(sizes),
                         [x, result, op, tanh_form](OpsHandler& ops, std::span<const Expr> index) {
                           const LoopValue v = ops.cast(x->loader(ops, index), DType::Float32);
                           const LoopValue y = op == OpKind::gelu ? gelu(ops, v, tanh_form)
                                                                  : ops.mul(v, ops.sigmoid(v));
                           return ops.cast(y, result);
                         },
                         {x.get()});
  }
  const std::optional<LoopOp> op = unary_loop_op(n.op);
  if (!op) {
    return std::nullopt;
  }
  // bitwise_not of bools is logical_not (~1 as an i64 would stay true).
  const LoopOp lop =
      *op == LoopOp::bitwise_not && x->dtype == DType::Bool ? LoopOp::logical_not : *op;
  const LoopOpCategory cat = loop_op_category(lop);
  if (cat == LoopOpCategory::Compare && !is_floating(x->dtype)) {
    // isnan, isinf of integers and bools: false throughout.
    return ctx.pointwise(
        result, std::move(sizes),
        [](OpsHandler& ops, std::span<const Expr>) { return ops.constant(0.0, DType::Bool); },
        {x.get()});
  }
  // Tests and logical_not read x in its own compute type; the rest compute in the result's.
  const DType compute = cat == LoopOpCategory::Float ? DType::Float32
                        : cat == LoopOpCategory::Compare || cat == LoopOpCategory::Logic
                            ? compute_dtype(x->dtype)
                            : compute_type(result);
  return ctx.pointwise(result, std::move(sizes),
                       [x, lop, compute, result](OpsHandler& ops, std::span<const Expr> index) {
                         const std::array<LoopValue, 1> args = {
                             ops.cast(x->loader(ops, index), compute)};
                         return ops.cast(ops.apply(lop, args), result);
                       },
                       {x.get()});
}

} // namespace compiler::inductor::lowering
