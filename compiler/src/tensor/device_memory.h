// Internal: what the tensor code (Storage, the eager `to`, factories with a device) asks of a
// GPU runtime. The CUDA runtime (src/cuda/) implements it; a build without the CUDA Toolkit
// links src/cuda/no_cuda.cpp instead, whose functions say so. Every failure a user can cause
// (no driver, no such device, out of memory) is a UserError naming the device.
#pragma once

#include "compiler/tensor/device.h"

#include <cstddef>

namespace compiler::device_memory {

// `device` with its index filled in: "cuda" becomes the calling thread's current CUDA device
// (compiler/cuda/cuda.h's DeviceGuard; 0 by default). Needs no GPU: capture resolves devices
// while tracing on fake tensors.
Device resolve(Device device);

// `nbytes` of memory on a resolved CUDA device, from its caching allocator, ordered on the
// device's current stream.
void* allocate(Device device, std::size_t nbytes);
// Returns memory from allocate() (never throws: a failure here is reported on stderr).
void release(Device device, void* ptr) noexcept;

// Copies `nbytes` from `src` on `src_device` to `dst` on `dst_device` (host pointers for the
// CPU). On return the host may read `dst` (to the host) or reuse `src` (from the host); work
// the current stream runs later sees `dst` (every direction).
void copy(Device dst_device, void* dst, Device src_device, const void* src, std::size_t nbytes);

// Sets `nbytes` at `ptr` on a CUDA device to zero, ordered on the current stream.
void zero(Device device, void* ptr, std::size_t nbytes);

} // namespace compiler::device_memory
