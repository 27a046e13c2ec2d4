// The device rules of ops/op_device.h.
#include "ops/op_device.h"

#include "compiler/core/errors.h"

#include <optional>

namespace compiler::op_device {

namespace {

// The device shared by every tensor among `args`, or nullopt when there is none.
std::optional<Device> tensors_device(OpKind op, std::span<const Value> args) {
  std::optional<Device> found;
  auto see = [&](const Tensor& t) {
    if (!t.defined()) {
      return;
    }
    const Device d = t.impl()->device;
    if (!found) {
      found = d;
    } else if (*found != d) {
      user_error(std::string(op_aten_name(op)) +
                 ": expected all tensors to be on the same device, but found at least two "
                 "devices, " +
                 found->str() + " and " + d.str() + " (move one with .to(...) first)");
    }
  };
  for (const Value& v : args) {
    if (const auto* tensor = std::get_if<Tensor>(&v)) {
      see(*tensor);
    } else if (const auto* list = std::get_if<std::vector<Tensor>>(&v)) {
      for (const Tensor& item : *list) {
        see(item);
      }
    }
  }
  return found;
}

} // namespace

Device result_device(OpKind op, std::span<const Value> args) {
  switch (op_category(op)) {
  case OpCategory::Transfer:
    return args.size() > 1 ? value_device(args[1]) : Device::cpu();
  case OpCategory::Factory:
    if (!args.empty()) {
      if (const auto* d = std::get_if<Device>(&args.back())) {
        return *d;
      }
    }
    return Device::cpu();
  case OpCategory::DataDependent:
    return Device::cpu();
  default:
    return tensors_device(op, args).value_or(Device::cpu());
  }
}

void check_eager(OpKind op, std::span<const Value> args) {
  switch (op_category(op)) {
  case OpCategory::Transfer:
  case OpCategory::Factory:
  case OpCategory::DataDependent:
    return; // their kernels move data themselves
  default:
    break;
  }
  const std::optional<Device> d = tensors_device(op, args);
  if (d && !d->is_cpu()) {
    user_error(std::string(op_aten_name(op)) +
               ": eager kernels run on the CPU only, and this call's tensors are on " + d->str() +
               ". Compile the function (compiler::compile) to run it on the GPU, or move the "
               "tensors to the host with .to(\"cpu\") first");
  }
}

void stamp(Value& result, Device device) {
  if (auto* t = std::get_if<Tensor>(&result); t != nullptr && t->defined()) {
    t->impl()->device = device;
  } else if (auto* list = std::get_if<std::vector<Tensor>>(&result)) {
    for (Tensor& x : *list) {
      x.impl()->device = device;
    }
  }
}

} // namespace compiler::op_device
