// compiler/ops: user ops (torch.library's role). A user registers an op under a namespaced name
// with its eager kernel, and optionally its meta function, its derivative and a decomposition
// into built-in ops; then calls it like any op:
//
//   auto handle = compiler::register_custom_op({
//       .name = "mylib::scale_add",                      // namespace::name
//       .schema = "(Tensor x, Tensor y, float alpha) -> Tensor",
//       .kernel = [](std::span<const Tensor> in, std::span<const double> s) { ... },
//       .backward = [](const CustomOpGrad& g) { return std::vector<Tensor>{...}; }});
//   Tensor z = compiler::call_custom_op("mylib::scale_add", {x, y}, {0.5});
//
// It is one op of the op list (OpKind::custom_op, its arguments {str name, Tensor[] inputs,
// float scalars...}), so capture records it, autograd differentiates it with the registered
// backward (written with ops, so the AOT stage traces it into the joint graph), and every graph
// prints it under its own name: `torch.ops.mylib.scale_add.default([x, y], 0.5)`. Code
// generation: with a decomposition the AOT stage replaces the op by it, so its ops fuse with
// their neighbours; without one the op runs its kernel as a fallback call in the generated code
// (on the host: a GPU program copies its operands there and back). Graphs that call a custom op
// bypass the on-disk compile cache (its kernel is not part of the key). The handle unregisters
// the op when destroyed.
#pragma once

#include "compiler/core/sym_int.h"
#include "compiler/tensor/tensor.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <source_location>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace compiler {

// What the backward of a call sees: the call's inputs and scalars, its output, and the gradient
// of the output.
struct CustomOpGrad {
  const Tensor& grad_output;
  std::span<const Tensor> inputs;
  std::span<const double> scalars;
  const Tensor& output;
  // Whether input i needs a gradient (a formula may skip the others).
  std::span<const bool> needs;
};

// The output's size and dtype from the inputs' (which are fake while tracing: sizes may be
// symbolic, there is no data).
struct CustomOpOutput {
  std::vector<SymInt> sizes;
  DType dtype = DType::Float32;
};

struct CustomOpDef {
  // "namespace::name", each part letters, digits and '_' ("mylib::scale_add").
  std::string name;
  // PyTorch-style schema text, for documentation and error messages (optional).
  std::string schema{};
  // The eager kernel: real CPU tensors in, a new tensor out. Required.
  std::function<Tensor(std::span<const Tensor> inputs, std::span<const double> scalars)> kernel;
  // The output's metadata; empty: the first input's sizes and dtype.
  std::function<CustomOpOutput(std::span<const Tensor> inputs, std::span<const double> scalars)>
      meta{};
  // One gradient per input (undefined where there is none), written with ops. Empty: the op is
  // not differentiable (its output never requires grad).
  std::function<std::vector<Tensor>(const CustomOpGrad&)> backward{};
  // The same computation written with built-in ops: the AOT stage traces it in place of the op,
  // so code generation fuses it. Empty: the op stays one opaque call.
  std::function<Tensor(std::span<const Tensor> inputs, std::span<const double> scalars)>
      decomposition{};
};

// Unregisters its op when destroyed (movable, not copyable).
class CustomOpHandle {
public:
  CustomOpHandle() = default;
  explicit CustomOpHandle(std::string name) : name_(std::move(name)) {}
  CustomOpHandle(CustomOpHandle&& other) noexcept : name_(std::move(other.name_)) {
    other.name_.clear();
  }
  CustomOpHandle& operator=(CustomOpHandle&& other) noexcept;
  CustomOpHandle(const CustomOpHandle&) = delete;
  CustomOpHandle& operator=(const CustomOpHandle&) = delete;
  ~CustomOpHandle();
  void reset();

private:
  std::string name_;
};

// Registers `def`. UserError for a malformed name, a missing kernel, or a name already
// registered.
[[nodiscard]] CustomOpHandle register_custom_op(CustomOpDef def);

// Calls the registered op `name`. UserError when no op of that name is registered (at this
// call's source location), or when the kernel's or meta function's result is not a tensor.
Tensor call_custom_op(std::string_view name, std::vector<Tensor> inputs,
                      std::vector<double> scalars = {},
                      std::source_location loc = std::source_location::current());

namespace custom_ops {

// The registered definition of `name`; UserError naming it when there is none.
const CustomOpDef& find(std::string_view name);
bool has_decomposition(std::string_view name);
// "mylib.scale_add" for "mylib::scale_add": the op as torch.ops spells it.
std::string ops_path(std::string_view name);

} // namespace custom_ops

} // namespace compiler
