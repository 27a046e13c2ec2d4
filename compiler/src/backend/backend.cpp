// The backend pipeline behind compile_graph(): the AOT stage (joint graph, decomposition,
// partition, or an inference graph), each of whose graphs goes to a graph compiler (today the
// interpreter; Inductor's compile_fx_inner plugs in as that compiler).
#include "compiler/backend/backend.h"

#include "compiler/aot/aot.h"
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

std::unique_ptr<CompiledGraph> compile_graph(const CompileRequest& request) {
  return aot::aot_compile(request.graph, {.keep = request.keep, .frame_name = request.frame_name},
                          aot::interpret);
}

} // namespace compiler::backend
