// Lowerings of 2-D max and average pooling and their backwards as pointwise loops over the
// window, unrolled (the window sizes are constants), as Inductor lowers pooling: each output
// element reads its window of the input through the input's loader, so the producer (a
// convolution's ReLU) and the consumer fuse with the pooling into one kernel.
//
// The backwards run per input element over the outputs whose windows can hold it (at most
// ceil(window extent / stride) per dim). Max pooling's backward recomputes each candidate
// window's argmax from the input rather than reading saved indices: the graph holds one
// output per op (no max_pool2d_with_indices tuple), and the recomputation is a few loads of an
// input that is already being read. Windows larger than kMaxWindowLoads loads per element are
// left to the eager kernel.
//
// Positions outside the input are read under masked(), so a padded window reads nothing
// there; without padding or ceil mode every window lies inside and no mask is needed.
#include "inductor/lowering/lowering_context.h"

#include <array>
#include <functional>
#include <limits>

namespace compiler::inductor::lowering {

namespace {

using graph::Arg;

constexpr std::int64_t kMaxWindowLoads = 128;

struct PoolParams {
  std::int64_t kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
  bool ceil_mode = false;
  bool count_include_pad = true;
};

std::optional<std::array<std::int64_t, 2>>
pair(const Arg& a, std::optional<std::array<std::int64_t, 2>> if_empty) {
  const auto* v = std::get_if<std::vector<std::int64_t>>(&a.constant);
  if (a.kind != Arg::Kind::Constant || v == nullptr) {
    return std::nullopt;
  }
  if (v->empty()) {
    return if_empty;
  }
  if (v->size() == 1) {
    return std::array<std::int64_t, 2>{(*v)[0], (*v)[0]};
  }
  if (v->size() == 2) {
    return std::array<std::int64_t, 2>{(*v)[0], (*v)[1]};
  }
  return std::nullopt;
}

std::optional<bool> flag(const Arg& a) {
  const bool* b = std::get_if<bool>(&a.constant);
  return a.kind == Arg::Kind::Constant && b != nullptr ? std::optional<bool>(*b) : std::nullopt;
}

// The pooling arguments starting at args[first] (kernel, stride, padding, then dilation and
// ceil_mode for max pooling, ceil_mode and count_include_pad for average pooling).
std::optional<PoolParams> params(const graph::Node& n, std::size_t first, bool max) {
  if (n.args.size() != first + 5) {
    return std::nullopt;
  }
  const auto kernel = pair(n.args[first], std::nullopt);
  if (!kernel) {
    return std::nullopt;
  }
  const auto stride = pair(n.args[first + 1], kernel);
  const auto padding = pair(n.args[first + 2], std::nullopt);
  if (!stride || !padding) {
    return std::nullopt;
  }
  PoolParams p;
  p.kh = (*kernel)[0];
  p.kw = (*kernel)[1];
  p.sh = (*stride)[0];
  p.sw = (*stride)[1];
  p.ph = (*padding)[0];
  p.pw = (*padding)[1];
  if (max) {
    const auto dilation = pair(n.args[first + 3], std::nullopt);
    const auto ceil_mode = flag(n.args[first + 4]);
    if (!dilation || !ceil_mode) {
      return std::nullopt;
    }
    p.dh = (*dilation)[0];
    p.dw = (*dilation)[1];
    p.ceil_mode = *ceil_mode;
  } else {
    const auto ceil_mode = flag(n.args[first + 3]);
    const auto include = flag(n.args[first + 4]);
    if (!ceil_mode || !include) {
      return std::nullopt;
    }
    p.ceil_mode = *ceil_mode;
    p.count_include_pad = *include;
  }
  return p;
}

LoopValue int_value(OpsHandler& ops, const Expr& e) {
  return ops.index_expr(e, DType::Int64);
}

LoopValue int_constant(OpsHandler& ops, std::int64_t v) {
  return ops.constant(static_cast<double>(v), DType::Int64);
}

LoopValue both(OpsHandler& ops, LoopValue a, LoopValue b) {
  if (a.id < 0) {
    return b;
  }
  return b.id < 0 ? a : ops.logical_and(a, b);
}

// Whether 0 <= e < size (an invalid LoopValue, meaning "always", when `always` holds).
LoopValue in_range(OpsHandler& ops, const Expr& e, const Expr& size, bool always) {
  if (always) {
    return {};
  }
  const LoopValue i = int_value(ops, e);
  return ops.logical_and(ops.ge(i, int_constant(ops, 0)), ops.lt(i, int_value(ops, size)));
}

// `load()` under `mask` (reading `other` where it is false), or unmasked for an invalid mask.
LoopValue masked_load(OpsHandler& ops, LoopValue mask, const std::function<LoopValue()>& load,
                      double other) {
  return mask.id < 0 ? load() : ops.masked(mask, load, other);
}

std::vector<Expr> at(std::span<const Expr> lead, const Expr& h, const Expr& w) {
  std::vector<Expr> index(lead.begin(), lead.end());
  index.push_back(h);
  index.push_back(w);
  return index;
}

// Average pooling's divisor for output (oh, ow), as i64 values: the window clipped to the
// padded input, or to the input when padding is not counted.
LoopValue avg_divisor(OpsHandler& ops, const PoolParams& p, LoopValue oh, LoopValue ow,
                      const Expr& h, const Expr& w) {
  auto extent = [&](LoopValue o, std::int64_t k, std::int64_t s, std::int64_t pad,
                    const Expr& size) {
    const LoopValue start = ops.sub(ops.mul(o, int_constant(ops, s)), int_constant(ops, pad));
    const LoopValue stop = ops.minimum(ops.add(start, int_constant(ops, k)),
                                       ops.add(int_value(ops, size), int_constant(ops, pad)));
    if (p.count_include_pad) {
      return ops.sub(stop, start);
    }
    return ops.sub(ops.minimum(stop, int_value(ops, size)),
                   ops.maximum(start, int_constant(ops, 0)));
  };
  return ops.mul(extent(oh, p.kh, p.sh, p.ph, h), extent(ow, p.kw, p.sw, p.pw, w));
}

// Whether every window lies inside the input (no padding, no ceil-mode overhang).
bool windows_inside(const PoolParams& p) {
  return p.ph == 0 && p.pw == 0 && !p.ceil_mode;
}

std::optional<TensorValue> pool_forward(Context& ctx, const graph::Node& n, bool max) {
  if (!ctx.is_tensor_arg(n.args[0])) {
    return std::nullopt;
  }
  const std::optional<PoolParams> p = params(n, 1, max);
  if (!p || p->kh * p->kw > kMaxWindowLoads) {
    return std::nullopt;
  }
  const SharedValue x = share(ctx.realize_if_reread(ctx.tensor(n.args[0])));
  if (x->sizes.size() != 3 && x->sizes.size() != 4) {
    return std::nullopt;
  }
  const DType result = n.meta.dtype;
  const std::size_t r = x->sizes.size();
  const Expr h = x->sizes[r - 2];
  const Expr w = x->sizes[r - 1];
  const bool inside = windows_inside(*p);
  const PoolParams q = *p;
  TensorValue v = ctx.pointwise(
      result, ctx.sizes_of(n.meta),
      [x, q, h, w, r, max, inside, result](OpsHandler& ops, std::span<const Expr> index) {
        const std::span<const Expr> lead = index.first(r - 2);
        const Expr& oh = index[r - 2];
        const Expr& ow = index[r - 1];
        const double inf = std::numeric_limits<double>::infinity();
        LoopValue acc = ops.constant(max ? -inf : 0.0, DType::Float32);
        for (std::int64_t i = 0; i < q.kh; ++i) {
          const Expr ih = oh * Expr(q.sh) + Expr(i * q.dh - q.ph);
          const LoopValue row_ok = in_range(ops, ih, h, inside);
          for (std::int64_t j = 0; j < q.kw; ++j) {
            const Expr iw = ow * Expr(q.sw) + Expr(j * q.dw - q.pw);
            const LoopValue ok = both(ops, row_ok, in_range(ops, iw, w, inside));
            const LoopValue value = masked_load(
                ops, ok, [&] { return ops.cast(x->loader(ops, at(lead, ih, iw)), DType::Float32); },
                max ? -inf : 0.0);
            if (max) {
              // PyTorch's CPU kernel: a larger value or a NaN takes over.
              acc = ops.where(ops.logical_or(ops.gt(value, acc), ops.isnan(value)), value, acc);
            } else {
              acc = ops.add(acc, value);
            }
          }
        }
        if (!max) {
          const LoopValue divisor =
              avg_divisor(ops, q, int_value(ops, oh), int_value(ops, ow), h, w);
          acc = ops.truediv(acc, ops.cast(divisor, DType::Float32));
        }
        return ops.cast(acc, result);
      },
      {x.get()});
  v.cost += static_cast<int>(p->kh * p->kw);
  return v;
}

// The outputs along one dim whose windows may hold input position `i`: output q - c for
// c in [0, count), q = floor((i + pad) / stride); `offset(c)` is i's position in that window,
// i + pad - (q - c) * stride = (i + pad) mod stride + c * stride, never negative.
struct Candidates {
  Expr q;
  Expr rem;
  std::int64_t count = 0;
};

Candidates candidates(const Expr& i, std::int64_t pad, std::int64_t stride, std::int64_t extent) {
  return {Expr::floordiv(i + Expr(pad), Expr(stride)), Expr::mod(i + Expr(pad), Expr(stride)),
          (extent + stride - 1) / stride};
}

std::optional<TensorValue> pool_backward(Context& ctx, const graph::Node& n, bool max) {
  if (!ctx.is_tensor_arg(n.args[0]) || !ctx.is_tensor_arg(n.args[1])) {
    return std::nullopt;
  }
  const std::optional<PoolParams> p = params(n, 2, max);
  if (!p) {
    return std::nullopt;
  }
  const std::int64_t extent_h = (p->kh - 1) * p->dh + 1;
  const std::int64_t extent_w = (p->kw - 1) * p->dw + 1;
  const std::int64_t ch = (extent_h + p->sh - 1) / p->sh;
  const std::int64_t cw = (extent_w + p->sw - 1) / p->sw;
  if (ch * cw * (max ? p->kh * p->kw : 1) > kMaxWindowLoads) {
    return std::nullopt;
  }
  const SharedValue grad = share(ctx.realize_if_reread(ctx.tensor(n.args[0])));
  const SharedValue x = share(ctx.realize_if_reread(ctx.tensor(n.args[1])));
  const std::size_t r = x->sizes.size();
  if ((r != 3 && r != 4) || grad->sizes.size() != r) {
    return std::nullopt;
  }
  const Expr h = x->sizes[r - 2];
  const Expr w = x->sizes[r - 1];
  const Expr oh_size = grad->sizes[r - 2];
  const Expr ow_size = grad->sizes[r - 1];
  const DType result = n.meta.dtype;
  const PoolParams q = *p;
  TensorValue v = ctx.pointwise(
      result, ctx.sizes_of(n.meta),
      [grad, x, q, h, w, oh_size, ow_size, r, max, result](OpsHandler& ops,
                                                           std::span<const Expr> index) {
        const std::span<const Expr> lead = index.first(r - 2);
        const Expr& ih = index[r - 2];
        const Expr& iw = index[r - 1];
        const Candidates rows = candidates(ih, q.ph, q.sh, (q.kh - 1) * q.dh + 1);
        const Candidates cols = candidates(iw, q.pw, q.sw, (q.kw - 1) * q.dw + 1);
        const LoopValue own =
            ops.add(ops.mul(int_value(ops, ih), int_value(ops, w)), int_value(ops, iw));
        LoopValue acc = ops.constant(0.0, DType::Float32);
        for (std::int64_t a = 0; a < rows.count; ++a) {
          const Expr oh = rows.q - Expr(a);
          const Expr off_h = rows.rem + Expr(a * q.sh);
          LoopValue row_ok = ops.logical_and(ops.ge(int_value(ops, oh), int_constant(ops, 0)),
                                             ops.lt(int_value(ops, oh), int_value(ops, oh_size)));
          row_ok = ops.logical_and(
              row_ok, ops.le(int_value(ops, off_h), int_constant(ops, (q.kh - 1) * q.dh)));
          if (q.dh > 1) {
            row_ok = ops.logical_and(
                row_ok, ops.eq(int_value(ops, Expr::mod(off_h, Expr(q.dh))), int_constant(ops, 0)));
          }
          for (std::int64_t b = 0; b < cols.count; ++b) {
            const Expr ow = cols.q - Expr(b);
            const Expr off_w = cols.rem + Expr(b * q.sw);
            LoopValue ok = ops.logical_and(
                row_ok, ops.logical_and(ops.ge(int_value(ops, ow), int_constant(ops, 0)),
                                        ops.lt(int_value(ops, ow), int_value(ops, ow_size))));
            ok = ops.logical_and(
                ok, ops.le(int_value(ops, off_w), int_constant(ops, (q.kw - 1) * q.dw)));
            if (q.dw > 1) {
              ok = ops.logical_and(
                  ok, ops.eq(int_value(ops, Expr::mod(off_w, Expr(q.dw))), int_constant(ops, 0)));
            }
            const LoopValue g = ops.masked(
                ok, [&] { return ops.cast(grad->loader(ops, at(lead, oh, ow)), DType::Float32); },
                0.0);
            if (!max) {
              const LoopValue divisor =
                  avg_divisor(ops, q, int_value(ops, oh), int_value(ops, ow), h, w);
              acc = ops.add(acc, ops.where(ok, ops.truediv(g, ops.cast(divisor, DType::Float32)),
                                           ops.constant(0.0, DType::Float32)));
              continue;
            }
            // The window's argmax, scanned as the forward kernel scans it: the first valid
            // tap, then any larger value or NaN.
            const double inf = std::numeric_limits<double>::infinity();
            LoopValue best = ops.constant(-inf, DType::Float32);
            LoopValue best_at = int_constant(ops, -1);
            for (std::int64_t i = 0; i < q.kh; ++i) {
              const Expr th = oh * Expr(q.sh) + Expr(i * q.dh - q.ph);
              const LoopValue th_ok = in_range(ops, th, h, false);
              for (std::int64_t j = 0; j < q.kw; ++j) {
                const Expr tw = ow * Expr(q.sw) + Expr(j * q.dw - q.pw);
                const LoopValue tap_ok =
                    ops.logical_and(ok, ops.logical_and(th_ok, in_range(ops, tw, w, false)));
                const LoopValue value = ops.masked(
                    tap_ok,
                    [&] { return ops.cast(x->loader(ops, at(lead, th, tw)), DType::Float32); },
                    -inf);
                const LoopValue first = ops.eq(best_at, int_constant(ops, -1));
                const LoopValue take = ops.logical_and(
                    tap_ok,
                    ops.logical_or(first, ops.logical_or(ops.gt(value, best), ops.isnan(value))));
                best = ops.where(take, value, best);
                best_at = ops.where(take, int_value(ops, th * w + tw), best_at);
              }
            }
            acc = ops.add(acc, ops.where(ops.logical_and(ok, ops.eq(best_at, own)), g,
                                         ops.constant(0.0, DType::Float32)));
          }
        }
        return ops.cast(acc, result);
      },
      {grad.get(), x.get()});
  v.cost += static_cast<int>(ch * cw * (max ? p->kh * p->kw : 1));
  return v;
}

} // namespace

std::optional<TensorValue> lower_pooling(Context& ctx, const graph::Node& n) {
  switch (n.op) {
  case OpKind::max_pool2d:
    return pool_forward(ctx, n, true);
  case OpKind::avg_pool2d:
    return pool_forward(ctx, n, false);
  case OpKind::max_pool2d_backward:
    return pool_backward(ctx, n, true);
  case OpKind::avg_pool2d_backward:
    return pool_backward(ctx, n, false);
  default:
    return std::nullopt;
  }
}

} // namespace compiler::inductor::lowering
