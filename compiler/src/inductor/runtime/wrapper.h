// inductor/runtime: the compiled program (Inductor's wrapper code, as data): the schedule's
// steps run in order over buffers in planned allocations. Inputs and constants are read in
// place (an input whose layout differs from the one compiled for, possible only with dynamic
// sizes, is copied first); intermediates live in allocations reused as the memory plan says;
// results get fresh storage (or are views of an input, as in eager). A fallback node runs its
// eager kernel on tensors viewing the buffers. An error raised by a kernel (an index out of
// range) makes the whole graph run again on the interpreter, which raises the eager error
// (a GPU training forward's are read later: make_generated_graph).
#pragma once

#include "compiler/backend/backend.h"
#include "inductor/codegen/kernel_compiler.h"
#include "inductor/ir/loop_ir.h"
#include "inductor/scheduler/kernel_plan.h"

#include <memory>
#include <vector>

namespace compiler::inductor {

// RAII: every buffer the compiled programs allocate on this thread while the scope lives is
// also kept in `keep`, so it outlives the run (a CUDA graph recorded over a run owns the
// addresses its kernels were captured with).
class AllocationKeeper {
public:
  explicit AllocationKeeper(std::vector<std::shared_ptr<Storage>>& keep);
  ~AllocationKeeper();
  AllocationKeeper(const AllocationKeeper&) = delete;
  AllocationKeeper& operator=(const AllocationKeeper&) = delete;

private:
  std::vector<std::shared_ptr<Storage>>* previous_;
};

// `graph` is the post-grad graph `ir` and `schedule` were made from. `defer_checks` (a GPU
// training forward): the index checks of its kernels are not waited for at the run's end (the
// device would drain its queue while the host goes on to the backward); every later run on the
// thread reads them once its own work is queued, and raises a UserError when one failed.
std::unique_ptr<backend::CompiledGraph>
make_generated_graph(const graph::Graph& graph, std::shared_ptr<const LoweredGraph> ir,
                     std::shared_ptr<const Schedule> schedule,
                     std::unique_ptr<LoadedKernels> kernels, bool defer_checks = false);

} // namespace compiler::inductor
