// codegen/cpu: how a kernel's loops run on the CPU, decided once per kernel by plan_cpu_loops():
// which loop the threads split and into what parts, which loop is the vector loop and how wide
// it is. The LLVM emitter (llvm_kernel.h) emits these loops, the C printer (c_printer.h) prints
// them and the launcher (cpu_kernel_compiler.cpp) splits them across the thread pool; none of
// them decides any of it again.
#pragma once

#include "inductor/scheduler/kernel_plan.h"

#include <cstdint>
#include <string>

namespace compiler::inductor::cpu {

// The machine kernels are compiled for.
struct CpuTarget {
  std::string triple;
  std::string cpu;      // "sapphirerapids"
  std::string features; // "+avx512f,+fma,..."
  unsigned lanes = 4;   // f32 lanes of the widest vector register
};

struct CpuLoopPlan {
  // ---- the thread split: each call of the kernel runs x0 (the first outer loop) over
  // [begin, end), a part of [0, split_extent) the thread pool hands out; a kernel without outer
  // loops runs its body once, in the call whose range is not empty.
  Expr split_extent = 1;        // x0's size (1 without outer loops)
  Expr work = 1;                // elements computed per x0 iteration: what a part is worth
  std::int64_t split_align = 1; // parts are multiples of this long (but the last)
  // Below this much work in all a launch stays on the calling thread (a wake-up costs more).
  std::int64_t min_work_per_thread = 32768;

  // ---- the vector loop: `lanes` lanes per iteration, then a scalar loop over the rest (the
  // tail), the node bodies emitted once per width.
  enum class Vector : std::uint8_t {
    None,  // no loops at all: straight-line code, once
    Outer, // the innermost outer loop (a kernel whose stages are all straight-line)
    Stage, // the innermost loop of each looping stage; the outer loops are scalar
  } vector = Vector::None;
  unsigned lanes = 1;
};

// The loops of `k` on `target`.
CpuLoopPlan plan_cpu_loops(const KernelPlan& k, const CpuTarget& target);

} // namespace compiler::inductor::cpu
