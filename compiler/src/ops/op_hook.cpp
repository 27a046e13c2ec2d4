// Op tables generated from op_list.h, the thread-local hook, and dispatch.
#include "compiler/ops/op_hook.h"

#include "autograd/record.h"
#include "compiler/core/errors.h"
#include "kernels/kernels.h"
#include "ops/op_device.h"

#include <array>

namespace compiler {

namespace {

struct OpInfo {
  std::string_view name;
  std::string_view aten_name;
  OpCategory category;
  OpLevel level;
  Value (*eager)(std::span<const Value>);
  Value (*meta)(std::span<const Value>);
};

constexpr std::array<OpInfo, kNumOps> kOps = {{
#define TORCHSCOPE_OP_INFO(name, aten, category, level)                                            \
  {#name,                                                                                          \
   aten,                                                                                           \
   OpCategory::category,                                                                           \
   OpLevel::level,                                                                                 \
   &kernels::eager_##name,                                                                         \
   &kernels::meta_##name},
    TORCHSCOPE_COMPILER_OPS(TORCHSCOPE_OP_INFO)
#undef TORCHSCOPE_OP_INFO
}};

const OpInfo& info(OpKind op) noexcept {
  return kOps[static_cast<std::size_t>(op)];
}

thread_local OpHook* t_hook = nullptr;

} // namespace

std::string_view op_name(OpKind op) noexcept {
  return info(op).name;
}
std::string_view op_aten_name(OpKind op) noexcept {
  return info(op).aten_name;
}
OpCategory op_category(OpKind op) noexcept {
  return info(op).category;
}
OpLevel op_level(OpKind op) noexcept {
  return info(op).level;
}

std::string_view op_category_name(OpCategory c) noexcept {
  switch (c) {
  case OpCategory::Pointwise:
    return "pointwise";
  case OpCategory::Reduction:
    return "reduction";
  case OpCategory::Linalg:
    return "linalg";
  case OpCategory::Nn:
    return "nn";
  case OpCategory::View:
    return "view";
  case OpCategory::Shape:
    return "shape";
  case OpCategory::Indexing:
    return "indexing";
  case OpCategory::Transfer:
    return "transfer";
  case OpCategory::Factory:
    return "factory";
  case OpCategory::DataDependent:
    return "data_dependent";
  case OpCategory::Extern:
    return "extern";
  }
  return "?";
}

std::optional<OpKind> op_from_name(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kOps.size(); ++i) {
    if (kOps[i].name == name || kOps[i].aten_name == name) {
      return static_cast<OpKind>(i);
    }
  }
  return std::nullopt;
}

OpHook* current_op_hook() noexcept {
  return t_hook;
}

OpHookGuard::OpHookGuard(OpHook* hook) noexcept : previous_(t_hook) {
  t_hook = hook;
}
OpHookGuard::~OpHookGuard() {
  t_hook = previous_;
}

Value dispatch(OpKind op, std::span<const Value> args, const std::source_location& loc) {
  CallSiteScope site(loc);
  if (autograd::detail::wants_history(args)) [[unlikely]] {
    return autograd::detail::call_with_history(op, args, loc);
  }
  // Below autograd: a hook (capture) or the eager kernel, after the device check (an eager
  // kernel handed a GPU tensor would read device memory on the host).
  return dispatch_below_autograd(op, args, loc);
}

Value dispatch_below_autograd(OpKind op, std::span<const Value> args,
                              const std::source_location& loc) {
  if (t_hook != nullptr) {
    return t_hook->call(op, args, loc);
  }
  op_device::check_eager(op, args);
  return info(op).eager(args);
}

Value run_eager(OpKind op, std::span<const Value> args) {
  OpHookGuard no_hook(nullptr);
  op_device::check_eager(op, args);
  return info(op).eager(args);
}

Value run_meta(OpKind op, std::span<const Value> args) {
  OpHookGuard no_hook(nullptr);
  const Device device = op_device::result_device(op, args);
  Value result = info(op).meta(args);
  op_device::stamp(result, device);
  return result;
}

} // namespace compiler
