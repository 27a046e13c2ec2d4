// The CUDA runtime behind the tensor code (tensor/device_memory.h) and behind the public
// compiler/cuda/cuda.h.
#include "compiler/core/errors.h"
#include "compiler/cuda/cuda.h"
#include "cuda/copy_engine.h"
#include "cuda/runtime.h"
#include "tensor/device_memory.h"

#include <cstdio>
#include <cstring>

namespace compiler {

namespace {

std::string format_bytes(std::size_t bytes) {
  char text[32];
  const double b = static_cast<double>(bytes);
  if (bytes >= (std::size_t{1} << 30)) {
    std::snprintf(text, sizeof text, "%.2f GiB", b / (1u << 30));
  } else if (bytes >= (std::size_t{1} << 20)) {
    std::snprintf(text, sizeof text, "%.2f MiB", b / (1u << 20));
  } else {
    std::snprintf(text, sizeof text, "%zu bytes", bytes);
  }
  return text;
}

CUdeviceptr device_ptr(const void* p) {
  return reinterpret_cast<CUdeviceptr>(p);
}

// The device of a CUDA Device, or its own index -1 default when unset.
int index_of(int device) {
  return device < 0 ? cuda::current_device() : device;
}

} // namespace

void* device_memory::allocate(Device device, std::size_t nbytes) {
  cuda::DeviceContext& ctx = cuda::context_of(device);
  void* ptr =
      ctx.allocator().allocate(nbytes, reinterpret_cast<cuda::StreamId>(ctx.current_stream()));
  if (ptr == nullptr) {
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    ctx.bind();
    (void)cuda::driver().cuMemGetInfo(&free_bytes, &total_bytes);
    const cuda::MemoryStats s = ctx.allocator().stats();
    user_error("CUDA out of memory on " + ctx.device().str() + ": tried to allocate " +
               format_bytes(nbytes) + "; live tensors hold " + format_bytes(s.allocated_bytes) +
               ", the allocator has reserved " + format_bytes(s.reserved_bytes) +
               ", and the device has " + format_bytes(free_bytes) + " free of " +
               format_bytes(total_bytes));
  }
  return ptr;
}

void device_memory::release(Device device, void* ptr) noexcept {
  try {
    cuda::context_of(device).allocator().free(ptr);
  } catch (const std::exception& e) {
    // A destructor cannot throw; the block is lost, the process goes on.
    std::fprintf(stderr, "torchscope: freeing GPU memory on %s failed: %s\n", device.str().c_str(),
                 e.what());
  }
}

void device_memory::copy(Device dst_device, void* dst, Device src_device, const void* src,
                         std::size_t nbytes) {
  if (nbytes == 0) {
    return;
  }
  if (dst_device.is_cpu() && src_device.is_cpu()) {
    std::memcpy(dst, src, nbytes);
  } else if (src_device.is_cpu()) {
    cuda::DeviceContext& ctx = cuda::context_of(dst_device);
    cuda::copy_to_device(ctx, device_ptr(dst), src, nbytes, ctx.current_stream());
  } else if (dst_device.is_cpu()) {
    cuda::DeviceContext& ctx = cuda::context_of(src_device);
    cuda::copy_to_host(ctx, dst, device_ptr(src), nbytes, ctx.current_stream());
  } else if (dst_device == src_device) {
    cuda::DeviceContext& ctx = cuda::context_of(dst_device);
    cuda::copy_on_device(ctx, device_ptr(dst), device_ptr(src), nbytes, ctx.current_stream());
  } else {
    cuda::copy_between_devices(cuda::context_of(dst_device), device_ptr(dst),
                               cuda::context_of(src_device), device_ptr(src), nbytes);
  }
}

void device_memory::zero(Device device, void* ptr, std::size_t nbytes) {
  cuda::DeviceContext& ctx = cuda::context_of(device);
  ctx.bind();
  if (nbytes % 4 == 0 && reinterpret_cast<std::uintptr_t>(ptr) % 4 == 0) {
    TORCHSCOPE_CU(cuMemsetD32Async, device_ptr(ptr), 0u, nbytes / 4, ctx.current_stream());
  } else {
    TORCHSCOPE_CU(cuMemsetD8Async, device_ptr(ptr), static_cast<unsigned char>(0), nbytes,
                  ctx.current_stream());
  }
}

namespace cuda {

bool is_available() {
  return driver_status().api != nullptr;
}

std::string unavailable_reason() {
  return driver_status().unavailable_reason;
}

int device_count() {
  return driver_status().device_count;
}

DeviceProperties device_properties(int index) {
  return device_context(index).properties();
}

void synchronize(int device) {
  if (is_available()) {
    device_context(index_of(device)).synchronize();
  }
}

MemoryStats memory_stats(int device) {
  DeviceContext* ctx = existing_context(index_of(device));
  return ctx != nullptr ? ctx->allocator().stats() : MemoryStats{};
}

void reset_peak_memory_stats(int device) {
  if (DeviceContext* ctx = existing_context(index_of(device))) {
    ctx->allocator().reset_peak();
  }
}

void empty_cache(int device) {
  if (DeviceContext* ctx = existing_context(index_of(device))) {
    ctx->allocator().empty_cache();
  }
}

} // namespace cuda

} // namespace compiler
