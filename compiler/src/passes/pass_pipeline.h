// passes: the one pipeline that runs graph passes in order (Inductor's pre-grad and post-grad
// FX passes). Each pass is a free function in its own file pair that rewrites a Graph in place
// and says whether it changed it. The pipeline times each pass in a chromium span
// ("pass.<stage>_passes.<name>", as PyTorch names its pass timers) and, when tracing, writes the
// graph after every pass that changed it as an artifact "after_<stage>_pass_<name>", so a user
// can step through the pipeline in tlparse.
#pragma once

#include "compiler/graph/graph.h"

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace compiler::passes {

// One pass: rewrites `graph` in place; returns true when it changed it.
using PassFn = bool (*)(graph::Graph& graph);

struct Pass {
  std::string_view name;
  PassFn run;
};

struct PipelineResult {
  std::vector<std::string> changed; // the passes that changed the graph, in order
  double seconds = 0.0;
};

// Runs `passes` over `graph` in order. `stage` is "pre_grad" or "post_grad". With
// `artifacts` off (a compile served from the cache) no graph is written.
PipelineResult run_pipeline(std::string_view stage, std::span<const Pass> passes,
                            graph::Graph& graph, bool artifacts = true);

// The pre-grad pipeline (on the captured graph) and the post-grad pipeline (on the forward,
// backward and inference graphs), in the order they run.
std::span<const Pass> pre_grad_pipeline();
std::span<const Pass> post_grad_pipeline();

} // namespace compiler::passes
