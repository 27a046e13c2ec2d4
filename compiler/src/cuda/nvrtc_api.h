// Internal: NVRTC, CUDA's run-time C++ compiler, loaded with dlopen like the driver
// (cuda/driver_api.h): a binary that never compiles a kernel does not need it installed.
//
// It is looked for as TORCHSCOPE_NVRTC_LIBRARY (an environment variable naming the file), then
// by its soname (libnvrtc.so.<toolkit major>, found through the loader's path), then in the
// toolkit's library folder this build was configured with, then in /usr/local/cuda's.
#pragma once

#include <nvrtc.h>
#include <string>
#include <string_view>

namespace compiler::cuda {

// clang-format off
#define TORCHSCOPE_NVRTC_FUNCTIONS(X)                                                             \
  X(nvrtcGetErrorString) X(nvrtcVersion) X(nvrtcGetNumSupportedArchs) X(nvrtcGetSupportedArchs)  \
  X(nvrtcCreateProgram) X(nvrtcDestroyProgram) X(nvrtcCompileProgram)                            \
  X(nvrtcGetProgramLogSize) X(nvrtcGetProgramLog) X(nvrtcGetPTXSize) X(nvrtcGetPTX)              \
  X(nvrtcGetCUBINSize) X(nvrtcGetCUBIN)
// clang-format on

struct NvrtcApi {
#define TORCHSCOPE_NVRTC_MEMBER(name) decltype(&::name) name = nullptr;
  TORCHSCOPE_NVRTC_FUNCTIONS(TORCHSCOPE_NVRTC_MEMBER)
#undef TORCHSCOPE_NVRTC_MEMBER
};

struct NvrtcStatus {
  const NvrtcApi* api = nullptr;  // null when NVRTC cannot be loaded
  int major = 0;                  // nvrtcVersion
  int minor = 0;                  //
  std::string library;            // the file that was loaded
  std::string unavailable_reason; // "" when api is set
};

// Loads NVRTC on first use. Never throws.
const NvrtcStatus& nvrtc_status();

// The loaded NVRTC, or a UserError with the reason it cannot be loaded.
const NvrtcApi& nvrtc();

// Throws CudaError naming `call` unless `result` is NVRTC_SUCCESS.
void check_nvrtc(nvrtcResult result, std::string_view call);

} // namespace compiler::cuda
