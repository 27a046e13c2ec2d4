// codegen/cpu: one KernelPlan as an LLVM function (no LLVM types in this header).
//
//   void <name>(i8** args, i64* symbols, i64 begin, i64 end, i32* status)
//
// runs the outer loop x0 over [begin, end) (the thread pool splits x0) and every other loop in
// full, as the kernel's CpuLoopPlan decided them: its vector loop has `lanes` lanes and a scalar
// tail, the node bodies emitted twice, once on vectors and once on scalars. Contiguous accesses
// are vector loads and stores, broadcasts are scalar loads, anything else a gather or scatter;
// index arithmetic happens once per vector iteration. Reductions accumulate in vector registers
// and are combined across lanes after their loop; values read where they are computed come
// from registers.
#pragma once

#include "inductor/codegen/cpu/cpu_loop_plan.h"

#include <string>

namespace llvm {
class Module;
} // namespace llvm

namespace compiler::inductor::cpu {

// The machine this process runs on.
const CpuTarget& host_target();

void emit_kernel(llvm::Module& module, const KernelPlan& kernel, const CpuLoopPlan& loops,
                 const LoweredGraph& ir, const CpuTarget& target);

} // namespace compiler::inductor::cpu
