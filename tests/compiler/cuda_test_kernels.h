// Hand-written CUDA C++ kernels shared by the CUDA runtime's tests and bench_cuda_runtime:
// small, each exercising something the runtime must handle (vector loads, shared memory and
// warp shuffles, half precision from the toolkit's headers, templates behind an extern "C"
// entry), and one that does not compile.
#pragma once

namespace cuda_test {

// out = a + b over n floats, 16-byte loads and stores where the pointers allow (they do for
// allocator blocks), one float4 per thread, then the tail element by element.
inline constexpr const char* kVectorAdd = R"cuda(
extern "C" __global__ void vector_add(const float* __restrict__ a, const float* __restrict__ b,
                                      float* __restrict__ out, long long n) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long n4 = n / 4;
  if (i < n4) {
    const float4 x = reinterpret_cast<const float4*>(a)[i];
    const float4 y = reinterpret_cast<const float4*>(b)[i];
    reinterpret_cast<float4*>(out)[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
  const long long tail = n4 * 4 + i;
  if (i < 4 && tail < n) {
    out[tail] = a[tail] + b[tail];
  }
}
)cuda";

// The sum of each block's 1024-element slice of `x` into partial[blockIdx.x]: a warp shuffle
// reduction, then one across warps through shared memory.
inline constexpr const char* kBlockSum = R"cuda(
extern "C" __global__ void block_sum(const float* __restrict__ x, float* __restrict__ partial,
                                     int n) {
  __shared__ float warp_sums[32];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  for (int offset = 16; offset > 0; offset /= 2) {
    v += __shfl_down_sync(0xffffffffu, v, offset);
  }
  if (threadIdx.x % 32 == 0) {
    warp_sums[threadIdx.x / 32] = v;
  }
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2) {
      v += __shfl_down_sync(0xffffffffu, v, offset);
    }
    if (threadIdx.x == 0) {
      partial[blockIdx.x] = v;
    }
  }
}
)cuda";

// y = x * scale in half precision (cuda_fp16.h, from the toolkit's include folder).
inline constexpr const char* kHalfScale = R"cuda(
#include <cuda_fp16.h>
extern "C" __global__ void half_scale(const __half* x, __half* y, float scale, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = __float2half(__half2float(x[i]) * scale);
  }
}
)cuda";

// A template instantiated behind an unmangled entry point.
inline constexpr const char* kTemplateFill = R"cuda(
template <typename T, int kUnroll>
__device__ void fill_n(T* out, T value, int n) {
  const int base = (blockIdx.x * blockDim.x + threadIdx.x) * kUnroll;
#pragma unroll
  for (int k = 0; k < kUnroll; ++k) {
    if (base + k < n) {
      out[base + k] = value;
    }
  }
}
extern "C" __global__ void fill_i32(int* out, int value, int n) { fill_n<int, 4>(out, value, n); }
)cuda";

// Launch overhead: a kernel that does nothing.
inline constexpr const char* kEmpty = R"cuda(
extern "C" __global__ void empty_kernel() {}
)cuda";

// Line 3 has an undeclared identifier.
inline constexpr const char* kBroken = R"cuda(
extern "C" __global__ void broken(float* out) {
  out[threadIdx.x] = undeclared_value;
}
)cuda";

} // namespace cuda_test
