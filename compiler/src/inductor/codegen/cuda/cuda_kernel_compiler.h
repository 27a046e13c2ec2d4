// codegen/cuda: the GPU code generator behind kernel_compiler("cuda"). A compiled graph's
// kernels are one CUDA C++ module (codegen/cuda/cuda_source.h), compiled by NVRTC for the
// device (a cubin, through the on-disk kernel cache) and loaded with the driver; launches go on
// the device's current stream with the size symbols as arguments. Each loaded kernel is traced
// as a `cuda_kernel_info` artifact (grid, block, registers, shared and local memory, as
// cuFuncGetAttribute reports them). Under max-autotune each kernel and matmul is tuned the
// first time it runs (runtime/cuda_autotune.h).
#pragma once

#include "inductor/codegen/kernel_compiler.h"

namespace compiler::inductor {

std::unique_ptr<KernelCompiler> make_cuda_kernel_compiler();

namespace cuda_codegen {

// Renames a schedule's kernels for the GPU ("cpp_fused_add_0" -> "cuda_poi_fused_add_0", or
// "cuda_red_..." for a kernel with a reduction loop), as the output code and the trace name them.
void name_kernels_for_cuda(Schedule& s);

// The NVRTC check of host schedules (Config::check_cuda): modules compiled so far, and the
// last one's source (for tests).
std::int64_t checked_modules() noexcept;
std::string last_checked_source();

// max-autotune (compile(..., {.mode = "max-autotune"})) for the kernels loaded on this thread
// while the scope lives.
class AutotuneScope {
public:
  explicit AutotuneScope(bool on);
  ~AutotuneScope();
  AutotuneScope(const AutotuneScope&) = delete;
  AutotuneScope& operator=(const AutotuneScope&) = delete;

private:
  bool previous_;
};

} // namespace cuda_codegen

} // namespace compiler::inductor
