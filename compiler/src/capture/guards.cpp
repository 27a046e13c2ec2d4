// GuardSet: building the flat check list, evaluating it, explaining failures, printing it.
#include "compiler/capture/guards.h"

#include "compiler/autograd/grad_mode.h"
#include "compiler/ops/ops.h"
#include "tensor/scalar_type_name.h"
#include "tracer/json_writer.h"
#include "tracing/trace_util.h"

#include <array>
#include <bit>
#include <limits>

namespace compiler::capture {

namespace {

std::string python_float(double v) {
  std::string out;
  tracer::JsonWriter::append_python_float(out, v);
  return out;
}

std::string location_comment(const std::source_location& where) {
  if (where.file_name() == nullptr || where.file_name()[0] == '\0') {
    return "";
  }
  // As Dynamo's guard comments: the source text, then where it is.
  std::string out = "  # ";
  std::string_view text = tracing::source_line(where);
  if (!text.empty()) {
    out += text;
    out += "  # ";
  }
  out += where.file_name();
  out += ':';
  out += std::to_string(where.line());
  out += " in ";
  out += tracing::short_function_name(where.function_name());
  return out;
}

std::string_view kind_type_name(GuardInput::Kind k) {
  switch (k) {
  case GuardInput::Kind::Tensor:
    return "Tensor";
  case GuardInput::Kind::Int:
    return "int";
  case GuardInput::Kind::Float:
    return "float";
  case GuardInput::Kind::Bool:
    return "bool";
  case GuardInput::Kind::Module:
    return "Module";
  case GuardInput::Kind::None:
    break;
  }
  return "NoneType";
}

std::string int_list(const std::vector<std::int64_t>& v, bool dynamic_as_none) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i > 0) {
      out += ", ";
    }
    out += (dynamic_as_none && v[i] < 0) ? "None" : std::to_string(v[i]);
  }
  return out + "]";
}

} // namespace

std::string_view guard_kind_name(GuardKind kind) noexcept {
  switch (kind) {
#define TORCHSCOPE_GUARD_KIND_NAME(name)                                                           \
  case GuardKind::name:                                                                            \
    return #name;
    TORCHSCOPE_GUARD_KINDS(TORCHSCOPE_GUARD_KIND_NAME)
#undef TORCHSCOPE_GUARD_KIND_NAME
  }
  return "?";
}

std::string_view scalar_type_name(DType t) noexcept {
  return dtype_names::scalar_type_name(t);
}

std::string_view dispatch_key_set_name(DeviceType type) noexcept {
  return type == DeviceType::CUDA
             ? "DispatchKeySet(CUDA, BackendSelect, ADInplaceOrView, AutogradCUDA)"
             : "DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU)";
}

GuardedInput& GuardSet::described(std::uint32_t index) {
  if (inputs_.size() <= index) {
    inputs_.resize(index + 1);
  }
  return inputs_[index];
}

void GuardSet::add_tensor_input(std::uint32_t index, std::string name, const TensorImpl& traced,
                                const std::vector<bool>& dynamic_dims,
                                const std::source_location& where) {
  GuardedInput& d = described(index);
  d.name = std::move(name);
  d.kind = GuardInput::Kind::Tensor;
  d.where = where;
  d.dtype = traced.dtype;
  d.device = traced.device;
  d.requires_grad = traced.requires_grad;
  d.sizes = traced.sizes;
  d.strides = traced.strides;
  auto is_dynamic = [&](std::size_t i) { return i < dynamic_dims.size() && dynamic_dims[i]; };

  auto push = [&](GuardKind k, std::int32_t dim, std::int64_t expected) {
    GuardCheck c;
    c.kind = k;
    c.input = index;
    c.dim = dim;
    c.expected = expected;
    checks_.push_back(c);
  };
  const std::size_t first_check = checks_.size();
  // In the order PyTorch's TENSOR_MATCH checks them, so the first failure reads the same.
  push(GuardKind::InputKind, 0, static_cast<std::int64_t>(GuardInput::Kind::Tensor));
  push(GuardKind::DispatchKeys, 0, static_cast<std::int64_t>(traced.device.type()));
  push(GuardKind::DTypeMatch, 0, static_cast<std::int64_t>(traced.dtype));
  push(GuardKind::DeviceIndex, 0, traced.device.index());
  push(GuardKind::RequiresGrad, 0, traced.requires_grad ? 1 : 0);
  push(GuardKind::RankMatch, 0, static_cast<std::int64_t>(traced.sizes.size()));
  bool contiguous = traced.strides == contiguous_strides(traced.sizes);
  bool any_dynamic = false;
  for (std::size_t i = 0; i < traced.sizes.size(); ++i) {
    if (is_dynamic(i)) {
      d.sizes[i] = -1;
      any_dynamic = true;
    } else {
      push(GuardKind::SizeMatch, static_cast<std::int32_t>(i), traced.sizes[i]);
    }
  }
  for (std::size_t i = 0; i < traced.strides.size(); ++i) {
    bool depends_on_dynamic = false;
    if (any_dynamic) {
      if (!contiguous) {
        depends_on_dynamic = true; // only contiguous layouts have strides known from sizes
      } else {
        for (std::size_t j = i + 1; j < traced.sizes.size(); ++j) {
          depends_on_dynamic = depends_on_dynamic || is_dynamic(j);
        }
      }
    }
    if (depends_on_dynamic) {
      d.strides[i] = -1;
    } else {
      push(GuardKind::StrideMatch, static_cast<std::int32_t>(i), traced.strides[i]);
    }
  }
  if (traced.sizes.size() > kFastRank || traced.strides.size() != traced.sizes.size()) {
    slow_checks_.insert(slow_checks_.end(),
                        checks_.begin() + static_cast<std::ptrdiff_t>(first_check), checks_.end());
    return;
  }
  FastTensorCheck f;
  f.input = index;
  f.dtype = traced.dtype;
  f.device = traced.device;
  f.requires_grad = traced.requires_grad;
  f.rank = static_cast<std::uint8_t>(traced.sizes.size());
  for (std::size_t i = first_check; i < checks_.size(); ++i) {
    const GuardCheck& c = checks_[i];
    auto bit = static_cast<std::uint8_t>(1u << c.dim);
    if (c.kind == GuardKind::SizeMatch) {
      f.size_mask |= bit;
      f.sizes[static_cast<std::size_t>(c.dim)] = c.expected;
    } else if (c.kind == GuardKind::StrideMatch) {
      f.stride_mask |= bit;
      f.strides[static_cast<std::size_t>(c.dim)] = c.expected;
    }
  }
  fast_tensors_.push_back(f);
}

void GuardSet::add_int_input(std::uint32_t index, std::string name, std::int64_t value,
                             const std::source_location& where) {
  GuardedInput& d = described(index);
  d.name = std::move(name);
  d.kind = GuardInput::Kind::Int;
  d.where = where;
  d.int_value = value;
  checks_.push_back(
      {GuardKind::InputKind, index, 0, static_cast<std::int64_t>(GuardInput::Kind::Int), 0, 0.0});
  checks_.push_back({GuardKind::IntEquals, index, 0, value, 0, 0.0});
  slow_checks_.insert(slow_checks_.end(), checks_.end() - 2, checks_.end());
}

void GuardSet::add_float_input(std::uint32_t index, std::string name, double value,
                               const std::source_location& where) {
  GuardedInput& d = described(index);
  d.name = std::move(name);
  d.kind = GuardInput::Kind::Float;
  d.where = where;
  d.float_value = value;
  checks_.push_back(
      {GuardKind::InputKind, index, 0, static_cast<std::int64_t>(GuardInput::Kind::Float), 0, 0.0});
  checks_.push_back({GuardKind::FloatEquals, index, 0, 0, 0, value});
  slow_checks_.insert(slow_checks_.end(), checks_.end() - 2, checks_.end());
}

void GuardSet::add_bool_input(std::uint32_t index, std::string name, bool value,
                              const std::source_location& where) {
  GuardedInput& d = described(index);
  d.name = std::move(name);
  d.kind = GuardInput::Kind::Bool;
  d.where = where;
  d.int_value = value ? 1 : 0;
  checks_.push_back(
      {GuardKind::InputKind, index, 0, static_cast<std::int64_t>(GuardInput::Kind::Bool), 0, 0.0});
  checks_.push_back({GuardKind::BoolEquals, index, 0, value ? 1 : 0, 0, 0.0});
  slow_checks_.insert(slow_checks_.end(), checks_.end() - 2, checks_.end());
}

void GuardSet::add_none_input(std::uint32_t index, std::string name,
                              const std::source_location& where) {
  GuardedInput& d = described(index);
  d.name = std::move(name);
  d.kind = GuardInput::Kind::None;
  d.where = where;
  checks_.push_back(
      {GuardKind::InputKind, index, 0, static_cast<std::int64_t>(GuardInput::Kind::None), 0, 0.0});
  slow_checks_.push_back(checks_.back());
}

void GuardSet::add_module_input(std::uint32_t index, std::string name, const nn::Module& m,
                                const std::source_location& where) {
  GuardedInput& d = described(index);
  d.name = std::move(name);
  d.kind = GuardInput::Kind::Module;
  d.where = where;
  d.module = &m;
  checks_.push_back({GuardKind::InputKind, index, 0,
                     static_cast<std::int64_t>(GuardInput::Kind::Module), 0, 0.0});
  checks_.push_back({GuardKind::ModuleMatch, index, 0,
                     static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(&m)), 0, 0.0});
  slow_checks_.insert(slow_checks_.end(), checks_.end() - 2, checks_.end());
}

void GuardSet::add_module_attribute(ModuleAttrGuard guard) {
  for (const ModuleAttrGuard& g : module_attrs_) {
    if (g.input == guard.input && g.path == guard.path && g.fixed == guard.fixed &&
        g.attribute == guard.attribute) {
      return; // read twice, guarded once
    }
  }
  GuardCheck c{
      GuardKind::ModuleAttr, 0, static_cast<std::int32_t>(module_attrs_.size()), 0, 0, 0.0};
  module_attrs_.push_back(std::move(guard));
  // Attribute checks run after the module inputs' own checks (slow_checks_ keeps order).
  checks_.push_back(c);
  slow_checks_.push_back(c);
}

void GuardSet::add_grad_mode(bool enabled) {
  grad_mode_ = enabled;
  const GuardCheck c{GuardKind::GradMode, 0, 0, enabled ? 1 : 0, 0, 0.0};
  checks_.push_back(c);
  slow_checks_.push_back(c);
}

void GuardSet::add_constant_requires_grad(std::shared_ptr<TensorImpl> tensor, std::string what) {
  const GuardCheck c{
      GuardKind::ConstantRequiresGrad, 0, static_cast<std::int32_t>(constants_.size()),
      tensor->requires_grad ? 1 : 0,   0, 0.0};
  constants_.push_back(ConstantGuard{std::move(tensor), std::move(what)});
  checks_.push_back(c);
  slow_checks_.push_back(c);
}

namespace {

// The module an attribute guard reads, or nullptr when the path no longer exists.
const nn::Module* resolve_module(const ModuleAttrGuard& g, std::span<const GuardInput> inputs) {
  if (g.input < 0) {
    return g.fixed;
  }
  auto index = static_cast<std::size_t>(g.input);
  if (index >= inputs.size() || inputs[index].kind != GuardInput::Kind::Module) {
    return nullptr;
  }
  const nn::Module* m = inputs[index].module;
  for (const std::string& part : g.path) {
    const nn::Module* next = nullptr;
    for (const auto& [child_name, child] : m->named_children()) {
      if (child_name == part) {
        next = child.get();
        break;
      }
    }
    if (next == nullptr) {
      return nullptr;
    }
    m = next;
  }
  return m;
}

const nn::AttributeValue* find_attribute(const nn::Module& m, const std::string& name) {
  for (const auto& [attr_name, value] : m.attributes()) {
    if (attr_name == name) {
      return &value;
    }
  }
  return nullptr;
}

} // namespace

void GuardSet::add_shape_env(const ShapeEnv& env) {
  symbols_ = env.symbols();
  shape_guards_ = env.guards();
  for (const SymbolInfo& s : symbols_) {
    symbolic_checks_.push_back({GuardKind::SymbolRange, static_cast<std::uint32_t>(s.source.arg),
                                static_cast<std::int32_t>(s.id), s.lower, s.upper, 0.0});
  }
  for (std::size_t i = 0; i < shape_guards_.size(); ++i) {
    symbolic_checks_.push_back({GuardKind::ShapeExpr, 0, static_cast<std::int32_t>(i), 0, 0, 0.0});
  }
}

bool GuardSet::passes(const GuardCheck& c, std::span<const GuardInput> inputs,
                      std::span<const std::int64_t> symbols) const noexcept {
  switch (c.kind) {
  case GuardKind::InputKind:
    return c.input < inputs.size() && static_cast<std::int64_t>(inputs[c.input].kind) == c.expected;
  case GuardKind::DispatchKeys:
    return static_cast<std::int64_t>(inputs[c.input].tensor->device.type()) == c.expected;
  case GuardKind::DTypeMatch:
    return static_cast<std::int64_t>(inputs[c.input].tensor->dtype) == c.expected;
  case GuardKind::DeviceIndex:
    return inputs[c.input].tensor->device.index() == c.expected;
  case GuardKind::RequiresGrad:
    return (inputs[c.input].tensor->requires_grad ? 1 : 0) == c.expected;
  case GuardKind::RankMatch:
    return static_cast<std::int64_t>(inputs[c.input].tensor->sizes.size()) == c.expected;
  case GuardKind::SizeMatch:
    return inputs[c.input].tensor->sizes[static_cast<std::size_t>(c.dim)] == c.expected;
  case GuardKind::StrideMatch:
    return inputs[c.input].tensor->strides[static_cast<std::size_t>(c.dim)] == c.expected;
  case GuardKind::IntEquals:
  case GuardKind::BoolEquals:
    return inputs[c.input].i == c.expected;
  case GuardKind::FloatEquals:
    // Bitwise: a NaN argument matches the same NaN (so it does not recompile on every call),
    // and 0.0 and -0.0 are told apart (they can give different results).
    return std::bit_cast<std::uint64_t>(inputs[c.input].f) ==
           std::bit_cast<std::uint64_t>(c.expected_f);
  case GuardKind::ModuleMatch:
    return static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(inputs[c.input].module)) ==
           c.expected;
  case GuardKind::ModuleAttr: {
    const ModuleAttrGuard& g = module_attrs_[static_cast<std::size_t>(c.dim)];
    const nn::Module* m = resolve_module(g, inputs);
    const nn::AttributeValue* v = m != nullptr ? find_attribute(*m, g.attribute) : nullptr;
    return v != nullptr && *v == g.expected;
  }
  case GuardKind::SymbolRange: {
    std::int64_t v = symbols[static_cast<std::size_t>(c.dim)];
    return v >= c.expected && v <= c.expected_hi;
  }
  case GuardKind::ShapeExpr:
    return shape_guards_[static_cast<std::size_t>(c.dim)].evaluate(symbols);
  case GuardKind::GradMode:
    return (autograd::is_grad_enabled() ? 1 : 0) == c.expected;
  case GuardKind::ConstantRequiresGrad:
    return (constants_[static_cast<std::size_t>(c.dim)].tensor->requires_grad ? 1 : 0) ==
           c.expected;
  }
  return false;
}

void GuardSet::symbol_values(std::span<const GuardInput> inputs,
                             std::span<std::int64_t> out) const noexcept {
  for (std::size_t i = 0; i < symbols_.size() && i < out.size(); ++i) {
    const SymbolSource& src = symbols_[i].source;
    if (src.generator != GeneratorPart::None) {
      // The generator now; the engine overwrites both with the state it takes for the call
      // (ops.h: take_random_offsets), so concurrent calls draw disjoint numbers.
      const RandomState state = random_state();
      out[i] = static_cast<std::int64_t>(src.generator == GeneratorPart::Seed ? state.seed
                                                                              : state.offset);
      continue;
    }
    out[i] = inputs[src.arg].tensor->sizes[static_cast<std::size_t>(src.dim)];
  }
}

bool GuardSet::check(std::span<const GuardInput> inputs) const noexcept {
  for (const FastTensorCheck& f : fast_tensors_) {
    if (f.input >= inputs.size()) {
      return false;
    }
    const GuardInput& in = inputs[f.input];
    if (in.kind != GuardInput::Kind::Tensor) {
      return false;
    }
    const TensorImpl& t = *in.tensor;
    if (t.dtype != f.dtype || t.device != f.device || t.requires_grad != f.requires_grad ||
        t.sizes.size() != f.rank || t.strides.size() != f.rank) {
      return false;
    }
    const std::int64_t* sizes = t.sizes.data();
    const std::int64_t* strides = t.strides.data();
    for (std::size_t d = 0; d < f.rank; ++d) {
      if ((((f.size_mask >> d) & 1u) != 0 && sizes[d] != f.sizes[d]) ||
          (((f.stride_mask >> d) & 1u) != 0 && strides[d] != f.strides[d])) {
        return false;
      }
    }
  }
  // Generic checks come in order InputKind, device, DType, RequiresGrad, Rank, then dims, per
  // input, so a per-dim check never reads past a tensor of the wrong rank.
  for (const GuardCheck& c : slow_checks_) {
    if (!passes(c, inputs, {})) {
      return false;
    }
  }
  if (symbolic_checks_.empty()) {
    return true;
  }
  std::array<std::int64_t, kMaxSymbols> values{};
  symbol_values(inputs, values);
  std::span<const std::int64_t> sv(values.data(), symbols_.size());
  for (const GuardCheck& c : symbolic_checks_) {
    if (!passes(c, inputs, sv)) {
      return false;
    }
  }
  return true;
}

std::string GuardSet::describe_failure(const GuardCheck& c, std::span<const GuardInput> inputs,
                                       std::span<const std::int64_t> symbols) const {
  static const GuardedInput kUnknown{};
  const GuardedInput* d = c.input < inputs_.size() ? &inputs_[c.input] : &kUnknown;
  std::string name = d->name.empty() ? "?" : d->name;
  if (c.kind == GuardKind::GradMode) {
    return "GLOBAL_STATE changed: grad_mode";
  }
  if (c.kind == GuardKind::ConstantRequiresGrad) {
    return "requires_grad of " + constants_[static_cast<std::size_t>(c.dim)].what +
           " changed. expected requires_grad=" + std::to_string(c.expected);
  }
  if (c.kind == GuardKind::InputKind) {
    GuardInput::Kind actual =
        c.input < inputs.size() ? inputs[c.input].kind : GuardInput::Kind::None;
    return "type of '" + name + "' changed. expected " +
           std::string(kind_type_name(static_cast<GuardInput::Kind>(c.expected))) + ", actual " +
           std::string(kind_type_name(actual));
  }
  // Every other check runs only after the input's kind check passed.
  static const TensorImpl kNoTensor{};
  const TensorImpl& t = inputs[c.input].tensor != nullptr ? *inputs[c.input].tensor : kNoTensor;
  switch (c.kind) {
  case GuardKind::InputKind:
    return "";
  case GuardKind::DispatchKeys:
    return "tensor '" + name + "' dispatch key set mismatch. expected " +
           std::string(dispatch_key_set_name(static_cast<DeviceType>(c.expected))) + ", actual " +
           std::string(dispatch_key_set_name(t.device.type()));
  case GuardKind::DTypeMatch:
    return "tensor '" + name + "' dtype mismatch. expected " +
           std::string(scalar_type_name(static_cast<DType>(c.expected))) + ", actual " +
           std::string(scalar_type_name(t.dtype));
  case GuardKind::DeviceIndex:
    return "tensor '" + name + "' Tensor device index mismatch. Expected device index to be " +
           std::to_string(c.expected) + ", actual " + std::to_string(t.device.index());
  case GuardKind::RequiresGrad:
    return "tensor '" + name +
           "' requires_grad mismatch. expected requires_grad=" + std::to_string(c.expected);
  case GuardKind::RankMatch:
    return "tensor '" + name + "' rank mismatch. expected " + std::to_string(c.expected) +
           ", actual " + std::to_string(t.sizes.size());
  case GuardKind::SizeMatch:
    return "tensor '" + name + "' size mismatch at index " + std::to_string(c.dim) + ". expected " +
           std::to_string(c.expected) + ", actual " +
           std::to_string(t.sizes[static_cast<std::size_t>(c.dim)]);
  case GuardKind::StrideMatch:
    return "tensor '" + name + "' stride mismatch at index " + std::to_string(c.dim) +
           ". expected " + std::to_string(c.expected) + ", actual " +
           std::to_string(t.strides[static_cast<std::size_t>(c.dim)]);
  case GuardKind::IntEquals:
    return name + " == " + std::to_string(c.expected) + location_comment(d->where);
  case GuardKind::BoolEquals:
    return name + " == " + (c.expected ? "True" : "False") + location_comment(d->where);
  case GuardKind::FloatEquals:
    return name + " == " + python_float(c.expected_f) + location_comment(d->where);
  case GuardKind::ModuleMatch:
    return "module '" + name + "' is not the module traced (ID_MATCH)";
  case GuardKind::ModuleAttr: {
    const ModuleAttrGuard& g = module_attrs_[static_cast<std::size_t>(c.dim)];
    return g.source + " == " + nn::attribute_to_string(g.expected) + location_comment(g.where);
  }
  case GuardKind::SymbolRange: {
    const SymbolInfo& s = symbols_[static_cast<std::size_t>(c.dim)];
    std::int64_t v = symbols[static_cast<std::size_t>(c.dim)];
    if (v < c.expected) {
      return std::to_string(c.expected) + " <= " + s.short_source_name() +
             location_comment(s.where);
    }
    return s.short_source_name() + " <= " + std::to_string(c.expected_hi) +
           location_comment(s.where);
  }
  case GuardKind::GradMode:
  case GuardKind::ConstantRequiresGrad:
    return "";
  case GuardKind::ShapeExpr: {
    std::vector<std::string> names;
    for (const SymbolInfo& s : symbols_) {
      names.push_back(s.short_source_name());
    }
    const ShapeGuard& g = shape_guards_[static_cast<std::size_t>(c.dim)];
    return g.to_source_string(names) + location_comment(g.where);
  }
  }
  return "unknown guard";
}

std::optional<std::string> GuardSet::failure_reason(std::span<const GuardInput> inputs) const {
  for (const GuardCheck& c : checks_) {
    if (!passes(c, inputs, {})) {
      return describe_failure(c, inputs, {});
    }
  }
  std::array<std::int64_t, kMaxSymbols> values{};
  symbol_values(inputs, values);
  std::span<const std::int64_t> sv(values.data(), symbols_.size());
  for (const GuardCheck& c : symbolic_checks_) {
    if (!passes(c, inputs, sv)) {
      return describe_failure(c, inputs, sv);
    }
  }
  return std::nullopt;
}

std::string GuardSet::to_tree_string() const {
  std::string out = "\nTREE_GUARD_MANAGER:\n+- RootGuardManager\n";
  if (grad_mode_) {
    out += std::string("| +- GLOBAL_STATE: ___check_global_state() against {\"grad_mode\":") +
           (*grad_mode_ ? "true" : "false") + "}\n";
  }
  out += "| +- DEFAULT_DEVICE: utils_device.CURRENT_DEVICE == None\n";
  for (std::size_t i = 0; i < inputs_.size(); ++i) {
    const GuardedInput& d = inputs_[i];
    if (d.name.empty()) {
      continue; // an input no guard mentions
    }
    std::string source = "L['" + d.name + "']";
    out += "| +- GuardManager: source=" + source + ", accessed_by=FrameLocalsGuardAccessor(key='" +
           d.name + "', framelocals_idx=" + std::to_string(i) + "), type=<class '";
    out += d.kind == GuardInput::Kind::Tensor   ? std::string("torch.Tensor")
           : d.kind == GuardInput::Kind::Module ? "torch.nn.Module"
                                                : std::string(kind_type_name(d.kind));
    out += "'>\n";
    std::string where = location_comment(d.where);
    switch (d.kind) {
    case GuardInput::Kind::Tensor:
      out += "| | +- TENSOR_MATCH: check_tensor(" + source + ", Tensor, " +
             std::string(dispatch_key_set_name(d.device.type())) + ", " +
             std::string(dtype_torch_name(d.dtype)) + ", device=" +
             (d.device.is_cuda() ? std::to_string(d.device.index()) : std::string("None")) +
             ", requires_grad=" + (d.requires_grad ? "True" : "False") +
             ", size=" + int_list(d.sizes, true) + ", stride=" + int_list(d.strides, true) + ")" +
             where + "\n";
      break;
    case GuardInput::Kind::Int:
      out += "| | +- EQUALS_MATCH: " + source + " == " + std::to_string(d.int_value) + where + "\n";
      break;
    case GuardInput::Kind::Bool:
      out += "| | +- EQUALS_MATCH: " + source + " == " + (d.int_value ? "True" : "False") + where +
             "\n";
      break;
    case GuardInput::Kind::Float:
      out += "| | +- EQUALS_MATCH: " + source + " == " + python_float(d.float_value) + where + "\n";
      break;
    case GuardInput::Kind::None:
      out += "| | +- ID_MATCH: " + source + " is None" + where + "\n";
      break;
    case GuardInput::Kind::Module:
      out += "| | +- ID_MATCH: ___check_obj_id(" + source + ", " +
             std::to_string(reinterpret_cast<std::uintptr_t>(d.module)) + ")" + where + "\n";
      for (const ModuleAttrGuard& g : module_attrs_) {
        if (g.input == static_cast<std::int64_t>(i)) {
          out += "| | +- EQUALS_MATCH: " + g.source + " == " + nn::attribute_to_string(g.expected) +
                 location_comment(g.where) + "\n";
        }
      }
      break;
    }
  }
  for (const ConstantGuard& g : constants_) {
    out += "| +- TENSOR_REQUIRES_GRAD: " + g.what +
           ".requires_grad == " + (g.tensor->requires_grad ? "True" : "False") + "\n";
  }
  for (const ModuleAttrGuard& g : module_attrs_) {
    if (g.input < 0) {
      out += "| +- EQUALS_MATCH: " + g.source + " == " + nn::attribute_to_string(g.expected) +
             location_comment(g.where) + "\n";
    }
  }
  std::vector<std::string> names;
  for (const SymbolInfo& s : symbols_) {
    names.push_back(s.source_name());
  }
  for (const SymbolInfo& s : symbols_) {
    std::string hi =
        s.upper == std::numeric_limits<std::int64_t>::max() ? "" : " <= " + std::to_string(s.upper);
    out += "+- LAMBDA_GUARD: " + std::to_string(s.lower) + " <= " + s.source_name() + hi +
           location_comment(s.where) +
           " (the location is the first use of this size; the guard itself comes from 0/1 "
           "specialisation: sizes 0 and 1 are always compiled as constants)\n";
  }
  for (const ShapeGuard& g : shape_guards_) {
    out += "+- LAMBDA_GUARD: " + g.to_source_string(names) + location_comment(g.where) + "\n";
  }
  return out;
}

} // namespace compiler::capture
