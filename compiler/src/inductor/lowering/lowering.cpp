// The lowering driver, the table of lowerings and the shared helpers (lowering/lowering.h).
#include "inductor/lowering/lowering.h"

#include "compiler/core/errors.h"
#include "compiler/graph/graph_rewrite.h"
#include "inductor/lowering/lowering_context.h"

#include <array>

namespace compiler::inductor {

namespace lowering {

namespace {

// Values that cost more than this many ops are realized even with one user, so bodies stay
// small enough to compile quickly.
constexpr int kMaxInlineCost = 48;
// A value read several times (a composite's input read twice, or a node with several users)
// is realized above this cost; at or below it, each reader recomputes it, as Inductor does for
// cheap values (realize_reads_threshold): layer_norm's decomposed x - mean, read by the
// variance and by the normalised output, stays in the kernel instead of a buffer between them.
constexpr int kRereadCost = 4;

LowerFn family_lowering(OpKind op) {
  switch (op) {
  case OpKind::randn: // a counter-based generator: left to its eager kernel
  case OpKind::item:
  case OpKind::to_bool:
    return nullptr;
  default:
    break;
  }
  switch (op_category(op)) {
  case OpCategory::Pointwise:
    return &lower_pointwise;
  case OpCategory::Reduction:
    return &lower_reduction;
  case OpCategory::Linalg:
    return &lower_extern;
  case OpCategory::Nn:
    return &lower_nn;
  case OpCategory::View:
    return &lower_view;
  case OpCategory::Shape:
    return &lower_shape;
  case OpCategory::Factory:
    return &lower_factory;
  case OpCategory::Indexing:
    return &lower_indexing;
  case OpCategory::Transfer:
    return &lower_transfer;
  case OpCategory::DataDependent:
  case OpCategory::Extern: // a user's op without a decomposition runs its own kernel
    return nullptr;
  }
  return nullptr;
}

// The one table: op -> lowering (nullptr: the eager kernel runs it).
const std::array<LowerFn, kNumOps>& table() {
  static const std::array<LowerFn, kNumOps> t = [] {
    std::array<LowerFn, kNumOps> out{};
    for (int i = 0; i < kNumOps; ++i) {
      out[static_cast<std::size_t>(i)] = family_lowering(static_cast<OpKind>(i));
    }
    return out;
  }();
  return t;
}

TensorValue fallback(Context& ctx, const graph::Node& n) {
  auto call = std::make_shared<FallbackCall>();
  call->node = n;
  std::vector<std::size_t> refs;
  graph::for_each_input(n, [&](std::size_t ref) { refs.push_back(ref); });
  for (std::size_t ref : refs) {
    TORCHSCOPE_ASSERT(ctx.values[ref].has_value(), "a fallback reads a value that has none");
    const TensorValue v = ctx.realize(*ctx.values[ref]);
    call->operands.push_back(*v.view);
  }
  Buffer b;
  b.kind = BufferKind::Fallback;
  b.fallback = std::move(call);
  b.origins = {ctx.node};
  ctx.stats.fallback_nodes.push_back(ctx.node);
  return ctx.add_buffer_of(std::move(b), n.meta);
}

} // namespace

Context::Context(const graph::Graph& g, LoweringStats& s)
    : graph(g), stats(s), values(g.size()), users(graph::use_counts(g)) {}

TensorValue Context::add_buffer_of(Buffer b, const graph::TensorMeta& m) {
  b.layout.dtype = m.dtype;
  b.layout.sizes = sizes_of(m);
  b.layout.strides = strides_of(m);
  const Layout layout = b.layout;
  const BufferId id = add_buffer(std::move(b));
  return from_view({id, layout}, m.dtype);
}

BufferId Context::add_buffer(Buffer b) {
  b.id = static_cast<BufferId>(ir.buffers.size());
  if (b.name.empty()) {
    b.name = "buf" + std::to_string(b.id);
  }
  ir.buffers.push_back(std::move(b));
  return ir.buffers.back().id;
}

std::vector<Expr> Context::sizes_of(const graph::TensorMeta& m) const {
  std::vector<Expr> out;
  for (const SymInt& s : m.sizes) {
    out.push_back(Expr::from_sym(s));
  }
  return out;
}

std::vector<Expr> Context::strides_of(const graph::TensorMeta& m) const {
  // Symbolic sizes: strides are only known as trace-time hints, so a contiguous layout is
  // assumed (and checked for inputs when the graph runs).
  bool symbolic = false;
  std::vector<std::int64_t> hints;
  for (const SymInt& s : m.sizes) {
    symbolic = symbolic || s.is_symbolic();
    hints.push_back(s.hint());
  }
  if (symbolic || m.strides.size() != m.sizes.size()) {
    return contiguous_strides(sizes_of(m));
  }
  return {m.strides.begin(), m.strides.end()};
}

bool Context::is_tensor_arg(const graph::Arg& a) const {
  if (a.kind == graph::Arg::Kind::Node) {
    return values[a.node].has_value();
  }
  return a.kind == graph::Arg::Kind::Constant && std::holds_alternative<Tensor>(a.constant);
}

TensorValue Context::from_view(const BufferView& view, DType dtype) const {
  TensorValue v;
  v.dtype = dtype;
  v.sizes = view.layout.sizes;
  v.view = view;
  const BufferView captured = view;
  v.loader = [captured](OpsHandler& ops, std::span<const Expr> index) {
    return ops.load(captured.buffer, captured.layout.index(index));
  };
  v.cost = 1;
  return v;
}

TensorValue Context::tensor(const graph::Arg& a) {
  if (a.kind == graph::Arg::Kind::Node) {
    TORCHSCOPE_ASSERT(values[a.node].has_value(), "a tensor argument without a value");
    return *values[a.node];
  }
  const Tensor& t = std::get<Tensor>(a.constant);
  for (const auto& [impl, id] : constants_) {
    if (impl == t.impl()) {
      return from_view({id, buffer_layout(id)}, t.dtype());
    }
  }
  Buffer b;
  b.kind = BufferKind::Constant;
  b.name = "const" + std::to_string(constants_.size());
  b.constant = t;
  b.layout.dtype = t.dtype();
  for (std::size_t d = 0; d < t.sizes().size(); ++d) {
    b.layout.sizes.emplace_back(t.sizes()[d]);
    b.layout.strides.emplace_back(t.strides()[d]);
  }
  const Layout layout = b.layout;
  const BufferId id = add_buffer(std::move(b));
  constants_.emplace_back(t.impl(), id);
  return from_view({id, layout}, t.dtype());
}

const Layout& Context::buffer_layout(BufferId id) const {
  return ir.buffer(id).layout;
}

LoopValue scalar_value(OpsHandler& ops, const graph::Arg& a, DType dtype) {
  if (a.kind == graph::Arg::Kind::Symbolic) {
    return ops.cast(ops.index_expr(Expr::from_sym(a.sym), DType::Int64), dtype);
  }
  TORCHSCOPE_ASSERT(a.kind == graph::Arg::Kind::Constant, "a scalar argument is a constant");
  if (const double* d = std::get_if<double>(&a.constant)) {
    return ops.constant(*d, dtype);
  }
  if (const SymInt* s = std::get_if<SymInt>(&a.constant)) {
    return ops.constant(static_cast<double>(s->hint()), dtype);
  }
  if (const bool* b = std::get_if<bool>(&a.constant)) {
    return ops.constant(*b ? 1.0 : 0.0, dtype);
  }
  TORCHSCOPE_ASSERT(false, "a scalar argument of an unexpected kind");
  return {};
}

TensorValue Context::pointwise(DType dtype, std::vector<Expr> sizes, PointwiseFn fn,
                               std::initializer_list<const TensorValue*> inputs) {
  TensorValue v;
  v.dtype = dtype;
  v.sizes = std::move(sizes);
  v.loader = std::move(fn);
  v.cost = 1;
  v.origins = {node};
  for (const TensorValue* in : inputs) {
    if (in == nullptr) {
      continue;
    }
    v.cost += in->cost;
    for (std::size_t o : in->origins) {
      if (std::find(v.origins.begin(), v.origins.end(), o) == v.origins.end()) {
        v.origins.push_back(o);
      }
    }
  }
  return v;
}

TensorValue Context::realize(const TensorValue& v, const std::vector<Expr>* strides) {
  if (v.view && strides == nullptr) {
    return v;
  }
  if (v.view && strides != nullptr && v.view->layout.strides == *strides &&
      v.view->layout.offset.is_zero()) {
    return v;
  }
  Buffer b;
  b.kind = BufferKind::Pointwise;
  b.layout = Layout::contiguous(v.dtype, v.sizes);
  if (strides != nullptr) {
    b.layout.strides = *strides;
  }
  b.ranges = v.sizes;
  b.pointwise = v.loader;
  b.origins = v.origins.empty() ? std::vector<std::size_t>{node} : v.origins;
  const Layout layout = b.layout;
  const BufferId id = add_buffer(std::move(b));
  return from_view({id, layout}, v.dtype);
}

TensorValue Context::realize_if_reread(const TensorValue& v) {
  return v.view || v.cost <= kRereadCost ? v : realize(v);
}

TensorValue Context::reduction(DType dtype, std::vector<Expr> ranges,
                               std::vector<Expr> reduction_ranges, ReductionType type,
                               DType accumulate, ReductionFn fn,
                               std::initializer_list<const TensorValue*> inputs) {
  Buffer b;
  b.kind = BufferKind::Reduction;
  b.layout = Layout::contiguous(dtype, ranges);
  b.ranges = std::move(ranges);
  b.reduction_ranges = std::move(reduction_ranges);
  b.reduction = type;
  b.accumulate = accumulate;
  b.reduce = std::move(fn);
  b.origins = {node};
  for (const TensorValue* in : inputs) {
    if (in == nullptr) {
      continue;
    }
    for (std::size_t o : in->origins) {
      if (std::find(b.origins.begin(), b.origins.end(), o) == b.origins.end()) {
        b.origins.push_back(o);
      }
    }
  }
  const Layout layout = b.layout;
  const BufferId id = add_buffer(std::move(b));
  TensorValue v = from_view({id, layout}, dtype);
  return v;
}

LoopValue load_broadcast(OpsHandler& ops, const TensorValue& v, std::span<const Expr> out_index) {
  const std::size_t rank = v.sizes.size();
  TORCHSCOPE_ASSERT(rank <= out_index.size(), "a broadcast input has more dims than the result");
  const std::size_t lead = out_index.size() - rank;
  std::vector<Expr> idx(rank);
  for (std::size_t d = 0; d < rank; ++d) {
    const Expr& s = v.sizes[d];
    idx[d] = s.is_constant() && s.constant_value() == 1 ? Expr() : out_index[lead + d];
  }
  return v.loader(ops, idx);
}

std::int64_t normalize_dim(std::int64_t dim, std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  return dim < 0 ? dim + std::max<std::int64_t>(r, 1) : dim;
}

} // namespace lowering

bool has_lowering(OpKind op) noexcept {
  return lowering::table()[static_cast<std::size_t>(op)] != nullptr;
}

LoweredGraph lower_graph(const graph::Graph& graph, LoweringStats& stats) {
  using lowering::TensorValue;
  lowering::Context ctx(graph, stats);
  std::size_t next_input = 0;
  for (std::size_t i = 0; i < graph.size(); ++i) {
    const graph::Node& n = graph.node(i);
    ctx.node = i;
    switch (n.kind) {
    case graph::NodeKind::Placeholder: {
      const std::size_t input = next_input++;
      if (!n.meta.is_tensor) {
        break; // a scalar input: nodes that read it fall back
      }
      Buffer b;
      b.kind = BufferKind::Input;
      b.name = "arg" + std::to_string(input) + "_1";
      b.input_index = input;
      ctx.values[i] = ctx.add_buffer_of(std::move(b), n.meta);
      break;
    }
    case graph::NodeKind::CallOp: {
      std::optional<TensorValue> v;
      bool scalar_input = false;
      graph::for_each_input(
          n, [&](std::size_t ref) { scalar_input = scalar_input || !ctx.values[ref].has_value(); });
      const lowering::LowerFn fn = lowering::table()[static_cast<std::size_t>(n.op)];
      if (fn != nullptr && !scalar_input && n.meta.is_tensor) {
        v = fn(ctx, n);
      }
      if (!v) {
        TORCHSCOPE_ASSERT(!scalar_input, "compile_fx_inner keeps scalar inputs out of lowering");
        v = lowering::fallback(ctx, n);
      }
      // Re-inplacing: the result may take over the storage of the argument it overwrites.
      if (n.inplace_arg >= 0) {
        const graph::Arg& a = n.args[static_cast<std::size_t>(n.inplace_arg)];
        if (a.kind == graph::Arg::Kind::Node && ctx.values[a.node] && ctx.values[a.node]->view &&
            !v->view) {
          *v = ctx.realize(*v);
          ctx.ir.buffer(v->view->buffer).reuse = ctx.values[a.node]->view->buffer;
        }
      }
      if (!v->view && ((ctx.users[i] > 1 && v->cost > lowering::kRereadCost) ||
                       v->cost > lowering::kMaxInlineCost)) {
        *v = ctx.realize(*v);
      }
      ctx.values[i] = std::move(v);
      break;
    }
    case graph::NodeKind::Output:
      for (const graph::Arg& a : n.args) {
        TORCHSCOPE_ASSERT(a.kind == graph::Arg::Kind::Node && ctx.values[a.node].has_value(),
                          "graph results are tensor nodes");
        const graph::Node& src = graph.node(a.node);
        TensorValue v = *ctx.values[a.node];
        if (!v.view) {
          // A result gets eager's layout (a transposed result stays transposed).
          const std::vector<Expr> strides = ctx.strides_of(src.meta);
          ctx.node = a.node;
          v = ctx.realize(v, &strides);
          ctx.values[a.node] = v;
        }
        ctx.ir.outputs.push_back(*v.view);
      }
      break;
    }
  }
  std::int64_t max_symbol = -1;
  auto see = [&](const SymInt& s) {
    if (s.is_symbolic()) {
      max_symbol = std::max(max_symbol, s.node()->max_symbol());
    }
  };
  for (const graph::Node& n : graph.nodes()) {
    for (const SymInt& s : n.meta.sizes) {
      see(s);
    }
    for (const graph::Arg& a : n.args) {
      see(a.sym);
      for (const SymInt& s : a.syms) {
        see(s);
      }
    }
  }
  ctx.ir.symbol_count = static_cast<std::size_t>(max_symbol + 1);
  return std::move(ctx.ir);
}

} // namespace compiler::inductor
