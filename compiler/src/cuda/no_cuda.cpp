// The GPU runtime of a build without the CUDA Toolkit (-DTORCHSCOPE_WITH_CUDA=OFF): CUDA is
// never available, and everything that would need it says why.
#include "compiler/core/errors.h"
#include "compiler/cuda/cuda.h"
#include "tensor/device_memory.h"

#include <cstring>

namespace compiler {

namespace {

constexpr const char* kNoBackend =
    "this build has no CUDA backend (it was configured with -DTORCHSCOPE_WITH_CUDA=OFF; install "
    "the CUDA Toolkit at /usr/local/cuda and configure with -DTORCHSCOPE_WITH_CUDA=ON)";

[[noreturn]] void unavailable(Device device) {
  user_error("cannot use " + device.str() + ": " + kNoBackend);
}

} // namespace

namespace cuda {

bool is_available() {
  return false;
}
std::string unavailable_reason() {
  return kNoBackend;
}
int device_count() {
  return 0;
}
DeviceProperties device_properties(int index) {
  unavailable(Device::cuda(static_cast<std::int16_t>(index)));
}
void synchronize(int) {}
MemoryStats memory_stats(int) {
  return {};
}
void reset_peak_memory_stats(int) {}
void empty_cache(int) {}

} // namespace cuda

void* device_memory::allocate(Device device, std::size_t) {
  unavailable(device);
}

void device_memory::release(Device, void*) noexcept {}

void device_memory::copy(Device dst_device, void* dst, Device src_device, const void* src,
                         std::size_t nbytes) {
  if (!dst_device.is_cpu()) {
    unavailable(dst_device);
  }
  if (!src_device.is_cpu()) {
    unavailable(src_device);
  }
  std::memcpy(dst, src, nbytes);
}

void device_memory::zero(Device device, void*, std::size_t) {
  unavailable(device);
}

} // namespace compiler
