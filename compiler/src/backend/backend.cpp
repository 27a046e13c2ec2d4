// The backend pipeline behind compile_graph(). Today it is the interpreter; the AOT stage and
// Inductor's stages plug in here.
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

std::unique_ptr<CompiledGraph> interpret_graph(const graph::Graph& graph) {
  return std::make_unique<InterpretedGraph>(graph);
}

std::unique_ptr<CompiledGraph> compile_graph(const CompileRequest& request) {
  return interpret_graph(request.graph);
}

} // namespace compiler::backend
