// The code generator factory (codegen/kernel_compiler.h): one entry per device this build has,
// listed by CMake in the generated inductor_backends.h (compiler/src/inductor/sources.cmake), so
// a build without LLVM drops the CPU generator's files and keeps this one.
#include "inductor/codegen/kernel_compiler.h"

#include "inductor_backends.h"

#include <mutex>
#include <vector>

namespace compiler::inductor {

// Each backend's factory, defined in its own folder (codegen/cpu/cpu_kernel_compiler.cpp, ...).
#define TORCHSCOPE_DECLARE_BACKEND(device)                                                         \
  std::unique_ptr<KernelCompiler> make_##device##_kernel_compiler();
TORCHSCOPE_INDUCTOR_BACKENDS(TORCHSCOPE_DECLARE_BACKEND)
#undef TORCHSCOPE_DECLARE_BACKEND

namespace {

struct Backend {
  std::string_view device;
  std::unique_ptr<KernelCompiler> (*make)();
};

const std::vector<Backend>& backends() {
  static const std::vector<Backend> list = {
#define TORCHSCOPE_BACKEND_ENTRY(device) {#device, &make_##device##_kernel_compiler},
      TORCHSCOPE_INDUCTOR_BACKENDS(TORCHSCOPE_BACKEND_ENTRY)
#undef TORCHSCOPE_BACKEND_ENTRY
  };
  return list;
}

} // namespace

void LoadedKernels::gemm(BufferId, std::int64_t m, std::int64_t n, std::int64_t k, MatrixView a,
                         MatrixView b, float* c, std::int64_t ldc, const MatrixView* bias) const {
  sgemm(m, n, k, a, b, c, ldc, bias);
}

KernelCompiler* kernel_compiler(std::string_view device) {
  static std::mutex mutex;
  static std::vector<std::pair<std::string_view, std::unique_ptr<KernelCompiler>>> made;
  std::lock_guard<std::mutex> lock(mutex);
  for (auto& [d, k] : made) {
    if (d == device) {
      return k.get();
    }
  }
  for (const Backend& b : backends()) {
    if (b.device == device) {
      made.emplace_back(b.device, b.make());
      return made.back().second.get();
    }
  }
  return nullptr;
}

} // namespace compiler::inductor
