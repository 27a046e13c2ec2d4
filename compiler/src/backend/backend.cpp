// The seam's own pieces (compiler/backend/backend.h): graph role names and the interpreter as a
// CompiledGraph. compile_graph() is the orchestrator's (pipeline/compile_graph.cpp).
#include "compiler/backend/backend.h"

#include "compiler/graph/interpreter.h"

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

} // namespace compiler::backend
