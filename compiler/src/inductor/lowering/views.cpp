// Lowerings of the view ops as index transforms. A view of an unrealized value reads it
// through the transformed index; a view of a buffer is a new layout of the same storage (so a
// graph result that is a view of an input aliases it, as in eager), except a reshape of a
// non-contiguous buffer, which eager copies and which reads through the index transform here.
#include "inductor/lowering/lowering_context.h"

namespace compiler::inductor::lowering {

namespace {

using graph::Arg;

// How one view maps its index to its input's, and its input's layout to its own.
struct ViewMap {
  std::function<std::vector<Expr>(std::span<const Expr>)> index;
  std::function<std::optional<Layout>(const Layout&)> layout;
};

std::optional<std::int64_t> int_arg(const Arg& a) {
  if (a.kind == Arg::Kind::Constant) {
    if (const SymInt* s = std::get_if<SymInt>(&a.constant)) {
      return s->hint();
    }
  }
  return std::nullopt;
}

std::optional<Expr> expr_arg(const Arg& a) {
  if (a.kind == Arg::Kind::Symbolic) {
    return Expr::from_sym(a.sym);
  }
  if (std::optional<std::int64_t> v = int_arg(a)) {
    return Expr(*v);
  }
  return std::nullopt;
}

bool is_one(const Expr& e) {
  return e.is_constant() && e.constant_value() == 1;
}

ViewMap permute_map(std::vector<std::size_t> perm) {
  return {[perm](std::span<const Expr> out) {
            std::vector<Expr> in(out.size());
            for (std::size_t i = 0; i < perm.size(); ++i) {
              in[perm[i]] = out[i];
            }
            return in;
          },
          [perm](const Layout& l) -> std::optional<Layout> {
            Layout r = l;
            for (std::size_t i = 0; i < perm.size(); ++i) {
              r.sizes[i] = l.sizes[perm[i]];
              r.strides[i] = l.strides[perm[i]];
            }
            return r;
          }};
}

std::optional<ViewMap> view_map(const graph::Node& n, const std::vector<Expr>& in_sizes,
                                const std::vector<Expr>& out_sizes) {
  const std::size_t rank = in_sizes.size();
  switch (n.op) {
  case OpKind::transpose: {
    const std::optional<std::int64_t> d0 = int_arg(n.args[1]);
    const std::optional<std::int64_t> d1 = int_arg(n.args[2]);
    if (!d0 || !d1 || rank == 0) {
      return std::nullopt;
    }
    std::vector<std::size_t> perm(rank);
    for (std::size_t i = 0; i < rank; ++i) {
      perm[i] = i;
    }
    std::swap(perm[static_cast<std::size_t>(normalize_dim(*d0, rank))],
              perm[static_cast<std::size_t>(normalize_dim(*d1, rank))]);
    return permute_map(perm);
  }
  case OpKind::permute: {
    if (n.args[1].kind != Arg::Kind::Constant) {
      return std::nullopt;
    }
    const auto* dims = std::get_if<std::vector<std::int64_t>>(&n.args[1].constant);
    if (dims == nullptr || dims->size() != rank) {
      return std::nullopt;
    }
    std::vector<std::size_t> perm;
    for (std::int64_t d : *dims) {
      perm.push_back(static_cast<std::size_t>(normalize_dim(d, rank)));
    }
    return permute_map(perm);
  }
  case OpKind::expand: {
    const std::size_t lead = out_sizes.size() - rank;
    std::vector<bool> broadcast(rank);
    for (std::size_t d = 0; d < rank; ++d) {
      broadcast[d] = is_one(in_sizes[d]) && !is_one(out_sizes[lead + d]);
    }
    return ViewMap{[broadcast, lead](std::span<const Expr> out) {
                     std::vector<Expr> in(broadcast.size());
                     for (std::size_t d = 0; d < broadcast.size(); ++d) {
                       in[d] = broadcast[d] ? Expr() : out[lead + d];
                     }
                     return in;
                   },
                   [broadcast, lead, out_sizes](const Layout& l) -> std::optional<Layout> {
                     Layout r = l;
                     r.sizes = out_sizes;
                     r.strides.assign(out_sizes.size(), Expr());
                     for (std::size_t d = 0; d < broadcast.size(); ++d) {
                       r.strides[lead + d] = broadcast[d] ? Expr() : l.strides[d];
                     }
                     return r;
                   }};
  }
  case OpKind::unsqueeze: {
    const std::optional<std::int64_t> d = int_arg(n.args[1]);
    if (!d) {
      return std::nullopt;
    }
    const auto dim = static_cast<std::size_t>(normalize_dim(*d, rank + 1));
    return ViewMap{[dim](std::span<const Expr> out) {
                     std::vector<Expr> in(out.begin(), out.end());
                     in.erase(in.begin() + static_cast<std::ptrdiff_t>(dim));
                     return in;
                   },
                   [dim](const Layout& l) -> std::optional<Layout> {
                     Layout r = l;
                     const Expr stride =
                         dim < l.sizes.size() ? l.sizes[dim] * l.strides[dim] : Expr(1);
                     r.sizes.insert(r.sizes.begin() + static_cast<std::ptrdiff_t>(dim), 1);
                     r.strides.insert(r.strides.begin() + static_cast<std::ptrdiff_t>(dim), stride);
                     return r;
                   }};
  }
  case OpKind::squeeze: {
    // The input dims that disappear (size 1, and the one asked for, or all of them).
    std::vector<bool> gone(rank, false);
    if (n.args[1].kind == Arg::Kind::Constant &&
        std::holds_alternative<std::monostate>(n.args[1].constant)) {
      for (std::size_t d = 0; d < rank; ++d) {
        gone[d] = is_one(in_sizes[d]);
      }
    } else {
      const std::optional<std::int64_t> d = int_arg(n.args[1]);
      if (!d) {
        return std::nullopt;
      }
      if (rank > 0) {
        const auto dim = static_cast<std::size_t>(normalize_dim(*d, rank));
        gone[dim] = is_one(in_sizes[dim]);
      }
    }
    return ViewMap{[gone](std::span<const Expr> out) {
                     std::vector<Expr> in;
                     std::size_t k = 0;
                     for (bool g : gone) {
                       in.push_back(g ? Expr() : out[k++]);
                     }
                     return in;
                   },
                   [gone](const Layout& l) -> std::optional<Layout> {
                     Layout r = l;
                     r.sizes.clear();
                     r.strides.clear();
                     for (std::size_t d = 0; d < gone.size(); ++d) {
                       if (!gone[d]) {
                         r.sizes.push_back(l.sizes[d]);
                         r.strides.push_back(l.strides[d]);
                       }
                     }
                     return r;
                   }};
  }
  case OpKind::slice: {
    const std::optional<std::int64_t> d = int_arg(n.args[1]);
    std::optional<Expr> start = expr_arg(n.args[2]);
    const std::optional<std::int64_t> step = int_arg(n.args[4]);
    if (!d || !start || !step || *step < 1 || rank == 0) {
      return std::nullopt;
    }
    const auto dim = static_cast<std::size_t>(normalize_dim(*d, rank));
    // Python slicing: a negative start counts from the end; then clamped into [0, size].
    if (start->is_constant()) {
      std::int64_t s = start->constant_value();
      if (s < 0) {
        if (!in_sizes[dim].is_constant()) {
          return std::nullopt;
        }
        s = std::max<std::int64_t>(0, s + in_sizes[dim].constant_value());
      }
      if (in_sizes[dim].is_constant()) {
        s = std::min(s, in_sizes[dim].constant_value());
      }
      start = Expr(s);
    }
    const Expr first = *start;
    const std::int64_t st = *step;
    const Expr out_size = out_sizes[dim];
    return ViewMap{[dim, first, st](std::span<const Expr> out) {
                     std::vector<Expr> in(out.begin(), out.end());
                     in[dim] = first + in[dim] * st;
                     return in;
                   },
                   [dim, first, st, out_size](const Layout& l) -> std::optional<Layout> {
                     Layout r = l;
                     r.offset = l.offset + first * l.strides[dim];
                     r.strides[dim] = l.strides[dim] * st;
                     r.sizes[dim] = out_size;
                     return r;
                   }};
  }
  case OpKind::view:
  case OpKind::reshape:
    return ViewMap{[in_sizes, out_sizes](std::span<const Expr> out) {
                     const Expr linear = dot(out, contiguous_strides(out_sizes));
                     return delinearize(linear, in_sizes);
                   },
                   [out_sizes](const Layout& l) -> std::optional<Layout> {
                     if (l.strides != contiguous_strides(l.sizes)) {
                       return std::nullopt;
                     }
                     Layout r = Layout::contiguous(l.dtype, out_sizes);
                     r.offset = l.offset;
                     return r;
                   }};
  default:
    return std::nullopt;
  }
}

} // namespace

std::optional<TensorValue> lower_view(Context& ctx, const graph::Node& n) {
  if (n.args.empty() || !ctx.is_tensor_arg(n.args[0])) {
    return std::nullopt;
  }
  const TensorValue in = ctx.tensor(n.args[0]);
  const std::vector<Expr> out_sizes = ctx.sizes_of(n.meta);
  const std::optional<ViewMap> map = view_map(n, in.sizes, out_sizes);
  if (!map) {
    return std::nullopt;
  }
  if (in.view) {
    if (std::optional<Layout> l = map->layout(in.view->layout)) {
      l->sizes = out_sizes;
      TensorValue v = ctx.from_view({in.view->buffer, *l}, in.dtype);
      v.origins = in.origins;
      return v;
    }
  }
  const SharedValue src = share(in);
  const auto index = map->index;
  TensorValue v = ctx.pointwise(in.dtype, out_sizes,
                                [src, index](OpsHandler& ops, std::span<const Expr> out) {
                                  return src->loader(ops, index(out));
                                },
                                {src.get()});
  v.cost = in.cost; // a view only moves indices
  return v;
}

} // namespace compiler::inductor::lowering
