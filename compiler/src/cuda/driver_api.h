// Internal: the CUDA driver API, loaded at run time with dlopen("libcuda.so.1").
//
// The driver comes with the GPU's kernel module, not with the toolkit, so a binary linked
// against it would not even start on a machine without a GPU (CI). Loading it at run time
// keeps every binary startable everywhere; the first use finds out whether there is a driver
// and a device, and remembers why not.
//
// The functions are listed once below. cuda.h maps many names to versioned symbols
// (cuMemAlloc -> cuMemAlloc_v2); the table uses the same macros, so `api.cuMemAlloc(...)`
// calls the symbol this build's headers mean, looked up under that versioned name.
#pragma once

#include <cuda.h>
#include <string>
#include <string_view>

namespace compiler::cuda {

// clang-format off
#define TORCHSCOPE_CUDA_DRIVER_FUNCTIONS(X)                                                      \
  X(cuGetErrorName) X(cuGetErrorString) X(cuInit) X(cuDriverGetVersion)                          \
  X(cuDeviceGetCount) X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceGetAttribute)                  \
  X(cuDeviceTotalMem) X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease)                   \
  X(cuCtxSetCurrent) X(cuCtxGetCurrent) X(cuCtxSynchronize)                                      \
  X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize) X(cuStreamQuery)                   \
  X(cuStreamWaitEvent)                                                                           \
  X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuEventQuery) X(cuEventSynchronize)      \
  X(cuEventElapsedTime)                                                                          \
  X(cuModuleLoadDataEx) X(cuModuleUnload) X(cuModuleGetFunction) X(cuFuncGetAttribute)           \
  X(cuFuncSetAttribute) X(cuLaunchKernel)                                                        \
  X(cuMemAlloc) X(cuMemFree) X(cuMemGetInfo) X(cuMemHostAlloc) X(cuMemFreeHost)                  \
  X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemcpyDtoDAsync) X(cuMemcpyPeerAsync)           \
  X(cuMemsetD8Async) X(cuMemsetD32Async)                                                        \
  X(cuStreamBeginCapture) X(cuStreamEndCapture) X(cuGraphInstantiateWithFlags) X(cuGraphLaunch)  \
  X(cuGraphDestroy) X(cuGraphExecDestroy)
// clang-format on

struct DriverApi {
#define TORCHSCOPE_CUDA_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
  TORCHSCOPE_CUDA_DRIVER_FUNCTIONS(TORCHSCOPE_CUDA_DRIVER_MEMBER)
#undef TORCHSCOPE_CUDA_DRIVER_MEMBER
};

// The outcome of loading and starting the driver, decided once per process.
struct DriverStatus {
  const DriverApi* api = nullptr; // null when unusable
  int version = 0;                // cuDriverGetVersion: 13000 for CUDA 13.0
  int device_count = 0;
  std::string unavailable_reason; // "" when api is set and device_count > 0
};

// Loads libcuda.so.1 and calls cuInit(0) on first use. Never throws.
const DriverStatus& driver_status();

// The loaded driver: UserError carrying driver_status().unavailable_reason when CUDA cannot
// be used.
const DriverApi& driver();

// The name and description of a driver result ("CUDA_ERROR_OUT_OF_MEMORY", "out of memory").
std::string driver_error_name(CUresult result);
std::string driver_error_description(CUresult result);

// Throws CudaError for a failed call.
[[noreturn]] void throw_driver_error(CUresult result, std::string_view call);

// Throws CudaError naming `call` unless `result` is CUDA_SUCCESS.
inline void check(CUresult result, std::string_view call) {
  if (result != CUDA_SUCCESS) [[unlikely]] {
    throw_driver_error(result, call);
  }
}

// Calls the driver function `fn` with `args` and checks the result, naming the function:
// TORCHSCOPE_CU(cuMemAlloc, &ptr, n).
#define TORCHSCOPE_CU(fn, ...)                                                                     \
  ::compiler::cuda::check(::compiler::cuda::driver().fn(__VA_ARGS__), #fn)

} // namespace compiler::cuda
