// codegen/cpu: a kernel as readable C-like source, for inductor_output_code: the loops the LLVM
// code generator emits (which loop the threads split, which is vectorised) and each node's body
// one operation per line, as Inductor prints its C++ kernels.
#pragma once

#include "inductor/codegen/cpu/llvm_kernel.h"
#include "inductor/scheduler/kernel_plan.h"

#include <string>

namespace compiler::inductor::cpu {

std::string print_kernel(const KernelPlan& kernel, const LoweredGraph& ir, const CpuTarget& target,
                         int threads);

} // namespace compiler::inductor::cpu
