// compiler/aot: tracing a captured (Dynamo) graph into the AOT stage's graphs, as
// AOTAutograd does:
//
//   joint graph      primals (the graph's inputs, and the parameters it reads) and tangents
//                    (one gradient per output that requires grad) in; the forward outputs
//                    and one gradient per primal out. The forward runs on fake tensors with
//                    autograd recording, then autograd's engine runs the derivative formulas
//                    from the tangents, and the tracer records both halves in one graph.
//   inference graph  the forward alone, when nothing needs a gradient.
//
// Both are decomposed to primitive ops as they are traced. Parameters reach a captured graph
// as constants (capture reads them from the module); those that require grad are lifted into
// primals here, so their gradients come out of the graph like the inputs'.
#pragma once

#include "compiler/graph/graph.h"

#include <cstddef>
#include <vector>

namespace compiler::aot {

// Where a primal comes from when the compiled graph runs.
struct PrimalSource {
  bool is_constant = false;    // a lifted parameter (or other constant tensor requiring grad)
  std::size_t placeholder = 0; // else: the captured graph's placeholder number
  Tensor constant;             // the parameter itself (its storage is read at each run)
};

// A traced graph with what its inputs and outputs mean (PyTorch's AOT descriptors).
struct TracedGraph {
  graph::Graph graph;
  std::vector<PrimalSource> primals;
  std::vector<bool> primal_requires_grad;
  std::size_t num_tangents = 0;
  // The forward outputs: the first num_outputs arguments of the Output node. `output_of[i]` is
  // the output that gives the captured graph's node i its value (kNone if none).
  std::size_t num_outputs = 0;
  std::vector<std::size_t> output_of;
  std::vector<bool> output_requires_grad;
  // tangent_of_output[j]: the tangent that is output j's gradient (kNone if j needs none).
  std::vector<std::size_t> tangent_of_output;
  bool is_joint = false;

  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
};

struct TraceOptions {
  bool decompose = true; // apply the decomposition table (tests turn it off to compare)
  // Every call node of the captured graph is an output (a frame that ends at a graph break:
  // later frames read its intermediate values).
  bool all_nodes_are_outputs = false;
};

// Whether the captured graph needs a joint graph: grad mode is on and some input (or some
// parameter it reads) requires grad.
bool needs_joint(const graph::Graph& captured);

// The joint graph of `captured` (PyTorch's aot_joint_graph).
TracedGraph trace_joint(const graph::Graph& captured, const TraceOptions& options = {});

// The inference graph of `captured` (PyTorch's aot_inference_graph).
TracedGraph trace_inference(const graph::Graph& captured, const TraceOptions& options = {});

} // namespace compiler::aot
