// codegen/cuda: the extern kernels of the GPU backend (matmul, bmm, addmm), as Inductor calls
// extern_kernels.mm on cuBLAS. Three implementations of C[m, n] = A @ B (+ bias):
//   - cuBLAS, opened at run time like the driver (dlopen of libcublas from the toolkit's
//     folder), for operands with one unit stride each (row-major or transposed);
//   - cuBLASLt (dlopen of libcublasLt) on the same operands, its algorithm picked by its
//     heuristic per shape (PyTorch's path for fp32 GEMMs);
//   - a generated tiled kernel (shared-memory tiles of 64 x 64, 4 x 4 outputs per thread) for
//     any strides, and wherever cuBLAS is absent.
// An addmm writes the broadcast bias first and accumulates onto it (on the GPU the lowering
// leaves a 1-D or 2-D bias to a pointwise add instead). max-autotune measures all three
// (runtime/cuda_autotune.h).
#pragma once

#include "cuda/runtime.h"
#include "kernels/gemm.h"

#include <string>

namespace compiler::inductor::cuda_codegen {

enum class MatmulImpl : std::uint8_t { Cublas, CublasLt, Generated };
std::string_view matmul_impl_name(MatmulImpl impl) noexcept;

// Whether cuBLASLt was loaded beside cuBLAS (its products take the operands cuBLAS takes).
bool cublaslt_available();

// Whether cuBLAS could be loaded ("" when it is usable).
const std::string& cublas_unavailable_reason();

// Whether cuBLAS can take these operands as they are laid out.
bool cublas_takes(std::int64_t m, std::int64_t n, std::int64_t k, MatrixView a, MatrixView b);

// The implementation used when nothing was measured: cuBLAS where it takes the operands.
MatmulImpl default_matmul(std::int64_t m, std::int64_t n, std::int64_t k, MatrixView a,
                          MatrixView b);

// Queues C = A @ B (+ bias) on `stream` (device pointers; `c` is m x n with row stride ldc).
// `impl` falls back to Generated when cuBLAS cannot take the operands.
void matmul(cuda::DeviceContext& ctx, CUstream stream, MatmulImpl impl, std::int64_t m,
            std::int64_t n, std::int64_t k, MatrixView a, MatrixView b, float* c, std::int64_t ldc,
            const MatrixView* bias);

} // namespace compiler::inductor::cuda_codegen
