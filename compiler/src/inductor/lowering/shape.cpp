// Lowerings of contiguous, cat and stack. contiguous of a contiguous buffer is that buffer (as
// in eager); otherwise it is the same values without a layout, so realizing it makes a
// contiguous copy. cat reads each input under a mask covering its part of the index range;
// stack selects the input named by the new dim's index.
#include "inductor/lowering/lowering_context.h"

namespace compiler::inductor::lowering {

namespace {

using graph::Arg;

std::optional<std::vector<TensorValue>> tensor_list(Context& ctx, const Arg& a) {
  std::vector<TensorValue> out;
  if (a.kind == Arg::Kind::NodeList) {
    for (std::size_t n : a.nodes) {
      if (!ctx.values[n]) {
        return std::nullopt;
      }
      out.push_back(*ctx.values[n]);
    }
    return out;
  }
  if (a.kind == Arg::Kind::Constant) {
    if (const auto* list = std::get_if<std::vector<Tensor>>(&a.constant)) {
      for (const Tensor& t : *list) {
        Arg c;
        c.kind = Arg::Kind::Constant;
        c.constant = t;
        out.push_back(ctx.tensor(c));
      }
      return out;
    }
  }
  return std::nullopt;
}

std::optional<std::int64_t> dim_arg(const Arg& a) {
  if (a.kind == Arg::Kind::Constant) {
    if (const SymInt* s = std::get_if<SymInt>(&a.constant)) {
      return s->hint();
    }
  }
  return std::nullopt;
}

} // namespace

std::optional<TensorValue> lower_shape(Context& ctx, const graph::Node& n) {
  if (n.op == OpKind::contiguous) {
    if (n.args.size() != 1 || !ctx.is_tensor_arg(n.args[0])) {
      return std::nullopt;
    }
    TensorValue in = ctx.tensor(n.args[0]);
    if (in.view && in.view->layout.strides == contiguous_strides(in.view->layout.sizes)) {
      return in;
    }
    in.view.reset();
    in.origins.push_back(ctx.node);
    return in;
  }
  if (n.args.size() != 2) {
    return std::nullopt;
  }
  std::optional<std::vector<TensorValue>> parts = tensor_list(ctx, n.args[0]);
  const std::optional<std::int64_t> d = dim_arg(n.args[1]);
  const std::vector<Expr> out_sizes = ctx.sizes_of(n.meta);
  if (!parts || parts->empty() || !d) {
    return std::nullopt;
  }
  const DType result = n.meta.dtype;
  const DType compute = compute_type(result);
  std::vector<SharedValue> shared;
  std::vector<const TensorValue*> inputs;
  for (TensorValue& p : *parts) {
    if (n.op == OpKind::cat && p.sizes.size() != out_sizes.size()) {
      return std::nullopt; // legacy empty 1-D parts: left to the eager kernel
    }
    shared.push_back(share(std::move(p)));
  }
  TensorValue v;
  if (n.op == OpKind::cat) {
    const auto dim = static_cast<std::size_t>(normalize_dim(*d, out_sizes.size()));
    std::vector<Expr> offsets = {Expr()};
    for (const SharedValue& p : shared) {
      offsets.push_back(offsets.back() + p->sizes[dim]);
    }
    v = ctx.pointwise(
        result, out_sizes,
        [shared, offsets, dim, compute, result](OpsHandler& ops, std::span<const Expr> index) {
          const LoopValue i = ops.index_expr(index[dim], DType::Int64);
          LoopValue acc = ops.constant(0.0, compute);
          for (std::size_t k = shared.size(); k-- > 0;) {
            const LoopValue lo = ops.index_expr(offsets[k], DType::Int64);
            const LoopValue hi = ops.index_expr(offsets[k + 1], DType::Int64);
            const LoopValue inside = ops.logical_and(ops.ge(i, lo), ops.lt(i, hi));
            const SharedValue& part = shared[k];
            const Expr offset = offsets[k];
            const LoopValue value = ops.masked(
                inside,
                [&] {
                  std::vector<Expr> at(index.begin(), index.end());
                  at[dim] = at[dim] - offset;
                  return ops.cast(part->loader(ops, at), compute);
                },
                0.0);
            acc = ops.where(inside, value, acc);
          }
          return ops.cast(acc, result);
        },
        {});
  } else {
    const auto dim = static_cast<std::size_t>(normalize_dim(*d, out_sizes.size()));
    v = ctx.pointwise(result, out_sizes,
                      [shared, dim, compute, result](OpsHandler& ops, std::span<const Expr> index) {
                        std::vector<Expr> at(index.begin(), index.end());
                        at.erase(at.begin() + static_cast<std::ptrdiff_t>(dim));
                        const LoopValue i = ops.index_expr(index[dim], DType::Int64);
                        LoopValue acc = ops.cast(shared.back()->loader(ops, at), compute);
                        for (std::size_t k = shared.size() - 1; k-- > 0;) {
                          const LoopValue pick =
                              ops.eq(i, ops.constant(static_cast<double>(k), DType::Int64));
                          acc = ops.where(pick, ops.cast(shared[k]->loader(ops, at), compute), acc);
                        }
                        return ops.cast(acc, result);
                      },
                      {});
  }
  for (const SharedValue& p : shared) {
    v.cost += p->cost;
    v.origins.insert(v.origins.end(), p->origins.begin(), p->origins.end());
  }
  return v;
}

} // namespace compiler::inductor::lowering
