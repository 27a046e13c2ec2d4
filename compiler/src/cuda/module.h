// Internal: loaded GPU code. A Module is a PTX or cubin image loaded into a device's context
// (the driver compiles PTX for the device at load time); a Kernel is one of its __global__
// functions, with what the driver reports about it (registers, shared memory: the figures of
// the cuda_kernel_info artifact) and a launch that checks its configuration first.
#pragma once

#include "cuda/runtime.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace compiler::cuda {

struct Dim3 {
  unsigned x = 1;
  unsigned y = 1;
  unsigned z = 1;
};

// What the driver says about a loaded kernel (cuFuncGetAttribute).
struct KernelInfo {
  int registers = 0;             // per thread
  int static_shared_bytes = 0;   // __shared__ arrays
  int const_bytes = 0;           // __constant__ data
  int local_bytes = 0;           // per thread (register spills, local arrays)
  int max_threads_per_block = 0; // this kernel's limit, given its registers
  int ptx_version = 0;           // 90 for PTX ISA of compute_90
  int binary_version = 0;        // 90 for sm_90 machine code
};

class Kernel {
public:
  Kernel(DeviceContext& ctx, CUfunction function, std::string name);

  const std::string& name() const noexcept { return name_; }
  const KernelInfo& info() const noexcept { return info_; }
  CUfunction handle() const noexcept { return function_; }

  // Lets the kernel use up to `bytes` of dynamic shared memory (above 48 KiB needs opting in).
  void set_max_dynamic_shared_bytes(int bytes);

  // Queues the kernel on `stream` with `args` (pointers to each argument's value, in order).
  // UserError on a configuration the device cannot run (more threads per block than the
  // kernel allows, more shared memory than the device has, an empty grid).
  void launch(Dim3 grid, Dim3 block, unsigned dynamic_shared_bytes, CUstream stream,
              void** args) const;
  // The same with the arguments given by value: launch_with(grid, block, 0, s, ptr, n).
  template <class... Args>
  void launch_with(Dim3 grid, Dim3 block, unsigned dynamic_shared_bytes, CUstream stream,
                   const Args&... args) const {
    void* pointers[] = {const_cast<void*>(static_cast<const void*>(&args))..., nullptr};
    launch(grid, block, dynamic_shared_bytes, stream, pointers);
  }

private:
  DeviceContext& ctx_;
  CUfunction function_;
  std::string name_;
  KernelInfo info_;
  int max_dynamic_shared_ = 0;
};

class Module {
public:
  // Loads a PTX (text) or cubin (ELF) image into `ctx`. CudaError carrying the driver's log
  // when the image does not load (bad PTX, an architecture the device cannot run).
  Module(DeviceContext& ctx, std::string_view image);
  ~Module();
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // The __global__ function `name` (as written in an extern "C" kernel). UserError when the
  // module has none.
  Kernel kernel(std::string_view name) const;
  DeviceContext& context() const noexcept { return ctx_; }

private:
  DeviceContext& ctx_;
  CUmodule module_ = nullptr;
};

} // namespace compiler::cuda
