// inductor/runtime: the compiled program (Inductor's wrapper code, as data): the schedule's
// steps run in order over buffers in planned allocations. Inputs and constants are read in
// place (an input whose layout differs from the one compiled for, possible only with dynamic
// sizes, is copied first); intermediates live in allocations reused as the memory plan says;
// results get fresh storage (or are views of an input, as in eager). A fallback node runs its
// eager kernel on tensors viewing the buffers. An error raised by a kernel (an index out of
// range) makes the whole graph run again on the interpreter, which raises the eager error.
#pragma once

#include "compiler/backend/backend.h"
#include "inductor/codegen/kernel_compiler.h"
#include "inductor/ir/loop_ir.h"
#include "inductor/scheduler/kernel_plan.h"

#include <memory>

namespace compiler::inductor {

// `graph` is the post-grad graph `ir` and `schedule` were made from.
std::unique_ptr<backend::CompiledGraph>
make_generated_graph(const graph::Graph& graph, std::shared_ptr<const LoweredGraph> ir,
                     std::shared_ptr<const Schedule> schedule,
                     std::unique_ptr<LoadedKernels> kernels);

} // namespace compiler::inductor
