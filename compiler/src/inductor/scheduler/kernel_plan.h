// inductor/scheduler: what the scheduler hands every code generator (CPU through LLVM now, a
// GPU backend later): fused kernels as loop structures over buffer bodies, and the program of
// steps that runs them, with the memory plan. Each code generator decides once how a plan's
// loops map onto its machine (the CPU's thread split and vector loop in
// codegen/cpu/cpu_loop_plan.h; a GPU's kernel shapes in codegen/cuda/cuda_source.h) and runs
// each node's body through its OpsHandler.
#pragma once

#include "inductor/ir/loop_ir.h"

#include <string>
#include <vector>

namespace compiler::inductor {

// One buffer computed in a kernel: its body's index (and reduction index) in the kernel's loop
// variables (x0.. the outer loops, r0.. the stage's inner loops).
struct FusedNode {
  BufferId buffer = -1;
  std::vector<Expr> index;
  std::vector<Expr> rindex;
  // False when every reader is in this kernel and reads the value where it is computed: the
  // value stays in registers and the buffer is never allocated.
  bool store = true;
};

// A loop over `inner` inside each outer iteration; empty `inner`: straight-line code per outer
// index. Pointwise nodes compute per iteration; reductions accumulate over the loop and their
// results are available to later stages.
struct LoopStage {
  std::vector<Expr> inner;
  std::vector<FusedNode> nodes;
};

// How a kernel uses a buffer it receives as an argument.
enum class ArgRole : std::uint8_t { In, Out, InOut };

struct KernelArg {
  BufferId buffer = -1;
  ArgRole role = ArgRole::In;
};

struct KernelPlan {
  std::string name;        // "cpp_fused_add_mul_0"
  std::vector<Expr> outer; // the outer loop sizes; x0 is split across threads
  std::vector<LoopStage> stages;
  std::vector<KernelArg> args;      // in argument order
  std::vector<std::size_t> origins; // the post-grad graph nodes it computes, in graph order

  // No stage loops inside the outer loops: every stage is straight-line per outer index.
  bool pointwise_only() const {
    for (const LoopStage& s : stages) {
      if (!s.inner.empty()) {
        return false;
      }
    }
    return true;
  }
};

// One step of the compiled program.
struct Step {
  enum class Kind : std::uint8_t { Kernel, Extern, Fallback } kind = Kind::Kernel;
  std::size_t kernel = 0; // Kernel: index into Schedule::kernels
  BufferId buffer = -1;   // Extern / Fallback: the buffer it computes
};

// Where a buffer's storage comes from when the program runs.
struct BufferPlan {
  enum class Source : std::uint8_t {
    External, // an input or a constant: the caller's tensor
    Slot,     // a planned allocation shared by buffers whose lifetimes do not overlap
    Output,   // a fresh allocation handed to the caller
    Result,   // a fallback's result tensor
    None,     // kernel-local: never in memory
  } source = Source::Slot;
  std::int32_t slot = -1;   // Slot / Output: the allocation's index
  std::size_t last_use = 0; // the last step that reads it
};

struct Schedule {
  std::vector<KernelPlan> kernels;
  std::vector<Step> steps;
  std::vector<BufferPlan> buffers; // per buffer
  // Allocations: storage size in elements of the dtype of the first buffer placed there.
  struct Allocation {
    Expr numel;
    DType dtype = DType::Float32;
    bool output = false;
  };
  std::vector<Allocation> allocations;
  std::size_t reused = 0;  // buffers that took over another's allocation
  std::size_t inplace = 0; // of those, computed over the buffer they read (in place)
};

} // namespace compiler::inductor
