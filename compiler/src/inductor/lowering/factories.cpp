// Lowerings of full, zeros, ones, arange and rand: a constant, the index, or the counter-based
// draw of the element's counter, converted to the dtype exactly as the eager kernels convert
// (randn has no lowering: its Box-Muller pairs stay eager).
#include "inductor/lowering/lowering_context.h"
#include "kernels/counter_rng.h"

#include <cmath>
#include <limits>

namespace compiler::inductor::lowering {

namespace {

using graph::Arg;

std::optional<DType> dtype_arg(const Arg& a) {
  if (a.kind == Arg::Kind::Constant) {
    if (const DType* d = std::get_if<DType>(&a.constant)) {
      return *d;
    }
  }
  return std::nullopt;
}

// `value` as the eager kernels store a double into `dtype`, as a compute-dtype constant.
LoopValue fill_value(OpsHandler& ops, double value, DType dtype) {
  if (dtype == DType::Bool) {
    return ops.constant(value != 0.0 ? 1.0 : 0.0, DType::Bool);
  }
  if (is_floating(dtype)) {
    return ops.cast(ops.constant(value, DType::Float32), dtype);
  }
  // Integers: truncated toward zero and saturated into the type's range, NaN as 0.
  double v = std::isnan(value) ? 0.0 : std::trunc(value);
  const double lo = dtype == DType::Int32 ? -2147483648.0 : -9223372036854775808.0;
  const double hi = dtype == DType::Int32 ? 2147483647.0 : 9223372036854775807.0;
  v = std::min(std::max(v, lo), hi);
  return ops.constant(v, DType::Int64);
}

// The factory's arguments without the device a factory off the host appends (ops.cpp's
// call_factory): every tensor of a generated graph is on its one device (compile_fx.cpp's
// bypass), so the device says nothing more, and a GPU graph's full() or arange() (relu's
// decomposition makes one) is a constant in the kernel that reads it, not an eager kernel.
std::span<const Arg> factory_args(const graph::Node& n) {
  std::span<const Arg> args(n.args);
  if (!args.empty() && args.back().kind == Arg::Kind::Constant &&
      std::holds_alternative<Device>(args.back().constant)) {
    args = args.first(args.size() - 1);
  }
  return args;
}

// rand {sizes, seed, offset, dtype}: element i draws uniform(seed, offset + i), i its row-major
// position, truncated to the bits the dtype keeps, as the eager kernel does.
std::optional<TensorValue> lower_rand(Context& ctx, const graph::Node& n,
                                      std::span<const Arg> args) {
  const DType result = n.meta.dtype;
  // Seed and offset: constants, or (a draw from the process's generator, traced by capture)
  // symbols whose values each call passes in.
  auto integer = [](const Arg& a) -> std::optional<Expr> {
    if (a.kind == Arg::Kind::Symbolic) {
      return Expr::from_sym(a.sym);
    }
    if (const SymInt* s = std::get_if<SymInt>(&a.constant); s && a.kind == Arg::Kind::Constant) {
      return Expr::from_sym(*s);
    }
    return std::nullopt;
  };
  if (args.size() != 4 || !is_floating(result)) {
    return std::nullopt;
  }
  const std::optional<Expr> seed = integer(args[1]);
  const std::optional<Expr> offset = integer(args[2]);
  if (!seed || !offset) {
    return std::nullopt;
  }
  std::vector<Expr> sizes = ctx.sizes_of(n.meta);
  const int kept = kernels::uniform_bits_kept(result);
  return ctx.pointwise(result, sizes,
                       [seed = *seed, offset = *offset, sizes, kept,
                        result](OpsHandler& ops, std::span<const Expr> index) {
                         Expr counter = offset;
                         Expr stride(1);
                         for (std::size_t d = sizes.size(); d-- > 0;) {
                           counter = counter + index[d] * stride;
                           stride = stride * sizes[d];
                         }
                         LoopValue u = ops.rand_uniform(ops.index_expr(seed, DType::Int64),
                                                        ops.index_expr(counter, DType::Int64));
                         if (kept < kernels::kUniformBits) {
                           const double scale = static_cast<double>(std::int64_t{1} << kept);
                           u = ops.truediv(
                               ops.floor(ops.mul(u, ops.constant(scale, DType::Float32))),
                               ops.constant(scale, DType::Float32));
                         }
                         return ops.cast(u, result);
                       },
                       {});
}

} // namespace

std::optional<TensorValue> lower_factory(Context& ctx, const graph::Node& n) {
  const DType result = n.meta.dtype;
  std::vector<Expr> sizes = ctx.sizes_of(n.meta);
  const std::span<const Arg> args = factory_args(n);
  double value = 0.0;
  switch (n.op) {
  case OpKind::full:
    if (args.size() != 3 || args[1].kind != Arg::Kind::Constant ||
        !std::holds_alternative<double>(args[1].constant)) {
      return std::nullopt;
    }
    value = std::get<double>(args[1].constant);
    break;
  case OpKind::zeros:
    value = 0.0;
    break;
  case OpKind::ones:
    value = 1.0;
    break;
  case OpKind::rand:
    return lower_rand(ctx, n, args);
  case OpKind::arange: {
    if (args.size() == 2 && dtype_arg(args[1])) {
      return ctx.pointwise(result, std::move(sizes),
                           [result](OpsHandler& ops, std::span<const Expr> index) {
                             return ops.cast(ops.index_expr(index[0], DType::Int64), result);
                           },
                           {});
    }
    if (args.size() != 4 || !is_floating(result)) {
      return std::nullopt;
    }
    const double* start = std::get_if<double>(&args[0].constant);
    const double* step = std::get_if<double>(&args[2].constant);
    if (start == nullptr || step == nullptr) {
      return std::nullopt;
    }
    const double a = *start;
    const double s = *step;
    return ctx.pointwise(result, std::move(sizes),
                         [a, s, result](OpsHandler& ops, std::span<const Expr> index) {
                           const LoopValue i = ops.index_expr(index[0], DType::Float32);
                           return ops.cast(ops.add(ops.constant(a, DType::Float32),
                                                   ops.mul(i, ops.constant(s, DType::Float32))),
                                           result);
                         },
                         {});
  }
  default:
    return std::nullopt;
  }
  return ctx.pointwise(result, std::move(sizes),
                       [value, result](OpsHandler& ops, std::span<const Expr>) {
                         return fill_value(ops, value, result);
                       },
                       {});
}

} // namespace compiler::inductor::lowering
