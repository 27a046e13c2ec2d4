// compiler/autograd: reverse-mode automatic differentiation, eager, as torch.autograd.
//
//   Tensor w = randn({4, 3}, 0); w.set_requires_grad(true);    // a leaf
//   Tensor loss = sum(mul(matmul(x, w), y));
//   loss.backward();                                            // w.grad() holds dloss/dw
//   { autograd::NoGradGuard no_grad; w2 = sub(w, mul(w.grad(), 0.1)); }  // not recorded
//
// While grad mode is on, every op whose tensor inputs require grad records a backward node
// (autograd/node.h) built from the op's derivative entry (declared once per op in
// src/autograd/derivatives.cpp, formulas written with ops). backward() and grad() walk the
// recorded graph from the outputs in reverse creation order, sum the gradients that meet,
// and either accumulate them into the leaves' grad() or return them. The AOT stage traces the
// same engine on fake tensors to build its joint graph, so eager and compiled gradients come
// from the same formulas.
//
// In-place semantics: in-place writes (the in-place ops of ops/ops.h, and assign_(), the
// optimizers' update) are refused on a leaf that requires grad while grad mode is on, and bump
// the storage's version so that a backward through a tensor saved before the write is a
// UserError.
#pragma once

#include "compiler/autograd/grad_mode.h"
#include "compiler/autograd/node.h"
#include "compiler/tensor/tensor.h"

#include <source_location>
#include <span>
#include <vector>

namespace compiler::autograd {

// Accumulates into the leaves the gradients of `outputs` weighted by `grad_outputs` (one per
// output; may be empty when every output has one element: the weights are then 1).
void backward(std::span<const Tensor> outputs, std::span<const Tensor> grad_outputs = {},
              bool retain_graph = false,
              std::source_location loc = std::source_location::current());

// The gradients of `outputs` (weighted by `grad_outputs`, as above) with respect to `inputs`,
// without touching any grad(). An input the outputs do not depend on is a UserError unless
// `allow_unused` (its gradient is then undefined).
std::vector<Tensor> grad(std::span<const Tensor> outputs, std::span<const Tensor> inputs,
                         std::span<const Tensor> grad_outputs = {}, bool retain_graph = false,
                         bool allow_unused = false,
                         std::source_location loc = std::source_location::current());

// Copies `src` (broadcast to dst's shape, converted to its dtype) into `dst`'s memory: the
// in-place update an optimizer makes. UserError when dst requires grad and grad mode is on
// (wrap the update in a NoGradGuard), or when dst is fake.
void assign_(const Tensor& dst, const Tensor& src,
             std::source_location loc = std::source_location::current());

} // namespace compiler::autograd
