// Internal: the derivative table's types. Each op has one entry (derivatives.cpp, in op-list
// order, the role of PyTorch's derivatives.yaml): which of its arguments (and whether its
// output) backward needs, and a formula written with ops that turns the output's gradient into
// the inputs' gradients. Eager autograd runs the formulas on real tensors; the AOT stage runs
// the same formulas under its tracer, so they become the backward half of the joint graph.
//
// Arguments are addressed by their position in the op's argument list (ops.cpp documents the
// layouts). A tensor-list argument (cat, stack) has one gradient per element.
#pragma once

#include "compiler/autograd/node.h"
#include "compiler/core/value.h"
#include "compiler/ops/op_hook.h"

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace compiler::autograd::detail {

// Dtype, sizes and device of one tensor argument (what a formula may read without saving the
// tensor).
struct InputMeta {
  DType dtype = DType::Float32;
  std::vector<SymInt> sizes;
  Device device;
};

// What a formula reads: the forward call as the backward node kept it.
class GradContext {
public:
  // The gradient of the op's output (always defined when a formula runs).
  virtual const Tensor& grad() const = 0;
  // The op's output; the entry must declare saves_output.
  virtual const Tensor& output() const = 0;
  // Tensor argument `arg` (element `elem` of a list); the entry must declare it saved.
  virtual const Tensor& saved(std::size_t arg, std::size_t elem = 0) const = 0;
  // Metadata of tensor argument `arg` (element `elem`), saved or not.
  virtual const InputMeta& meta(std::size_t arg, std::size_t elem = 0) const = 0;
  // Whether tensor argument `arg` (element `elem`) needs a gradient.
  virtual bool needs(std::size_t arg, std::size_t elem = 0) const = 0;
  // Whether argument `arg` was a tensor (binary ops take a tensor or a scalar).
  virtual bool is_tensor(std::size_t arg) const = 0;
  // How many elements the tensor-list argument `arg` had.
  virtual std::size_t list_size(std::size_t arg) const = 0;
  // A non-tensor argument as the op received it.
  virtual const Value& arg(std::size_t i) const = 0;
  // How many arguments the op received.
  virtual std::size_t num_args() const = 0;

protected:
  ~GradContext() = default;
};

// Where a formula puts the gradients it computes.
class GradSink {
public:
  virtual void set(std::size_t arg, const Tensor& grad) = 0;
  virtual void set(std::size_t arg, std::size_t elem, const Tensor& grad) = 0;

protected:
  ~GradSink() = default;
};

using Formula = void (*)(const GradContext&, GradSink&);

// One derivative entry.
struct Derivative {
  OpKind op = OpKind::add;
  std::uint32_t saved_args = 0; // bit i: tensor argument i (all elements of a list) is saved
  // bit i: tensor argument i is saved only when another argument needs a gradient (mul keeps
  // `b` for a's gradient and `a` for b's)
  std::uint32_t saved_for_others = 0;
  bool saves_output = false;
  Formula formula = nullptr; // null: the op is not differentiable (its output never requires grad)
  const char* backward_name = ""; // PyTorch's node class name ("MulBackward0")
};

// The entry of `op`.
const Derivative& derivative_of(OpKind op) noexcept;

} // namespace compiler::autograd::detail
