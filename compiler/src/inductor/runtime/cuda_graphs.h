// inductor/runtime: mode="reduce-overhead" (PyTorch's CUDA graphs). A compiled GPU program
// runs once as it is (the warm-up: modules load, max-autotune measures, the allocator fills);
// the next call with the same input shapes records its launches into a CUDA graph (stream
// capture through the driver API) over static input buffers, and every later call copies its
// inputs into those buffers and replays the graph: one launch instead of one per kernel.
// Buffers the recording allocated stay owned by it (runtime/wrapper.h's AllocationKeeper), so
// replays never write memory someone else was given.
//
// As in PyTorch, results are the recording's static outputs: the next call with the same shapes
// overwrites them (clone a result to keep it across calls).
//
// New input shapes (dynamic sizes) record a graph of their own; each recording is traced as a
// `cudagraph_record` artifact with its reason ("warm-up done", "new input shapes: ..."), and a
// program that cannot be captured (a fallback that runs on the host, an embedding's index check
// that reads the device back) runs without graphs, traced once as `cudagraph_skip` with the
// reason (docs/TRACE-SCHEMAS.md).
#pragma once

#include "compiler/backend/backend.h"
#include "inductor/ir/loop_ir.h"
#include "inductor/scheduler/kernel_plan.h"

#include <memory>
#include <string>

namespace compiler::inductor {

// Why `s` cannot be recorded into a CUDA graph ("" when it can).
std::string cudagraph_blocker(const Schedule& s, const LoweredGraph& ir);

// `program` behind CUDA graphs; `blocker` as cudagraph_blocker() gives it.
std::unique_ptr<backend::CompiledGraph>
make_cudagraph_runner(std::unique_ptr<backend::CompiledGraph> program, std::string blocker);

} // namespace compiler::inductor
