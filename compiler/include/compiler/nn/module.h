// compiler/nn: Module, PyTorch's nn.Module in small: named parameters (tensors with
// requires_grad), named buffers (state tensors without it), named attributes (int, double, bool,
// string), named submodules, all kept in registration order so parameters() and printouts are
// deterministic.
//
// Capture guards on module state the traced function READ, as Dynamo does. Attribute reads go
// through attribute() and its typed helpers, which notify the thread's ModuleObserver (capture
// installs one while tracing with ModuleObserverGuard); parameter and submodule lookups by name
// notify it too. Every change to an attribute bumps version(), so a cheap check can tell that
// nothing changed since a compile.
#pragma once

#include "compiler/tensor/tensor.h"

#include <cstdint>
#include <memory>
#include <source_location>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace compiler::nn {

using AttributeValue = std::variant<std::int64_t, double, bool, std::string>;

// "int", "float", "bool", "str".
std::string_view attribute_kind_name(const AttributeValue& v);
// 8, 0.5, True, 'none' (Python's spelling, for guard printouts).
std::string attribute_to_string(const AttributeValue& v);

class Module;

// Told about every read of module state on this thread while installed.
class ModuleObserver {
public:
  virtual ~ModuleObserver() = default;
  virtual void on_attribute_read(const Module& module, std::string_view name,
                                 const AttributeValue& value) = 0;
  virtual void on_parameter_read(const Module& /*module*/, std::string_view /*name*/,
                                 const Tensor& /*value*/) {}
};

ModuleObserver* current_module_observer() noexcept;

// RAII: installs `observer` (nullptr uninstalls) on this thread; restores the previous one.
class ModuleObserverGuard {
public:
  explicit ModuleObserverGuard(ModuleObserver* observer) noexcept;
  ~ModuleObserverGuard();
  ModuleObserverGuard(const ModuleObserverGuard&) = delete;
  ModuleObserverGuard& operator=(const ModuleObserverGuard&) = delete;

private:
  ModuleObserver* previous_;
};

class Module {
public:
  explicit Module(std::string type_name);
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // The class name printed in reprs and guards ("Linear").
  const std::string& type_name() const noexcept { return type_name_; }

  // The one-tensor forward most layers have. The default throws UserError: a module with
  // another signature provides its own call operator.
  virtual Tensor forward(const Tensor& input,
                         std::source_location loc = std::source_location::current());
  Tensor operator()(const Tensor& input,
                    std::source_location loc = std::source_location::current()) {
    return forward(input, loc);
  }

  // ---- parameters (requires_grad is set on registration)
  Tensor register_parameter(const std::string& name, Tensor value);
  // The named parameter of this module (not of submodules); notifies the observer.
  // UserError when there is none.
  Tensor parameter(std::string_view name) const;
  bool has_parameter(std::string_view name) const;
  // This module's and its submodules' parameters, depth first in registration order, with
  // dotted names ("0.weight").
  std::vector<std::pair<std::string, Tensor>> named_parameters() const;
  std::vector<Tensor> parameters() const;

  // ---- buffers: tensors that are state but not parameters (BatchNorm's running statistics),
  // registered without requires_grad; a compiled function reads them as graph constants and
  // writes their in-place updates back (docs/COMPILER.md, "Mutation and functionalization").
  Tensor register_buffer(const std::string& name, Tensor value);
  // The named buffer of this module. UserError when there is none.
  Tensor buffer(std::string_view name) const;
  // This module's and its submodules' buffers, depth first, with dotted names.
  std::vector<std::pair<std::string, Tensor>> named_buffers() const;

  // ---- attributes
  void set_attribute(const std::string& name, AttributeValue value);
  // Reads notify the observer. UserError when missing or (typed helpers) of another kind.
  const AttributeValue& attribute(std::string_view name) const;
  bool has_attribute(std::string_view name) const;
  std::int64_t attr_int(std::string_view name) const;
  double attr_double(std::string_view name) const;
  bool attr_bool(std::string_view name) const;
  const std::string& attr_string(std::string_view name) const;
  // Attributes in registration order, without notifying (for printing and guard building).
  const std::vector<std::pair<std::string, AttributeValue>>& attributes() const noexcept {
    return attributes_;
  }
  // Bumped by every set_attribute on this module.
  std::uint64_t version() const noexcept { return version_; }

  // The "training" attribute (true on construction), set recursively by train().
  bool is_training() const { return attr_bool("training"); }
  void train(bool on = true);
  void eval() { train(false); }

  // ---- submodules
  template <class M>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> module) {
    add_child(name, module);
    return module;
  }
  // UserError when there is none.
  const std::shared_ptr<Module>& child(std::string_view name) const;
  const std::vector<std::pair<std::string, std::shared_ptr<Module>>>&
  named_children() const noexcept {
    return children_;
  }
  // This module ("") and every descendant, depth first, with dotted names.
  std::vector<std::pair<std::string, const Module*>> named_modules() const;

  // A multi-line PyTorch-like repr: "Sequential(\n  (0): Linear(in_features=4, ...)\n)".
  std::string to_string() const;

protected:
  // One-line description of this module's own settings, used by to_string().
  virtual std::string extra_repr() const { return {}; }

private:
  void add_child(const std::string& name, std::shared_ptr<Module> module);
  void collect_parameters(const std::string& prefix,
                          std::vector<std::pair<std::string, Tensor>>& out) const;
  void collect_buffers(const std::string& prefix,
                       std::vector<std::pair<std::string, Tensor>>& out) const;
  void collect_modules(const std::string& prefix,
                       std::vector<std::pair<std::string, const Module*>>& out) const;
  void print(std::string& out, int indent) const;

  std::string type_name_;
  std::vector<std::pair<std::string, Tensor>> parameters_;
  std::vector<std::pair<std::string, Tensor>> buffers_;
  std::vector<std::pair<std::string, AttributeValue>> attributes_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
  std::uint64_t version_ = 0;
};

} // namespace compiler::nn
