// Inductor's two entry points (inductor/inductor.h): the pre-grad passes, and compile_fx_inner,
// which runs the post-grad passes and compiles the result.
#include "backend/kept_values.h"
#include "compiler/graph/graph_printer.h"
#include "compiler/graph/graph_rewrite.h"
#include "compiler/inductor/inductor.h"
#include "compiler/inductor/metrics.h"
#include "inductor/codegen/kernel_compiler.h"
#include "inductor/codegen/output_code.h"
#include "inductor/counters.h"
#include "inductor/ir/loop_ir.h"
#include "inductor/lowering/lowering.h"
#include "inductor/runtime/wrapper.h"
#include "inductor/scheduler/scheduler.h"
#include "passes/pass_pipeline.h"
#include "tracer/trace.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>

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

// Graphs code generation does not take: a scalar input read by an op (its value is not a
// buffer); they run on the interpreter.
bool generates_code(const graph::Graph& g) {
  for (const graph::Node& n : g.nodes()) {
    if (n.kind != graph::NodeKind::CallOp) {
      continue;
    }
    bool scalar = false;
    graph::for_each_input(n, [&](std::size_t ref) {
      scalar = scalar ||
               (g.node(ref).kind == graph::NodeKind::Placeholder && !g.node(ref).meta.is_tensor);
    });
    if (scalar) {
      return false;
    }
  }
  return true;
}

std::unique_ptr<backend::CompiledGraph> generate(const graph::Graph& g) {
  CompileMetrics& metrics = current_metrics();
  KernelCompiler* compiler = kernel_compiler("cpu");
  if (compiler == nullptr || !generates_code(g)) {
    metrics.fallback_nodes += static_cast<std::int64_t>(g.op_count());
    return backend::interpret_graph(g);
  }
  LoweringStats stats;
  std::shared_ptr<LoweredGraph> ir;
  {
    tracer::ChromiumSpan span("GraphLowering.run");
    ir = std::make_shared<LoweredGraph>(lower_graph(g, stats));
  }
  std::shared_ptr<Schedule> sched;
  {
    tracer::ChromiumSpan span("Scheduler.__init__");
    sched = std::make_shared<Schedule>(schedule(*ir, g));
  }
  const std::string code_text = output_code({.graph = g,
                                             .ir = *ir,
                                             .schedule = *sched,
                                             .compiler = *compiler,
                                             .aot_id = "0_inference",
                                             .kernel_path = ""});
  if (const char* dump = std::getenv("TORCHSCOPE_OUTPUT_CODE"); dump != nullptr && *dump == '1') {
    std::fprintf(stderr, "%s\n", code_text.c_str()); // TORCH_LOGS=output_code, ours
  }
  tracer::event_with_payload(
      "inductor_output_code",
      [&](tracer::JsonWriter& w) {
        w.member("filename", std::string()).member("file_path", std::string());
      },
      [&](std::string& out) { out += code_text; });
  CompiledCode code;
  {
    tracer::ChromiumSpan span("code_gen");
    const Clock::time_point t0 = Clock::now();
    code = compiler->compile(*sched, *ir);
    metrics.code_gen_s += seconds_since(t0);
  }
  metrics.kernels += static_cast<std::int64_t>(sched->kernels.size());
  metrics.extern_calls += static_cast<std::int64_t>(stats.extern_calls);
  metrics.fallback_nodes += static_cast<std::int64_t>(stats.fallback_nodes.size());
  metrics.ir_nodes += static_cast<std::int64_t>(ir->buffers.size());
  detail::bump(detail::atomic_counters().graphs_compiled);
  return make_generated_graph(g, std::move(ir), std::move(sched), std::move(code.kernels));
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
  std::unique_ptr<backend::CompiledGraph> compiled = generate(g);
  current_metrics().inductor_compile_s += seconds_since(t0);
  return backend::restore_indices(std::move(compiled), graph, g, output_nodes(graph));
}

} // namespace compiler::inductor
