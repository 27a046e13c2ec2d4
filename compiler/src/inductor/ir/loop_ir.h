// inductor/ir: the loop IR a graph lowers to (Inductor's ir.py, in C++). A LoweredGraph is a list
// of buffers in the order they must be computed. A buffer is a graph input, a constant, or a
// computation: pointwise (a function from an index over `ranges` to a value), a reduction (a
// function of an index and a reduction index, combined over `reduction_ranges`), an extern
// kernel call (matmul) or a fallback (one graph node run on its eager kernel). Computations are
// define-by-run: C++ functions that call an OpsHandler (ir/loop_ops.h), so code generation,
// printing and analysis are handlers, and the IR never needs a printer or visitor of its own.
#pragma once

#include "compiler/graph/graph.h"
#include "compiler/tensor/tensor.h"
#include "inductor/ir/expr.h"
#include "inductor/ir/loop_ops.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace compiler::inductor {

// How a tensor's elements sit in a buffer's storage: element `i` of a tensor of `sizes` is at
// offset + sum(i[k] * strides[k]).
struct Layout {
  DType dtype = DType::Float32;
  std::vector<Expr> sizes;
  std::vector<Expr> strides;
  Expr offset;

  static Layout contiguous(DType dtype, std::vector<Expr> sizes);
  Expr index(std::span<const Expr> idx) const { return offset + dot(idx, strides); }
  bool is_contiguous() const;
  Expr numel() const { return product(sizes); }
  // The number of elements of storage the layout reaches (1 + the largest offset).
  Expr storage_extent() const;
};

// A tensor viewed in a buffer.
struct BufferView {
  BufferId buffer = -1;
  Layout layout;
};

using PointwiseFn = std::function<LoopValue(OpsHandler&, std::span<const Expr> index)>;
using ReductionFn = std::function<LoopValue(OpsHandler&, std::span<const Expr> index,
                                            std::span<const Expr> reduction_index)>;

// clang-format off
#define TORCHSCOPE_BUFFER_KINDS(X)                                                          \
  X(Input)     /* a graph input (placeholder), in the caller's tensor                     */ \
  X(Constant)  /* a tensor the graph closed over (a weight), shared, never written         */ \
  X(Pointwise) /* computed: body(index) for every index of ranges                          */ \
  X(Reduction) /* computed: reduce body(index, rindex) over reduction_ranges, per index    */ \
  X(Extern)    /* computed by an extern kernel (matmul, bmm, addmm)                         */ \
  X(Fallback)  /* computed by one graph node's eager kernel                                 */
// clang-format on

enum class BufferKind : std::uint8_t {
#define TORCHSCOPE_BUFFER_KIND_ENUM(name) name,
  TORCHSCOPE_BUFFER_KINDS(TORCHSCOPE_BUFFER_KIND_ENUM)
#undef TORCHSCOPE_BUFFER_KIND_ENUM
};
std::string_view buffer_kind_name(BufferKind k) noexcept;

// One graph node run on its eager kernel: node arguments that refer to nodes refer, in order,
// to `operands` (graph inputs and computed buffers viewed as tensors).
struct FallbackCall {
  graph::Node node;
  std::vector<BufferView> operands;
};

// An extern kernel call: out = a @ b (+ bias), batched over a leading dim for Bmm. Convolution
// is Inductor's extern_kernels.convolution: aten.convolution's kernel run on `node` (its
// operands and arguments), its result tensor becoming the buffer as a fallback's does; on the
// GPU a convolution is a fallback node instead (no CUDA convolution kernel yet).
struct ExternCall {
  enum class Kind : std::uint8_t { Mm, Bmm, Addmm, Convolution } kind = Kind::Mm;
  BufferView a;
  BufferView b;
  BufferView bias;                    // Addmm only, broadcast to the output
  std::shared_ptr<FallbackCall> node; // Convolution only
};

struct Buffer {
  BufferId id = -1;
  std::string name; // "arg0_1", "const0", "buf3"
  BufferKind kind = BufferKind::Pointwise;
  // The tensor the buffer holds, as laid out in its storage (computed buffers are
  // contiguous; inputs and constants have their tensor's strides).
  Layout layout;

  std::size_t input_index = 0; // Input: the placeholder's position
  Tensor constant;             // Constant

  // Pointwise and Reduction: the iteration space and the body. A reduction's result at index
  // i is stored at layout.index(i) (ranges are the output's sizes).
  std::vector<Expr> ranges;
  std::vector<Expr> reduction_ranges;
  ReductionType reduction = ReductionType::sum;
  DType accumulate = DType::Float32; // the reduction's value type (f32 or i64)
  PointwiseFn pointwise;
  ReductionFn reduce;

  std::shared_ptr<ExternCall> extern_call;
  std::shared_ptr<FallbackCall> fallback;

  // The post-grad graph nodes this buffer computes (part of), for comments and provenance.
  std::vector<std::size_t> origins;
  // A buffer whose storage this one may take over (re-inplacing), or -1.
  BufferId reuse = -1;

  bool is_computed() const noexcept {
    return kind == BufferKind::Pointwise || kind == BufferKind::Reduction;
  }
};

struct LoweredGraph {
  std::vector<Buffer> buffers; // in order; buffers[i].id == i
  // One view per result of the graph's Output node.
  std::vector<BufferView> outputs;
  std::size_t symbol_count = 0; // size symbols the graph uses (s0 .. s<n-1>)

  Buffer& buffer(BufferId id) { return buffers[static_cast<std::size_t>(id)]; }
  const Buffer& buffer(BufferId id) const { return buffers[static_cast<std::size_t>(id)]; }
};

} // namespace compiler::inductor
