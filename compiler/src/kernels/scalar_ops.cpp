// Data-dependent ops: item() and to_bool() read a value out of a one-element tensor. They have
// no meta value (there is no data to read), which is exactly why capture breaks the graph at
// them; their meta functions return std::monostate after checking the arguments.
#include "kernels/device_copy.h"
#include "kernels/element.h"
#include "kernels/kernels.h"
#include "kernels/shape_util.h"

namespace compiler::kernels {

namespace {

void check_one_element(const Tensor& x, const char* name) {
  // Concrete sizes only: a symbolic numel is never 1 (capture specialises sizes 0 and 1).
  if (x.numel() != 1 || x.has_symbolic_sizes()) {
    user_error(std::string(name) +
               ": only a one-element tensor can be converted to a scalar, got " + x.type_string());
  }
}

// The one element, read from the host (a GPU tensor's is copied over first, as PyTorch's
// item() synchronises with the device).
double read_one(const Tensor& x, const char* name) {
  check_one_element(x, name);
  require_real(x, name);
  const Tensor host = to_device(x, Device::cpu());
  return load<double>(host.raw_data(), host.dtype(), 0);
}

} // namespace

Value eager_item(std::span<const Value> args) {
  return read_one(tensor_arg(args, 0), "item");
}

Value meta_item(std::span<const Value> args) {
  check_one_element(tensor_arg(args, 0), "item");
  return std::monostate{};
}

Value eager_to_bool(std::span<const Value> args) {
  return read_one(tensor_arg(args, 0), "to_bool") != 0.0;
}

Value meta_to_bool(std::span<const Value> args) {
  check_one_element(tensor_arg(args, 0), "to_bool");
  return std::monostate{};
}

} // namespace compiler::kernels
