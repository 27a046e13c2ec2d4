// Kept values between capture and the later stages (backend/kept_values.h).
#include "backend/kept_values.h"

#include "compiler/core/errors.h"

namespace compiler::backend {

namespace {

std::vector<std::size_t> placeholder_indices(const graph::Graph& g) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (g.node(i).kind == graph::NodeKind::Placeholder) {
      out.push_back(i);
    }
  }
  return out;
}

class RestoredIndices final : public CompiledGraph {
public:
  RestoredIndices(std::unique_ptr<CompiledGraph> inner, const graph::Graph& captured,
                  const graph::Graph& compiled, const std::vector<std::size_t>& slots)
      : inner_(std::move(inner)), size_(captured.size()),
        captured_inputs_(placeholder_indices(captured)),
        compiled_inputs_(placeholder_indices(compiled)), slots_(slots) {
    TORCHSCOPE_ASSERT(captured_inputs_.size() == compiled_inputs_.size(),
                      "the stages kept every placeholder");
    const std::size_t out = compiled.output_index();
    TORCHSCOPE_ASSERT(out < compiled.size() && compiled.node(out).args.size() == slots.size(),
                      "the stages kept every result");
    for (const graph::Arg& a : compiled.node(out).args) {
      TORCHSCOPE_ASSERT(a.kind == graph::Arg::Kind::Node, "results are nodes");
      results_.push_back(a.node);
    }
  }

  std::vector<Value> run(std::span<const Value> inputs,
                         std::span<const std::int64_t> symbols) const override {
    std::vector<Value> inner = inner_->run(inputs, symbols);
    std::vector<Value> values(size_);
    for (std::size_t k = 0; k < captured_inputs_.size(); ++k) {
      values[captured_inputs_[k]] = inner[compiled_inputs_[k]]; // an input may also be a result
    }
    for (std::size_t k = 0; k < slots_.size(); ++k) {
      values[slots_[k]] = inner[results_[k]]; // copied: one node may fill several slots
    }
    return values;
  }

private:
  std::unique_ptr<CompiledGraph> inner_;
  std::size_t size_;
  std::vector<std::size_t> captured_inputs_;
  std::vector<std::size_t> compiled_inputs_;
  std::vector<std::size_t> slots_;
  std::vector<std::size_t> results_;
};

} // namespace

KeptValues keep_values(const CompileRequest& request) {
  KeptValues kept{request.graph, {}};
  graph::Graph& g = kept.graph;
  std::size_t out = g.output_index();
  if (out == g.size()) {
    graph::Node o;
    o.kind = graph::NodeKind::Output;
    out = g.add_node(std::move(o), "output");
  }
  std::vector<graph::Arg> results;
  if (request.keep == Keep::AllNodes) {
    for (std::size_t i = 0; i < out; ++i) {
      if (g.node(i).kind == graph::NodeKind::CallOp) {
        graph::Arg a;
        a.kind = graph::Arg::Kind::Node;
        a.node = i;
        results.push_back(a);
        kept.slots.push_back(i);
      }
    }
  } else {
    for (const graph::Arg& a : g.node(out).args) {
      if (a.kind == graph::Arg::Kind::Node) {
        results.push_back(a);
        kept.slots.push_back(a.node);
      }
    }
  }
  // The final values of mutated inputs are results too: the later stages print their copy-back
  // from these positions, and capture writes them back after each run.
  for (graph::InputMutation& m : g.input_mutations) {
    graph::Arg a;
    a.kind = graph::Arg::Kind::Node;
    a.node = m.value_node;
    m.output = results.size();
    results.push_back(a);
    kept.slots.push_back(m.value_node);
  }
  g.nodes()[out].args = std::move(results);
  return kept;
}

std::unique_ptr<CompiledGraph> restore_indices(std::unique_ptr<CompiledGraph> inner,
                                               const graph::Graph& captured,
                                               const graph::Graph& compiled,
                                               const std::vector<std::size_t>& slots) {
  return std::make_unique<RestoredIndices>(std::move(inner), captured, compiled, slots);
}

} // namespace compiler::backend
