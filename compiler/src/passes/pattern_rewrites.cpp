// The declared rewrites (passes/pattern_rewrites.h).
#include "passes/pattern_rewrites.h"

#include "compiler/graph/graph_rewrite.h"

namespace compiler::passes {

namespace {

using graph::Arg;

// dtype and rank of a tensor argument (a node's metadata, or a constant tensor's).
struct ArgShape {
  DType dtype = DType::Float32;
  std::size_t rank = 0;
};

ArgShape shape_of(const graph::Graph& g, const Arg& a) {
  if (a.kind == Arg::Kind::Node) {
    const graph::TensorMeta& m = g.node(a.node).meta;
    return {m.dtype, m.sizes.size()};
  }
  const Tensor& t = std::get<Tensor>(a.constant);
  return {t.dtype(), t.sizes().size()};
}

bool single_dim(const Match& m) {
  auto it = m.scalars.find("dims");
  if (it == m.scalars.end()) {
    return false;
  }
  const auto* dims = std::get_if<std::vector<std::int64_t>>(&it->second);
  return dims != nullptr && dims->size() == 1;
}

bool floating_input(const graph::Graph& g, const Match& m, const std::string& name) {
  return is_floating(shape_of(g, m.inputs.at(name)).dtype);
}

// exp(x - amax(x, dims, True)) / sum(exp(x - amax(x, dims, True)), dims, True)
Rewrite softmax_rewrite() {
  PatternBuilder b;
  const PatternNode x = b.input("x");
  const PatternNode shifted =
      b.call(OpKind::sub, {x, b.call(OpKind::amax, {x, PatternArg::any("dims"), Value(true)})});
  const PatternNode e = b.call(OpKind::exp, {shifted});
  const PatternNode s = b.call(OpKind::sum, {e, PatternArg::any("dims"), Value(true)});
  return {"softmax", b.build(b.call(OpKind::div, {e, s})),
          [](const graph::Graph& g, const Match& m) {
            return single_dim(m) && floating_input(g, m, "x");
          },
          [](Rewriter& r, const Match& m) {
            const auto& dims = std::get<std::vector<std::int64_t>>(m.scalars.at("dims"));
            return r.call(OpKind::softmax, {r.input("x"), Rewriter::constant(SymInt(dims[0]))});
          }};
}

// (x - amax(x, dims, True)) - log(sum(exp(x - amax(x, dims, True)), dims, True))
Rewrite log_softmax_rewrite() {
  PatternBuilder b;
  const PatternNode x = b.input("x");
  const PatternNode shifted =
      b.call(OpKind::sub, {x, b.call(OpKind::amax, {x, PatternArg::any("dims"), Value(true)})});
  const PatternNode s =
      b.call(OpKind::sum, {b.call(OpKind::exp, {shifted}), PatternArg::any("dims"), Value(true)});
  return {"log_softmax", b.build(b.call(OpKind::sub, {shifted, b.call(OpKind::log, {s})})),
          [](const graph::Graph& g, const Match& m) {
            return single_dim(m) && floating_input(g, m, "x");
          },
          [](Rewriter& r, const Match& m) {
            const auto& dims = std::get<std::vector<std::int64_t>>(m.scalars.at("dims"));
            return r.call(OpKind::log_softmax, {r.input("x"), Rewriter::constant(SymInt(dims[0]))});
          }};
}

// x * sigmoid(x)
Rewrite silu_rewrite() {
  PatternBuilder b;
  const PatternNode x = b.input("x");
  // silu refuses integer and bool tensors (as PyTorch's does), which x * sigmoid(x) accepts.
  return {"silu", b.build(b.call(OpKind::mul, {x, b.call(OpKind::sigmoid, {x})})),
          [](const graph::Graph& g, const Match& m) { return floating_input(g, m, "x"); },
          [](Rewriter& r, const Match&) { return r.call(OpKind::silu, {r.input("x")}); }};
}

// matmul(a, b) + bias (or mm(a, b) + bias, as the AOT stage's graphs have it), a and b 2-D,
// everything float32, the bias broadcasting to the product.
Rewrite addmm_rewrite(OpKind product_op) {
  PatternBuilder b;
  const PatternNode mm = b.call(product_op, {b.input("a"), b.input("b")});
  return {"addmm", b.build(b.call(OpKind::add, {mm, b.input("bias")})),
          [](const graph::Graph& g, const Match& m) {
            const ArgShape a = shape_of(g, m.inputs.at("a"));
            const ArgShape w = shape_of(g, m.inputs.at("b"));
            const ArgShape bias = shape_of(g, m.inputs.at("bias"));
            if (a.rank != 2 || w.rank != 2 || bias.rank < 1 || bias.rank > 2 ||
                a.dtype != DType::Float32 || w.dtype != DType::Float32 ||
                bias.dtype != DType::Float32) {
              return false;
            }
            // The sum has the product's shape: the bias only broadcasts.
            const graph::Node& add = g.node(m.nodes[0]);
            const graph::Node& product = g.node(m.nodes[1]);
            return graph::same_sizes(add.meta.sizes, product.meta.sizes);
          },
          [](Rewriter& r, const Match&) {
            return r.call(OpKind::addmm, {r.input("bias"), r.input("a"), r.input("b")});
          }};
}

} // namespace

const std::vector<Rewrite>& pre_grad_rewrites() {
  static const std::vector<Rewrite> rewrites = {softmax_rewrite(), log_softmax_rewrite()};
  return rewrites;
}

const std::vector<Rewrite>& post_grad_rewrites() {
  static const std::vector<Rewrite> rewrites = {softmax_rewrite(), log_softmax_rewrite(),
                                                silu_rewrite(), addmm_rewrite(OpKind::matmul),
                                                addmm_rewrite(OpKind::mm)};
  return rewrites;
}

bool pre_grad_pattern_rewrites(graph::Graph& graph) {
  return apply_rewrites(graph, pre_grad_rewrites()) > 0;
}

bool post_grad_pattern_rewrites(graph::Graph& graph) {
  return apply_rewrites(graph, post_grad_rewrites()) > 0;
}

} // namespace compiler::passes
