// The parts of the GPU runtime that need no driver and exist in every build: the thread's
// current CUDA device, DeviceGuard, resolving "cuda" to an index, and CudaError.
#include "compiler/core/errors.h"
#include "compiler/cuda/cuda.h"
#include "tensor/device_memory.h"

#include <cstdint>

namespace compiler {

namespace {
thread_local int t_current_device = 0;
} // namespace

namespace cuda {

CudaError::CudaError(std::string call, int code, std::string name, std::string description)
    : std::runtime_error(call + " failed: " + name +
                         (description.empty() ? "" : " (" + description + ")")),
      call_(std::move(call)), code_(code), name_(std::move(name)) {}

int current_device() noexcept {
  return t_current_device;
}

DeviceGuard::DeviceGuard(int index) : previous_(t_current_device) {
  if (index < 0 || index > INT16_MAX) {
    user_error("DeviceGuard: invalid CUDA device index " + std::to_string(index));
  }
  t_current_device = index;
}

DeviceGuard::DeviceGuard(Device device) : previous_(t_current_device) {
  if (device.is_cuda() && device.has_index()) {
    t_current_device = device.index();
  }
}

DeviceGuard::~DeviceGuard() {
  t_current_device = previous_;
}

} // namespace cuda

Device device_memory::resolve(Device device) {
  if (device.is_cuda() && !device.has_index()) {
    return Device::cuda(static_cast<std::int16_t>(t_current_device));
  }
  return device;
}

} // namespace compiler
