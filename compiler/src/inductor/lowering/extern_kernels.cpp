// Lowerings of matmul, bmm and addmm as extern kernel calls (runtime/extern_kernels.h): float32
// operands each with one unit stride (row- or column-major, as GEMM takes them; anything else
// is copied contiguously first), a 2-D product, an N-D x 2-D product whose leading dims fold
// into rows, or a batched product. Other ranks and dtypes run on the eager kernel. On the CPU a
// convolution is an extern call of its eager kernel (Inductor's extern_kernels.convolution).
#include "compiler/graph/graph_rewrite.h"
#include "inductor/lowering/lowering_context.h"

namespace compiler::inductor::lowering {

namespace {

bool unit(const Expr& e) {
  return e.is_constant() && e.constant_value() == 1;
}

// A matrix view GEMM can read: the last two dims, one of them with unit stride.
bool gemm_ready(const Layout& l) {
  const std::size_t r = l.sizes.size();
  return r >= 2 && (unit(l.strides[r - 1]) || unit(l.strides[r - 2]));
}

// `v` as a buffer view GEMM can read, copying when needed.
BufferView operand(Context& ctx, const TensorValue& v) {
  TensorValue r = ctx.realize(v);
  if (!gemm_ready(r.view->layout)) {
    TensorValue copy = r;
    copy.view.reset();
    r = ctx.realize(copy);
  }
  return *r.view;
}

// Folds the leading dims of a row-major-ish N-D view into one row dim, when the layout allows.
std::optional<Layout> fold_rows(const Layout& l) {
  const std::size_t r = l.sizes.size();
  for (std::size_t i = 0; i + 2 < r; ++i) {
    if (!(l.strides[i] == l.strides[i + 1] * l.sizes[i + 1])) {
      return std::nullopt;
    }
  }
  Layout out = l;
  Expr rows = 1;
  for (std::size_t i = 0; i + 1 < r; ++i) {
    rows = rows * l.sizes[i];
  }
  out.sizes = {rows, l.sizes[r - 1]};
  out.strides = {l.strides[r - 2], l.strides[r - 1]};
  return out;
}

// The Extern buffer of `call` (a product of `out_sizes`), viewed with the node's sizes (an
// N-D x 2-D product unfolds its rows).
TensorValue extern_buffer(Context& ctx, const graph::Node& n, std::shared_ptr<ExternCall> call,
                          const std::vector<Expr>& out_sizes) {
  Buffer out;
  out.kind = BufferKind::Extern;
  out.layout = Layout::contiguous(DType::Float32, out_sizes);
  out.extern_call = std::move(call);
  out.origins = {ctx.node};
  const BufferId id = ctx.add_buffer(std::move(out));
  ++ctx.stats.extern_calls;
  return ctx.from_view({id, Layout::contiguous(DType::Float32, ctx.sizes_of(n.meta))},
                       DType::Float32);
}

} // namespace

std::optional<TensorValue> lower_extern(Context& ctx, const graph::Node& n) {
  if (n.meta.dtype != DType::Float32) {
    return std::nullopt;
  }
  const std::size_t first = n.op == OpKind::addmm ? 1 : 0;
  if (n.args.size() != first + 2 || !ctx.is_tensor_arg(n.args[first]) ||
      !ctx.is_tensor_arg(n.args[first + 1])) {
    return std::nullopt;
  }
  const TensorValue a = ctx.tensor(n.args[first]);
  const TensorValue b = ctx.tensor(n.args[first + 1]);
  if (a.dtype != DType::Float32 || b.dtype != DType::Float32) {
    return std::nullopt;
  }
  const std::size_t ra = a.sizes.size();
  const std::size_t rb = b.sizes.size();
  auto call = std::make_shared<ExternCall>();
  std::vector<Expr> out_sizes;
  if ((n.op == OpKind::bmm || n.op == OpKind::matmul) && ra == 3 && rb == 3 &&
      a.sizes[0] == b.sizes[0]) {
    call->kind = ExternCall::Kind::Bmm;
    call->a = operand(ctx, a);
    call->b = operand(ctx, b);
    out_sizes = {a.sizes[0], a.sizes[1], b.sizes[2]};
  } else if (n.op != OpKind::bmm && ra >= 2 && rb == 2) {
    call->kind = n.op == OpKind::addmm ? ExternCall::Kind::Addmm : ExternCall::Kind::Mm;
    call->a = operand(ctx, a);
    if (ra > 2) {
      std::optional<Layout> folded = fold_rows(call->a.layout);
      if (!folded) {
        TensorValue copy = ctx.from_view(call->a, a.dtype);
        copy.view.reset();
        call->a = *ctx.realize(copy).view;
        folded = fold_rows(call->a.layout);
      }
      call->a.layout = *folded;
    }
    call->b = operand(ctx, b);
    out_sizes = {call->a.layout.sizes[0], b.sizes[1]};
  } else {
    return std::nullopt;
  }
  if (call->kind == ExternCall::Kind::Addmm && n.meta.device.is_cuda() &&
      ctx.is_tensor_arg(n.args[0])) {
    // On the GPU, addmm is the product and a pointwise add of the bias (Inductor's
    // unfuse_bias_add_to_pointwise): the add joins the kernel of the product's consumers
    // (GELU, a softmax's reductions), so the bias costs no pass over the product of its own,
    // where writing it first and accumulating onto it (below) reads and writes the product
    // once more.
    const TensorValue bias = ctx.tensor(n.args[0]);
    if (bias.dtype == DType::Float32 && bias.sizes.size() <= 2) {
      call->kind = ExternCall::Kind::Mm;
      const TensorValue product = extern_buffer(ctx, n, std::move(call), out_sizes);
      return ctx.pointwise(DType::Float32, ctx.sizes_of(n.meta),
                           [product, bias](OpsHandler& ops, std::span<const Expr> index) {
                             return ops.add(product.loader(ops, index),
                                            load_broadcast(ops, bias, index));
                           },
                           {&product, &bias});
    }
  }
  if (call->kind == ExternCall::Kind::Addmm) {
    if (!ctx.is_tensor_arg(n.args[0])) {
      return std::nullopt;
    }
    const TensorValue bias = ctx.realize(ctx.tensor(n.args[0]));
    if (bias.dtype != DType::Float32 || bias.sizes.empty() || bias.sizes.size() > 2) {
      return std::nullopt;
    }
    // The bias broadcast to the product's [rows, cols].
    Layout l = bias.view->layout;
    Layout broadcast;
    broadcast.dtype = DType::Float32;
    broadcast.offset = l.offset;
    broadcast.sizes = out_sizes;
    const std::size_t lead = 2 - l.sizes.size();
    broadcast.strides = {Expr(), Expr()};
    for (std::size_t d = 0; d < l.sizes.size(); ++d) {
      const bool one = l.sizes[d].is_constant() && l.sizes[d].constant_value() == 1;
      broadcast.strides[lead + d] = one ? Expr() : l.strides[d];
    }
    call->bias = {bias.view->buffer, broadcast};
  }
  return extern_buffer(ctx, n, std::move(call), out_sizes);
}

std::optional<TensorValue> lower_convolution(Context& ctx, const graph::Node& n) {
  if (!n.meta.device.is_cpu()) {
    return std::nullopt; // the GPU runs it as a fallback node (operands copied to the host)
  }
  auto call = std::make_shared<ExternCall>();
  call->kind = ExternCall::Kind::Convolution;
  call->node = std::make_shared<FallbackCall>();
  call->node->node = n;
  bool ok = true;
  graph::for_each_input(n, [&](std::size_t ref) {
    if (!ctx.values[ref].has_value()) {
      ok = false;
      return;
    }
    call->node->operands.push_back(*ctx.realize(*ctx.values[ref]).view);
  });
  if (!ok) {
    return std::nullopt;
  }
  Buffer out;
  out.kind = BufferKind::Extern;
  out.extern_call = std::move(call);
  out.origins = {ctx.node};
  ++ctx.stats.extern_calls;
  return ctx.add_buffer_of(std::move(out), n.meta);
}

} // namespace compiler::inductor::lowering
