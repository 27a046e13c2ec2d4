// Loading the driver: dlopen, one dlsym per listed function, cuInit, and the reason CUDA is
// unavailable when any step fails.
#include "cuda/driver_api.h"

#include "compiler/core/errors.h"
#include "compiler/cuda/cuda.h"

#include <dlfcn.h>

namespace compiler::cuda {

namespace {

#define TORCHSCOPE_CUDA_SYMBOL_TEXT(x) #x
// Expands the cuda.h macro first, so cuMemAlloc is looked up as "cuMemAlloc_v2".
#define TORCHSCOPE_CUDA_SYMBOL(name) TORCHSCOPE_CUDA_SYMBOL_TEXT(name)

DriverStatus load_driver() {
  DriverStatus status;
  // The driver's soname is stable across releases; the unversioned name is a development link.
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    status.unavailable_reason = std::string("no CUDA driver: libcuda.so.1 could not be loaded (") +
                                (why != nullptr ? why : "unknown reason") +
                                "); install the NVIDIA driver to use a GPU";
    return status;
  }
  static DriverApi api;
  std::string missing;
#define TORCHSCOPE_CUDA_DRIVER_LOAD(name)                                                          \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(lib, TORCHSCOPE_CUDA_SYMBOL(name)));       \
  if (api.name == nullptr && missing.empty()) {                                                    \
    missing = TORCHSCOPE_CUDA_SYMBOL(name);                                                        \
  }
  TORCHSCOPE_CUDA_DRIVER_FUNCTIONS(TORCHSCOPE_CUDA_DRIVER_LOAD)
#undef TORCHSCOPE_CUDA_DRIVER_LOAD

  if (api.cuDriverGetVersion != nullptr) {
    (void)api.cuDriverGetVersion(&status.version);
  }
  const auto version_text = [](int v) {
    return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
  };
  if (!missing.empty()) {
    status.unavailable_reason = "the CUDA driver is too old: it supports CUDA " +
                                version_text(status.version) + " and lacks " + missing +
                                ", which this build (made with CUDA " + version_text(CUDA_VERSION) +
                                " headers) needs; update the NVIDIA driver";
    return status;
  }
  const CUresult init = api.cuInit(0);
  if (init != CUDA_SUCCESS) {
    const char* name = nullptr;
    (void)api.cuGetErrorName(init, &name);
    const std::string code = name != nullptr ? name : std::to_string(static_cast<int>(init));
    status.unavailable_reason = init == CUDA_ERROR_NO_DEVICE
                                    ? "no CUDA device: the driver found none (cuInit: " + code + ")"
                                    : "the CUDA driver failed to start (cuInit: " + code + ")";
    return status;
  }
  if (api.cuDeviceGetCount(&status.device_count) != CUDA_SUCCESS || status.device_count <= 0) {
    status.device_count = 0;
    status.unavailable_reason = "no CUDA device: the driver reports none";
    return status;
  }
  status.api = &api;
  return status;
}

} // namespace

const DriverStatus& driver_status() {
  static const DriverStatus status = load_driver(); // thread-safe once
  return status;
}

const DriverApi& driver() {
  const DriverStatus& s = driver_status();
  if (s.api == nullptr) [[unlikely]] {
    user_error("CUDA is unavailable: " + s.unavailable_reason);
  }
  return *s.api;
}

std::string driver_error_name(CUresult result) {
  const char* name = nullptr;
  if (const DriverApi* api = driver_status().api) {
    (void)api->cuGetErrorName(result, &name);
  }
  return name != nullptr ? name : "CUresult " + std::to_string(static_cast<int>(result));
}

std::string driver_error_description(CUresult result) {
  const char* text = nullptr;
  if (const DriverApi* api = driver_status().api) {
    (void)api->cuGetErrorString(result, &text);
  }
  return text != nullptr ? text : "";
}

void throw_driver_error(CUresult result, std::string_view call) {
  throw CudaError(std::string(call), static_cast<int>(result), driver_error_name(result),
                  driver_error_description(result));
}

} // namespace compiler::cuda
