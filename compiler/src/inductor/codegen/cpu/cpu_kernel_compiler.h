// codegen/cpu: the CPU code generator behind kernel_compiler("cpu").
#pragma once

#include "inductor/codegen/kernel_compiler.h"

#include <memory>

namespace compiler::inductor::cpu {

std::unique_ptr<KernelCompiler> make_cpu_kernel_compiler();

} // namespace compiler::inductor::cpu
