// The pass pipeline and the three stages' pass lists (passes/pass_pipeline.h).
#include "passes/pass_pipeline.h"

#include "compiler/core/errors.h"
#include "compiler/graph/graph_printer.h"
#include "compiler/graph/graph_rewrite.h"
#include "passes/common_subexpression_elimination.h"
#include "passes/constant_folding.h"
#include "passes/dead_code_elimination.h"
#include "passes/pattern_rewrites.h"
#include "passes/reinplace.h"
#include "passes/remove_noop_ops.h"
#include "passes/remove_noop_views.h"
#include "tracer/trace.h"

#include <array>
#include <chrono>

namespace compiler::passes {

namespace {

// The stages' variants of common-subexpression elimination (CseOptions says how they differ).
bool cse(graph::Graph& graph) {
  return common_subexpression_elimination(graph);
}
bool joint_graph_cse(graph::Graph& graph) {
  return common_subexpression_elimination(graph,
                                          {.merge_random = false, .record_provenance = false});
}

// Pre-grad: tidy the captured graph without creating ops the AOT stage would have to
// differentiate (the softmax recomposition only recreates an existing op).
constexpr std::array kPreGrad = {
    Pass{"remove_noop_views", &remove_noop_views},
    Pass{"constant_folding", &constant_folding},
    Pass{"common_subexpression_elimination", &cse},
    Pass{"pattern_rewrites", &pre_grad_pattern_rewrites},
    Pass{"dead_code_elimination", &dead_code_elimination},
};

// Joint graph, under PyTorch's pass names: no-ops first (they hide equal subexpressions), then
// CSE (a derivative's recomputation of a forward value merges with it), then what became dead.
constexpr std::array kJointGraph = {
    Pass{"remove_noop_ops", &remove_noop_ops},
    Pass{"cse", &joint_graph_cse},
    Pass{"dce", &dead_code_elimination},
};

// Post-grad: the same clean-ups, the fusion patterns (silu, addmm, softmax), and re-inplacing
// last, once no pass will move a use after the in-place write.
constexpr std::array kPostGrad = {
    Pass{"remove_noop_views", &remove_noop_views},
    Pass{"constant_folding", &constant_folding},
    Pass{"common_subexpression_elimination", &cse},
    Pass{"pattern_rewrites", &post_grad_pattern_rewrites},
    Pass{"dead_code_elimination", &dead_code_elimination},
    Pass{"reinplace", &reinplace},
};

} // namespace

std::span<const Pass> pre_grad_pipeline() {
  return kPreGrad;
}

std::span<const Pass> joint_graph_pipeline() {
  return kJointGraph;
}

std::span<const Pass> post_grad_pipeline() {
  return kPostGrad;
}

PipelineResult run_pipeline(Stage stage, std::span<const Pass> passes, graph::Graph& graph,
                            bool artifacts) {
  PipelineResult result;
  const auto t0 = std::chrono::steady_clock::now();
  const std::string stage_text(stage_name(stage));
  // One step of the pipeline, a built-in pass or a user's.
  auto step = [&](std::string_view name, const auto& run, bool user) {
    bool changed = false;
    {
      const std::string span_name = "pass." + stage_text + "_passes." + std::string(name);
      tracer::ChromiumSpan span(span_name);
      changed = run(graph);
    }
    if (user && !graph::is_topologically_sorted(graph)) {
      user_error("the custom " + stage_text + " pass '" + std::string(name) +
                 "' left a graph whose nodes are not in topological order (a node reads a "
                 "value defined after it)");
    }
    TORCHSCOPE_ASSERT(graph::is_topologically_sorted(graph), "a pass broke the graph's order");
    if (!changed) {
      return;
    }
    result.changed.emplace_back(name);
    if (artifacts && tracer::enabled()) {
      const std::string artifact = "after_" + stage_text + "_pass_" + std::string(name);
      tracer::artifact(artifact, tracer::Encoding::String,
                       [&](std::string& out) { out += graph::print_graph(graph); });
    }
  };
  for (const CustomPass& p : custom_passes(stage, Placement::BeforeBuiltins)) {
    step(p.name, p.run, true);
  }
  for (const Pass& pass : passes) {
    step(pass.name, pass.run, false);
  }
  for (const CustomPass& p : custom_passes(stage, Placement::AfterBuiltins)) {
    step(p.name, p.run, true);
  }
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return result;
}

PipelineResult run_joint_graph_passes(graph::Graph& graph) {
  tracer::ChromiumSpan span("_recursive_joint_graph_passes");
  return run_pipeline(Stage::JointGraph, kJointGraph, graph);
}

} // namespace compiler::passes
