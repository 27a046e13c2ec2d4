// The backend pipeline behind compile_graph() (docs/COMPILER.md): Inductor's pre-grad passes on
// the captured graph, the AOT stage (joint graph, decomposition to prims, partition, or an
// inference graph), and Inductor's compile_fx_inner as the compiler of each graph the AOT stage
// hands over. The nodes capture reads back become the graph's results first
// (backend/kept_values.h), so the stages may rewrite freely.
#include "compiler/backend/backend.h"

#include "backend/kept_values.h"
#include "compiler/aot/aot.h"
#include "compiler/core/errors.h"
#include "compiler/graph/interpreter.h"
#include "compiler/inductor/inductor.h"

#include <cstdlib>
#include <string>

namespace compiler::backend {

namespace {

class InterpretedGraph final : public CompiledGraph {
public:
  explicit InterpretedGraph(const graph::Graph& g) : graph_(g) {}
  std::vector<Value> run(std::span<const Value> inputs,
                         std::span<const std::int64_t> symbols) const override {
    return graph::interpret(graph_, inputs, symbols);
  }

private:
  graph::Graph graph_; // a copy: the compiled graph outlives the request
};

} // namespace

std::string_view graph_role_name(GraphRole role) noexcept {
  switch (role) {
  case GraphRole::Inference:
    return "inference";
  case GraphRole::Forward:
    return "forward";
  case GraphRole::Backward:
    return "backward";
  }
  return "?";
}

std::unique_ptr<CompiledGraph> interpret_graph(const graph::Graph& graph) {
  return std::make_unique<InterpretedGraph>(graph);
}

std::unique_ptr<CompiledGraph> compile_graph(const CompileRequest& request) {
  std::string_view backend = request.backend;
  if (backend.empty()) {
    const char* env = std::getenv("TORCHSCOPE_COMPILE_BACKEND");
    backend = env != nullptr && *env != '\0' ? env : "inductor";
  }
  if (backend == "eager") {
    return interpret_graph(request.graph);
  }
  if (backend == "aot_eager") {
    return aot::aot_compile(request.graph, {.keep = request.keep, .frame_name = request.frame_name},
                            aot::interpret);
  }
  if (backend != "inductor") {
    user_error("compile(): unknown backend '" + std::string(backend) +
               "' (expected \"inductor\", \"aot_eager\" or \"eager\")");
  }
  std::string_view mode = request.mode;
  if (mode.empty()) {
    const char* env = std::getenv("TORCHSCOPE_COMPILE_MODE");
    mode = env != nullptr ? env : "";
  }
  const inductor::Mode parsed_mode = inductor::parse_mode(mode);
  KeptValues kept = keep_values(request); // every kept value is a result: Keep::Outputs below
  inductor::pre_grad_passes(kept.graph);
  // Only compile_fx_inner reads the mode, and the backward graph is compiled when backward()
  // first reaches it, after this call returns: the graph compiler carries the mode to each call.
  const GraphCompiler compile_with_mode = [parsed_mode](const graph::Graph& g, GraphRole role) {
    const inductor::ModeScope scope(parsed_mode);
    return inductor::compile_fx_inner(g, role);
  };
  std::unique_ptr<CompiledGraph> compiled = aot::aot_compile(
      kept.graph, {.keep = Keep::Outputs, .frame_name = request.frame_name}, compile_with_mode);
  return restore_indices(std::move(compiled), request.graph, kept.graph, kept.slots);
}

} // namespace compiler::backend
