// Lowerings of the indexing prims (gather, scatter_add) and of a device transfer that stays on
// the host.
//
//   gather(x, d, index)          out[i] = x[i with i_d := index[i]]: an indirect read per element
//                                (negative indices wrap as in eager; out of range raises the
//                                run's error flag, so the wrapper reports eager's error).
//   scatter_add(x, d, index, s)  out[j] = x[j] + sum over r < index.size(d) of s[j with j_d := r]
//                                where index[j with j_d := r] == j_d (and j lies inside index's
//                                sizes in the other dims): a reduction over index's dim d per
//                                output element, with no stores to computed addresses, so it
//                                fuses and vectorises like any reduction. Its work is
//                                numel(out) x index.size(d); past kMaxScatterRange the eager
//                                kernel (linear in index's elements) runs instead.
#include "inductor/lowering/lowering_context.h"

namespace compiler::inductor::lowering {

namespace {

using graph::Arg;

// scatter_add's reduction reads index.size(d) elements per output element: beyond this many
// (an embedding's gradient over a long sequence) the eager kernel's single pass is cheaper.
constexpr std::int64_t kMaxScatterRange = 256;

std::optional<std::int64_t> dim_arg(const Arg& a, std::size_t rank) {
  if (a.kind != Arg::Kind::Constant || rank == 0) {
    return std::nullopt;
  }
  const SymInt* s = std::get_if<SymInt>(&a.constant);
  if (s == nullptr) {
    return std::nullopt;
  }
  const std::int64_t d = normalize_dim(s->hint(), rank);
  if (d < 0 || d >= static_cast<std::int64_t>(rank)) {
    return std::nullopt;
  }
  return d;
}

// An index value wrapped into [0, size) when negative (eager accepts [-size, size)).
LoopValue wrapped(OpsHandler& ops, LoopValue v, const Expr& size) {
  const LoopValue row = ops.cast(v, DType::Int64);
  const LoopValue negative = ops.lt(row, ops.constant(0, DType::Int64));
  return ops.where(negative, ops.add(row, ops.index_expr(size, DType::Int64)), row);
}

std::vector<Expr> with_dim(std::span<const Expr> index, std::size_t d, const Expr& at) {
  std::vector<Expr> out(index.begin(), index.end());
  out[d] = at;
  return out;
}

std::optional<TensorValue> gather(Context& ctx, const graph::Node& n) {
  if (n.args.size() != 3 || !ctx.is_tensor_arg(n.args[0]) || !ctx.is_tensor_arg(n.args[2])) {
    return std::nullopt;
  }
  const TensorValue x = ctx.realize(ctx.tensor(n.args[0]));
  const SharedValue idx = share(ctx.tensor(n.args[2]));
  const std::size_t rank = x.sizes.size();
  const std::optional<std::int64_t> d = dim_arg(n.args[1], rank);
  if (!d || idx->sizes.size() != rank || !is_integral(idx->dtype)) {
    return std::nullopt;
  }
  const BufferView xv = *x.view;
  const auto dim = static_cast<std::size_t>(*d);
  const DType result = n.meta.dtype;
  return ctx.pointwise(
      result, ctx.sizes_of(n.meta),
      [xv, idx, dim, result](OpsHandler& ops, std::span<const Expr> index) {
        const Expr& size = xv.layout.sizes[dim];
        const LoopValue row = wrapped(ops, idx->loader(ops, index), size);
        Expr offset = xv.layout.offset;
        for (std::size_t k = 0; k < index.size(); ++k) {
          if (k != dim) {
            offset = offset + index[k] * xv.layout.strides[k];
          }
        }
        return ops.cast(ops.load_indirect(xv.buffer, row, size, xv.layout.strides[dim], offset),
                        result);
      },
      {idx.get()});
}

std::optional<TensorValue> scatter_add(Context& ctx, const graph::Node& n) {
  if (n.args.size() != 4 || !ctx.is_tensor_arg(n.args[0]) || !ctx.is_tensor_arg(n.args[2]) ||
      !ctx.is_tensor_arg(n.args[3])) {
    return std::nullopt;
  }
  const TensorValue x_value = ctx.realize(ctx.tensor(n.args[0]));
  const SharedValue x = share(x_value);
  const SharedValue idx = share(ctx.tensor(n.args[2]));
  const SharedValue src = share(ctx.tensor(n.args[3]));
  const std::size_t rank = x->sizes.size();
  const std::optional<std::int64_t> d = dim_arg(n.args[1], rank);
  if (!d || idx->sizes.size() != rank || src->sizes.size() != rank || !is_integral(idx->dtype)) {
    return std::nullopt;
  }
  const auto dim = static_cast<std::size_t>(*d);
  const Expr range = idx->sizes[dim];
  if (!range.is_constant() || range.constant_value() > kMaxScatterRange) {
    return std::nullopt;
  }
  const DType result = n.meta.dtype;
  if (result == DType::Bool) {
    return std::nullopt;
  }
  const DType compute = compute_type(result);
  std::vector<Expr> out_sizes = ctx.sizes_of(n.meta);
  // The other dims where index is smaller than the output: output elements there get nothing.
  std::vector<std::size_t> partial;
  for (std::size_t k = 0; k < rank; ++k) {
    if (k != dim && !(idx->sizes[k] == out_sizes[k])) {
      partial.push_back(k);
    }
  }
  const BufferView xv = *x->view;
  ReductionFn body = [idx, src, xv, dim, partial, compute](OpsHandler& ops,
                                                           std::span<const Expr> index,
                                                           std::span<const Expr> rindex) {
    const std::vector<Expr> at = with_dim(index, dim, rindex[0]);
    auto contribution = [&] {
      const Expr& size = xv.layout.sizes[dim];
      const LoopValue row = wrapped(ops, idx->loader(ops, at), size);
      // The bounds check of eager's kernel: an index outside [-size, size) raises the run's
      // error flag (the value read is not used).
      (void)ops.load_indirect(xv.buffer, row, size, Expr(), xv.layout.offset);
      const LoopValue hit = ops.eq(row, ops.index_expr(index[dim], DType::Int64));
      return ops.where(hit, ops.cast(src->loader(ops, at), compute), ops.constant(0, compute));
    };
    if (partial.empty()) {
      return contribution();
    }
    LoopValue inside;
    for (std::size_t k : partial) {
      const LoopValue in_k = ops.lt(ops.index_expr(index[k], DType::Int64),
                                    ops.index_expr(idx->sizes[k], DType::Int64));
      inside = inside.id < 0 ? in_k : ops.logical_and(inside, in_k);
    }
    return ops.masked(inside, contribution, 0.0);
  };
  const SharedValue added = share(ctx.reduction(compute, out_sizes, {range}, ReductionType::sum,
                                                compute, std::move(body), {idx.get(), src.get()}));
  return ctx.pointwise(result, std::move(out_sizes),
                       [x, added, compute, result](OpsHandler& ops, std::span<const Expr> index) {
                         return ops.cast(ops.add(ops.cast(x->loader(ops, index), compute),
                                                 added->loader(ops, index)),
                                         result);
                       },
                       {x.get(), added.get()});
}

// A transfer to the host of a host tensor returns its input (eager's `to` does too); graphs
// with tensors on another device never reach code generation (compile_fx.cpp's bypass).
std::optional<TensorValue> to_host(Context& ctx, const graph::Node& n) {
  if (n.args.size() != 2 || !ctx.is_tensor_arg(n.args[0]) ||
      n.args[1].kind != Arg::Kind::Constant) {
    return std::nullopt;
  }
  const Device* device = std::get_if<Device>(&n.args[1].constant);
  if (device == nullptr || !device->is_cpu() || !n.meta.device.is_cpu()) {
    return std::nullopt;
  }
  return ctx.tensor(n.args[0]);
}

} // namespace

std::optional<TensorValue> lower_indexing(Context& ctx, const graph::Node& n) {
  switch (n.op) {
  case OpKind::gather:
    return gather(ctx, n);
  case OpKind::scatter_add:
    return scatter_add(ctx, n);
  default:
    return std::nullopt;
  }
}

std::optional<TensorValue> lower_transfer(Context& ctx, const graph::Node& n) {
  return n.op == OpKind::to ? to_host(ctx, n) : std::nullopt;
}

} // namespace compiler::inductor::lowering
