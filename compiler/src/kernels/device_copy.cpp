// The eager `to` and its meta function, and the copy they share with factories and item().
#include "kernels/device_copy.h"

#include "kernels/copy.h"
#include "kernels/kernels.h"
#include "kernels/shape_util.h"
#include "tensor/device_memory.h"

namespace compiler::kernels {

namespace {

std::size_t byte_size(const Tensor& x) {
  return static_cast<std::size_t>(x.numel()) * dtype_size(x.dtype());
}

// A host tensor with `x`'s (GPU) values and layout: the storage span the view covers is copied
// over, then viewed with the same sizes and strides.
Tensor strided_to_host(const Tensor& x) {
  std::int64_t lowest = 0;
  std::int64_t highest = 0;
  for (std::size_t d = 0; d < x.sizes().size(); ++d) {
    const std::int64_t reach = (x.sizes()[d] - 1) * x.strides()[d];
    (reach < 0 ? lowest : highest) += reach;
  }
  const std::int64_t extent = highest - lowest + 1;
  Tensor span = Tensor::empty({extent}, x.dtype());
  const auto elem = static_cast<std::int64_t>(dtype_size(x.dtype()));
  device_memory::copy(Device::cpu(), span.raw_data(), x.device(),
                      static_cast<const char*>(x.raw_data()) + lowest * elem,
                      static_cast<std::size_t>(extent * elem));
  return make_view(span, x.sym_sizes(), x.strides(), -lowest);
}

} // namespace

Tensor to_device(const Tensor& x, Device device) {
  if (x.device() == device) {
    return x;
  }
  require_real(x, "to");
  if (x.numel() == 0) {
    return Tensor::empty(x.sizes(), x.dtype(), device);
  }
  Tensor source = x;
  if (!x.is_contiguous()) {
    // Lay the values out densely on the host first (where the strided copy runs).
    source = contiguous_as(x.device().is_cpu() ? x : strided_to_host(x), x.dtype());
    if (device.is_cpu()) {
      return source;
    }
  }
  Tensor out = Tensor::empty(x.sizes(), x.dtype(), device);
  device_memory::copy(device, out.raw_data(), source.device(), source.raw_data(),
                      byte_size(source));
  return out;
}

Device factory_device(std::span<const Value> args) {
  if (!args.empty()) {
    if (const auto* d = std::get_if<Device>(&args.back())) {
      return *d;
    }
  }
  return Device::cpu();
}

Value eager_to(std::span<const Value> args) {
  return to_device(tensor_arg(args, 0), value_device(arg(args, 1)));
}

Value meta_to(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  if (x.device() == value_device(arg(args, 1))) {
    return make_view(x, x.sym_sizes(), x.strides(), x.storage_offset()); // eager returns x
  }
  // A new contiguous tensor, as the copy is (run_meta gives it the device).
  return Tensor::fake(x.sym_sizes(), x.dtype());
}

} // namespace compiler::kernels
