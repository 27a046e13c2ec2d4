// codegen/cpu: from kernel plans to machine code in this process (no LLVM types here). Kernels
// are emitted into one module per graph, optimised at O3 for the host CPU, compiled to an
// object file (what the compile cache stores), and linked by ORC's LLJIT into a JITDylib of
// their own, which is removed when the code is no longer used.
#pragma once

#include "inductor/scheduler/kernel_plan.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace compiler::inductor::cpu {

// The kernel entry point type (codegen/cpu/llvm_kernel.h).
using KernelFn = void (*)(void* const* args, const std::int64_t* symbols, std::int64_t begin,
                          std::int64_t end, std::int32_t* status);

struct ObjectCode {
  std::string object;
  std::string ir; // optimised LLVM IR, as text
};

// Emits, optimises and compiles every kernel of `s` into one object file.
ObjectCode compile_kernels(const Schedule& s, const LoweredGraph& ir);

// Machine code linked into the process.
class LoadedObject {
public:
  virtual ~LoadedObject() = default;
  virtual KernelFn function(std::size_t i) const = 0;
};

// Links `object` and looks up `names` (in order); nullptr when the object does not link or lacks
// one of them.
std::unique_ptr<LoadedObject> load_object(std::string_view object,
                                          const std::vector<std::string>& names);

} // namespace compiler::inductor::cpu
