// The code generator factory (codegen/kernel_compiler.h): one entry per device this build has.
#include "inductor/codegen/kernel_compiler.h"

#include "inductor/codegen/cpu/cpu_kernel_compiler.h"

#include <functional>
#include <mutex>

namespace compiler::inductor {

namespace {

struct Backend {
  std::string_view device;
  std::unique_ptr<KernelCompiler> (*make)();
};

// A GPU code generator adds its line here.
constexpr Backend kBackends[] = {
    {"cpu", &cpu::make_cpu_kernel_compiler},
};

} // namespace

KernelCompiler* kernel_compiler(std::string_view device) {
  static std::mutex mutex;
  static std::vector<std::pair<std::string_view, std::unique_ptr<KernelCompiler>>> made;
  std::lock_guard<std::mutex> lock(mutex);
  for (auto& [d, k] : made) {
    if (d == device) {
      return k.get();
    }
  }
  for (const Backend& b : kBackends) {
    if (b.device == device) {
      made.emplace_back(b.device, b.make());
      return made.back().second.get();
    }
  }
  return nullptr;
}

} // namespace compiler::inductor
