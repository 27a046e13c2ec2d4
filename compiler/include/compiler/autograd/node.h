// compiler/autograd: the recorded backward graph, as PyTorch's autograd keeps it.
//
// Every tensor produced by a tracked op points (AutogradMeta::grad_fn) at a Node: the backward
// function of the op that made it. A Node's next edges lead to the backward functions of the
// op's inputs, or to an AccumulateGrad node for a leaf that requires grad (its gradient lands
// in the leaf's grad()). The engine (autograd.h) walks this graph from the outputs.
//
// Nodes are made by two producers: eager ops (one OpBackward per tracked op call, built from
// the op's derivative entry, src/autograd/) and the AOT stage's runtime wrapper (one node per
// compiled-forward call, whose apply() runs the compiled backward graph). Both use the helpers
// at the end of this header.
#pragma once

#include "compiler/tensor/tensor.h"

#include <cstdint>
#include <memory>
#include <source_location>
#include <span>
#include <string>
#include <vector>

namespace compiler::autograd {

class Node;

// Where a gradient goes: input `input_nr` of backward function `fn` (input_nr numbers the
// outputs of the forward op that fn differentiates).
struct Edge {
  std::shared_ptr<Node> fn;
  std::uint32_t input_nr = 0;
  bool valid() const noexcept { return fn != nullptr; }
};

// A tensor kept for backward. An op's own output is stored without its grad_fn (a fresh
// TensorImpl over the same storage and proxy) so the graph holds no cycle. The storage's
// version is recorded: unpacking after an in-place write is a UserError, as in PyTorch.
class SavedTensor {
public:
  SavedTensor() = default;
  // `is_output`: the tensor is the result of the op saving it.
  SavedTensor(const Tensor& t, bool is_output);

  bool defined() const noexcept { return data_.defined(); }
  // The saved tensor; UserError when it was released or modified in place since it was saved.
  const Tensor& unpack(const Node& saved_by) const;
  // The tensor without checks (for accounting).
  const Tensor& peek() const noexcept { return data_; }
  // True when the tensor was made by a tracked op (an activation), false for a graph input.
  bool is_activation() const noexcept { return activation_; }
  void release() noexcept { data_ = Tensor(); }

private:
  Tensor data_;
  std::uint64_t version_ = 0;
  bool activation_ = false;
};

// A backward function.
class Node : public std::enable_shared_from_this<Node> {
public:
  Node();
  virtual ~Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // PyTorch's class name of the backward function ("MulBackward0", "CompiledFunctionBackward").
  virtual std::string name() const = 0;
  // `grads` holds one gradient per output of the forward op (undefined where none flowed);
  // returns one gradient per next edge (undefined where there is none).
  virtual std::vector<Tensor> apply(std::vector<Tensor>&& grads) = 0;
  // Frees what the node saved for backward (after a backward without retain_graph).
  virtual void release_saved() {}
  // Appends the tensors the node keeps for backward.
  virtual void collect_saved(std::vector<const SavedTensor*>& out) const { (void)out; }
  // How many outputs the forward op had (the size of apply()'s argument).
  virtual std::size_t num_outputs() const { return 1; }

  std::vector<Edge> next_edges;
  // Creation order: a node runs after every node created later that feeds it.
  std::uint64_t sequence_nr = 0;
  // The user's call of the forward op (errors and traced backward graphs point at it).
  std::source_location where;
};

// Autograd's record on a tensor (TensorImpl::autograd).
struct AutogradMeta {
  Tensor grad;                     // leaves: the accumulated gradient
  std::shared_ptr<Node> grad_fn;   // non-leaves: the backward of the op that made the tensor
  std::uint32_t output_nr = 0;     // which output of grad_fn's op the tensor is
  std::weak_ptr<Node> accumulator; // leaves: their AccumulateGrad node, while it lives
};

// The edge a gradient for `t` must flow into: its grad_fn, its leaf accumulator, or an invalid
// edge when t does not require grad.
Edge gradient_edge(const Tensor& t);
// The backward function that made `t` (null for a leaf).
std::shared_ptr<Node> grad_fn_of(const Tensor& t);
// Makes `t` output `output_nr` of `fn` (it then requires grad and is no longer a leaf).
void set_history(const Tensor& t, std::shared_ptr<Node> fn, std::uint32_t output_nr);

// `t` under a new identity: a TensorImpl with the same data, metadata and trace slot, and no
// autograd record (it does not require grad). For a result that must not share autograd
// state with an input or another result, and for a saved output (no cycle through grad_fn).
Tensor alias_without_history(const Tensor& t);

// The bytes of distinct storages that the graph reachable from `roots` keeps for backward,
// counting activations only (graph inputs such as parameters are not counted): the
// activation memory of a training step.
std::size_t saved_activation_bytes(std::span<const Tensor> roots);

namespace detail {
// While the engine runs a node: the user's call of the forward op that node differentiates
// (the AOT tracer attributes traced backward ops to it); nullptr otherwise.
const std::source_location* current_backward_where() noexcept;
} // namespace detail

} // namespace compiler::autograd
