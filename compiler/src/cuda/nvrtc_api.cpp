// Loading NVRTC: the candidate files in order, one dlsym per listed function.
#include "cuda/nvrtc_api.h"

#include "compiler/core/errors.h"
#include "compiler/cuda/cuda.h"
#include "core/shared_library.h"

#include <cstdlib>
#include <dlfcn.h>
#include <vector>

namespace compiler::cuda {

namespace {

NvrtcStatus load_nvrtc() {
  NvrtcStatus status;
  std::vector<std::string> candidates;
  if (const char* env = std::getenv("TORCHSCOPE_NVRTC_LIBRARY"); env != nullptr && *env != '\0') {
    candidates.emplace_back(env);
  }
  candidates.emplace_back(TORCHSCOPE_NVRTC_SONAME);
  for (const char* dir :
       {TORCHSCOPE_CUDA_LIBRARY_DIR, "/usr/local/cuda/lib64", "/usr/local/cuda/lib"}) {
    candidates.emplace_back(std::string(dir) + "/" + TORCHSCOPE_NVRTC_SONAME);
  }
  const core::OpenedLibrary opened = core::open_first_library(candidates);
  void* lib = opened.handle;
  status.library = opened.path;
  if (lib == nullptr) {
    status.unavailable_reason =
        "NVRTC (CUDA's run-time compiler) could not be loaded: " + opened.tried +
        ". Install the CUDA Toolkit, or name the library in "
        "TORCHSCOPE_NVRTC_LIBRARY";
    return status;
  }
  static NvrtcApi api;
  std::string missing;
#define TORCHSCOPE_NVRTC_LOAD(name)                                                                \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(lib, #name));                              \
  if (api.name == nullptr && missing.empty()) {                                                    \
    missing = #name;                                                                               \
  }
  TORCHSCOPE_NVRTC_FUNCTIONS(TORCHSCOPE_NVRTC_LOAD)
#undef TORCHSCOPE_NVRTC_LOAD
  if (!missing.empty()) {
    status.unavailable_reason = status.library + " lacks " + missing + ": it is not a usable NVRTC";
    return status;
  }
  if (api.nvrtcVersion(&status.major, &status.minor) != NVRTC_SUCCESS) {
    status.unavailable_reason = status.library + ": nvrtcVersion failed";
    return status;
  }
  status.api = &api;
  return status;
}

} // namespace

const NvrtcStatus& nvrtc_status() {
  static const NvrtcStatus status = load_nvrtc();
  return status;
}

const NvrtcApi& nvrtc() {
  const NvrtcStatus& s = nvrtc_status();
  if (s.api == nullptr) [[unlikely]] {
    user_error(s.unavailable_reason);
  }
  return *s.api;
}

void check_nvrtc(nvrtcResult result, std::string_view call) {
  if (result == NVRTC_SUCCESS) {
    return;
  }
  const char* text = nvrtc_status().api != nullptr ? nvrtc().nvrtcGetErrorString(result) : nullptr;
  const std::string name = text != nullptr ? text : "nvrtcResult " + std::to_string(result);
  throw CudaError(std::string(call), static_cast<int>(result), name, "");
}

} // namespace compiler::cuda
