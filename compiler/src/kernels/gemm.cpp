// Blocked SGEMM (kernels/gemm.h). Loop order, outermost first: nc-wide column panels
// of C; kc-deep slices of K (B's kc x nc panel packed once per slice, shared by the threads);
// row blocks of C claimed by the threads (A's mc x kc panel packed per block); micro-tiles of
// MR x NR accumulated in registers over the slice and added to C (the first slice writes C,
// plus the bias).
#include "kernels/gemm.h"

#include "kernels/thread_pool.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <immintrin.h>
#include <memory>
#include <vector>

namespace compiler::inductor {

namespace {

constexpr std::int64_t kKc = 256;  // depth of a slice: an A micro-panel row stays in L1
constexpr std::int64_t kMc = 144;  // rows of A per packed panel (a multiple of every MR)
constexpr std::int64_t kNc = 2048; // columns of B per packed panel

struct Aligned {
  explicit Aligned(std::size_t floats)
      : p(static_cast<float*>(std::aligned_alloc(64, ((floats * 4 + 63) / 64) * 64 + 64))) {}
  ~Aligned() { std::free(p); }
  Aligned(const Aligned&) = delete;
  Aligned& operator=(const Aligned&) = delete;
  float* p;
};

// Packs rows [i0, i0+mc) x cols [p0, p0+kc) of A as micro-panels of MR rows: panel r holds
// A[i0 + r*MR + ii][p0 + kk] at [r][kk][ii], zero-padded to whole panels.
template <int MR>
void pack_a(const MatrixView& a, std::int64_t i0, std::int64_t mc, std::int64_t p0, std::int64_t kc,
            float* out) {
  for (std::int64_t r = 0; r < mc; r += MR) {
    const std::int64_t rows = std::min<std::int64_t>(MR, mc - r);
    for (std::int64_t kk = 0; kk < kc; ++kk) {
      for (int ii = 0; ii < MR; ++ii) {
        *out++ = ii < rows ? a.data[(i0 + r + ii) * a.row_stride + (p0 + kk) * a.col_stride] : 0.0f;
      }
    }
  }
}

// Packs rows [p0, p0+kc) x cols [j0, j0+nc) of B as micro-panels of NR columns: [c][kk][jj].
template <int NR>
void pack_b(const MatrixView& b, std::int64_t p0, std::int64_t kc, std::int64_t j0, std::int64_t nc,
            float* out) {
  for (std::int64_t c = 0; c < nc; c += NR) {
    const std::int64_t cols = std::min<std::int64_t>(NR, nc - c);
    for (std::int64_t kk = 0; kk < kc; ++kk) {
      const float* row = b.data + (p0 + kk) * b.row_stride + (j0 + c) * b.col_stride;
      if (cols == NR && b.col_stride == 1) {
        std::memcpy(out, row, NR * sizeof(float));
        out += NR;
        continue;
      }
      for (int jj = 0; jj < NR; ++jj) {
        *out++ = jj < cols ? row[jj * b.col_stride] : 0.0f;
      }
    }
  }
}

// Writes an MR x NR tile of accumulators into C (rows x cols of it), adding to C unless this
// is the first slice, and adding the bias on the first slice.
template <int MR, int NR>
void write_tile(const float* tile, float* c, std::int64_t ldc, std::int64_t rows, std::int64_t cols,
                bool first, const MatrixView* bias, std::int64_t i, std::int64_t j) {
  for (std::int64_t ii = 0; ii < rows; ++ii) {
    float* crow = c + ii * ldc;
    for (std::int64_t jj = 0; jj < cols; ++jj) {
      float v = tile[ii * NR + jj];
      if (first) {
        if (bias != nullptr) {
          v += bias->data[(i + ii) * bias->row_stride + (j + jj) * bias->col_stride];
        }
        crow[jj] = v;
      } else {
        crow[jj] += v;
      }
    }
  }
}

// ---------------------------------------------------------------- micro-kernels
// Every loop over the tile's rows is unrolled so the accumulators live in registers (24 zmm for
// AVX-512, 12 ymm for AVX2) for the whole depth loop.

__attribute__((target("avx512f,fma"))) void kernel_avx512(std::int64_t kc, const float* a,
                                                          const float* b, float* tile) {
  constexpr int MR = 12;
  __m512 c0[MR];
  __m512 c1[MR];
#pragma GCC unroll 12
  for (int i = 0; i < MR; ++i) {
    c0[i] = _mm512_setzero_ps();
    c1[i] = _mm512_setzero_ps();
  }
  for (std::int64_t p = 0; p < kc; ++p) {
    const __m512 b0 = _mm512_load_ps(b);
    const __m512 b1 = _mm512_load_ps(b + 16);
#pragma GCC unroll 12
    for (int i = 0; i < MR; ++i) {
      const __m512 ai = _mm512_set1_ps(a[i]);
      c0[i] = _mm512_fmadd_ps(ai, b0, c0[i]);
      c1[i] = _mm512_fmadd_ps(ai, b1, c1[i]);
    }
    a += MR;
    b += 32;
  }
#pragma GCC unroll 12
  for (int i = 0; i < MR; ++i) {
    _mm512_storeu_ps(tile + i * 32, c0[i]);
    _mm512_storeu_ps(tile + i * 32 + 16, c1[i]);
  }
}

__attribute__((target("avx2,fma"))) void kernel_avx2(std::int64_t kc, const float* a,
                                                     const float* b, float* tile) {
  constexpr int MR = 6;
  __m256 c0[MR];
  __m256 c1[MR];
#pragma GCC unroll 6
  for (int i = 0; i < MR; ++i) {
    c0[i] = _mm256_setzero_ps();
    c1[i] = _mm256_setzero_ps();
  }
  for (std::int64_t p = 0; p < kc; ++p) {
    const __m256 b0 = _mm256_load_ps(b);
    const __m256 b1 = _mm256_load_ps(b + 8);
#pragma GCC unroll 6
    for (int i = 0; i < MR; ++i) {
      const __m256 ai = _mm256_broadcast_ss(a + i);
      c0[i] = _mm256_fmadd_ps(ai, b0, c0[i]);
      c1[i] = _mm256_fmadd_ps(ai, b1, c1[i]);
    }
    a += MR;
    b += 16;
  }
#pragma GCC unroll 6
  for (int i = 0; i < MR; ++i) {
    _mm256_storeu_ps(tile + i * 16, c0[i]);
    _mm256_storeu_ps(tile + i * 16 + 8, c1[i]);
  }
}

void kernel_portable(std::int64_t kc, const float* a, const float* b, float* tile) {
  constexpr int MR = 4;
  constexpr int NR = 8;
  float c[MR][NR] = {};
  for (std::int64_t p = 0; p < kc; ++p) {
    for (int i = 0; i < MR; ++i) {
      for (int j = 0; j < NR; ++j) {
        c[i][j] += a[i] * b[j];
      }
    }
    a += MR;
    b += NR;
  }
  std::memcpy(tile, c, sizeof c);
}

// Work below this many multiply-adds runs on the calling thread alone.
constexpr std::int64_t kMinParallelWork = std::int64_t{1} << 20;

// The GEMM for one micro-kernel shape. For each kc x nc slice of B: the threads pack it together
// into one shared panel, then claim row blocks of C (a few per thread, so a thread the OS sets
// aside holds up one block, not half of C), each packing its block of A and running the
// micro-kernel over it.
template <int MR, int NR, void (*Kernel)(std::int64_t, const float*, const float*, float*)>
void gemm(std::int64_t m, std::int64_t n, std::int64_t k, const MatrixView& a, const MatrixView& b,
          float* c, std::int64_t ldc, const MatrixView* bias) {
  const std::int64_t depth = std::max<std::int64_t>(k, 1);
  const std::int64_t threads = m * n * depth >= 2 * kMinParallelWork ? thread_count() : 1;
  const std::int64_t nc_max = std::min(n, kNc);
  Aligned bpack(static_cast<std::size_t>(((nc_max + NR - 1) / NR) * NR * kKc));
  // Row blocks: kMc rows, fewer where that leaves each thread fewer than 4 blocks.
  const std::int64_t per_block = (m + 4 * threads - 1) / (4 * threads);
  const std::int64_t mc = std::min(kMc, std::max<std::int64_t>(MR, (per_block + MR - 1) / MR * MR));
  const std::int64_t blocks = (m + mc - 1) / mc;
  for (std::int64_t j0 = 0; j0 < n; j0 += kNc) {
    const std::int64_t nc = std::min(kNc, n - j0);
    const std::int64_t panels = (nc + NR - 1) / NR;
    for (std::int64_t p0 = 0; p0 < depth; p0 += kKc) {
      const std::int64_t kc = std::min(kKc, k - p0);
      const bool first = p0 == 0;
      if (kc > 0) {
        parallel_for(panels, 1, kc * NR, threads > 1 ? 1 << 16 : panels * kc * NR,
                     [&](std::int64_t begin, std::int64_t end) {
                       pack_b<NR>(b, p0, kc, j0 + begin * NR, std::min(nc, end * NR) - begin * NR,
                                  bpack.p + begin * NR * kc);
                     });
      }
      parallel_for(
          blocks, 1, mc * nc * depth, threads > 1 ? kMinParallelWork : blocks * mc * nc * depth,
          [&](std::int64_t block_begin, std::int64_t block_end) {
            static thread_local Aligned apack(
                static_cast<std::size_t>(((kMc + MR - 1) / MR) * MR * kKc));
            alignas(64) float tile[MR * NR];
            for (std::int64_t blk = block_begin; blk < block_end; ++blk) {
              const std::int64_t i0 = blk * mc;
              const std::int64_t rows = std::min(mc, m - i0);
              if (kc > 0) {
                pack_a<MR>(a, i0, rows, p0, kc, apack.p);
              }
              for (std::int64_t jr = 0; jr < nc; jr += NR) {
                for (std::int64_t ir = 0; ir < rows; ir += MR) {
                  if (kc > 0) {
                    Kernel(kc, apack.p + ir * kc, bpack.p + jr * kc, tile);
                  } else {
                    std::fill(std::begin(tile), std::end(tile), 0.0f); // k == 0: C = bias or 0
                  }
                  write_tile<MR, NR>(tile, c + (i0 + ir) * ldc + j0 + jr, ldc,
                                     std::min<std::int64_t>(MR, rows - ir),
                                     std::min<std::int64_t>(NR, nc - jr), first, bias, i0 + ir,
                                     j0 + jr);
                }
              }
            }
          });
    }
  }
}

enum class Isa { Avx512, Avx2, Portable };

Isa isa() {
  static const Isa i = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) {
      return Isa::Avx512;
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
      return Isa::Avx2;
    }
    return Isa::Portable;
  }();
  return i;
}

} // namespace

const char* sgemm_kernel_name() noexcept {
  switch (isa()) {
  case Isa::Avx512:
    return "avx512";
  case Isa::Avx2:
    return "avx2";
  case Isa::Portable:
    return "portable";
  }
  return "?";
}

void sgemm(std::int64_t m, std::int64_t n, std::int64_t k, MatrixView a, MatrixView b, float* c,
           std::int64_t ldc, const MatrixView* bias) {
  if (m <= 0 || n <= 0) {
    return;
  }
  switch (isa()) {
  case Isa::Avx512:
    gemm<12, 32, &kernel_avx512>(m, n, k, a, b, c, ldc, bias);
    break;
  case Isa::Avx2:
    gemm<6, 16, &kernel_avx2>(m, n, k, a, b, c, ldc, bias);
    break;
  case Isa::Portable:
    gemm<4, 8, &kernel_portable>(m, n, k, a, b, c, ldc, bias);
    break;
  }
}

} // namespace compiler::inductor
