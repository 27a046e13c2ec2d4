// inductor/compile_fx.h: Inductor's compile_fx_inner as its steps. A GraphCompile compiles one
// graph the AOT stage hands over; the orchestrator (pipeline/compile_graph.cpp) calls its steps
// in order, so that the order of all the stages reads on one page while each step's logic stays
// here. The steps trace what PyTorch's compile_fx_inner traces, in its order:
//   miss: fx_graph_runnable, before_post_grad_graph, (a graph per changed pass),
//         inductor_post_grad_graph, inductor_output_code, inductor_llvm_ir, (provenance),
//         fx_graph_cache_miss
//   hit:  fx_graph_runnable, inductor_post_grad_graph, inductor_output_code, inductor_llvm_ir,
//         (provenance), fx_graph_cache_hit
// A graph no code generator takes goes from post_grad_passes() to interpret()
// (fx_graph_cache_bypass); the others through lower(), schedule(), output_code(),
// compile_kernels() and wrap(), each called once, in that order.
#pragma once

#include "compiler/backend/backend.h"
#include "compiler/graph/graph.h"

#include <memory>

namespace compiler::inductor {

class GraphCompile {
public:
  // Picks the graph's device and code generator (and what the compile mode sets on it), looks
  // the graph up in the compile cache and traces fx_graph_runnable (and before_post_grad_graph
  // on a miss). `graph` must outlive the GraphCompile.
  GraphCompile(const graph::Graph& graph, backend::GraphRole role);
  ~GraphCompile();
  GraphCompile(const GraphCompile&) = delete;
  GraphCompile& operator=(const GraphCompile&) = delete;

  // The post-grad passes on the copy of the graph that code generation takes; traces
  // inductor_post_grad_graph.
  void post_grad_passes();
  // Whether a code generator takes the graph (else interpret() is the last step).
  bool generates_code() const noexcept;
  // The graph on the interpreter, node by node on the eager kernels.
  std::unique_ptr<backend::CompiledGraph> interpret();
  // Lowering into the define-by-run loop IR (inductor/lowering/).
  void lower();
  // Scheduling and fusion of the loops into kernels (inductor/scheduler/), named as the
  // device's code generator names them.
  void schedule();
  // The output code (inductor_output_code).
  void output_code();
  // The kernels' machine code, loaded from the cache entry or generated and stored; traces the
  // generator's IR, provenance and the cache's verdict.
  void compile_kernels();
  // The program that runs the kernels (inductor/runtime/wrapper.h), as the compile mode runs it
  // on the device.
  std::unique_ptr<backend::CompiledGraph> wrap();

private:
  struct State;
  std::unique_ptr<State> state_;
};

} // namespace compiler::inductor
