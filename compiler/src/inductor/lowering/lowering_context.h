// Internal to lowering/: the state of one graph's lowering and the helpers every lowering uses
// (Inductor's TensorBox and GraphLowering, reduced to what our ops need).
#pragma once

#include "compiler/graph/graph.h"
#include "inductor/ir/loop_ir.h"
#include "inductor/lowering/lowering.h"

#include <optional>
#include <span>
#include <vector>

namespace compiler::inductor::lowering {

// A tensor value during lowering. `loader` reads element `index` (compute dtype); `view` is set
// when the value lives in a buffer (a realized value, or a view of one).
struct TensorValue {
  DType dtype = DType::Float32; // the storage dtype the value has in the graph
  std::vector<Expr> sizes;
  PointwiseFn loader;
  std::optional<BufferView> view;
  int cost = 0;                     // ops the loader runs (inlining heuristic)
  std::vector<std::size_t> origins; // graph nodes computed inside the loader
};

class Context {
public:
  Context(const graph::Graph& graph, LoweringStats& stats);

  const graph::Graph& graph;
  LoweringStats& stats;
  LoweredGraph ir;
  std::vector<std::optional<TensorValue>> values; // per graph node
  std::vector<std::size_t> users;                 // per graph node
  std::size_t node = 0;                           // the node being lowered

  // The value of a tensor argument: a node's value, or a constant tensor as a Constant buffer.
  TensorValue tensor(const graph::Arg& a);
  bool is_tensor_arg(const graph::Arg& a) const;

  // A value that lives in a buffer: `v` itself when it does, else a new Pointwise buffer laid
  // out contiguously (or with `strides`).
  TensorValue realize(const TensorValue& v, const std::vector<Expr>* strides = nullptr);
  // The value viewed in a buffer.
  TensorValue from_view(const BufferView& view, DType dtype) const;
  // An unrealized pointwise value of `sizes`; cost and origins add up `inputs`'.
  TensorValue pointwise(DType dtype, std::vector<Expr> sizes, PointwiseFn fn,
                        std::initializer_list<const TensorValue*> inputs);
  // A Reduction buffer over `reduction_ranges` for each index of `ranges`, viewed contiguously;
  // the body returns values of `accumulate` (f32 or i64), argmax the compared values.
  TensorValue reduction(DType dtype, std::vector<Expr> ranges, std::vector<Expr> reduction_ranges,
                        ReductionType type, DType accumulate, ReductionFn fn,
                        std::initializer_list<const TensorValue*> inputs);
  // Realizes `v` when a composite reads it several times and it is not cheap.
  TensorValue realize_if_reread(const TensorValue& v);

  BufferId add_buffer(Buffer b);
  // Adds `b` laid out as the node metadata `m` says (dtype, sizes, strides) and returns its
  // value: the buffers a node's result lives in as a whole (inputs, extern calls, fallbacks).
  TensorValue add_buffer_of(Buffer b, const graph::TensorMeta& m);
  const Layout& buffer_layout(BufferId id) const;
  // The node's metadata as expressions.
  std::vector<Expr> sizes_of(const graph::TensorMeta& m) const;
  std::vector<Expr> strides_of(const graph::TensorMeta& m) const;
  const graph::Node& current() const { return graph.node(node); }

private:
  std::vector<std::pair<const void*, BufferId>> constants_; // TensorImpl -> Constant buffer
};

// A scalar argument (a constant number, or a symbolic size) as a value of compute dtype
// `dtype`.
LoopValue scalar_value(OpsHandler& ops, const graph::Arg& a, DType dtype);

// Lowered bodies outlive the lowering and copy their inputs' loaders; sharing a value makes
// those copies cheap (a closure chain is then copied by pointer, not by value).
using SharedValue = std::shared_ptr<const TensorValue>;
inline SharedValue share(TensorValue v) {
  return std::make_shared<const TensorValue>(std::move(v));
}

// Reads `v` at an output index of `out_sizes` (right-aligned broadcasting: a size-1 dim reads
// index 0, missing leading dims are dropped).
LoopValue load_broadcast(OpsHandler& ops, const TensorValue& v, std::span<const Expr> out_index);

// A lowering: the node's value, or nullopt to let the node fall back to its eager kernel.
using LowerFn = std::optional<TensorValue> (*)(Context& ctx, const graph::Node& node);

// The lowerings of each family (lowering/*.cpp), looked up by lowering.cpp's table.
std::optional<TensorValue> lower_pointwise(Context& ctx, const graph::Node& node);
std::optional<TensorValue> lower_reduction(Context& ctx, const graph::Node& node);
std::optional<TensorValue> lower_nn(Context& ctx, const graph::Node& node);
std::optional<TensorValue> lower_view(Context& ctx, const graph::Node& node);
std::optional<TensorValue> lower_shape(Context& ctx, const graph::Node& node);
std::optional<TensorValue> lower_factory(Context& ctx, const graph::Node& node);
std::optional<TensorValue> lower_extern(Context& ctx, const graph::Node& node);
std::optional<TensorValue> lower_convolution(Context& ctx,
                                             const graph::Node& node); // extern_kernels.cpp
std::optional<TensorValue> lower_pooling(Context& ctx, const graph::Node& node); // pooling.cpp
std::optional<TensorValue> lower_indexing(Context& ctx, const graph::Node& node);
std::optional<TensorValue> lower_transfer(Context& ctx, const graph::Node& node);

// Normalises a possibly negative dim of a rank-`rank` tensor.
std::int64_t normalize_dim(std::int64_t dim, std::size_t rank);

} // namespace compiler::inductor::lowering
