// codegen/cpu: the CPU code generator behind kernel_compiler("cpu").
#pragma once

#include "inductor/codegen/kernel_compiler.h"

#include <memory>

namespace compiler::inductor {

// Registered as the "cpu" entry of inductor_backends.h when LLVM is in the build.
std::unique_ptr<KernelCompiler> make_cpu_kernel_compiler();

} // namespace compiler::inductor
