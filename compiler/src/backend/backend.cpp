// The seam's own pieces (compiler/backend/backend.h): graph role names and the interpreter as a
// CompiledGraph. compile_graph() is the orchestrator's (pipeline/compile_graph.cpp).
#include "compiler/backend/backend.h"

#include "compiler/core/errors.h"
#include "compiler/graph/interpreter.h"

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

// The placeholders' node indices, and each Output argument's node index (kNone for a constant).
struct GraphEnds {
  explicit GraphEnds(const graph::Graph& g) : size(g.size()) {
    for (std::size_t i = 0; i < g.size(); ++i) {
      if (g.node(i).kind == graph::NodeKind::Placeholder) {
        inputs.push_back(i);
      }
    }
    if (const std::size_t o = g.output_index(); o < g.size()) {
      for (const graph::Arg& a : g.node(o).args) {
        results.push_back(a.kind == graph::Arg::Kind::Node ? a.node : kNone);
      }
    }
  }
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::size_t size;
  std::vector<std::size_t> inputs;
  std::vector<std::size_t> results;
};

class FunctionGraph final : public CompiledGraph {
public:
  FunctionGraph(const graph::Graph& g, GraphFunction f, std::string_view who)
      : ends_(g), function_(std::move(f)), who_(who) {}
  std::vector<Value> run(std::span<const Value> inputs,
                         std::span<const std::int64_t> symbols) const override {
    std::vector<Value> results = function_(inputs, symbols);
    if (results.size() != ends_.results.size()) {
      user_error(who_ + ": the compiled function returned " + std::to_string(results.size()) +
                 " values for a graph with " + std::to_string(ends_.results.size()) +
                 " outputs (it must return one value per output, in order)");
    }
    std::vector<Value> values(ends_.size);
    for (std::size_t k = 0; k < ends_.inputs.size() && k < inputs.size(); ++k) {
      values[ends_.inputs[k]] = inputs[k];
    }
    for (std::size_t k = 0; k < results.size(); ++k) {
      if (ends_.results[k] != GraphEnds::kNone) {
        values[ends_.results[k]] = std::move(results[k]);
      }
    }
    return values;
  }

private:
  GraphEnds ends_;
  GraphFunction function_;
  std::string who_;
};

} // namespace

std::unique_ptr<CompiledGraph>
compiled_from_function(const graph::Graph& graph, GraphFunction function, std::string_view who) {
  if (!function) {
    user_error(std::string(who) + " returned an empty function (it must return the callable " +
               "that runs the graph)");
  }
  return std::make_unique<FunctionGraph>(graph, std::move(function), who);
}

GraphFunction function_from_compiled(std::shared_ptr<const CompiledGraph> compiled,
                                     const graph::Graph& graph) {
  return [compiled = std::move(compiled), ends = GraphEnds(graph)](
             std::span<const Value> inputs, std::span<const std::int64_t> symbols) {
    std::vector<Value> values = compiled->run(inputs, symbols);
    std::vector<Value> out;
    out.reserve(ends.results.size());
    for (std::size_t node : ends.results) {
      out.push_back(node == GraphEnds::kNone ? Value{} : values[node]);
    }
    return out;
  };
}

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
