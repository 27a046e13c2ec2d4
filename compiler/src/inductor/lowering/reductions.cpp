// Lowerings of sum, mean, amax, amin and argmax: one Reduction buffer over the reduced dims for
// each index of the result (mean adds a pointwise division by the count, fused as an epilogue).
#include "inductor/lowering/lowering_context.h"

namespace compiler::inductor::lowering {

namespace {

using graph::Arg;

// Which dims a reduction node reduces, and whether it keeps them as size 1.
struct ReducedDims {
  std::vector<bool> reduced;
  bool keepdim = false;
};

std::optional<ReducedDims> reduced_dims(const graph::Node& n, std::size_t rank) {
  ReducedDims r;
  r.reduced.assign(rank, false);
  if (n.args.size() != 3 || n.args[2].kind != Arg::Kind::Constant ||
      !std::holds_alternative<bool>(n.args[2].constant) || n.args[1].kind != Arg::Kind::Constant) {
    return std::nullopt;
  }
  r.keepdim = std::get<bool>(n.args[2].constant);
  const Value& d = n.args[1].constant;
  std::vector<std::int64_t> dims;
  if (const auto* list = std::get_if<std::vector<std::int64_t>>(&d)) {
    dims = *list;
  } else if (const SymInt* s = std::get_if<SymInt>(&d)) {
    dims = {s->hint()};
  } else if (!std::holds_alternative<std::monostate>(d)) {
    return std::nullopt;
  }
  if (dims.empty()) {
    r.reduced.assign(rank, true); // every dim (argmax over the flattened tensor too)
    return r;
  }
  for (std::int64_t dim : dims) {
    const std::int64_t nd = normalize_dim(dim, rank);
    if (nd < 0 || nd >= static_cast<std::int64_t>(std::max<std::size_t>(rank, 1))) {
      return std::nullopt;
    }
    if (rank > 0) {
      r.reduced[static_cast<std::size_t>(nd)] = true;
    }
  }
  return r;
}

} // namespace

std::optional<TensorValue> lower_reduction(Context& ctx, const graph::Node& n) {
  if (n.args.empty() || !ctx.is_tensor_arg(n.args[0])) {
    return std::nullopt;
  }
  const SharedValue x = share(ctx.tensor(n.args[0]));
  const std::size_t rank = x->sizes.size();
  const std::optional<ReducedDims> rd = reduced_dims(n, rank);
  if (!rd) {
    return std::nullopt;
  }
  std::vector<Expr> reduction_ranges;
  for (std::size_t d = 0; d < rank; ++d) {
    if (rd->reduced[d]) {
      reduction_ranges.push_back(x->sizes[d]);
    }
  }
  const std::vector<bool> reduced = rd->reduced;
  const bool keepdim = rd->keepdim;
  // The input index for a result index and a reduction index.
  auto input_index = [reduced, keepdim, rank](std::span<const Expr> index,
                                              std::span<const Expr> rindex) {
    std::vector<Expr> full(rank);
    std::size_t j = 0;
    std::size_t k = 0;
    for (std::size_t d = 0; d < rank; ++d) {
      if (reduced[d]) {
        full[d] = rindex[j++];
        k += keepdim ? 1 : 0;
      } else {
        full[d] = index[k++];
      }
    }
    return full;
  };
  const DType result = n.meta.dtype;
  std::vector<Expr> ranges = ctx.sizes_of(n.meta);
  ReductionType type = ReductionType::sum;
  DType compute = compute_type(result);
  switch (n.op) {
  case OpKind::sum:
    break;
  case OpKind::mean:
    compute = DType::Float32;
    break;
  case OpKind::amax:
    type = ReductionType::max;
    break;
  case OpKind::amin:
    type = ReductionType::min;
    break;
  case OpKind::argmax:
    type = ReductionType::argmax;
    compute = compute_type(x->dtype);
    break;
  default:
    return std::nullopt;
  }
  if (reduction_ranges.empty()) {
    // Nothing reduced (a 0-dim input): each result is its one element (argmax: index 0), a
    // pointwise value rather than a reduction buffer without reduction ranges.
    const bool index = n.op == OpKind::argmax;
    return ctx.pointwise(
        result, std::move(ranges),
        [x, input_index, index, result](OpsHandler& ops, std::span<const Expr> out_index) {
          if (index) {
            return ops.constant(0.0, result);
          }
          return ops.cast(x->loader(ops, input_index(out_index, {})), result);
        },
        {x.get()});
  }
  ReductionFn body = [x, input_index, compute](OpsHandler& ops, std::span<const Expr> index,
                                               std::span<const Expr> rindex) {
    return ops.cast(x->loader(ops, input_index(index, rindex)), compute);
  };
  if (n.op != OpKind::mean) {
    return ctx.reduction(result, std::move(ranges), std::move(reduction_ranges), type, compute,
                         std::move(body), {x.get()});
  }
  const Expr count = product(reduction_ranges);
  const SharedValue total =
      share(ctx.reduction(DType::Float32, ranges, std::move(reduction_ranges), ReductionType::sum,
                          DType::Float32, std::move(body), {x.get()}));
  return ctx.pointwise(result, std::move(ranges),
                       [total, count, result](OpsHandler& ops, std::span<const Expr> index) {
                         const LoopValue s = total->loader(ops, index);
                         return ops.cast(ops.truediv(s, ops.index_expr(count, DType::Float32)),
                                         result);
                       },
                       {total.get()});
}

} // namespace compiler::inductor::lowering
