// The CUDA runtime (compiler/src/cuda/). Three groups:
//   - without a GPU, everywhere the toolkit is: the caching allocator's rules against a fake
//     device, the on-disk kernel cache (including damaged entries), NVRTC compiling kernels to
//     PTX and cubin, and its error log for a broken one;
//   - on a GPU (skipped, saying so, elsewhere): device tensors, every copy path, factories,
//     item(), the CPU-only eager rule, memory statistics, out of memory, kernels compiled,
//     loaded and launched, streams and events, and device guards in a compiled function.
#include "compiler/capture/compile.h"
#include "compiler/core/errors.h"
#include "compiler/cuda/cuda.h"
#include "compiler/ops/ops.h"
#include "cuda/caching_allocator.h"
#include "cuda/copy_engine.h"
#include "cuda/host_copy.h"
#include "cuda/kernel_cache.h"
#include "cuda/module.h"
#include "cuda/nvrtc_api.h"
#include "cuda/nvrtc_compiler.h"
#include "cuda/runtime.h"
#include "cuda_test_kernels.h"
#include "device_test_util.h"
#include "support/test_paths.h"
#include "tensor/device_memory.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <numeric>
#include <set>
#include <thread>

using namespace compiler;
using device_test::contains;
using device_test::user_error_of;
using namespace compiler::cuda;

namespace {

// A device made of counters: addresses are never dereferenced.
struct FakeDevice final : AllocatorBackend {
  std::size_t capacity = std::size_t{1} << 40;
  std::size_t used = 0;
  std::map<void*, std::size_t> live;
  std::uintptr_t next = 1;
  std::map<EventId, bool> events; // id -> completed
  std::set<EventId> destroyed;
  int synchronizations = 0;

  void* allocate(std::size_t nbytes) override {
    if (used + nbytes > capacity) {
      return nullptr;
    }
    used += nbytes;
    void* p = reinterpret_cast<void*>(next++ << 24);
    live[p] = nbytes;
    return p;
  }
  void free(void* ptr) override {
    REQUIRE(live.count(ptr) == 1);
    used -= live[ptr];
    live.erase(ptr);
  }
  EventId record_event(StreamId) override {
    const EventId id = events.size() + 1;
    events[id] = false;
    return id;
  }
  bool event_done(EventId e) override { return events.at(e); }
  void destroy_event(EventId e) override { destroyed.insert(e); }
  void synchronize() override {
    ++synchronizations;
    for (auto& [id, done] : events) {
      done = true;
    }
  }
};

constexpr StreamId kStreamA = 0x10;
constexpr StreamId kStreamB = 0x20;

bool have_nvrtc() {
  return nvrtc_status().api != nullptr;
}

#define REQUIRE_NVRTC()                                                                            \
  if (!have_nvrtc()) {                                                                             \
    TORCHSCOPE_SKIP("NVRTC is not installed: " << nvrtc_status().unavailable_reason);              \
  }
#define REQUIRE_GPU()                                                                              \
  if (!cuda::is_available()) {                                                                     \
    TORCHSCOPE_SKIP("no usable GPU: " << cuda::unavailable_reason());                              \
  }

NvrtcOptions ptx_for_hopper() {
  NvrtcOptions o;
  o.arch = GpuArch{9, 0};
  o.kind = BinaryKind::Ptx;
  return o;
}

std::vector<double> ramp(std::size_t n, double scale = 0.5) {
  std::vector<double> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    v[i] = static_cast<double>(static_cast<std::int64_t>(i % 1000) - 500) * scale;
  }
  return v;
}

} // namespace

// ---- caching allocator (no GPU) ----

TEST_CASE("size classes round to 512 bytes, then to eighths of a power of two",
          "[compiler][cuda]") {
  CHECK(CachingAllocator::size_class(0) == 512);
  CHECK(CachingAllocator::size_class(1) == 512);
  CHECK(CachingAllocator::size_class(512) == 512);
  CHECK(CachingAllocator::size_class(513) == 1024);
  CHECK(CachingAllocator::size_class(4096) == 4096);
  CHECK(CachingAllocator::size_class(4097) == 4608);
  CHECK(CachingAllocator::size_class(std::size_t{1} << 20) == std::size_t{1} << 20);
  CHECK(CachingAllocator::size_class((std::size_t{1} << 20) + 1) == (std::size_t{9} << 17));
  std::size_t previous = 0;
  for (std::size_t n = 1; n < (std::size_t{1} << 30); n = n * 5 / 3 + 7) {
    const std::size_t c = CachingAllocator::size_class(n);
    INFO(n);
    CHECK(c >= n);
    CHECK(c >= previous);
    CHECK(c % 512 == 0);
    if (n > 4096) {
      CHECK(static_cast<double>(c - n) <= 0.125 * static_cast<double>(n));
    }
    previous = c;
  }
}

TEST_CASE("a freed block is reused by its own stream, not by another", "[compiler][cuda]") {
  FakeDevice device;
  CachingAllocator a(device);
  void* p = a.allocate(1000, kStreamA);
  a.free(p);
  CHECK(a.allocate(900, kStreamA) == p); // same class (1024), same stream
  void* q = a.allocate(1000, kStreamB);
  CHECK(q != p);
  const MemoryStats s = a.stats();
  CHECK(s.allocations == 3);
  CHECK(s.cache_hits == 1);
  CHECK(s.driver_allocations == 2);
  CHECK(s.allocated_bytes == 2048);
  CHECK(s.requested_bytes == 1900);
  CHECK(s.reserved_bytes == 2048);
  a.free(q);
  CHECK(a.stats().allocated_bytes == 1024);
  CHECK(a.stats().reserved_bytes == 2048); // cached, not returned
}

TEST_CASE("a block used by another stream waits for that stream's work", "[compiler][cuda]") {
  FakeDevice device;
  CachingAllocator a(device);
  void* p = a.allocate(4096, kStreamA);
  a.record_stream(p, kStreamB);
  a.record_stream(p, kStreamA); // its own stream: nothing to wait for
  a.free(p);
  REQUIRE(device.events.size() == 1);
  void* q = a.allocate(4096, kStreamA);
  CHECK(q != p); // stream B may still read p
  device.events.begin()->second = true;
  a.free(q);
  void* r = a.allocate(4096, kStreamA);
  void* s = a.allocate(4096, kStreamA);
  CHECK(std::set<void*>{r, s} == std::set<void*>{p, q});
  CHECK(device.destroyed.size() == 1);
}

TEST_CASE("out of memory empties the cache and retries once, then reports null",
          "[compiler][cuda]") {
  FakeDevice device;
  device.capacity = 3 * 4096;
  CachingAllocator a(device);
  void* blocks[3];
  for (void*& b : blocks) {
    b = a.allocate(4096, kStreamA);
  }
  for (void* b : blocks) {
    a.free(b);
  }
  void* big = a.allocate(8192, kStreamB); // another class and stream: only after emptying
  CHECK(big != nullptr);
  const MemoryStats s = a.stats();
  CHECK(s.oom_retries == 1);
  CHECK(s.driver_frees == 3);
  CHECK(device.synchronizations == 1);
  CHECK(s.reserved_bytes == 8192);
  CHECK(a.allocate(8192, kStreamB) == nullptr); // 4096 left: nothing cached to give back
  CHECK(a.stats().oom_retries == 1);
}

TEST_CASE("peaks follow the high-water mark until reset, and empty_cache returns blocks",
          "[compiler][cuda]") {
  FakeDevice device;
  CachingAllocator a(device);
  void* p = a.allocate(1 << 20, kStreamA);
  void* q = a.allocate(1 << 20, kStreamA);
  a.free(p);
  CHECK(a.stats().peak_allocated_bytes == 2u << 20);
  a.reset_peak();
  CHECK(a.stats().peak_allocated_bytes == 1u << 20);
  CHECK(a.stats().peak_reserved_bytes == 2u << 20);
  a.empty_cache();
  CHECK(a.stats().reserved_bytes == 1u << 20);
  CHECK(device.live.size() == 1);
  a.free(q);
}

TEST_CASE("the allocator keeps its books under concurrent use", "[compiler][cuda]") {
  FakeDevice device;
  CachingAllocator a(device);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&a, t] {
      const StreamId stream = 0x100 + static_cast<StreamId>(t);
      std::vector<void*> held;
      for (int i = 0; i < 2000; ++i) {
        held.push_back(a.allocate(static_cast<std::size_t>(512 * (1 + i % 5)), stream));
        if (held.size() > 3) {
          a.free(held.front());
          held.erase(held.begin());
        }
      }
      for (void* p : held) {
        a.free(p);
      }
    });
  }
  for (std::thread& t : threads) {
    t.join();
  }
  const MemoryStats s = a.stats();
  CHECK(s.allocations == 8000);
  CHECK(s.frees == 8000);
  CHECK(s.allocated_bytes == 0);
  CHECK(s.requested_bytes == 0);
  CHECK(s.cache_hits + s.driver_allocations == s.allocations);
}

// ---- host copies (no GPU) ----

TEST_CASE("copy slices cover every byte exactly once for any thread count", "[compiler][cuda]") {
  // Regression: slices were rounded down, so with 8 threads the last n % 8 bytes of a 9 MiB + 7
  // copy were never copied (seen on the 16-core GPU machine, not on 2 cores).
  for (int threads = 1; threads <= 64; ++threads) {
    for (std::size_t n :
         {std::size_t{0}, std::size_t{1}, std::size_t{63}, std::size_t{4096},
          (std::size_t{9} << 20) + 7, (std::size_t{8} << 20) - 1, std::size_t{123456789}}) {
      INFO(threads << " threads, " << n << " bytes");
      std::size_t next = 0;
      for (int i = 0; i < threads; ++i) {
        const Slice s = copy_slice(n, threads, i);
        CHECK(s.begin == next);
        CHECK(s.end >= s.begin);
        CHECK((s.begin % 64 == 0 || s.begin == n));
        next = s.end;
      }
      CHECK(next == n);
    }
  }
}

TEST_CASE("parallel_memcpy copies every byte at any size and alignment, from any thread",
          "[compiler][cuda]") {
  CHECK(host_copy_threads() >= 1);
  const std::size_t mib = std::size_t{1} << 20;
  std::vector<unsigned char> src(9 * mib + 64);
  for (std::size_t i = 0; i < src.size(); ++i) {
    src[i] = static_cast<unsigned char>((i * 7919) % 253);
  }
  auto check = [&](std::size_t n, std::size_t src_offset, std::size_t dst_offset) {
    std::vector<unsigned char> dst(n + 64, 0xee);
    parallel_memcpy(dst.data() + dst_offset, src.data() + src_offset, n);
    return std::memcmp(dst.data() + dst_offset, src.data() + src_offset, n) == 0 &&
           (dst_offset == 0 || dst[dst_offset - 1] == 0xee) && dst[dst_offset + n] == 0xee;
  };
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, mib - 1, mib, mib + 13, 9 * mib + 7}) {
    INFO(n);
    CHECK(check(n, 0, 0));
    CHECK(check(n, 3, 17));
  }
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        if (!check(2 * mib + static_cast<std::size_t>(t * 101 + i), static_cast<std::size_t>(t),
                   static_cast<std::size_t>(i))) {
          ++wrong;
        }
      }
    });
  }
  for (std::thread& t : threads) {
    t.join();
  }
  CHECK(wrong == 0);
}

// ---- kernel cache (no GPU) ----

TEST_CASE("the kernel cache returns what was stored, byte for byte", "[compiler][cuda]") {
  test_support::TempDir dir;
  KernelCache cache(dir.path() / "cuda");
  CHECK_FALSE(cache.load("key one").has_value());
  const std::string image("\x7f"
                          "ELF\0binary\0image",
                          17);
  cache.store("key one", image);
  CHECK(cache.load("key one").value() == image);
  CHECK_FALSE(cache.load("key two").has_value());
  const KernelCache::Stats s = cache.stats();
  CHECK(s.stores == 1);
  CHECK(s.hits == 1);
  CHECK(s.misses == 2);
  CHECK(s.corrupt == 0);
  KernelCache off{std::filesystem::path()};
  off.store("key", "image");
  CHECK_FALSE(off.load("key").has_value());
}

TEST_CASE("damaged, foreign or colliding cache entries are misses, never wrong code",
          "[compiler][cuda]") {
  test_support::TempDir dir;
  KernelCache cache(dir.path());
  cache.store("the key", "the image");
  const std::filesystem::path entry = cache.entry_path("the key");
  const std::string good = test_support::read_file(entry);
  auto write = [&](const std::string& bytes) {
    std::ofstream(entry, std::ios::binary | std::ios::trunc) << bytes;
  };
  write(good.substr(0, good.size() - 1)); // truncated
  CHECK_FALSE(cache.load("the key").has_value());
  write("garbage");
  CHECK_FALSE(cache.load("the key").has_value());
  write(good + "x"); // trailing bytes
  CHECK_FALSE(cache.load("the key").has_value());
  std::string other = good;
  other.replace(other.find("the key"), 7, "THE KEY"); // another key at this path (a collision)
  write(other);
  CHECK_FALSE(cache.load("the key").has_value());
  write("torchscope-cuda-kernel 1\n7 99999999999999\nthe key"); // lengths past the end
  CHECK_FALSE(cache.load("the key").has_value());
  CHECK(cache.stats().corrupt == 5);
  cache.store("the key", "the image"); // a store replaces the damaged entry
  CHECK(cache.load("the key").value() == "the image");
}

TEST_CASE("a cache that cannot be written counts the failure and goes on", "[compiler][cuda]") {
  test_support::TempDir dir;
  std::ofstream(dir.path() / "file") << "not a folder";
  KernelCache cache(dir.path() / "file" / "cuda");
  cache.store("key", "image");
  CHECK(cache.stats().write_failures == 1);
  CHECK_FALSE(cache.load("key").has_value());
}

// ---- NVRTC (no GPU) ----

TEST_CASE("NVRTC compiles the test kernels to PTX and cubin without a GPU", "[compiler][cuda]") {
  REQUIRE_NVRTC();
  const std::pair<const char*, const char*> kernels[] = {{cuda_test::kVectorAdd, "vector_add"},
                                                         {cuda_test::kBlockSum, "block_sum"},
                                                         {cuda_test::kHalfScale, "half_scale"},
                                                         {cuda_test::kTemplateFill, "fill_i32"},
                                                         {cuda_test::kEmpty, "empty_kernel"}};
  for (const auto& [source, name] : kernels) {
    INFO(name);
    const CompileResult ptx =
        compile_cuda(source, std::string(name) + ".cu", ptx_for_hopper(), nullptr);
    REQUIRE(ptx.ok);
    CHECK(ptx.target == "compute_90");
    CHECK_FALSE(ptx.from_cache);
    CHECK(contains(ptx.image, ".entry " + std::string(name)));
    CHECK(contains(ptx.image, ".target sm_90"));
    NvrtcOptions cubin_options;
    cubin_options.arch = GpuArch{9, 0};
    const CompileResult cubin =
        compile_cuda(source, std::string(name) + ".cu", cubin_options, nullptr);
    REQUIRE(cubin.ok);
    CHECK(cubin.target == "sm_90");
    CHECK(cubin.image.compare(0, 4,
                              "\x7f"
                              "ELF") == 0);
  }
}

TEST_CASE("a kernel that does not compile gives NVRTC's log with the line", "[compiler][cuda]") {
  REQUIRE_NVRTC();
  const CompileResult r = compile_cuda(cuda_test::kBroken, "broken.cu", ptx_for_hopper(), nullptr);
  CHECK_FALSE(r.ok);
  CHECK(r.image.empty());
  CHECK(contains(r.log, "broken.cu(3)"));
  CHECK(contains(r.log, "undeclared_value"));
  CHECK(contains(r.failure_message("broken"), "NVRTC could not compile 'broken' for compute_90"));
  NvrtcOptions bad = ptx_for_hopper();
  bad.flags = {"--no-such-option"};
  const CompileResult b = compile_cuda(cuda_test::kEmpty, "empty.cu", bad, nullptr);
  CHECK_FALSE(b.ok);
  CHECK_FALSE(b.log.empty());
}

TEST_CASE("compiled kernels are cached by source, options and versions", "[compiler][cuda]") {
  REQUIRE_NVRTC();
  test_support::TempDir dir;
  KernelCache cache(dir.path());
  const NvrtcOptions o = ptx_for_hopper();
  const CompileResult first = compile_cuda(cuda_test::kVectorAdd, "vector_add.cu", o, &cache);
  REQUIRE(first.ok);
  CHECK_FALSE(first.from_cache);
  const CompileResult second = compile_cuda(cuda_test::kVectorAdd, "vector_add.cu", o, &cache);
  CHECK(second.from_cache);
  CHECK(second.image == first.image);
  NvrtcOptions other = o;
  other.flags = {"-DUNUSED=1"};
  CHECK_FALSE(compile_cuda(cuda_test::kVectorAdd, "vector_add.cu", other, &cache).from_cache);
  CHECK_FALSE(compile_cuda(std::string(cuda_test::kVectorAdd) + "\n", "vector_add.cu", o, &cache)
                  .from_cache);
  const CompileResult broken = compile_cuda(cuda_test::kBroken, "broken.cu", o, &cache);
  CHECK_FALSE(broken.ok); // failures are not cached
  CHECK(cache.stats().stores == 3);
  const std::string key = kernel_cache_key(cuda_test::kVectorAdd, o);
  CHECK(contains(key, "nvrtc " + std::to_string(nvrtc_status().major) + "."));
  CHECK(contains(key, "driver "));
  CHECK(contains(key, "--gpu-architecture=compute_90"));
  CHECK(contains(key, "vector_add"));
}

TEST_CASE("the target follows the device: its own cubin, or the newest PTX NVRTC knows",
          "[compiler][cuda]") {
  REQUIRE_NVRTC();
  DeviceProperties hopper;
  hopper.major = 9;
  hopper.minor = 0;
  const NvrtcOptions h = options_for(hopper);
  CHECK(h.kind == BinaryKind::Cubin);
  CHECK(h.arch == GpuArch{9, 0});
  DeviceProperties future;
  future.major = 99;
  const NvrtcOptions f = options_for(future);
  CHECK(f.kind == BinaryKind::Ptx);
  CHECK(f.arch.major * 10 + f.arch.minor >= 90);
}

// ---- on a GPU ----

TEST_CASE("the device reports its properties, a missing device is a UserError",
          "[compiler][cuda][gpu]") {
  REQUIRE_GPU();
  CHECK(cuda::device_count() >= 1);
  const DeviceProperties p = cuda::device_properties(0);
  CHECK_FALSE(p.name.empty());
  CHECK(p.major >= 7);
  CHECK(p.multiprocessors > 0);
  CHECK(p.total_memory > (std::size_t{1} << 30));
  CHECK(p.warp_size == 32);
  CHECK(p.driver_version >= 12000);
  const int missing = cuda::device_count();
  CHECK(contains(user_error_of([&] { (void)cuda::device_properties(missing); }),
                 "does not exist: this machine has"));
  CHECK(contains(user_error_of([&] {
                   (void)Tensor::empty({2}, DType::Float32,
                                       Device::cuda(static_cast<std::int16_t>(missing)));
                 }),
                 "does not exist"));
}

TEST_CASE("tensors of every dtype go to the GPU and come back unchanged", "[compiler][cuda][gpu]") {
  REQUIRE_GPU();
  for (DType dtype :
       {DType::Float32, DType::Float16, DType::BFloat16, DType::Int32, DType::Int64, DType::Bool}) {
    for (std::int64_t n : {0, 1, 7, 1000, 3'000'001}) {
      INFO(dtype_name(dtype) << " x " << n);
      const Tensor host = Tensor::from_values(ramp(static_cast<std::size_t>(n)), {n}, dtype);
      const Tensor gpu = host.to("cuda");
      CHECK(gpu.device() == "cuda:0");
      CHECK(gpu.dtype() == dtype);
      CHECK(gpu.sizes() == host.sizes());
      const Tensor back = gpu.to("cpu");
      CHECK(back.device() == "cpu");
      CHECK(back.to_vector() == host.to_vector());
      CHECK(gpu.to("cuda:0").is_same(gpu));
    }
  }
}

TEST_CASE("direct and staged copies agree at every size around the staging chunk",
          "[compiler][cuda][gpu]") {
  REQUIRE_GPU();
  DeviceContext& ctx = device_context(0);
  const std::size_t chunk = StagingBuffers::kChunkBytes;
  for (std::size_t n : {std::size_t{1}, std::size_t{4095}, chunk - 1, chunk, chunk + 1,
                        2 * chunk + 3, 5 * chunk / 2, chunk + (std::size_t{5} << 20) + 5}) {
    INFO(n);
    std::vector<unsigned char> src(n);
    for (std::size_t i = 0; i < n; ++i) {
      src[i] = static_cast<unsigned char>((i * 131 + 7) % 251);
    }
    void* d = ctx.allocator().allocate(n, reinterpret_cast<StreamId>(ctx.current_stream()));
    REQUIRE(d != nullptr);
    const auto dp = reinterpret_cast<CUdeviceptr>(d);
    for (int path = 0; path < 4; ++path) {
      std::vector<unsigned char> back(n, 0);
      if (path % 2 == 0) {
        copy_to_device_direct(ctx, dp, src.data(), n, ctx.current_stream());
      } else {
        copy_to_device_staged(ctx, dp, src.data(), n, ctx.current_stream());
      }
      if (path / 2 == 0) {
        copy_to_host_direct(ctx, back.data(), dp, n, ctx.current_stream());
      } else {
        copy_to_host_staged(ctx, back.data(), dp, n, ctx.current_stream());
      }
      CHECK(std::memcmp(back.data(), src.data(), n) == 0);
    }
    ctx.allocator().free(d);
  }
}

TEST_CASE("a strided GPU view comes back to the host in logical order", "[compiler][cuda][gpu]") {
  REQUIRE_GPU();
  const Tensor host = Tensor::from_values({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {3, 4});
  const Tensor gpu = host.to("cuda");
  // The transpose, as a compiled graph could return it (eager views of GPU tensors are
  // refused), built on the same storage.
  auto impl = std::make_shared<TensorImpl>(*gpu.impl());
  impl->sizes = {4, 3};
  impl->sym_sizes = to_sym_sizes(impl->sizes);
  impl->strides = {1, 4};
  const Tensor t(impl);
  CHECK(t.to("cpu").to_vector() == std::vector<double>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});
  auto sliced = std::make_shared<TensorImpl>(*gpu.impl());
  sliced->sizes = {2, 2};
  sliced->sym_sizes = to_sym_sizes(sliced->sizes);
  sliced->strides = {4, 2};
  sliced->storage_offset = 5;
  CHECK(Tensor(sliced).to("cpu").to_vector() == std::vector<double>{5, 7, 9, 11});
  CHECK(Tensor(sliced).to("cuda:0").is_same(Tensor(sliced)));
}

TEST_CASE("factories on the GPU give the host's values", "[compiler][cuda][gpu]") {
  REQUIRE_GPU();
  const std::vector<SymInt> sizes = {SymInt(33), SymInt(65)};
  CHECK(zeros(sizes, DType::Float32, "cuda").to("cpu").to_vector() ==
        zeros(sizes, DType::Float32).to_vector());
  CHECK(zeros({SymInt(3)}, DType::Float16, "cuda").to("cpu").to_vector() ==
        std::vector<double>{0, 0, 0});
  CHECK(zeros({SymInt(5)}, DType::Bool, "cuda").to("cpu").to_vector() ==
        std::vector<double>(5, 0.0));
  CHECK(ones(sizes, DType::BFloat16, "cuda").to("cpu").to_vector() ==
        ones(sizes, DType::BFloat16).to_vector());
  CHECK(full(sizes, -2.5, DType::Float32, "cuda:0").to("cpu").to_vector() ==
        full(sizes, -2.5).to_vector());
  CHECK(arange(SymInt(100), DType::Int64, "cuda").to("cpu").to_vector() ==
        arange(SymInt(100)).to_vector());
  CHECK(arange(0.0, 2.0, 0.25, DType::Float32, "cuda").to("cpu").to_vector() ==
        arange(0.0, 2.0, 0.25).to_vector());
  CHECK(randn(sizes, 7, DType::Float32, "cuda").to("cpu").to_vector() ==
        randn(sizes, 7).to_vector());
}

TEST_CASE("item() and to_bool() read a GPU value, other eager ops refuse GPU tensors",
          "[compiler][cuda][gpu]") {
  REQUIRE_GPU();
  const Tensor x = Tensor::scalar(2.5).to("cuda");
  CHECK(x.item<double>() == 2.5);
  CHECK(x.to_bool());
  CHECK_FALSE(Tensor::scalar(0.0, DType::Int32).to("cuda").to_bool());
  const Tensor y = ones({SymInt(4)}, DType::Float32, "cuda");
  CHECK(contains(user_error_of([&] { (void)add(y, y); }), "eager kernels run on the CPU only"));
  CHECK(contains(user_error_of([&] { (void)y.view({SymInt(2), SymInt(2)}); }), "aten.view"));
  CHECK(contains(user_error_of([&] { (void)add(y, ones({SymInt(4)})); }),
                 "found at least two devices, cuda:0 and cpu"));
  CHECK(contains(user_error_of([&] { (void)y.to_vector(); }), "copy it to the host"));
  CHECK(contains(user_error_of([&] { (void)y.data<float>(); }), "GPU memory"));
}

TEST_CASE("freed GPU tensors are served from the cache and counted", "[compiler][cuda][gpu]") {
  REQUIRE_GPU();
  cuda::synchronize();
  const MemoryStats before = cuda::memory_stats();
  { const Tensor a = Tensor::empty({1 << 18}, DType::Float32, "cuda"); }
  { const Tensor b = Tensor::empty({1 << 18}, DType::Float32, "cuda"); }
  const MemoryStats after = cuda::memory_stats();
  CHECK(after.allocations == before.allocations + 2);
  CHECK(after.frees == before.frees + 2);
  CHECK(after.cache_hits >= before.cache_hits + 1);
  CHECK(after.allocated_bytes == before.allocated_bytes);
  CHECK(after.reserved_bytes >= std::size_t{1} << 20);
  CHECK(after.peak_allocated_bytes >= before.allocated_bytes + (std::size_t{1} << 20));
  cuda::empty_cache();
  CHECK(cuda::memory_stats().reserved_bytes <= after.reserved_bytes - (std::size_t{1} << 20));
  const Tensor c = Tensor::empty({1 << 18}, DType::Float32, "cuda");
  CHECK(cuda::memory_stats().driver_allocations > after.driver_allocations);
}

TEST_CASE("an allocation larger than the GPU is a UserError with the figures",
          "[compiler][cuda][gpu]") {
  REQUIRE_GPU();
  // Four times the device's memory, in floats.
  const auto elements = static_cast<std::int64_t>(cuda::device_properties(0).total_memory);
  const std::string message =
      user_error_of([&] { (void)Tensor::empty({elements}, DType::Float32, "cuda"); });
  CHECK(contains(message, "CUDA out of memory on cuda:0: tried to allocate"));
  CHECK(contains(message, "free of"));
  const Tensor still_works = ones({SymInt(8)}, DType::Float32, "cuda");
  CHECK(still_works.to("cpu").to_vector() == std::vector<double>(8, 1.0));
}

TEST_CASE("kernels compile for the device, load, report their resources and launch",
          "[compiler][cuda][gpu]") {
  REQUIRE_GPU();
  DeviceContext& ctx = device_context(0);
  const NvrtcOptions options = options_for(ctx.properties());
  const CompileResult compiled = compile_cuda(cuda_test::kVectorAdd, "vector_add.cu", options);
  REQUIRE(compiled.ok);
  const Module module(ctx, compiled.image);
  const Kernel kernel = module.kernel("vector_add");
  CHECK(kernel.info().registers > 0);
  CHECK(kernel.info().max_threads_per_block >= 256);
  CHECK(kernel.info().binary_version == ctx.properties().major * 10 + ctx.properties().minor);

  const std::int64_t n = (1 << 20) + 3;
  const Tensor a = Tensor::from_values(ramp(static_cast<std::size_t>(n), 0.25), {n}).to("cuda");
  const Tensor b = Tensor::from_values(ramp(static_cast<std::size_t>(n), -0.5), {n}).to("cuda");
  const Tensor out = Tensor::empty({n}, DType::Float32, "cuda");
  const void* pa = a.raw_data();
  const void* pb = b.raw_data();
  void* po = out.raw_data();
  const long long count = n;
  const unsigned blocks = static_cast<unsigned>((n / 4 + 255) / 256);
  kernel.launch_with({blocks}, {256}, 0, ctx.current_stream(), pa, pb, po, count);
  const std::vector<double> got = out.to("cpu").to_vector();
  const std::vector<double> ha = a.to("cpu").to_vector();
  const std::vector<double> hb = b.to("cpu").to_vector();
  for (std::size_t i = 0; i < got.size(); i += 997) {
    CHECK(got[i] == static_cast<double>(static_cast<float>(ha[i]) + static_cast<float>(hb[i])));
  }
  CHECK(got.back() == static_cast<double>(static_cast<float>(ha.back() + hb.back())));

  CHECK(contains(user_error_of([&] {
                   kernel.launch_with({1}, {4096}, 0, ctx.current_stream(), pa, pb, po, count);
                 }),
                 "a block of 4096 threads"));
  CHECK(contains(user_error_of([&] {
                   kernel.launch_with({0}, {256}, 0, ctx.current_stream(), pa, pb, po, count);
                 }),
                 "empty launch"));
  CHECK(contains(user_error_of([&] { (void)module.kernel("no_such_kernel"); }),
                 "no kernel named 'no_such_kernel'"));
}

TEST_CASE("reduction, half-precision and template kernels give the host's results",
          "[compiler][cuda][gpu]") {
  REQUIRE_GPU();
  DeviceContext& ctx = device_context(0);
  const NvrtcOptions options = options_for(ctx.properties());
  auto load = [&](const char* source, const char* file) {
    const CompileResult r = compile_cuda(source, file, options);
    REQUIRE(r.ok);
    return std::make_unique<Module>(ctx, r.image);
  };
  const CUstream stream = ctx.current_stream();

  const int n = 5000;
  const auto sum_module = load(cuda_test::kBlockSum, "block_sum.cu");
  const Tensor x = Tensor::from_values(ramp(n, 0.125), {n}).to("cuda");
  const int blocks = (n + 1023) / 1024;
  const Tensor partial = Tensor::empty({blocks}, DType::Float32, "cuda");
  const void* px = x.raw_data();
  void* pp = partial.raw_data();
  sum_module->kernel("block_sum")
      .launch_with({static_cast<unsigned>(blocks)}, {1024}, 0, stream, px, pp, n);
  const std::vector<double> sums = partial.to("cpu").to_vector();
  const std::vector<double> hx = x.to("cpu").to_vector();
  CHECK(std::accumulate(sums.begin(), sums.end(), 0.0) ==
        Approx(std::accumulate(hx.begin(), hx.end(), 0.0)).epsilon(1e-6));

  const auto half_module = load(cuda_test::kHalfScale, "half_scale.cu");
  const Tensor h = Tensor::from_values(ramp(300, 0.5), {300}, DType::Float16).to("cuda");
  const Tensor hy = Tensor::empty({300}, DType::Float16, "cuda");
  const void* ph = h.raw_data();
  void* phy = hy.raw_data();
  const float scale = 0.5f;
  const int hn = 300;
  half_module->kernel("half_scale").launch_with({2}, {256}, 0, stream, ph, phy, scale, hn);
  const std::vector<double> hv = h.to("cpu").to_vector();
  const std::vector<double> hyv = hy.to("cpu").to_vector();
  for (std::size_t i = 0; i < hv.size(); ++i) {
    CHECK(hyv[i] == hv[i] * 0.5); // exact: halving a half is exact in range
  }

  const auto fill_module = load(cuda_test::kTemplateFill, "fill.cu");
  const Tensor filled = Tensor::empty({1001}, DType::Int32, "cuda");
  void* pf = filled.raw_data();
  const int value = -7;
  const int fn = 1001;
  fill_module->kernel("fill_i32").launch_with({1}, {256}, 0, stream, pf, value, fn);
  CHECK(filled.to("cpu").to_vector() == std::vector<double>(1001, -7.0));
}

TEST_CASE("an image the driver cannot load is a CudaError with the call and the code",
          "[compiler][cuda][gpu]") {
  REQUIRE_GPU();
  try {
    const Module m(device_context(0), "this is not PTX");
    FAIL("expected a CudaError");
  } catch (const CudaError& e) {
    CHECK(e.call() == "cuModuleLoadDataEx");
    CHECK(e.name().rfind("CUDA_ERROR_", 0) == 0);
    CHECK(contains(e.what(), "cuModuleLoadDataEx failed: CUDA_ERROR_"));
  }
}

TEST_CASE("work follows the current stream, events time it", "[compiler][cuda][gpu]") {
  REQUIRE_GPU();
  DeviceContext& ctx = device_context(0);
  const Stream side(ctx);
  Event start(ctx, true);
  Event stop(ctx, true);
  const Tensor host = Tensor::from_values(ramp(1 << 20), {1 << 20});
  {
    const StreamGuard guard(side);
    CHECK(ctx.current_stream() == side.handle());
    start.record(side.handle());
    const Tensor gpu = host.to("cuda");
    const Tensor copy = Tensor::empty({1 << 20}, DType::Float32, "cuda");
    device_memory::copy(copy.device(), copy.raw_data(), gpu.device(), gpu.raw_data(), 4 << 20);
    stop.record(side.handle());
    CHECK(copy.to("cpu").to_vector() == host.to_vector());
  }
  CHECK(ctx.current_stream() == ctx.default_stream());
  stop.synchronize();
  CHECK(stop.query());
  CHECK(stop.elapsed_ms(start) >= 0.0f);
  side.synchronize();
  CHECK(side.query());
}

TEST_CASE("threads make and free GPU tensors at the same time", "[compiler][cuda][gpu]") {
  REQUIRE_GPU();
  const MemoryStats before = cuda::memory_stats();
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&wrong, t] {
      for (int i = 0; i < 50; ++i) {
        const Tensor x = full({SymInt(1000 + t)}, static_cast<double>(t), DType::Float32, "cuda");
        if (x.to("cpu").to_vector() !=
            std::vector<double>(static_cast<std::size_t>(1000 + t), static_cast<double>(t))) {
          ++wrong;
        }
      }
    });
  }
  for (std::thread& t : threads) {
    t.join();
  }
  CHECK(wrong == 0);
  const MemoryStats after = cuda::memory_stats();
  CHECK(after.allocations - before.allocations == after.frees - before.frees);
  CHECK(after.allocated_bytes == before.allocated_bytes);
}

TEST_CASE("a compiled function guards its inputs' device and says why it recompiles",
          "[compiler][cuda][gpu]") {
  REQUIRE_GPU();
  auto f = [](const Tensor& x) { return add(x.to("cpu"), 1.0); };
  auto cf = compile(f, {.name = "f", .arg_names = {"x"}});
  const Tensor host = Tensor::from_values({1, 2, 3, 4}, {2, 2});
  const Tensor gpu = host.to("cuda");
  CHECK(cf(gpu).to_vector() == std::vector<double>{2, 3, 4, 5});
  CHECK(cf(gpu).to_vector() == std::vector<double>{2, 3, 4, 5});
  CHECK(cf.stats().compiles == 1);
  REQUIRE(cf.records().size() == 1);
  CHECK(contains(cf.records()[0].graph, "L_x_: \"f32[2, 2][2, 1]cuda:0\""));
  CHECK(contains(cf.records()[0].graph, "to: \"f32[2, 2][2, 1]cpu\""));
  CHECK(contains(cf.records()[0].guards, "AutogradCUDA), torch.float32, device=0,"));
  CHECK(cf(host).to_vector() == std::vector<double>{2, 3, 4, 5});
  REQUIRE(cf.records().size() == 2);
  REQUIRE(cf.records()[1].recompile_reasons.size() == 1);
  CHECK(contains(cf.records()[1].recompile_reasons[0],
                 "tensor 'x' dispatch key set mismatch. expected DispatchKeySet(CUDA, "
                 "BackendSelect, ADInplaceOrView, AutogradCUDA), actual DispatchKeySet(CPU, "
                 "BackendSelect, ADInplaceOrView, AutogradCPU)"));
}
