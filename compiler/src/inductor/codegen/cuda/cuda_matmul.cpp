// The GPU backend's matmul (codegen/cuda/cuda_matmul.h): cuBLAS through dlopen, and a generated
// tiled kernel.
#include "inductor/codegen/cuda/cuda_matmul.h"

#include "compiler/core/errors.h"
#include "compiler/tensor/tensor.h"
#include "cuda/module.h"
#include "cuda/nvrtc_compiler.h"

#include <cublasLt.h>
#include <cublas_api.h>
#include <dlfcn.h>
#include <map>
#include <memory>
#include <mutex>

namespace compiler::inductor::cuda_codegen {

namespace {

// dlopen of one of the toolkit's libraries by soname, then in the toolkit's folders; `tried`
// says why each attempt failed.
void* open_toolkit_library(const std::string& soname, std::string& tried) {
  for (const std::string& c : {soname, std::string(TORCHSCOPE_CUDA_LIBRARY_DIR) + "/" + soname,
                               "/usr/local/cuda/lib64/" + soname}) {
    void* lib = dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (lib != nullptr) {
      return lib;
    }
    const char* why = dlerror();
    tried += (tried.empty() ? "" : "; ") + std::string(why != nullptr ? why : c);
  }
  return nullptr;
}

// The cuBLAS functions used, looked up under the versioned names cublas_api.h declares.
struct CublasApi {
  decltype(&::cublasCreate_v2) create = nullptr;
  decltype(&::cublasSetStream_v2) set_stream = nullptr;
  decltype(&::cublasSgemm_v2) sgemm = nullptr;
  decltype(&::cublasSetWorkspace_v2) set_workspace = nullptr;
};

struct CublasStatus {
  CublasApi api;
  bool ok = false;
  std::string reason;
};

const CublasStatus& cublas_status() {
  static const CublasStatus status = [] {
    CublasStatus s;
    std::string tried;
    void* lib = open_toolkit_library("libcublas.so." + std::to_string(CUBLAS_VER_MAJOR), tried);
    if (lib == nullptr) {
      s.reason = "cuBLAS could not be loaded (" + tried + "): matmuls use the generated kernel";
      return s;
    }
    s.api.create = reinterpret_cast<decltype(s.api.create)>(dlsym(lib, "cublasCreate_v2"));
    s.api.set_stream =
        reinterpret_cast<decltype(s.api.set_stream)>(dlsym(lib, "cublasSetStream_v2"));
    s.api.sgemm = reinterpret_cast<decltype(s.api.sgemm)>(dlsym(lib, "cublasSgemm_v2"));
    s.api.set_workspace =
        reinterpret_cast<decltype(s.api.set_workspace)>(dlsym(lib, "cublasSetWorkspace_v2"));
    if (s.api.create == nullptr || s.api.set_stream == nullptr || s.api.sgemm == nullptr ||
        s.api.set_workspace == nullptr) {
      s.reason = "the cuBLAS library found lacks cublasSgemm_v2: matmuls use the generated kernel";
      return s;
    }
    s.ok = true;
    return s;
  }();
  return status;
}

// One handle per device, used under its mutex (a handle's stream is per handle).
// A workspace of its own lets cuBLAS pick its split-K and stream-K kernels (PyTorch gives its
// handles one too).
constexpr std::size_t kWorkspaceBytes = std::size_t{32} << 20;

struct CublasHandle {
  std::mutex mutex;
  cublasHandle_t handle = nullptr;
  std::unique_ptr<Storage> workspace;
};

CublasHandle& handle_for(cuda::DeviceContext& ctx) {
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<CublasHandle>> handles;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<CublasHandle>& h = handles[ctx.index()];
  if (!h) {
    h = std::make_unique<CublasHandle>();
    ctx.bind();
    cublasStatus_t st = cublas_status().api.create(&h->handle);
    if (st != CUBLAS_STATUS_SUCCESS) {
      throw cuda::CudaError("cublasCreate_v2", static_cast<int>(st), "cublasStatus_t", "");
    }
    h->workspace = std::make_unique<Storage>(kWorkspaceBytes, ctx.device());
    st = cublas_status().api.set_workspace(h->handle, h->workspace->data(), kWorkspaceBytes);
    if (st != CUBLAS_STATUS_SUCCESS) {
      throw cuda::CudaError("cublasSetWorkspace_v2", static_cast<int>(st), "cublasStatus_t", "");
    }
  }
  return *h;
}

// cuBLASLt (PyTorch's GEMM path for fp32 on recent GPUs): the same column-major product as
// cublasSgemm_v2, its algorithm chosen by cublasLtMatmulAlgoGetHeuristic with a workspace of
// its own, and remembered per shape.
struct CublasLtApi {
  decltype(&::cublasLtCreate) create = nullptr;
  decltype(&::cublasLtMatmulDescCreate) desc_create = nullptr;
  decltype(&::cublasLtMatmulDescDestroy) desc_destroy = nullptr;
  decltype(&::cublasLtMatmulDescSetAttribute) desc_set = nullptr;
  decltype(&::cublasLtMatrixLayoutCreate) layout_create = nullptr;
  decltype(&::cublasLtMatrixLayoutDestroy) layout_destroy = nullptr;
  decltype(&::cublasLtMatmulPreferenceCreate) pref_create = nullptr;
  decltype(&::cublasLtMatmulPreferenceDestroy) pref_destroy = nullptr;
  decltype(&::cublasLtMatmulPreferenceSetAttribute) pref_set = nullptr;
  decltype(&::cublasLtMatmulAlgoGetHeuristic) heuristic = nullptr;
  decltype(&::cublasLtMatmul) matmul = nullptr;
};

struct CublasLtStatus {
  CublasLtApi api;
  bool ok = false;
  std::string reason;
};

const CublasLtStatus& cublaslt_status() {
  static const CublasLtStatus status = [] {
    CublasLtStatus s;
    std::string tried;
    void* lib = open_toolkit_library("libcublasLt.so." + std::to_string(CUBLAS_VER_MAJOR), tried);
    if (lib == nullptr) {
      s.reason = "cuBLASLt could not be loaded (" + tried + ")";
      return s;
    }
    auto sym = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
      return fn != nullptr;
    };
    CublasLtApi& a = s.api;
    s.ok = sym(a.create, "cublasLtCreate") && sym(a.desc_create, "cublasLtMatmulDescCreate") &&
           sym(a.desc_destroy, "cublasLtMatmulDescDestroy") &&
           sym(a.desc_set, "cublasLtMatmulDescSetAttribute") &&
           sym(a.layout_create, "cublasLtMatrixLayoutCreate") &&
           sym(a.layout_destroy, "cublasLtMatrixLayoutDestroy") &&
           sym(a.pref_create, "cublasLtMatmulPreferenceCreate") &&
           sym(a.pref_destroy, "cublasLtMatmulPreferenceDestroy") &&
           sym(a.pref_set, "cublasLtMatmulPreferenceSetAttribute") &&
           sym(a.heuristic, "cublasLtMatmulAlgoGetHeuristic") && sym(a.matmul, "cublasLtMatmul");
    if (!s.ok) {
      s.reason = "the cuBLASLt library found lacks a function it needs";
    }
    return s;
  }();
  return status;
}

struct CublasLtHandle {
  std::mutex mutex;
  cublasLtHandle_t handle = nullptr;
  std::unique_ptr<Storage> workspace;
  std::map<std::string, cublasLtMatmulAlgo_t> algos; // per shape and layout
};

CublasLtHandle& lt_handle_for(cuda::DeviceContext& ctx) {
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<CublasLtHandle>> handles;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<CublasLtHandle>& h = handles[ctx.index()];
  if (!h) {
    auto made = std::make_unique<CublasLtHandle>();
    ctx.bind();
    const cublasStatus_t st = cublaslt_status().api.create(&made->handle);
    if (st != CUBLAS_STATUS_SUCCESS) {
      throw cuda::CudaError("cublasLtCreate", static_cast<int>(st), "cublasStatus_t", "");
    }
    made->workspace = std::make_unique<Storage>(kWorkspaceBytes, ctx.device());
    h = std::move(made);
  }
  return *h;
}

void check_lt(cublasStatus_t st, const char* call) {
  if (st != CUBLAS_STATUS_SUCCESS) {
    throw cuda::CudaError(call, static_cast<int>(st), "cublasStatus_t", "");
  }
}

// The generated kernels: a tiled matmul for any strides, and the bias broadcast of addmm.
constexpr const char* kMatmulSource = R"(
extern "C" __global__ void __launch_bounds__(256)
ts_matmul_tiled(const float* A, long long sam, long long sak, const float* B, long long sbk,
                long long sbn, float* C, long long ldc, long long M, long long N, long long K,
                int accumulate) {
  __shared__ float As[16][65];
  __shared__ float Bs[16][65];
  const int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
  const long long m0 = (long long)blockIdx.y * 64, n0 = (long long)blockIdx.x * 64;
  float acc[4][4];
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) acc[i][j] = 0.0f;
  for (long long k0 = 0; k0 < K; k0 += 16) {
    for (int e = threadIdx.x; e < 1024; e += 256) {
      const int mm = e >> 4, kk = e & 15;
      const long long gm = m0 + mm, gk = k0 + kk;
      As[kk][mm] = (gm < M && gk < K) ? A[gm * sam + gk * sak] : 0.0f;
      const int kb = e >> 6, nn = e & 63;
      const long long gkb = k0 + kb, gn = n0 + nn;
      Bs[kb][nn] = (gkb < K && gn < N) ? B[gkb * sbk + gn * sbn] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < 16; ++kk) {
      float a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) a[i] = As[kk][ty + 16 * i];
#pragma unroll
      for (int j = 0; j < 4; ++j) b[j] = Bs[kk][tx + 16 * j];
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const long long gm = m0 + ty + 16 * i;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const long long gn = n0 + tx + 16 * j;
      if (gm < M && gn < N) {
        float* out = C + gm * ldc + gn;
        *out = accumulate ? *out + acc[i][j] : acc[i][j];
      }
    }
  }
}
extern "C" __global__ void ts_fill_bias(float* C, long long ldc, long long M, long long N,
                                        const float* bias, long long rs, long long cs) {
  const long long total = M * N;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const long long m = i / N, n = i % N;
    C[m * ldc + n] = bias[m * rs + n * cs];
  }
}
)";

struct MatmulKernels {
  std::unique_ptr<cuda::Module> module;
  std::unique_ptr<cuda::Kernel> tiled;
  std::unique_ptr<cuda::Kernel> fill_bias;
};

const MatmulKernels& kernels_for(cuda::DeviceContext& ctx) {
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<MatmulKernels>> made;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<MatmulKernels>& k = made[ctx.index()];
  if (!k) {
    const cuda::CompileResult r =
        cuda::compile_cuda(kMatmulSource, "ts_matmul.cu", cuda::options_for(ctx.properties()));
    TORCHSCOPE_ASSERT(r.ok, r.failure_message("ts_matmul.cu").c_str());
    auto m = std::make_unique<MatmulKernels>();
    m->module = std::make_unique<cuda::Module>(ctx, r.image);
    m->tiled = std::make_unique<cuda::Kernel>(m->module->kernel("ts_matmul_tiled"));
    m->fill_bias = std::make_unique<cuda::Kernel>(m->module->kernel("ts_fill_bias"));
    k = std::move(m);
  }
  return *k;
}

// How cuBLAS (column-major) sees a row-major-indexed operand of `rows` x `cols`: its transpose
// as a column-major matrix (op N, ld = the row stride), or the operand itself as one (op T,
// ld = the column stride). Size-1 dims take any stride.
struct BlasOperand {
  bool ok = false;
  cublasOperation_t op = CUBLAS_OP_N;
  int ld = 1;
};

BlasOperand blas_operand(std::int64_t rows, std::int64_t cols, MatrixView v) {
  constexpr std::int64_t kMax = 0x7fffffff;
  BlasOperand o;
  if ((v.col_stride == 1 || cols == 1) &&
      (rows == 1 || v.row_stride >= std::max<std::int64_t>(1, cols))) {
    o.op = CUBLAS_OP_N;
    const std::int64_t ld = rows == 1 ? std::max<std::int64_t>(1, cols) : v.row_stride;
    o.ok = ld <= kMax;
    o.ld = static_cast<int>(ld);
  } else if ((v.row_stride == 1 || rows == 1) &&
             (cols == 1 || v.col_stride >= std::max<std::int64_t>(1, rows))) {
    o.op = CUBLAS_OP_T;
    const std::int64_t ld = cols == 1 ? std::max<std::int64_t>(1, rows) : v.col_stride;
    o.ok = ld <= kMax;
    o.ld = static_cast<int>(ld);
  }
  return o;
}

// C^T = op(B^T) op(A^T), column-major, through cuBLASLt (operands as blas_operand sees them).
void lt_matmul(cuda::DeviceContext& ctx, CUstream stream, int n, int m, int k, const float* b,
               BlasOperand ob, const float* a, BlasOperand oa, float* c, int ldc, float beta) {
  const CublasLtApi& api = cublaslt_status().api;
  CublasLtHandle& h = lt_handle_for(ctx);
  std::lock_guard<std::mutex> lock(h.mutex);
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t la = nullptr;
  cublasLtMatrixLayout_t lb = nullptr;
  cublasLtMatrixLayout_t lc = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  auto release = [&] {
    if (pref != nullptr)
      api.pref_destroy(pref);
    if (lc != nullptr)
      api.layout_destroy(lc);
    if (lb != nullptr)
      api.layout_destroy(lb);
    if (la != nullptr)
      api.layout_destroy(la);
    if (desc != nullptr)
      api.desc_destroy(desc);
  };
  try {
    check_lt(api.desc_create(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
    check_lt(api.desc_set(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ob.op, sizeof ob.op),
             "cublasLtMatmulDescSetAttribute");
    check_lt(api.desc_set(desc, CUBLASLT_MATMUL_DESC_TRANSB, &oa.op, sizeof oa.op),
             "cublasLtMatmulDescSetAttribute");
    // Stored shapes: op N stores the operand as used (rows x cols), op T its transpose.
    const bool bn = ob.op == CUBLAS_OP_N;
    const bool an = oa.op == CUBLAS_OP_N;
    check_lt(api.layout_create(&la, CUDA_R_32F, bn ? n : k, bn ? k : n, ob.ld),
             "cublasLtMatrixLayoutCreate");
    check_lt(api.layout_create(&lb, CUDA_R_32F, an ? k : m, an ? m : k, oa.ld),
             "cublasLtMatrixLayoutCreate");
    check_lt(api.layout_create(&lc, CUDA_R_32F, n, m, ldc), "cublasLtMatrixLayoutCreate");
    const std::string key = std::to_string(n) + "," + std::to_string(m) + "," + std::to_string(k) +
                            "," + std::to_string(ob.op) + std::to_string(oa.op) + "," +
                            std::to_string(ob.ld) + "," + std::to_string(oa.ld) + "," +
                            std::to_string(ldc) + (beta != 0.0f ? ",acc" : "");
    auto found = h.algos.find(key);
    if (found == h.algos.end()) {
      check_lt(api.pref_create(&pref), "cublasLtMatmulPreferenceCreate");
      const std::uint64_t bytes = kWorkspaceBytes;
      check_lt(api.pref_set(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &bytes, sizeof bytes),
               "cublasLtMatmulPreferenceSetAttribute");
      cublasLtMatmulHeuristicResult_t best{};
      int returned = 0;
      check_lt(api.heuristic(h.handle, desc, la, lb, lc, lc, pref, 1, &best, &returned),
               "cublasLtMatmulAlgoGetHeuristic");
      if (returned == 0) {
        throw cuda::CudaError("cublasLtMatmulAlgoGetHeuristic",
                              static_cast<int>(CUBLAS_STATUS_NOT_SUPPORTED), "cublasStatus_t",
                              "no algorithm for this product");
      }
      found = h.algos.emplace(key, best.algo).first;
    }
    const float alpha = 1.0f;
    check_lt(api.matmul(h.handle, desc, &alpha, b, la, a, lb, &beta, c, lc, c, lc, &found->second,
                        h.workspace->data(), kWorkspaceBytes, stream),
             "cublasLtMatmul");
  } catch (...) {
    release();
    throw;
  }
  release();
}

} // namespace

std::string_view matmul_impl_name(MatmulImpl impl) noexcept {
  switch (impl) {
  case MatmulImpl::Cublas:
    return "cublas";
  case MatmulImpl::CublasLt:
    return "cublaslt";
  case MatmulImpl::Generated:
    break;
  }
  return "generated";
}

bool cublaslt_available() {
  return cublas_status().ok && cublaslt_status().ok;
}

const std::string& cublas_unavailable_reason() {
  return cublas_status().reason;
}

bool cublas_takes(std::int64_t m, std::int64_t n, std::int64_t k, MatrixView a, MatrixView b) {
  constexpr std::int64_t kMax = 0x7fffffff;
  return cublas_status().ok && m > 0 && n > 0 && k > 0 && m <= kMax && n <= kMax && k <= kMax &&
         blas_operand(m, k, a).ok && blas_operand(k, n, b).ok;
}

MatmulImpl default_matmul(std::int64_t m, std::int64_t n, std::int64_t k, MatrixView a,
                          MatrixView b) {
  return cublas_takes(m, n, k, a, b) ? MatmulImpl::Cublas : MatmulImpl::Generated;
}

void matmul(cuda::DeviceContext& ctx, CUstream stream, MatmulImpl impl, std::int64_t m,
            std::int64_t n, std::int64_t k, MatrixView a, MatrixView b, float* c, std::int64_t ldc,
            const MatrixView* bias) {
  if (m <= 0 || n <= 0) {
    return;
  }
  ctx.bind();
  if (bias != nullptr) {
    const cuda::Kernel& fill = *kernels_for(ctx).fill_bias;
    const auto blocks = static_cast<unsigned>(std::min<std::int64_t>((m * n + 255) / 256, 65535));
    fill.launch_with({blocks}, {256}, 0, stream, c, static_cast<long long>(ldc),
                     static_cast<long long>(m), static_cast<long long>(n), bias->data,
                     static_cast<long long>(bias->row_stride),
                     static_cast<long long>(bias->col_stride));
  }
  if (impl == MatmulImpl::CublasLt && cublaslt_available() && cublas_takes(m, n, k, a, b)) {
    lt_matmul(ctx, stream, static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), b.data,
              blas_operand(k, n, b), a.data, blas_operand(m, k, a), c, static_cast<int>(ldc),
              bias != nullptr ? 1.0f : 0.0f);
    return;
  }
  if (impl != MatmulImpl::Generated && cublas_takes(m, n, k, a, b)) {
    const BlasOperand ob = blas_operand(k, n, b);
    const BlasOperand oa = blas_operand(m, k, a);
    CublasHandle& h = handle_for(ctx);
    std::lock_guard<std::mutex> lock(h.mutex);
    const CublasApi& api = cublas_status().api;
    const float alpha = 1.0f;
    const float beta = bias != nullptr ? 1.0f : 0.0f;
    cublasStatus_t st = api.set_stream(h.handle, stream);
    if (st == CUBLAS_STATUS_SUCCESS) {
      // Row-major C = A B is column-major C^T = B^T A^T.
      st = api.sgemm(h.handle, ob.op, oa.op, static_cast<int>(n), static_cast<int>(m),
                     static_cast<int>(k), &alpha, b.data, ob.ld, a.data, oa.ld, &beta, c,
                     static_cast<int>(ldc));
    }
    if (st != CUBLAS_STATUS_SUCCESS) {
      throw cuda::CudaError("cublasSgemm_v2", static_cast<int>(st), "cublasStatus_t", "");
    }
    return;
  }
  const cuda::Kernel& tiled = *kernels_for(ctx).tiled;
  const cuda::Dim3 grid{static_cast<unsigned>((n + 63) / 64), static_cast<unsigned>((m + 63) / 64),
                        1};
  tiled.launch_with(grid, {256}, 0, stream, a.data, static_cast<long long>(a.row_stride),
                    static_cast<long long>(a.col_stride), b.data,
                    static_cast<long long>(b.row_stride), static_cast<long long>(b.col_stride), c,
                    static_cast<long long>(ldc), static_cast<long long>(m),
                    static_cast<long long>(n), static_cast<long long>(k), bias != nullptr ? 1 : 0);
}

} // namespace compiler::inductor::cuda_codegen
