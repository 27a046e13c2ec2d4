// compiler/capture: guards, the conditions under which a compiled entry may be reused.
//
// A GuardSet is built once per compiled entry and evaluated on every call, so it is compiled
// into a flat array of checks over the frame's inputs (no allocation, no virtual calls, no
// strings): a cache hit with four tensor inputs costs a few dozen integer compares. Symbolic
// guards (`s0 > 16`, from C++ control flow on sizes) are evaluated after the symbol values are
// read from the inputs into a fixed array on the stack.
//
// Everything slow lives apart from check(): failure_reason() re-runs the checks to name the
// first one that failed, as PyTorch's recompile reasons do ("tensor 'x' size mismatch at index
// 0. expected 8, actual 16"), and to_tree_string() prints the set as dynamo_cpp_guards_str
// does (TREE_GUARD_MANAGER, one GuardManager per input).
#pragma once

#include "compiler/capture/shape_env.h"
#include "compiler/nn/module.h"
#include "compiler/tensor/tensor.h"

#include <array>
#include <cstdint>
#include <optional>
#include <source_location>
#include <span>
#include <string>
#include <vector>

namespace compiler::capture {

// A borrowed view of one frame input while guards run.
struct GuardInput {
  enum class Kind : std::uint8_t { None, Tensor, Int, Float, Bool, Module };
  Kind kind = Kind::None;
  const TensorImpl* tensor = nullptr;
  const nn::Module* module = nullptr;
  std::int64_t i = 0;
  double f = 0.0;

  static GuardInput of(const Tensor& t) noexcept {
    GuardInput g;
    g.kind = t.defined() ? Kind::Tensor : Kind::None;
    g.tensor = t.impl();
    return g;
  }
  static GuardInput of_int(std::int64_t v) noexcept {
    GuardInput g;
    g.kind = Kind::Int;
    g.i = v;
    return g;
  }
  static GuardInput of_float(double v) noexcept {
    GuardInput g;
    g.kind = Kind::Float;
    g.f = v;
    return g;
  }
  static GuardInput of_module(const nn::Module& m) noexcept {
    GuardInput g;
    g.kind = Kind::Module;
    g.module = &m;
    return g;
  }
  static GuardInput of_bool(bool v) noexcept {
    GuardInput g;
    g.kind = Kind::Bool;
    g.i = v ? 1 : 0;
    return g;
  }
};

// clang-format off
#define TORCHSCOPE_GUARD_KINDS(X)                                                               \
  X(InputKind)    /* the input is a tensor / int / float / bool / None, as traced */           \
  X(DispatchKeys) /* tensor device type (CPU / CUDA), PyTorch's dispatch key set check */      \
  X(DTypeMatch)   /* tensor dtype */                                                           \
  X(DeviceIndex)  /* tensor device index (cuda:0 / cuda:1) */                                  \
  X(RankMatch)    /* tensor rank (checked before any per-dim check of the same input) */       \
  X(SizeMatch)    /* a static tensor size */                                                   \
  X(StrideMatch)  /* a tensor stride */                                                        \
  X(RequiresGrad) /* tensor requires_grad */                                                   \
  X(IntEquals)    /* a specialised integer argument */                                         \
  X(FloatEquals)  /* a specialised float argument */                                           \
  X(BoolEquals)   /* a specialised bool argument (or a branch taken on data) */                \
  X(ModuleMatch)  /* the same module object as traced (its parameters are graph constants) */  \
  X(ModuleAttr)   /* a module attribute the function read still has the traced value */       \
  X(SymbolRange)  /* lower <= symbol <= upper (0/1 specialisation, refined by decisions) */    \
  X(GradMode)     /* the thread's grad mode, as traced (GLOBAL_STATE) */                      \
  X(ConstantRequiresGrad) /* requires_grad of a tensor the graph holds (a parameter) */       \
  X(ShapeExpr)    /* a decision recorded on symbolic sizes: s0 > 16 */
// clang-format on

enum class GuardKind : std::uint8_t {
#define TORCHSCOPE_GUARD_KIND_ENUM(name) name,
  TORCHSCOPE_GUARD_KINDS(TORCHSCOPE_GUARD_KIND_ENUM)
#undef TORCHSCOPE_GUARD_KIND_ENUM
};

std::string_view guard_kind_name(GuardKind kind) noexcept;

// One flat check. `input` indexes the frame inputs; `dim` a tensor dim, a symbol id or a shape
// guard index depending on the kind.
struct GuardCheck {
  GuardKind kind = GuardKind::InputKind;
  std::uint32_t input = 0;
  std::int32_t dim = 0;
  std::int64_t expected = 0;
  std::int64_t expected_hi = 0; // SymbolRange: the upper bound
  double expected_f = 0.0;
};

// A module attribute the traced function read. The module is found from module argument
// `input` by `path` (child names), or is `fixed` (a module the function closed over).
struct ModuleAttrGuard {
  std::int64_t input = -1;
  std::vector<std::string> path;
  const nn::Module* fixed = nullptr;
  std::string attribute;
  nn::AttributeValue expected;
  std::source_location where;
  std::string source; // "L['model'].layers.0.training"
};

// What the guard printer and the failure messages say about each input.
struct GuardedInput {
  std::string name; // "x"
  GuardInput::Kind kind = GuardInput::Kind::None;
  std::source_location where; // the user's first use
  // Tensors: the traced metadata; sizes entries of -1 are dynamic.
  DType dtype = DType::Float32;
  Device device;
  std::vector<std::int64_t> sizes;
  std::vector<std::int64_t> strides;
  bool requires_grad = false;
  const nn::Module* module = nullptr; // Module inputs: the traced module
  // Scalars: the specialised value.
  std::int64_t int_value = 0;
  double float_value = 0.0;
};

class GuardSet {
public:
  // The largest number of symbols one entry may use; capture specialises dims beyond it.
  static constexpr std::size_t kMaxSymbols = 32;

  // Guards every property of input `index` as traced; dims in `dynamic_dims` are not pinned
  // (their symbols are guarded by range and by the shape guards instead). Strides of a tensor
  // with dynamic dims are guarded only where they do not depend on a dynamic size.
  void add_tensor_input(std::uint32_t index, std::string name, const TensorImpl& traced,
                        const std::vector<bool>& dynamic_dims, const std::source_location& where);
  void add_int_input(std::uint32_t index, std::string name, std::int64_t value,
                     const std::source_location& where);
  void add_float_input(std::uint32_t index, std::string name, double value,
                       const std::source_location& where);
  void add_bool_input(std::uint32_t index, std::string name, bool value,
                      const std::source_location& where);
  // Guards that input `index` is None (an undefined tensor), as traced.
  void add_none_input(std::uint32_t index, std::string name, const std::source_location& where);
  // Guards that input `index` is the module `m` (ID_MATCH).
  void add_module_input(std::uint32_t index, std::string name, const nn::Module& m,
                        const std::source_location& where);
  void add_module_attribute(ModuleAttrGuard guard);
  // Guards the thread's grad mode (autograd/grad_mode.h): an entry traced with grad on holds a
  // backward, one traced with grad off does not.
  void add_grad_mode(bool enabled);
  // Guards requires_grad of a tensor the graph holds as a constant (a parameter read from a
  // module): the AOT stage differentiates exactly those that required grad when traced.
  // `what` names it in failure reasons.
  void add_constant_requires_grad(std::shared_ptr<TensorImpl> tensor, std::string what);
  // Adopts the symbols and decisions of the trace's ShapeEnv.
  void add_shape_env(const ShapeEnv& env);

  // True when every check passes. Allocation-free.
  bool check(std::span<const GuardInput> inputs) const noexcept;
  // The text of the first failing check ("tensor 'x' size mismatch at index 0. expected 8,
  // actual 16"), or nullopt when all pass.
  std::optional<std::string> failure_reason(std::span<const GuardInput> inputs) const;
  // Reads every symbol's value from the inputs (inputs must have passed check()).
  void symbol_values(std::span<const GuardInput> inputs,
                     std::span<std::int64_t> out) const noexcept;

  // dynamo_cpp_guards_str's payload: the TREE_GUARD_MANAGER printout.
  std::string to_tree_string() const;

  std::size_t check_count() const noexcept { return checks_.size() + symbolic_checks_.size(); }
  std::size_t shape_guard_count() const noexcept { return shape_guards_.size(); }
  std::size_t symbol_count() const noexcept { return symbols_.size(); }
  const std::vector<SymbolInfo>& symbols() const noexcept { return symbols_; }

private:
  // False when check `c` fails; the symbol values must be loaded for symbolic kinds.
  bool passes(const GuardCheck& c, std::span<const GuardInput> inputs,
              std::span<const std::int64_t> symbols) const noexcept;
  std::string describe_failure(const GuardCheck& c, std::span<const GuardInput> inputs,
                               std::span<const std::int64_t> symbols) const;
  GuardedInput& described(std::uint32_t index);

  // The hot path's form of one tensor input's checks: everything TENSOR_MATCH compares, laid
  // out flat so check() is a few loads and compares per dim. Built from checks_ by
  // add_tensor_input; tensors of more than kFastRank dims use the generic checks.
  static constexpr std::size_t kFastRank = 6;
  struct FastTensorCheck {
    std::uint32_t input = 0;
    DType dtype = DType::Float32;
    Device device;
    bool requires_grad = false;
    std::uint8_t rank = 0;
    std::uint8_t size_mask = 0;   // bit d: sizes[d] is pinned
    std::uint8_t stride_mask = 0; // bit d: strides[d] is pinned
    std::array<std::int64_t, kFastRank> sizes{};
    std::array<std::int64_t, kFastRank> strides{};
  };
  std::vector<FastTensorCheck> fast_tensors_;
  std::vector<GuardCheck> slow_checks_;     // checks not covered by fast_tensors_
  std::vector<GuardCheck> checks_;          // per-input checks, in input order
  std::vector<GuardCheck> symbolic_checks_; // SymbolRange / ShapeExpr, after symbols load
  std::vector<GuardedInput> inputs_;        // by input index
  std::vector<SymbolInfo> symbols_;
  std::vector<ShapeGuard> shape_guards_;
  std::vector<ModuleAttrGuard> module_attrs_;
  struct ConstantGuard {
    std::shared_ptr<TensorImpl> tensor;
    std::string what;
  };
  std::vector<ConstantGuard> constants_;
  std::optional<bool> grad_mode_;
};

// PyTorch's c10 ScalarType name used in guard failure messages: "Float", "Half", "BFloat16",
// "Int", "Long", "Bool".
std::string_view scalar_type_name(DType t) noexcept;

// The dispatch key set TENSOR_MATCH prints and compares for a tensor on a device of `type`:
// "DispatchKeySet(CUDA, BackendSelect, ADInplaceOrView, AutogradCUDA)".
std::string_view dispatch_key_set_name(DeviceType type) noexcept;

} // namespace compiler::capture
