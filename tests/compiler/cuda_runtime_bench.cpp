// bench_cuda_runtime: the figures the GPU backend is measured against.
//   - device-to-device copy bandwidth: the yardstick (generated kernels must reach >= 80% of it)
//   - a hand-written NVRTC vector-add kernel's bandwidth, as a fraction of the copy's
//   - launch overhead per kernel (host enqueue, and device time back to back)
//   - the caching allocator's hit cost, against the driver's cuMemAlloc + cuMemFree
//   - host<->device copies: the direct and the staged path, and pinned memory's DMA ceiling
//   - NVRTC compile time, cold and from the kernel cache (this one needs no GPU)
// Bandwidths count bytes read plus bytes written. Each figure is the median of several rounds,
// printed with the range. Without a GPU it prints the NVRTC figures and why the rest did not run.
#include "compiler/cuda/cuda.h"
#include "compiler/cuda_test_kernels.h"
#include "compiler/tensor/tensor.h"
#include "cuda/copy_engine.h"
#include "cuda/host_copy.h"
#include "cuda/kernel_cache.h"
#include "cuda/module.h"
#include "cuda/nvrtc_api.h"
#include "cuda/nvrtc_compiler.h"
#include "cuda/runtime.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <string>
#include <unistd.h>
#include <vector>

using namespace compiler;
using namespace compiler::cuda;
using Clock = std::chrono::steady_clock;

namespace {

struct Figure {
  double median = 0;
  double low = 0;
  double high = 0;
};

Figure summarise(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  return {samples[samples.size() / 2], samples.front(), samples.back()};
}

void print(const char* what, const Figure& f, const char* unit) {
  std::printf("  %-46s %10.2f %-6s (range %.2f - %.2f)\n", what, f.median, unit, f.low, f.high);
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Device milliseconds of `fn` (which queues work on `stream`), by events.
double device_ms(DeviceContext& ctx, CUstream stream, const std::function<void()>& fn) {
  Event start(ctx, true);
  Event stop(ctx, true);
  start.record(stream);
  fn();
  stop.record(stream);
  stop.synchronize();
  return stop.elapsed_ms(start);
}

void bench_nvrtc(int rounds) {
  std::printf("NVRTC (%s)\n", nvrtc_status().library.c_str());
  const NvrtcOptions options = [] {
    NvrtcOptions o;
    o.arch = GpuArch{9, 0};
    return o;
  }();
  std::vector<double> cold;
  std::vector<double> warm;
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("bench_cuda_runtime." + std::to_string(getpid()));
  KernelCache cache(dir);
  for (int r = 0; r < rounds; ++r) {
    const CompileResult c = compile_cuda(cuda_test::kVectorAdd, "vector_add.cu", options, nullptr);
    cold.push_back(c.milliseconds);
    if (r == 0) {
      cache.store(kernel_cache_key(cuda_test::kVectorAdd, options), c.image);
    }
    warm.push_back(
        compile_cuda(cuda_test::kVectorAdd, "vector_add.cu", options, &cache).milliseconds);
  }
  std::filesystem::remove_all(dir);
  print("vector_add to sm_90 cubin, compiled", summarise(cold), "ms");
  print("vector_add from the kernel cache", summarise(warm), "ms");
}

void bench_device(int rounds, bool quick) {
  DeviceContext& ctx = device_context(0);
  const DeviceProperties& p = ctx.properties();
  std::printf("device: %s, compute capability %d.%d, %d SMs, %.1f GiB, L2 %d MiB, driver %d.%d\n",
              p.name.c_str(), p.major, p.minor, p.multiprocessors,
              static_cast<double>(p.total_memory) / (1u << 30), p.l2_cache_bytes >> 20,
              p.driver_version / 1000, (p.driver_version % 1000) / 10);
  const CUstream stream = ctx.current_stream();
  CachingAllocator& alloc = ctx.allocator();
  const auto sid = reinterpret_cast<StreamId>(stream);
  auto device_buffer = [&](std::size_t n) {
    void* ptr = alloc.allocate(n, sid);
    if (ptr == nullptr) {
      std::fprintf(stderr, "bench_cuda_runtime: out of device memory\n");
      std::exit(1);
    }
    return reinterpret_cast<CUdeviceptr>(ptr);
  };

  // ---- bandwidth: the copy yardstick and the NVRTC vector add
  std::printf("bandwidth (bytes read + written)\n");
  const std::size_t copy_bytes = quick ? (std::size_t{256} << 20) : (std::size_t{1} << 30);
  const CUdeviceptr src = device_buffer(copy_bytes);
  const CUdeviceptr dst = device_buffer(copy_bytes);
  TORCHSCOPE_CU(cuMemsetD32Async, src, 0x3f800000u, copy_bytes / 4, stream);
  const int iterations = 20;
  auto copy_gbs = [&] {
    copy_on_device(ctx, dst, src, copy_bytes, stream); // warm
    const double ms = device_ms(ctx, stream, [&] {
      for (int i = 0; i < iterations; ++i) {
        copy_on_device(ctx, dst, src, copy_bytes, stream);
      }
    });
    return 2.0 * static_cast<double>(copy_bytes) * iterations / (ms * 1e-3) / 1e9;
  };
  std::vector<double> copy_samples;
  for (int r = 0; r < rounds; ++r) {
    copy_samples.push_back(copy_gbs());
  }
  const Figure copy = summarise(copy_samples);
  print("device-to-device copy (cuMemcpyDtoDAsync)", copy, "GB/s");

  const CompileResult compiled =
      compile_cuda(cuda_test::kVectorAdd, "vector_add.cu", options_for(p));
  if (!compiled.ok) {
    std::fprintf(stderr, "%s\n", compiled.failure_message("vector_add").c_str());
    std::exit(1);
  }
  const Module module(ctx, compiled.image);
  const Kernel vector_add = module.kernel("vector_add");
  const long long elements = static_cast<long long>(copy_bytes / 4 / 3) / 4 * 4; // 3 arrays
  const std::size_t array_bytes = static_cast<std::size_t>(elements) * 4;
  const CUdeviceptr a = src;
  const CUdeviceptr b = src + array_bytes;
  const CUdeviceptr out = dst;
  const unsigned blocks = static_cast<unsigned>((elements / 4 + 255) / 256);
  auto add_once = [&] { vector_add.launch_with({blocks}, {256}, 0, stream, a, b, out, elements); };
  std::vector<double> add_samples;
  for (int r = 0; r < rounds; ++r) {
    add_once();
    const double ms = device_ms(ctx, stream, [&] {
      for (int i = 0; i < iterations; ++i) {
        add_once();
      }
    });
    add_samples.push_back(3.0 * static_cast<double>(array_bytes) * iterations / (ms * 1e-3) / 1e9);
  }
  const Figure add = summarise(add_samples);
  print("NVRTC vector_add (float4, 3 arrays)", add, "GB/s");
  std::printf("  %-46s %10.1f %%      (%d registers, %s)\n", "vector_add / copy",
              100.0 * add.median / copy.median, vector_add.info().registers,
              compiled.target.c_str());

  // ---- launch overhead
  std::printf("launch overhead (empty kernel)\n");
  const CompileResult empty_code = compile_cuda(cuda_test::kEmpty, "empty.cu", options_for(p));
  const Module empty_module(ctx, empty_code.image);
  const Kernel empty = empty_module.kernel("empty_kernel");
  const int launches = quick ? 2000 : 20000;
  std::vector<double> host_us;
  std::vector<double> device_us;
  std::vector<double> raw_us;
  std::vector<double> enqueue_us;
  for (int r = 0; r < rounds; ++r) {
    // A burst short enough not to fill the launch queue: the host's own cost per launch.
    ctx.synchronize();
    const int burst = 256;
    const auto b0 = Clock::now();
    for (int i = 0; i < burst; ++i) {
      empty.launch(Dim3{1}, Dim3{32}, 0, stream, nullptr);
    }
    enqueue_us.push_back(seconds_since(b0) * 1e6 / burst);
    ctx.synchronize();
    Event start(ctx, true);
    Event stop(ctx, true);
    start.record(stream);
    const auto t0 = Clock::now();
    for (int i = 0; i < launches; ++i) {
      empty.launch(Dim3{1}, Dim3{32}, 0, stream, nullptr);
    }
    host_us.push_back(seconds_since(t0) * 1e6 / launches);
    stop.record(stream);
    stop.synchronize();
    device_us.push_back(static_cast<double>(stop.elapsed_ms(start)) * 1e3 / launches);
    const auto t1 = Clock::now();
    for (int i = 0; i < launches; ++i) {
      (void)driver().cuLaunchKernel(empty.handle(), 1, 1, 1, 32, 1, 1, 0, stream, nullptr, nullptr);
    }
    raw_us.push_back(seconds_since(t1) * 1e6 / launches);
    ctx.synchronize();
  }
  print("host enqueue per launch (256, queue not full)", summarise(enqueue_us), "us");
  print("host time per Kernel::launch", summarise(host_us), "us");
  print("host time per raw cuLaunchKernel", summarise(raw_us), "us");
  print("device time per kernel, back to back", summarise(device_us), "us");

  // ---- allocator
  std::printf("caching allocator (1 MiB blocks)\n");
  const std::size_t block = std::size_t{1} << 20;
  alloc.free(alloc.allocate(block, sid)); // one cached block
  std::vector<double> hit_ns;
  std::vector<double> tensor_ns;
  std::vector<double> driver_us;
  const int pairs = quick ? 20000 : 200000;
  for (int r = 0; r < rounds; ++r) {
    const MemoryStats before = alloc.stats();
    auto t0 = Clock::now();
    for (int i = 0; i < pairs; ++i) {
      alloc.free(alloc.allocate(block, sid));
    }
    hit_ns.push_back(seconds_since(t0) * 1e9 / pairs);
    if (alloc.stats().cache_hits - before.cache_hits != static_cast<std::uint64_t>(pairs)) {
      std::fprintf(stderr, "bench_cuda_runtime: expected every allocation to hit the cache\n");
    }
    t0 = Clock::now();
    for (int i = 0; i < pairs / 10; ++i) {
      const Tensor t = Tensor::empty({262144}, DType::Float32, Device::cuda(0));
    }
    tensor_ns.push_back(seconds_since(t0) * 1e9 / (pairs / 10));
    ctx.bind();
    t0 = Clock::now();
    const int raw = 200;
    for (int i = 0; i < raw; ++i) {
      CUdeviceptr ptr = 0;
      TORCHSCOPE_CU(cuMemAlloc, &ptr, block);
      TORCHSCOPE_CU(cuMemFree, ptr);
    }
    driver_us.push_back(seconds_since(t0) * 1e6 / raw);
  }
  print("allocate + free, cache hit", summarise(hit_ns), "ns");
  print("Tensor::empty on cuda:0 + release", summarise(tensor_ns), "ns");
  print("cuMemAlloc + cuMemFree (the driver)", summarise(driver_us), "us");

  // ---- host <-> device
  std::printf("host <-> device copies (pageable host memory unless said)\n");
  const std::size_t sizes[] = {std::size_t{64} << 10, std::size_t{1} << 20, std::size_t{16} << 20,
                               std::size_t{256} << 20};
  std::vector<char> host(sizes[3]);
  std::memset(host.data(), 1, host.size());
  void* pinned = nullptr;
  TORCHSCOPE_CU(cuMemHostAlloc, &pinned, sizes[3], 0u);
  auto threshold = [](std::size_t bytes) {
    return bytes == std::numeric_limits<std::size_t>::max()
               ? std::string("never")
               : "from " + std::to_string(bytes) + " bytes";
  };
  std::printf("  (staging: %d host threads; h2d direct %s, d2h staged %s)\n", host_copy_threads(),
              threshold(copy_policy().h2d_direct_min_bytes).c_str(),
              threshold(copy_policy().d2h_staged_min_bytes).c_str());
  using CopyFn = std::function<void(std::size_t)>;
  auto rate = [&](const CopyFn& fn, std::size_t bytes) {
    std::vector<double> samples;
    for (int r = 0; r < rounds; ++r) {
      ctx.synchronize();
      const auto t0 = Clock::now();
      fn(bytes);
      ctx.synchronize();
      samples.push_back(static_cast<double>(bytes) / seconds_since(t0) / 1e9);
    }
    return summarise(samples);
  };
  for (std::size_t bytes : sizes) {
    char label[64];
    const std::string size_text = bytes >= (std::size_t{1} << 20)
                                      ? std::to_string(bytes >> 20) + " MiB"
                                      : std::to_string(bytes >> 10) + " KiB";
    std::snprintf(label, sizeof label, "H2D %s direct", size_text.c_str());
    print(label,
          rate([&](std::size_t n) { copy_to_device_direct(ctx, src, host.data(), n, stream); },
               bytes),
          "GB/s");
    std::snprintf(label, sizeof label, "H2D %s staged", size_text.c_str());
    print(label,
          rate([&](std::size_t n) { copy_to_device_staged(ctx, src, host.data(), n, stream); },
               bytes),
          "GB/s");
    std::snprintf(label, sizeof label, "D2H %s direct", size_text.c_str());
    print(
        label,
        rate([&](std::size_t n) { copy_to_host_direct(ctx, host.data(), src, n, stream); }, bytes),
        "GB/s");
    std::snprintf(label, sizeof label, "D2H %s staged", size_text.c_str());
    print(
        label,
        rate([&](std::size_t n) { copy_to_host_staged(ctx, host.data(), src, n, stream); }, bytes),
        "GB/s");
  }
  print("H2D 256 MiB from pinned memory (DMA ceiling)",
        rate([&](std::size_t n) { TORCHSCOPE_CU(cuMemcpyHtoDAsync, src, pinned, n, stream); },
             sizes[3]),
        "GB/s");
  print("D2H 256 MiB to pinned memory (DMA ceiling)",
        rate([&](std::size_t n) { TORCHSCOPE_CU(cuMemcpyDtoHAsync, pinned, src, n, stream); },
             sizes[3]),
        "GB/s");
  print("host memcpy 256 MiB to pinned, 1 thread",
        rate([&](std::size_t n) { std::memcpy(pinned, host.data(), n); }, sizes[3]), "GB/s");
  print("host parallel_memcpy 256 MiB to pinned",
        rate([&](std::size_t n) { parallel_memcpy(pinned, host.data(), n); }, sizes[3]), "GB/s");
  TORCHSCOPE_CU(cuMemFreeHost, pinned);
  alloc.free(reinterpret_cast<void*>(src));
  alloc.free(reinterpret_cast<void*>(dst));
}

} // namespace

int main(int argc, char** argv) {
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--quick") {
      quick = true;
    } else if (arg == "-h" || arg == "--help") {
      std::printf("usage: bench_cuda_runtime [--quick]\n\n"
                  "Prints the CUDA runtime's figures: device-to-device copy bandwidth, an NVRTC\n"
                  "vector-add kernel's bandwidth, launch overhead, the caching allocator's hit\n"
                  "cost, host<->device copy rates and NVRTC compile times. Without a GPU only\n"
                  "the NVRTC figures run. --quick: smaller sizes and fewer repetitions.\n");
      return 0;
    } else {
      std::fprintf(stderr, "bench_cuda_runtime: unknown argument '%s' (try --help)\n", arg.c_str());
      return 2;
    }
  }
  const int rounds = quick ? 3 : 7;
  if (nvrtc_status().api != nullptr) {
    bench_nvrtc(rounds);
  } else {
    std::printf("NVRTC: not run (%s)\n", nvrtc_status().unavailable_reason.c_str());
  }
  if (!cuda::is_available()) {
    std::printf("GPU figures: not run (%s)\n", cuda::unavailable_reason().c_str());
    return 0;
  }
  try {
    bench_device(rounds, quick);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_cuda_runtime: %s\n", e.what());
    return 1;
  }
  return 0;
}
