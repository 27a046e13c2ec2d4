// Inductor's two entry points (inductor/inductor.h): the pre-grad passes, and compile_fx_inner,
// which runs the post-grad passes and compiles the result.
#include "backend/kept_values.h"
#include "compiler/graph/graph_printer.h"
#include "compiler/inductor/inductor.h"
#include "compiler/inductor/metrics.h"
#include "passes/pass_pipeline.h"
#include "tracer/trace.h"

#include <chrono>

namespace compiler::inductor {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void graph_artifact(std::string_view name, const graph::Graph& g) {
  tracer::artifact(name, tracer::Encoding::String,
                   [&](std::string& out) { out += graph::print_graph(g); });
}

std::vector<std::size_t> output_nodes(const graph::Graph& g) {
  std::vector<std::size_t> out;
  const std::size_t o = g.output_index();
  if (o < g.size()) {
    for (const graph::Arg& a : g.node(o).args) {
      if (a.kind == graph::Arg::Kind::Node) {
        out.push_back(a.node);
      }
    }
  }
  return out;
}

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

void pre_grad_passes(graph::Graph& graph) {
  tracer::ChromiumSpan span("_recursive_pre_grad_passes");
  graph_artifact("before_pre_grad_graph", graph);
  const passes::PipelineResult r =
      passes::run_pipeline("pre_grad", passes::pre_grad_pipeline(), graph);
  current_metrics().pre_grad_pass_s += r.seconds;
  graph_artifact("after_pre_grad_graph", graph);
}

std::unique_ptr<backend::CompiledGraph> compile_fx_inner(const graph::Graph& graph,
                                                         GraphRole role) {
  (void)role;
  const Clock::time_point t0 = Clock::now();
  tracer::ChromiumSpan span("compile_fx_inner");
  graph::Graph g = graph;
  graph_artifact("before_post_grad_graph", g);
  {
    tracer::ChromiumSpan passes_span("_recursive_post_grad_passes");
    const passes::PipelineResult r =
        passes::run_pipeline("post_grad", passes::post_grad_pipeline(), g);
    current_metrics().post_grad_pass_s += r.seconds;
  }
  graph_artifact("inductor_post_grad_graph", g);
  std::unique_ptr<backend::CompiledGraph> compiled = backend::interpret_graph(g);
  current_metrics().inductor_compile_s += seconds_since(t0);
  return backend::restore_indices(std::move(compiled), graph, g, output_nodes(graph));
}

} // namespace compiler::inductor
