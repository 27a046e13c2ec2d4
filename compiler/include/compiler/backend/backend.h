// compiler/backend: the seam between capture and the stages after it (torch.compile's
// `backend=` role), below every stage. Capture hands each frame's graph to compile_graph(); the
// CompiledGraph it returns runs that graph on real inputs every time the frame's guards pass.
// The stages implement or exchange the types declared here; compile_graph() itself is defined
// by the orchestrator above them (compiler/src/pipeline/compile_graph.cpp), so capture never
// includes the stages after it and no stage includes the code that calls it.
#pragma once

#include "compiler/core/value.h"
#include "compiler/graph/graph.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace compiler::backend {

// Which node values the caller reads after a run.
enum class Keep : std::uint8_t {
  Outputs,  // the nodes the Output node names (a frame that returns)
  AllNodes, // every call node (a frame that ends at a graph break: later frames read them)
};

// A graph made ready to run, as a user backend returns it (the callable torch.compile's
// `backend=` function returns): one Value per placeholder in, in placeholder order, and one
// Value per argument of the graph's Output node out, in order (a constant argument's slot may be
// left empty). `symbols` holds the run-time value of each size symbol (s0, s1, ...), for
// backends that generate code over symbolic sizes; most ignore it.
using GraphFunction = std::function<std::vector<Value>(std::span<const Value> inputs,
                                                       std::span<const std::int64_t> symbols)>;

// A user backend (torch.compile(backend=fn)): called once per captured graph, whose Output node
// names every value capture reads back; returns the function that runs it. It may hand the graph
// to the AOT stage (aot::aot_autograd, as PyTorch's aot_autograd(fw_compiler=...)) or to
// interpret_graph. UserError for an empty function.
using CustomBackend = std::function<GraphFunction(const graph::Graph& graph)>;

struct CompileRequest {
  const graph::Graph& graph;
  Keep keep = Keep::Outputs;
  std::string_view
      frame_name; // the captured frame, for traces ("f", "torch_dynamo_resume_in_f_at_12")
  // "inductor", "eager", or empty for the default (CompileOptions::backend).
  std::string_view backend{};
  // torch.compile's mode ("default", "reduce-overhead", "max-autotune", ...; empty: default).
  std::string_view mode{};
  // A user backend (CompileOptions::custom_backend); when set, `backend` and `mode` are unused.
  const CustomBackend* custom_backend = nullptr;
};

// A graph made ready to run. Implementations may be called from several threads at once.
class CompiledGraph {
public:
  virtual ~CompiledGraph() = default;
  // Runs the graph. `inputs` holds one Value per placeholder, in placeholder order; `symbols`
  // the run-time value of each size symbol. Returns one Value per graph node: every placeholder
  // and every node the request keeps is set, the others may be empty.
  virtual std::vector<Value> run(std::span<const Value> inputs,
                                 std::span<const std::int64_t> symbols) const = 0;
};

// What a graph handed to a graph compiler computes (the AOT stage makes all three).
enum class GraphRole : std::uint8_t {
  Inference, // a graph run without gradients (no input requires grad, or grad mode is off)
  Forward,   // the forward half of a training graph: outputs, then the values saved for backward
  Backward,  // the backward half: saved values and output gradients in, input gradients out
};

// Compiles one graph of a given role: Inductor's compile_fx_inner, or interpret_graph.
using GraphCompiler =
    std::function<std::unique_ptr<CompiledGraph>(const graph::Graph&, GraphRole role)>;

// "inference", "forward", "backward".
std::string_view graph_role_name(GraphRole role) noexcept;

// Compiles `request.graph`. Never returns null: what no later stage can compile runs on the
// graph interpreter (graph/interpreter.h), so a result is always right. UserError for an unknown
// backend name.
std::unique_ptr<CompiledGraph> compile_graph(const CompileRequest& request);

// The interpreter as a CompiledGraph: every node through its eager kernel.
std::unique_ptr<CompiledGraph> interpret_graph(const graph::Graph& graph);

// The two views of a compiled graph, each built from the other: a user's GraphFunction as the
// CompiledGraph the stages run (its results placed at `graph`'s node indices; UserError when it
// returns another number of values than `graph`'s Output node has arguments), and a
// CompiledGraph as the GraphFunction a user backend returns.
std::unique_ptr<CompiledGraph> compiled_from_function(const graph::Graph& graph,
                                                      GraphFunction function, std::string_view who);
GraphFunction function_from_compiled(std::shared_ptr<const CompiledGraph> compiled,
                                     const graph::Graph& graph);

} // namespace compiler::backend
