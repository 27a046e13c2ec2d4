// The backend pipeline behind compile_graph() (docs/COMPILER.md): Inductor's pre-grad passes,
// the AOT stage (to come: until then the captured graph is the inference graph), and
// Inductor's compile of each graph. The nodes capture reads back become the graph's results
// first (backend/kept_values.h), so the stages may rewrite freely.
#include "compiler/backend/backend.h"

#include "backend/kept_values.h"
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
  if (backend != "inductor") {
    user_error("compile(): unknown backend '" + std::string(backend) +
               "' (expected \"inductor\" or \"eager\")");
  }
  std::string_view mode = request.mode;
  if (mode.empty()) {
    const char* env = std::getenv("TORCHSCOPE_COMPILE_MODE");
    mode = env != nullptr ? env : "";
  }
  const inductor::ModeScope mode_scope(inductor::parse_mode(mode));
  KeptValues kept = keep_values(request);
  inductor::pre_grad_passes(kept.graph);
  std::unique_ptr<CompiledGraph> compiled =
      inductor::compile_fx_inner(kept.graph, inductor::GraphRole::Inference);
  return restore_indices(std::move(compiled), request.graph, kept.graph, kept.slots);
}

} // namespace compiler::backend
