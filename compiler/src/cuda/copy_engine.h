// Internal: copies between host memory and a device, and between devices, ordered on a stream.
//
// Host memory here is ordinary (pageable) memory: the tensors' own. The driver cannot DMA from
// it directly, so a copy either goes through the driver's own staging and then waits for the
// stream (the "direct" path: the host may not touch the buffer before the copy is done, so the
// call blocks until all the stream's earlier work has finished), or through our two pinned
// 8 MiB buffers in turns, the host filling (or draining) one on several threads
// (cuda/host_copy.h) while the device copies the other (the "staged" path: host-to-device then
// never waits for earlier work, and device-to-host overlaps the two halves). Which path a copy
// takes depends on its direction and size (CopyPolicy); bench_cuda_runtime measures both so the
// thresholds rest on figures.
#pragma once

#include "cuda/runtime.h"

#include <cstddef>

namespace compiler::cuda {

struct CopyPolicy {
  // Host-to-device copies of at least this many bytes go direct; smaller ones are staged.
  std::size_t h2d_direct_min_bytes;
  // Device-to-host copies of at least this many bytes are staged; smaller ones go direct.
  std::size_t d2h_staged_min_bytes;
};
// The policy in force: the defaults, or TORCHSCOPE_CUDA_H2D_DIRECT_MIN_BYTES and
// TORCHSCOPE_CUDA_D2H_STAGED_MIN_BYTES from the environment (read once).
const CopyPolicy& copy_policy();

// Host to device. On return `src` may be reused; later work on `stream` sees `dst`.
void copy_to_device(DeviceContext& ctx, CUdeviceptr dst, const void* src, std::size_t nbytes,
                    CUstream stream);
// Device to host. On return `dst` holds the data (earlier work on `stream` included).
void copy_to_host(DeviceContext& ctx, void* dst, CUdeviceptr src, std::size_t nbytes,
                  CUstream stream);
// The two paths, whatever the policy says (for the benchmark and tests).
void copy_to_device_direct(DeviceContext& ctx, CUdeviceptr dst, const void* src, std::size_t nbytes,
                           CUstream stream);
void copy_to_device_staged(DeviceContext& ctx, CUdeviceptr dst, const void* src, std::size_t nbytes,
                           CUstream stream);
void copy_to_host_direct(DeviceContext& ctx, void* dst, CUdeviceptr src, std::size_t nbytes,
                         CUstream stream);
void copy_to_host_staged(DeviceContext& ctx, void* dst, CUdeviceptr src, std::size_t nbytes,
                         CUstream stream);

// Within one device, ordered on `stream` (asynchronous).
void copy_on_device(DeviceContext& ctx, CUdeviceptr dst, CUdeviceptr src, std::size_t nbytes,
                    CUstream stream);
// From one device to another: the source device's current stream is waited for, then the copy
// is queued on the destination's current stream.
void copy_between_devices(DeviceContext& dst_ctx, CUdeviceptr dst, DeviceContext& src_ctx,
                          CUdeviceptr src, std::size_t nbytes);

} // namespace compiler::cuda
