// Internal: the AOT stage's runtime wrapper (PyTorch's CompiledFunction and its backward).
//
// CompiledAot runs the compiled forward (or inference) graph on the captured graph's inputs
// and the parameters it lifted, and hands back one value per captured-graph node as the
// backend seam expects. In training it also makes one CompiledFunctionBackward per call: the
// backward node of every output that requires grad, holding the saved values the forward
// returned (version-checked like any saved tensor) and the call's symbol values. When
// autograd's engine reaches it, it compiles the backward graph on first use (tracing
// entire_backward_compile and bwd_compilation_metrics under the forward's compile id, as
// PyTorch does) and runs it to produce the primals' gradients.
#pragma once

#include "compiler/aot/joint_graph.h"
#include "compiler/backend/backend.h"
#include "tracer/trace.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace compiler::aot::detail {

// The backward graph and its lazily compiled form, shared by every call's backward node.
struct BackwardProgram {
  graph::Graph graph;
  backend::GraphCompiler compiler;
  tracer::CompileId compile_id;
  std::mutex mutex;
  std::unique_ptr<backend::CompiledGraph> compiled; // set at the first backward
  std::int64_t compile_time_us = 0;

  // The compiled backward, compiling it (and tracing that) on first use.
  const backend::CompiledGraph& get();
};

// What one AOT compile produced.
struct AotProgram {
  // The captured graph's shape: its node count and which nodes are placeholders.
  std::size_t captured_size = 0;
  std::vector<std::size_t> placeholder_nodes;
  // Inputs of the compiled graphs: the captured placeholders and lifted parameters.
  std::vector<PrimalSource> primals;
  bool primals_are_inputs = false; // no lifted parameters: primal i is placeholder i
  std::vector<bool> primal_requires_grad;
  // The forward (or inference) graph: its outputs are the captured graph's values (output_of
  // maps captured nodes to them), then, in training, the saved values.
  graph::Graph forward;
  std::unique_ptr<backend::CompiledGraph> forward_compiled;
  std::size_t num_outputs = 0;
  std::vector<std::size_t> output_of;
  std::vector<bool> output_requires_grad;
  std::vector<std::size_t> tangent_of_output;
  std::vector<graph::TensorMeta> tangent_metas;
  // Training only.
  bool training = false;
  std::size_t num_saved = 0;
  std::vector<bool> saved_is_primal;
  std::shared_ptr<BackwardProgram> backward;
};

// The CompiledGraph that runs `program`.
std::unique_ptr<backend::CompiledGraph> make_runtime(std::shared_ptr<AotProgram> program);

} // namespace compiler::aot::detail
