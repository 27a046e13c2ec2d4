// Internal: CUDA C++ source to GPU code with NVRTC, through the on-disk kernel cache.
//
// The target is a compute capability. For a device, arch_for() picks the device's own when
// NVRTC can generate machine code for it (a cubin: loads without a JIT step), else the newest
// PTX NVRTC knows (the driver compiles it at load). Without a device (CI, or code generated
// ahead), any target can be asked for: NVRTC needs no GPU.
#pragma once

#include "compiler/cuda/cuda.h"
#include "cuda/kernel_cache.h"

#include <string>
#include <string_view>
#include <vector>

namespace compiler::cuda {

enum class BinaryKind { Ptx, Cubin };

struct GpuArch {
  int major = 9;
  int minor = 0;
  friend bool operator==(const GpuArch&, const GpuArch&) = default;
};

struct NvrtcOptions {
  GpuArch arch;
  BinaryKind kind = BinaryKind::Cubin;
  // More NVRTC flags ("-use_fast_math", "-lineinfo", "-DBLOCK=256"), after ours: -std=c++17,
  // the target, and -I for the toolkit's headers when they are installed.
  std::vector<std::string> flags;
};

struct CompileResult {
  bool ok = false;
  BinaryKind kind = BinaryKind::Cubin;
  std::string image;         // PTX text or cubin bytes (when ok)
  std::string log;           // NVRTC's log: the errors when !ok, any warnings otherwise
  std::string target;        // "sm_90" or "compute_90"
  bool from_cache = false;   // served by the kernel cache without compiling
  double milliseconds = 0.0; // spent in this call (compiling, or reading the cache)

  // "NVRTC could not compile 'name' for sm_90:\n<log>".
  std::string failure_message(std::string_view name) const;
};

// The compile target for `device`: its own architecture as a cubin when NVRTC supports it,
// otherwise PTX of the newest architecture NVRTC supports.
NvrtcOptions options_for(const DeviceProperties& device);

// Every flag NVRTC is given for `options` (the cache key includes them).
std::vector<std::string> nvrtc_flags(const NvrtcOptions& options);

// Compiles `source`, named `name` in the log (a file name such as "vector_add.cu"). A
// compilation error is a result with ok == false and NVRTC's log; UserError when NVRTC cannot
// be loaded. `cache` may be null (always compile).
CompileResult compile_cuda(std::string_view source, std::string_view name,
                           const NvrtcOptions& options,
                           KernelCache* cache = &KernelCache::process_cache());

// The cache key for `source` and `options`: the source, every flag, the binary kind and the
// NVRTC and driver versions.
std::string kernel_cache_key(std::string_view source, const NvrtcOptions& options);

} // namespace compiler::cuda
