// The registry of user ops, their call, and their eager and meta kernels
// (compiler/ops/custom_ops.h). Arguments of OpKind::custom_op: {str name, Tensor[] inputs,
// double scalar...}.
#include "compiler/ops/custom_ops.h"

#include "compiler/core/errors.h"
#include "compiler/ops/op_hook.h"
#include "kernels/kernels.h"
#include "kernels/shape_util.h"
#include "ops/custom_op_call.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

namespace compiler {

namespace {

struct Registry {
  std::mutex mutex;
  // Definitions are shared so that a call keeps its op alive while it runs.
  std::map<std::string, std::shared_ptr<const CustomOpDef>, std::less<>> ops;
};

Registry& registry() {
  static Registry r;
  return r;
}

bool is_identifier(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::shared_ptr<const CustomOpDef> lookup(std::string_view name) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  const auto it = r.ops.find(name);
  if (it == r.ops.end()) {
    user_error("custom op '" + std::string(name) +
               "' is not registered (compiler::register_custom_op registers it; its handle "
               "unregisters it when destroyed)");
  }
  return it->second;
}

// The call's parts, from OpKind::custom_op's arguments.
struct Call {
  std::shared_ptr<const CustomOpDef> def;
  std::vector<Tensor> inputs;
  std::vector<double> scalars;
};

Call unpack(std::span<const Value> args) {
  const auto* inputs = args.size() >= 2 ? std::get_if<std::vector<Tensor>>(&args[1]) : nullptr;
  if (inputs == nullptr || !std::holds_alternative<std::string>(args[0])) {
    user_error("custom_op: expected the arguments {str name, Tensor[] inputs, float scalars...} "
               "(call it through compiler::call_custom_op)");
  }
  Call c;
  c.def = lookup(std::get<std::string>(args[0]));
  c.inputs = *inputs;
  for (std::size_t i = 2; i < args.size(); ++i) {
    const auto* s = std::get_if<double>(&args[i]);
    if (s == nullptr) {
      user_error("custom op '" + c.def->name + "': argument " + std::to_string(i) + " is a " +
                 std::string(value_kind_name(args[i])) + ", not a float scalar");
    }
    c.scalars.push_back(*s);
  }
  return c;
}

} // namespace

CustomOpHandle& CustomOpHandle::operator=(CustomOpHandle&& other) noexcept {
  if (this != &other) {
    reset();
    name_ = std::move(other.name_);
    other.name_.clear();
  }
  return *this;
}

CustomOpHandle::~CustomOpHandle() {
  reset();
}

void CustomOpHandle::reset() {
  if (!name_.empty()) {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    r.ops.erase(name_);
    name_.clear();
  }
}

CustomOpHandle register_custom_op(CustomOpDef def) {
  const std::size_t sep = def.name.find("::");
  if (sep == std::string::npos || !is_identifier(std::string_view(def.name).substr(0, sep)) ||
      !is_identifier(std::string_view(def.name).substr(sep + 2))) {
    user_error("register_custom_op: the name '" + def.name +
               "' must be namespace::name, each part letters, digits and '_' (as "
               "torch.library's \"mylib::scale_add\")");
  }
  if (!def.kernel) {
    user_error("register_custom_op: '" + def.name + "' has no kernel");
  }
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  if (r.ops.count(def.name) != 0) {
    user_error("register_custom_op: '" + def.name + "' is already registered");
  }
  std::string name = def.name;
  r.ops.emplace(name, std::make_shared<const CustomOpDef>(std::move(def)));
  return CustomOpHandle(std::move(name));
}

Tensor call_custom_op(std::string_view name, std::vector<Tensor> inputs,
                      std::vector<double> scalars, std::source_location loc) {
  {
    CallSiteScope site(loc);
    (void)lookup(name); // an unknown name is the caller's error, at the caller's line
  }
  std::vector<Value> args;
  args.reserve(2 + scalars.size());
  args.emplace_back(std::string(name));
  args.emplace_back(std::move(inputs));
  for (double s : scalars) {
    args.emplace_back(s);
  }
  const Value result = dispatch(OpKind::custom_op, args, loc);
  const Tensor* t = std::get_if<Tensor>(&result);
  TORCHSCOPE_ASSERT(t != nullptr && t->defined(), "custom_op returned no tensor");
  return *t;
}

namespace custom_ops {

const CustomOpDef& find(std::string_view name) {
  // The registry keeps the definition until it is unregistered; callers use it within a call.
  return *lookup(name);
}

bool has_decomposition(std::string_view name) {
  return static_cast<bool>(lookup(name)->decomposition);
}

std::string ops_path(std::string_view name) {
  std::string out(name);
  if (const std::size_t sep = out.find("::"); sep != std::string::npos) {
    out.replace(sep, 2, ".");
  }
  return out;
}

std::optional<Value> decompose(std::span<const Value> args) {
  const Call c = unpack(args);
  if (!c.def->decomposition) {
    return std::nullopt;
  }
  Tensor out = c.def->decomposition(c.inputs, c.scalars);
  if (!out.defined()) {
    user_error("custom op '" + c.def->name + "': its decomposition returned an undefined tensor");
  }
  return Value(std::move(out));
}

} // namespace custom_ops

namespace kernels {

Value eager_custom_op(std::span<const Value> args) {
  const Call c = unpack(args);
  for (const Tensor& t : c.inputs) {
    require_real(t, c.def->name.c_str());
  }
  Tensor out = c.def->kernel(c.inputs, c.scalars);
  if (!out.defined()) {
    user_error("custom op '" + c.def->name + "': its kernel returned an undefined tensor");
  }
  return out;
}

Value meta_custom_op(std::span<const Value> args) {
  const Call c = unpack(args);
  if (c.def->meta) {
    CustomOpOutput o = c.def->meta(c.inputs, c.scalars);
    return make_output(std::move(o.sizes), o.dtype, true);
  }
  if (c.inputs.empty() || !c.inputs[0].defined()) {
    user_error("custom op '" + c.def->name +
               "' has no meta function and no tensor input to take its output's shape from");
  }
  return make_output(c.inputs[0].sym_sizes(), c.inputs[0].dtype(), true);
}

} // namespace kernels

} // namespace compiler
