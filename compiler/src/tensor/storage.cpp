// Storage: 64-byte aligned, zero-filled CPU memory (aligned for vector loads; zero-filled so a
// freshly made tensor has defined contents), or GPU memory from the device runtime
// (tensor/device_memory.h), which it returns there when the last tensor using it goes.
#include "compiler/tensor/tensor.h"
#include "tensor/device_memory.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace compiler {

namespace {

void* allocate_host(std::size_t nbytes, Storage::Fill fill) {
  // aligned_alloc needs a size that is a multiple of the alignment, and a non-zero one.
  std::size_t rounded =
      ((nbytes + Storage::kAlignment - 1) / Storage::kAlignment) * Storage::kAlignment;
  rounded = rounded == 0 ? Storage::kAlignment : rounded;
  void* data = std::aligned_alloc(Storage::kAlignment, rounded);
  if (data == nullptr) {
    throw std::bad_alloc();
  }
  if (fill == Storage::Fill::Zeros) {
    std::memset(data, 0, rounded);
  }
  return data;
}

} // namespace

Storage::Storage(std::size_t nbytes, Fill fill)
    : data_(allocate_host(nbytes, fill)), nbytes_(nbytes) {}

Storage::Storage(std::size_t nbytes, Device device, Fill fill)
    : data_(device.is_cpu() ? allocate_host(nbytes, fill)
                            : device_memory::allocate(device, nbytes)),
      nbytes_(nbytes), device_(device) {}

Storage::~Storage() {
  if (device_.is_cpu()) {
    std::free(data_);
  } else {
    device_memory::release(device_, data_);
  }
}

} // namespace compiler
