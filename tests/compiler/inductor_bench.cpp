// bench_inductor: the figures of Inductor's performance goals, one line each as
// "figure: value unit" (scripts/bench-inductor.sh adds PyTorch's and prints the ratios).
//   - a STREAM-style add (the machine's memory bandwidth with 2 threads)
//   - a chain of 8 cheap pointwise ops over two 16M-float inputs, compiled and eager
//   - a chain with transcendentals (sin, exp, tanh, sqrt), compiled and eager
//   - softmax over the rows of 4096 x 4096, layer_norm over 8192 x 1024
//   - matmul 1024 x 1024 (our GEMM through compile(), our eager kernel, OpenBLAS when built in)
//     and the machine's FMA peak measured in the same run (the yardstick of "50% of peak")
//   - the MLP forward pass of samples/compiler/mlp.cpp
//   - compile latency of a 200-op graph: cold (passes + LLVM to machine code) and from the
//     on-disk cache
// Timings are the median of several runs after a warm-up.
#include "compiler/capture/compile.h"
#include "compiler/inductor/inductor.h"
#include "compiler/inductor/metrics.h"
#include "compiler/nn/layers.h"
#include "compiler/ops/ops.h"
#include "inductor_test_data.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <immintrin.h>
#include <memory>
#include <string_view>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>
#include <vector>

#ifdef TORCHSCOPE_BENCH_OPENBLAS
#include <cblas.h>
#endif

using namespace compiler;
using inductor_test::wave;
using Clock = std::chrono::steady_clock;

namespace {

template <class Fn>
double median_ms(Fn&& fn, int rounds = 7) {
  fn(); // warm up (and compile)
  std::vector<double> t;
  for (int r = 0; r < rounds; ++r) {
    const auto t0 = Clock::now();
    fn();
    t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void figure(const char* name, double value, const char* unit) {
  std::printf("%s: %.3f %s\n", name, value, unit);
  std::fflush(stdout);
}

// The STREAM add's loop, compiled for the widest vector unit the CPU has (the build targets a
// baseline x86-64; with 16M floats the arrays sit largely in this machine's L3 cache, where a
// 4-lane loop, not memory, would be the limit).
__attribute__((target_clones("avx512f", "avx2", "default"))) void
add_range(const float* x, const float* y, float* z, std::int64_t begin, std::int64_t end) {
  for (std::int64_t i = begin; i < end; ++i) {
    z[i] = x[i] + y[i];
  }
}

// A STREAM-style add, c = a + b over n floats on every core: the machine's bandwidth for the
// same traffic as the pointwise chain (two streams read, one written). The arrays are 2 MiB
// aligned with huge pages requested and touched first, as the compiled code's buffers are.
double stream_add_gbs(std::int64_t n) {
  const std::size_t bytes = static_cast<std::size_t>(n) * sizeof(float);
  auto make = [&](float value) {
    auto* p = static_cast<float*>(std::aligned_alloc(std::size_t{2} << 20, bytes));
    madvise(p, bytes, MADV_HUGEPAGE);
    std::fill(p, p + n, value);
    return std::unique_ptr<float, decltype(&std::free)>(p, &std::free);
  };
  auto a = make(1.0f);
  auto b = make(2.0f);
  auto c = make(0.0f);
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  auto run = [&] {
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        const std::int64_t begin = n * t / threads;
        const std::int64_t end = n * (t + 1) / threads;
        add_range(a.get(), b.get(), c.get(), begin, end);
      });
    }
    for (std::thread& p : pool) {
      p.join();
    }
  };
  // The best of several runs, as STREAM reports (the machine's bandwidth, not its noise).
  run();
  double best = 1e300;
  for (int r = 0; r < 9; ++r) {
    const auto t0 = Clock::now();
    run();
    best = std::min(best, std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  return 3.0 * static_cast<double>(bytes) / (best * 1e6);
}

// One thread's FMA throughput: 12 independent chains of vector FMAs (enough in flight to fill
// two FMA units of latency 4), no loads. Returns a value so the work is not optimised away.
// One copy per instruction set the peak is measured with (a macro, since each copy must be
// compiled for its own target): the widest the host has is picked at run time (peak_isa).
#define TORCHSCOPE_FMA_CHAINS(NAME, TARGET, VEC, SET1, FMADD, FIRST)                               \
  __attribute__((target(TARGET))) float NAME(std::int64_t iterations) {                            \
    VEC acc[12];                                                                                   \
    for (int i = 0; i < 12; ++i) {                                                                 \
      acc[i] = SET1(0.001f * static_cast<float>(i));                                               \
    }                                                                                              \
    const VEC a = SET1(0.9999f);                                                                   \
    const VEC b = SET1(0.0001f);                                                                   \
    for (std::int64_t it = 0; it < iterations; ++it) {                                             \
      _Pragma("GCC unroll 12") for (int i = 0; i < 12; ++i) {                                      \
        acc[i] = FMADD(acc[i], a, b);                                                              \
      }                                                                                            \
    }                                                                                              \
    float sum = 0.0f;                                                                              \
    for (int i = 0; i < 12; ++i) {                                                                 \
      sum += FIRST(acc[i]);                                                                        \
    }                                                                                              \
    return sum;                                                                                    \
  }

#define TORCHSCOPE_SSE2_MULADD(x, y, z) _mm_add_ps(_mm_mul_ps(x, y), z)
TORCHSCOPE_FMA_CHAINS(fma_chains_avx512, "avx512f", __m512, _mm512_set1_ps, _mm512_fmadd_ps,
                      _mm512_cvtss_f32)
TORCHSCOPE_FMA_CHAINS(fma_chains_avx2, "avx2,fma", __m256, _mm256_set1_ps, _mm256_fmadd_ps,
                      _mm256_cvtss_f32)
// SSE2 has no fused multiply-add: a multiply and an add count as the two flops of one FMA.
TORCHSCOPE_FMA_CHAINS(fma_chains_sse2, "sse2", __m128, _mm_set1_ps, TORCHSCOPE_SSE2_MULADD,
                      _mm_cvtss_f32)
#undef TORCHSCOPE_FMA_CHAINS
#undef TORCHSCOPE_SSE2_MULADD

// The instruction set the peak is measured with, and its lanes per vector.
struct PeakIsa {
  const char* name;
  int lanes;
  float (*chains)(std::int64_t);
};

// TORCHSCOPE_BENCH_PEAK_ISA=avx2 (or sse2) measures with a narrower set than the host has, to
// check the figure on a host without AVX-512.
PeakIsa peak_isa() {
  const char* forced = std::getenv("TORCHSCOPE_BENCH_PEAK_ISA");
  const std::string_view want = forced != nullptr ? forced : "";
  if (want.empty() && __builtin_cpu_supports("avx512f")) {
    return {"avx512f", 16, fma_chains_avx512};
  }
  if (want != "sse2" && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    return {"avx2+fma", 8, fma_chains_avx2};
  }
  return {"sse2", 4, fma_chains_sse2};
}

// The machine's single-precision FMA throughput with every core, in GFLOP/s, over one short run
// (about 10 ms at this machine's clock), with the widest vector FMA the host has (peak_isa).
// Measured, not computed from a nominal clock: the cores of this shared virtual machine run at
// whatever their neighbours leave them, so the matmul interleaves its runs with these.
double fma_gflops() {
  const PeakIsa isa = peak_isa();
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  const std::int64_t iterations = 2'000'000;
  std::vector<std::thread> pool;
  std::vector<float> sink(threads);
  const auto t0 = Clock::now();
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] { sink[t] = isa.chains(iterations); });
  }
  for (std::thread& p : pool) {
    p.join();
  }
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  const double flop = 2.0 * isa.lanes * 12 * static_cast<double>(iterations) * threads;
  return sink[0] == 12345.0f ? 0.0 : flop / s / 1e9; // reads the result
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

Tensor pointwise_chain(const Tensor& a, const Tensor& b) {
  Tensor x = mul(a, b);
  x = add(x, a);
  x = sub(x, b);
  x = relu(x);
  x = abs(x);
  const Tensor m = gt(x, 0.5);
  x = where(m, x, b);
  return mul(x, a);
}

Tensor transcendental_chain(const Tensor& a, const Tensor& b) {
  Tensor x = sin(a);
  x = exp(mul(x, 0.5));
  x = tanh(add(x, b));
  x = sqrt(add(abs(x), 1.0));
  return mul(x, a);
}

// 200 ops: pointwise chains with a reduction every 20 ops (so the graph has several kernels).
Tensor two_hundred_ops(const Tensor& x) {
  Tensor y = x;
  for (int i = 0; i < 200; ++i) {
    switch (i % 20) {
    case 19:
      y = sub(y, mean(y, {1}, true));
      ++i; // that was two ops
      break;
    case 7:
      y = tanh(y);
      break;
    case 13:
      y = exp(mul(y, -0.1));
      ++i;
      break;
    default:
      y = add(mul(y, 0.999), 0.001 * i);
      ++i;
      break;
    }
  }
  return y;
}

} // namespace

int main(int argc, char** argv) {
  // Arguments: the groups to run (stream, pointwise, transcendental, softmax, layer_norm,
  // matmul, mlp, train_step, compile); none: all. TORCHSCOPE_NUM_THREADS sets the generated
  // code's threads (scripts/bench-inductor-peer.sh runs 1, 4 and 16).
  auto wanted = [&](const char* group) {
    if (argc < 2) {
      return true;
    }
    for (int i = 1; i < argc; ++i) {
      if (std::string_view(argv[i]) == group) {
        return true;
      }
    }
    return false;
  };
  const std::int64_t n = std::int64_t{1} << 24;
  const double stream = wanted("stream") || wanted("pointwise") ? stream_add_gbs(n) : 0.0;
  if (wanted("stream")) {
    figure("stream_add_bandwidth", stream, "GB/s");
  }
  if (wanted("pointwise")) {
    const Tensor a = wave({n}, 1);
    const Tensor b = wave({n}, 2);
    auto compiled = compile(pointwise_chain, {.name = "pointwise_chain"});
    const double c = median_ms([&] { compiled(a, b); });
    const double e = median_ms([&] { pointwise_chain(a, b); }, 3);
    figure("pointwise_chain_compiled", c, "ms");
    figure("pointwise_chain_eager", e, "ms");
    const double gbs = 3.0 * 4.0 * static_cast<double>(n) / (c * 1e6);
    figure("pointwise_chain_bandwidth", gbs, "GB/s");
    figure("pointwise_chain_of_stream", 100.0 * gbs / stream, "%");
  }
  if (wanted("transcendental")) {
    const Tensor a = wave({n}, 3);
    const Tensor b = wave({n}, 4);
    auto compiled = compile(transcendental_chain, {.name = "transcendental_chain"});
    figure("transcendental_chain_compiled", median_ms([&] { compiled(a, b); }), "ms");
    figure("transcendental_chain_eager", median_ms([&] { transcendental_chain(a, b); }, 3), "ms");
  }
  if (wanted("softmax")) {
    const Tensor x = wave({4096, 4096}, 5);
    auto f = [](const Tensor& t) { return softmax(t, -1); };
    auto compiled = compile(f, {.name = "softmax"});
    figure("softmax_compiled", median_ms([&] { compiled(x); }), "ms");
    figure("softmax_eager", median_ms([&] { f(x); }, 3), "ms");
  }
  if (wanted("layer_norm")) {
    const Tensor x = wave({8192, 1024}, 6);
    const Tensor w = wave({1024}, 7);
    const Tensor b = wave({1024}, 8);
    auto f = [&](const Tensor& t) { return layer_norm(t, {1024}, w, b); };
    auto compiled = compile(f, {.name = "layer_norm"});
    figure("layer_norm_compiled", median_ms([&] { compiled(x); }), "ms");
    figure("layer_norm_eager", median_ms([&] { f(x); }, 3), "ms");
  }
  if (wanted("matmul")) {
    const std::int64_t m = 1024;
    const Tensor a = wave({m, m}, 9);
    const Tensor b = wave({m, m}, 10);
    auto f = [](const Tensor& x, const Tensor& y) { return matmul(x, y); };
    auto compiled = compile(f, {.name = "matmul"});
    const double flop = 2.0 * static_cast<double>(m * m * m);
    // Each run of the compiled matmul is followed by a run of the FMA loop: both medians see
    // the same share of the machine, so their ratio is the GEMM's efficiency.
    std::vector<double> gemm;
    std::vector<double> peak;
    compiled(a, b);
    fma_gflops();
    for (int r = 0; r < 15; ++r) {
      const auto t0 = Clock::now();
      compiled(a, b);
      gemm.push_back(flop /
                     (std::chrono::duration<double, std::milli>(Clock::now() - t0).count() * 1e6));
      peak.push_back(fma_gflops());
    }
    figure("matmul_compiled", median(gemm), "GFLOP/s");
    figure("fma_peak", median(peak), "GFLOP/s");
    std::printf("fma_peak_isa: %s\n", peak_isa().name);
    figure("matmul_eager", flop / (median_ms([&] { f(a, b); }, 3) * 1e6), "GFLOP/s");
#ifdef TORCHSCOPE_BENCH_OPENBLAS
    std::vector<float> c(static_cast<std::size_t>(m * m));
    const double ms = median_ms([&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(m),
                  static_cast<int>(m), static_cast<int>(m), 1.0f, a.data<float>(),
                  static_cast<int>(m), b.data<float>(), static_cast<int>(m), 0.0f, c.data(),
                  static_cast<int>(m));
    });
    figure("matmul_openblas", flop / (ms * 1e6), "GFLOP/s");
#endif
  }
  if (wanted("mlp")) {
    auto gelu_layer = std::make_shared<nn::GELU>();
    nn::Sequential model({std::make_shared<nn::Linear>(64, 128, true, 1), gelu_layer,
                          std::make_shared<nn::LayerNorm>(std::vector<std::int64_t>{128}),
                          std::make_shared<nn::Linear>(128, 10, true, 2)});
    auto forward = [](nn::Sequential& mdl, const Tensor& x) { return softmax(mdl(x), -1); };
    auto compiled = compile(forward, {.name = "mlp", .arg_names = {"model", "x"}});
    const Tensor x = wave({32, 64}, 11);
    auto many = [&](auto&& fn) {
      return median_ms([&] {
               for (int i = 0; i < 200; ++i) {
                 fn();
               }
             }) *
             1000.0 / 200.0;
    };
    figure("mlp_forward_compiled", many([&] { compiled(model, x); }), "us");
    figure("mlp_forward_eager", many([&] { forward(model, x); }), "us");
  }
  if (wanted("train_step")) {
    // The train_mlp sample's step (bench_aot's model: batch 64, 256 -> 512 -> 10, GELU,
    // LayerNorm, cross-entropy): the compiled forward and the AOT stage's compiled backward.
    auto model =
        std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
            std::make_shared<nn::Linear>(256, 512, true, 11), std::make_shared<nn::GELU>(),
            std::make_shared<nn::LayerNorm>(std::vector<std::int64_t>{512}),
            std::make_shared<nn::Linear>(512, 10, true, 12)});
    auto forward = [](nn::Sequential& m, const Tensor& x) { return m(x); };
    auto compiled = compile(forward, {.name = "train_step", .arg_names = {"model", "x"}});
    const Tensor x = wave({64, 256}, 13);
    const Tensor y = Tensor::from_values(std::vector<double>(64, 3.0), {64}, DType::Int64);
    auto step = [&](auto&& fwd) {
      for (const Tensor& p : model->parameters()) {
        p.set_grad(Tensor());
      }
      cross_entropy(fwd(), y).backward();
    };
    figure("train_step_compiled", median_ms([&] { step([&] { return compiled(*model, x); }); }),
           "ms");
    figure("train_step_eager", median_ms([&] { step([&] { return forward(*model, x); }); }), "ms");
  }
  if (wanted("compile")) {
    const Tensor x = wave({64, 256}, 12);
    // A fresh compile each time (a new compiled function, its own frame), timed over the first
    // call: capture, passes, lowering, scheduling, and LLVM to machine code (cold, no cache) or
    // loading the machine code from the on-disk cache.
    const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                      ("bench_inductor_cache_" + std::to_string(::getpid()));
    inductor::config().cache_dir = dir.string();
    auto first_call_ms = [&] {
      std::vector<double> t;
      for (int r = 0; r < 5; ++r) {
        auto compiled = compile(two_hundred_ops, {.name = "two_hundred_ops"});
        const auto t0 = Clock::now();
        compiled(x);
        t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      }
      std::sort(t.begin(), t.end());
      return t[t.size() / 2];
    };
    inductor::config().fx_graph_cache = false;
    figure("compile_200_ops_cold", first_call_ms(), "ms");
    inductor::config().fx_graph_cache = true;
    auto warm = compile(two_hundred_ops, {.name = "two_hundred_ops"});
    warm(x); // fills the cache
    figure("compile_200_ops_from_cache", first_call_ms(), "ms");
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  return 0;
}
