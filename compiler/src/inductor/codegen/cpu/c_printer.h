// codegen/cpu: a kernel as readable C-like source, for inductor_output_code: the loops its
// CpuLoopPlan decided (which loop the threads split, which is vectorised) and each node's body
// one operation per line, as Inductor prints its C++ kernels. The C++ dialect of the shared
// printer (codegen/c_like_printer.h).
#pragma once

#include "inductor/codegen/cpu/cpu_loop_plan.h"
#include "inductor/scheduler/kernel_plan.h"

#include <string>

namespace compiler::inductor::cpu {

// `threads`: the thread pool's size, said in a comment on x0's split.
std::string print_kernel(const KernelPlan& kernel, const CpuLoopPlan& loops, const LoweredGraph& ir,
                         int threads);

} // namespace compiler::inductor::cpu
