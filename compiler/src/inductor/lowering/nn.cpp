// Lowerings of the neural-network composites straight into reductions and pointwise loops
// (no decomposition into graph ops first): softmax and log_softmax (max, then sum of exp, then
// the normalised values), layer_norm (mean, then variance, then the normalised, scaled and
// shifted values), embedding (an indirect read) and cross_entropy (log-sum-exp per row minus the
// target's logit, averaged). The scheduler fuses each into one kernel whose loops share the
// outer loop and keep the row statistics in registers.
#include "inductor/lowering/lowering_context.h"

namespace compiler::inductor::lowering {

namespace {

using graph::Arg;

std::vector<Expr> without(std::span<const Expr> index, std::size_t d) {
  std::vector<Expr> out;
  for (std::size_t i = 0; i < index.size(); ++i) {
    if (i != d) {
      out.push_back(index[i]);
    }
  }
  return out;
}

std::vector<Expr> with(std::span<const Expr> index, std::size_t d, const Expr& at) {
  std::vector<Expr> out(index.begin(), index.end());
  out.insert(out.begin() + static_cast<std::ptrdiff_t>(d), at);
  return out;
}

std::optional<std::int64_t> int_constant(const Arg& a) {
  if (a.kind != Arg::Kind::Constant) {
    return std::nullopt;
  }
  if (const SymInt* s = std::get_if<SymInt>(&a.constant)) {
    return s->hint();
  }
  return std::nullopt;
}

std::optional<TensorValue> softmax(Context& ctx, const graph::Node& n, bool log) {
  if (n.args.size() != 2 || !ctx.is_tensor_arg(n.args[0])) {
    return std::nullopt;
  }
  const std::optional<std::int64_t> dim = int_constant(n.args[1]);
  const TensorValue in = ctx.tensor(n.args[0]);
  const std::size_t rank = in.sizes.size();
  if (!dim || rank == 0 || !is_floating(in.dtype)) {
    return std::nullopt;
  }
  const std::int64_t nd = normalize_dim(*dim, rank);
  if (nd < 0 || nd >= static_cast<std::int64_t>(rank)) {
    return std::nullopt;
  }
  const auto d = static_cast<std::size_t>(nd);
  const SharedValue x = share(ctx.realize_if_reread(in));
  const std::vector<Expr> ranges = without(x->sizes, d);
  const std::vector<Expr> rr = {x->sizes[d]};
  auto at = [x, d](OpsHandler& ops, std::span<const Expr> index, std::span<const Expr> r) {
    return ops.cast(x->loader(ops, with(index, d, r[0])), DType::Float32);
  };
  const SharedValue max = share(
      ctx.reduction(DType::Float32, ranges, rr, ReductionType::max, DType::Float32, at, {x.get()}));
  const DType result = n.meta.dtype;
  if (log) {
    const SharedValue sum = share(ctx.reduction(
        DType::Float32, ranges, rr, ReductionType::sum, DType::Float32,
        [at, max](OpsHandler& ops, std::span<const Expr> index, std::span<const Expr> r) {
          return ops.exp(ops.sub(at(ops, index, r), max->loader(ops, index)));
        },
        {x.get()}));
    return ctx.pointwise(
        result, x->sizes,
        [x, max, sum, d, result](OpsHandler& ops, std::span<const Expr> index) {
          const std::vector<Expr> row = without(index, d);
          const LoopValue shifted =
              ops.sub(ops.cast(x->loader(ops, index), DType::Float32), max->loader(ops, row));
          return ops.cast(ops.sub(shifted, ops.log(sum->loader(ops, row))), result);
        },
        {x.get(), max.get(), sum.get()});
  }
  // softmax: exp(x - max) is computed once into a buffer that the result then overwrites (the
  // memory plan puts both in the result's storage, so a row is written once and rescaled while
  // it is in cache).
  const SharedValue e = share(ctx.realize(
      ctx.pointwise(DType::Float32, x->sizes,
                    [x, max, d](OpsHandler& ops, std::span<const Expr> index) {
                      return ops.exp(ops.sub(ops.cast(x->loader(ops, index), DType::Float32),
                                             max->loader(ops, without(index, d))));
                    },
                    {x.get(), max.get()})));
  const SharedValue sum = share(
      ctx.reduction(DType::Float32, ranges, rr, ReductionType::sum, DType::Float32,
                    [e, d](OpsHandler& ops, std::span<const Expr> index, std::span<const Expr> r) {
                      return e->loader(ops, with(index, d, r[0]));
                    },
                    {e.get()}));
  return ctx.pointwise(result, x->sizes,
                       [e, sum, d, result](OpsHandler& ops, std::span<const Expr> index) {
                         const LoopValue inv = ops.truediv(ops.constant(1.0, DType::Float32),
                                                           sum->loader(ops, without(index, d)));
                         return ops.cast(ops.mul(e->loader(ops, index), inv), result);
                       },
                       {e.get(), sum.get()});
}

std::optional<TensorValue> layer_norm(Context& ctx, const graph::Node& n) {
  if (n.args.size() != 5 || !ctx.is_tensor_arg(n.args[0]) ||
      n.args[1].kind != Arg::Kind::Constant || n.args[4].kind != Arg::Kind::Constant) {
    return std::nullopt;
  }
  const auto* shape = std::get_if<std::vector<std::int64_t>>(&n.args[1].constant);
  const double* eps = std::get_if<double>(&n.args[4].constant);
  const TensorValue in = ctx.tensor(n.args[0]);
  const std::size_t rank = in.sizes.size();
  if (shape == nullptr || eps == nullptr || shape->empty() || shape->size() > rank ||
      !is_floating(in.dtype)) {
    return std::nullopt;
  }
  const std::size_t k = shape->size();
  const std::size_t lead = rank - k;
  for (std::size_t i = 0; i < k; ++i) {
    if (!(in.sizes[lead + i] == Expr((*shape)[i]))) {
      return std::nullopt; // the eager kernel reports the mismatch
    }
  }
  SharedValue weight;
  SharedValue bias;
  for (int which = 2; which <= 3; ++which) {
    const Arg& a = n.args[static_cast<std::size_t>(which)];
    if (a.kind == Arg::Kind::Constant && std::holds_alternative<std::monostate>(a.constant)) {
      continue;
    }
    if (!ctx.is_tensor_arg(a)) {
      return std::nullopt;
    }
    TensorValue t = ctx.tensor(a);
    if (t.sizes.size() != k) {
      return std::nullopt;
    }
    (which == 2 ? weight : bias) = share(std::move(t));
  }
  const SharedValue x = share(ctx.realize_if_reread(in));
  const std::vector<Expr> ranges(x->sizes.begin(), x->sizes.begin() + static_cast<long>(lead));
  const std::vector<Expr> rr(x->sizes.begin() + static_cast<long>(lead), x->sizes.end());
  const Expr count = product(rr);
  auto at = [x](OpsHandler& ops, std::span<const Expr> index, std::span<const Expr> r) {
    std::vector<Expr> full(index.begin(), index.end());
    full.insert(full.end(), r.begin(), r.end());
    return ops.cast(x->loader(ops, full), DType::Float32);
  };
  // The mean is summed relative to the row's first element, so a constant row has exactly its
  // value as mean and a zero variance (an f32 sum of equal values would not divide back
  // exactly, and 1/sqrt(eps) would amplify the residue).
  const std::size_t k_dims = rr.size();
  bool empty = false; // an empty row has no first element (symbolic sizes are at least 2)
  for (const Expr& d : rr) {
    empty = empty || (d.is_constant() && d.constant_value() == 0);
  }
  auto first = [at, k_dims, empty](OpsHandler& ops, std::span<const Expr> index) {
    if (empty) {
      return ops.constant(0.0, DType::Float32);
    }
    const std::vector<Expr> zero(k_dims, Expr());
    return at(ops, index, zero);
  };
  const SharedValue total = share(ctx.reduction(
      DType::Float32, ranges, rr, ReductionType::sum, DType::Float32,
      [at, first](OpsHandler& ops, std::span<const Expr> index, std::span<const Expr> r) {
        return ops.sub(at(ops, index, r), first(ops, index));
      },
      {x.get()}));
  auto mean = [total, count, first](OpsHandler& ops, std::span<const Expr> row) {
    return ops.add(first(ops, row),
                   ops.truediv(total->loader(ops, row), ops.index_expr(count, DType::Float32)));
  };
  const SharedValue squares = share(ctx.reduction(
      DType::Float32, ranges, rr, ReductionType::sum, DType::Float32,
      [at, mean](OpsHandler& ops, std::span<const Expr> index, std::span<const Expr> r) {
        const LoopValue c = ops.sub(at(ops, index, r), mean(ops, index));
        return ops.mul(c, c);
      },
      {x.get()}));
  const DType result = n.meta.dtype;
  const double epsilon = *eps;
  return ctx.pointwise(
      result, x->sizes,
      [x, mean, squares, count, weight, bias, lead, epsilon, result](OpsHandler& ops,
                                                                     std::span<const Expr> index) {
        const std::span<const Expr> row = index.first(lead);
        const std::span<const Expr> tail = index.subspan(lead);
        const LoopValue var =
            ops.truediv(squares->loader(ops, row), ops.index_expr(count, DType::Float32));
        const LoopValue rstd = ops.rsqrt(ops.add(var, ops.constant(epsilon, DType::Float32)));
        LoopValue y =
            ops.mul(ops.sub(ops.cast(x->loader(ops, index), DType::Float32), mean(ops, row)), rstd);
        if (weight) {
          y = ops.mul(y, ops.cast(weight->loader(ops, tail), DType::Float32));
        }
        if (bias) {
          y = ops.add(y, ops.cast(bias->loader(ops, tail), DType::Float32));
        }
        return ops.cast(y, result);
      },
      {x.get(), total.get(), squares.get(), weight.get(), bias.get()});
}

std::optional<TensorValue> embedding(Context& ctx, const graph::Node& n) {
  if (n.args.size() != 2 || !ctx.is_tensor_arg(n.args[0]) || !ctx.is_tensor_arg(n.args[1])) {
    return std::nullopt;
  }
  const TensorValue w = ctx.realize(ctx.tensor(n.args[0]));
  const SharedValue idx = share(ctx.tensor(n.args[1]));
  if (w.sizes.size() != 2 || !is_integral(idx->dtype)) {
    return std::nullopt;
  }
  const BufferView wv = *w.view;
  const DType result = n.meta.dtype;
  return ctx.pointwise(result, ctx.sizes_of(n.meta),
                       [wv, idx, result](OpsHandler& ops, std::span<const Expr> index) {
                         const LoopValue row = ops.cast(
                             idx->loader(ops, index.first(index.size() - 1)), DType::Int64);
                         const Expr offset = wv.layout.offset + index.back() * wv.layout.strides[1];
                         return ops.cast(ops.load_indirect(wv.buffer, row, wv.layout.sizes[0],
                                                           wv.layout.strides[0], offset),
                                         result);
                       },
                       {idx.get()});
}

std::optional<TensorValue> cross_entropy(Context& ctx, const graph::Node& n) {
  if (n.args.size() != 2 || !ctx.is_tensor_arg(n.args[0]) || !ctx.is_tensor_arg(n.args[1])) {
    return std::nullopt;
  }
  const TensorValue logits = ctx.realize(ctx.tensor(n.args[0]));
  const SharedValue target = share(ctx.tensor(n.args[1]));
  const std::size_t rank = logits.sizes.size();
  if ((rank != 1 && rank != 2) || target->sizes.size() != rank - 1 || !is_integral(target->dtype) ||
      !is_floating(logits.dtype)) {
    return std::nullopt;
  }
  const BufferView lv = *logits.view;
  const bool batched = rank == 2;
  const std::vector<Expr> rows =
      batched ? std::vector<Expr>{lv.layout.sizes[0]} : std::vector<Expr>{};
  const Expr classes = lv.layout.sizes.back();
  const Expr class_stride = lv.layout.strides.back();
  auto at = [lv](OpsHandler& ops, std::span<const Expr> row, std::span<const Expr> r) {
    std::vector<Expr> full(row.begin(), row.end());
    full.push_back(r[0]);
    return ops.cast(ops.load(lv.buffer, lv.layout.index(full)), DType::Float32);
  };
  const SharedValue lg = share(logits);
  const SharedValue max = share(ctx.reduction(DType::Float32, rows, {classes}, ReductionType::max,
                                              DType::Float32, at, {lg.get()}));
  const SharedValue sum = share(
      ctx.reduction(DType::Float32, rows, {classes}, ReductionType::sum, DType::Float32,
                    [at, max](OpsHandler& ops, std::span<const Expr> row, std::span<const Expr> r) {
                      return ops.exp(ops.sub(at(ops, row, r), max->loader(ops, row)));
                    },
                    {lg.get()}));
  // -log_softmax(logits)[i, target[i]] = log(sum_i) + max_i - logits[i, target[i]].
  auto loss = [lv, batched, classes, class_stride, target, max, sum](OpsHandler& ops,
                                                                     std::span<const Expr> row) {
    const LoopValue t = ops.cast(target->loader(ops, row), DType::Int64);
    const Expr offset = lv.layout.offset + (batched ? row[0] * lv.layout.strides[0] : Expr());
    const LoopValue picked =
        ops.cast(ops.load_indirect(lv.buffer, t, classes, class_stride, offset), DType::Float32);
    return ops.sub(ops.add(ops.log(sum->loader(ops, row)), max->loader(ops, row)), picked);
  };
  const DType result = n.meta.dtype;
  if (!batched) {
    return ctx.pointwise(result, {},
                         [loss, result](OpsHandler& ops, std::span<const Expr>) {
                           return ops.cast(loss(ops, {}), result);
                         },
                         {target.get(), max.get(), sum.get()});
  }
  const Expr batch = rows[0];
  const SharedValue total =
      share(ctx.reduction(DType::Float32, {}, rows, ReductionType::sum, DType::Float32,
                          [loss](OpsHandler& ops, std::span<const Expr>, std::span<const Expr> r) {
                            return loss(ops, r);
                          },
                          {target.get(), max.get(), sum.get()}));
  return ctx.pointwise(result, {},
                       [total, batch, result](OpsHandler& ops, std::span<const Expr> index) {
                         return ops.cast(ops.truediv(total->loader(ops, index),
                                                     ops.index_expr(batch, DType::Float32)),
                                         result);
                       },
                       {total.get()});
}

} // namespace

std::optional<TensorValue> lower_nn(Context& ctx, const graph::Node& n) {
  switch (n.op) {
  case OpKind::softmax:
    return softmax(ctx, n, false);
  case OpKind::log_softmax:
    return softmax(ctx, n, true);
  case OpKind::layer_norm:
    return layer_norm(ctx, n);
  case OpKind::embedding:
    return embedding(ctx, n);
  case OpKind::cross_entropy:
    return cross_entropy(ctx, n);
  case OpKind::convolution:
    return lower_convolution(ctx, n);
  case OpKind::max_pool2d:
  case OpKind::avg_pool2d:
  case OpKind::max_pool2d_backward:
  case OpKind::avg_pool2d_backward:
    return lower_pooling(ctx, n);
  default:
    return std::nullopt;
  }
}

} // namespace compiler::inductor::lowering
