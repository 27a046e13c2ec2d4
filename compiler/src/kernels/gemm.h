// kernels (shared with inductor/runtime): our single-precision GEMM, the extern kernel behind
// matmul, bmm and addmm:
//   C[m, n] = sum_k A[m, k] * B[k, n]  (+ bias[m, n], broadcast by zero strides)
// with any strides on A, B and the bias (operands are packed into cache-sized panels), C
// row-major. Blocked for the caches (panels of A in L2, of B in L3), an AVX-512 register-tiled
// micro-kernel (12 x 32) where the CPU has it, AVX2 (6 x 16) otherwise, a portable one last;
// row blocks claimed by the kernel thread pool's threads, which share each packed panel of B.
// docs/COMPILER.md compares it with OpenBLAS.
#pragma once

#include <cstdint>

namespace compiler::inductor {

struct MatrixView {
  const float* data = nullptr;
  std::int64_t row_stride = 0; // elements
  std::int64_t col_stride = 1;
};

// C = A @ B (+ bias). `c` is m x n with row stride `ldc`.
void sgemm(std::int64_t m, std::int64_t n, std::int64_t k, MatrixView a, MatrixView b, float* c,
           std::int64_t ldc, const MatrixView* bias);

// Which micro-kernel sgemm uses on this machine: "avx512", "avx2" or "portable".
const char* sgemm_kernel_name() noexcept;

} // namespace compiler::inductor
