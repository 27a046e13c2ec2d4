// Direct and staged copies (see copy_engine.h for the two paths).
#include "cuda/copy_engine.h"

#include "cuda/host_copy.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace compiler::cuda {

namespace {

std::size_t env_bytes(const char* name, std::size_t fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') {
    return fallback;
  }
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  return end != nullptr && *end == '\0' ? static_cast<std::size_t>(v) : fallback;
}

constexpr std::size_t kNever = std::numeric_limits<std::size_t>::max();

// The defaults, from bench_cuda_runtime on an H100 machine (docs/COMPILER.md, "GPU runtime").
// Host to device: staged at every size. From 16 MiB it is 1.5-4.5x faster than the driver's
// pageable path (34 against 8 GB/s at 256 MiB); below, it is about as fast (a little slower at
// 1 MiB), and it never waits for the stream's earlier work, which the direct path must. Device
// to host: staged from 64 KiB, faster at every size measured (35 against 14 GB/s at 256 MiB).
constexpr std::size_t kDefaultH2dDirectMin = kNever;
constexpr std::size_t kDefaultD2hStagedMin = std::size_t{64} << 10;

} // namespace

const CopyPolicy& copy_policy() {
  static const CopyPolicy policy{
      env_bytes("TORCHSCOPE_CUDA_H2D_DIRECT_MIN_BYTES", kDefaultH2dDirectMin),
      env_bytes("TORCHSCOPE_CUDA_D2H_STAGED_MIN_BYTES", kDefaultD2hStagedMin),
  };
  return policy;
}

void copy_to_device_direct(DeviceContext& ctx, CUdeviceptr dst, const void* src, std::size_t nbytes,
                           CUstream stream) {
  ctx.bind();
  TORCHSCOPE_CU(cuMemcpyHtoDAsync, dst, src, nbytes, stream);
  // From pageable memory the driver may still read `src` after returning.
  TORCHSCOPE_CU(cuStreamSynchronize, stream);
}

void copy_to_device_staged(DeviceContext& ctx, CUdeviceptr dst, const void* src, std::size_t nbytes,
                           CUstream stream) {
  StagingBuffers& staging = ctx.staging();
  std::lock_guard lock(staging.mutex);
  ctx.bind();
  const auto* from = static_cast<const char*>(src);
  for (std::size_t offset = 0, turn = 0; offset < nbytes; offset += StagingBuffers::kChunkBytes) {
    const std::size_t n = std::min(StagingBuffers::kChunkBytes, nbytes - offset);
    const std::size_t b = turn++ % 2;
    staging.done[b]->synchronize(); // the device has finished with this buffer's last chunk
    parallel_memcpy(staging.buffers[b], from + offset, n);
    TORCHSCOPE_CU(cuMemcpyHtoDAsync, dst + offset, staging.buffers[b], n, stream);
    staging.done[b]->record(stream);
  }
}

void copy_to_host_direct(DeviceContext& ctx, void* dst, CUdeviceptr src, std::size_t nbytes,
                         CUstream stream) {
  ctx.bind();
  TORCHSCOPE_CU(cuMemcpyDtoHAsync, dst, src, nbytes, stream);
  TORCHSCOPE_CU(cuStreamSynchronize, stream);
}

void copy_to_host_staged(DeviceContext& ctx, void* dst, CUdeviceptr src, std::size_t nbytes,
                         CUstream stream) {
  StagingBuffers& staging = ctx.staging();
  std::lock_guard lock(staging.mutex);
  ctx.bind();
  auto* to = static_cast<char*>(dst);
  constexpr std::size_t kChunk = StagingBuffers::kChunkBytes;
  const std::size_t chunks = (nbytes + kChunk - 1) / kChunk;
  // Chunk i is copied into buffer i % 2 while the host drains chunk i - 1 from the other.
  auto drain = [&](std::size_t i) {
    const std::size_t b = i % 2;
    staging.done[b]->synchronize();
    parallel_memcpy(to + i * kChunk, staging.buffers[b], std::min(kChunk, nbytes - i * kChunk));
  };
  for (std::size_t i = 0; i < chunks; ++i) {
    const std::size_t b = i % 2;
    const std::size_t n = std::min(kChunk, nbytes - i * kChunk);
    TORCHSCOPE_CU(cuMemcpyDtoHAsync, staging.buffers[b], src + i * kChunk, n, stream);
    staging.done[b]->record(stream);
    if (i > 0) {
      drain(i - 1);
    }
  }
  if (chunks > 0) {
    drain(chunks - 1);
  }
}

void copy_to_device(DeviceContext& ctx, CUdeviceptr dst, const void* src, std::size_t nbytes,
                    CUstream stream) {
  if (nbytes >= copy_policy().h2d_direct_min_bytes) {
    copy_to_device_direct(ctx, dst, src, nbytes, stream);
  } else {
    copy_to_device_staged(ctx, dst, src, nbytes, stream);
  }
}

void copy_to_host(DeviceContext& ctx, void* dst, CUdeviceptr src, std::size_t nbytes,
                  CUstream stream) {
  if (nbytes >= copy_policy().d2h_staged_min_bytes) {
    copy_to_host_staged(ctx, dst, src, nbytes, stream);
  } else {
    copy_to_host_direct(ctx, dst, src, nbytes, stream);
  }
}

void copy_on_device(DeviceContext& ctx, CUdeviceptr dst, CUdeviceptr src, std::size_t nbytes,
                    CUstream stream) {
  ctx.bind();
  TORCHSCOPE_CU(cuMemcpyDtoDAsync, dst, src, nbytes, stream);
}

void copy_between_devices(DeviceContext& dst_ctx, CUdeviceptr dst, DeviceContext& src_ctx,
                          CUdeviceptr src, std::size_t nbytes) {
  src_ctx.bind();
  TORCHSCOPE_CU(cuStreamSynchronize, src_ctx.current_stream());
  dst_ctx.bind();
  TORCHSCOPE_CU(cuMemcpyPeerAsync, dst, dst_ctx.context(), src, src_ctx.context(), nbytes,
                dst_ctx.current_stream());
}

} // namespace compiler::cuda
