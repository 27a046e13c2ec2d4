// passes: the one pass layer. Every graph pass of the compiler is a free function in its own
// file pair that rewrites a graph::Graph in place and says whether it changed it; this header
// holds the Pass type, the three stages' pass lists (side by side in pass_pipeline.cpp) and the
// one runner:
//
//   pre_grad     Inductor's pre-grad FX passes, on the captured graph
//   joint_graph  PyTorch's joint_graph_passes, on the AOT stage's joint (or inference) graph
//                before it is partitioned (or compiled)
//   post_grad    Inductor's post-grad FX passes, on the forward, backward and inference graphs
//
// The runner times each pass in a chromium span ("pass.<stage>_passes.<name>", as PyTorch
// names its pass timers) and, when tracing, writes the graph after every pass that changed it
// as an artifact "after_<stage>_pass_<name>", so a user can step through every stage in tlparse.
#pragma once

#include "compiler/graph/graph.h"
#include "compiler/passes/custom_passes.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace compiler::passes {

// One pass: rewrites `graph` in place; returns true when it changed it.
using PassFn = bool (*)(graph::Graph& graph);

struct Pass {
  std::string_view name; // the pass's name in its stage (the span's and the artifact's)
  PassFn run;
};

struct PipelineResult {
  std::vector<std::string> changed; // the passes that changed the graph, in order
  double seconds = 0.0;
};

// Runs `passes` over `graph` in order, with the user passes registered for `stage`
// (compiler/passes/custom_passes.h) before and after them. With `artifacts` off (a compile
// served from the cache) no graph is written.
PipelineResult run_pipeline(Stage stage, std::span<const Pass> passes, graph::Graph& graph,
                            bool artifacts = true);

// "pre_grad", "joint_graph", "post_grad": the stage as spans and artifact names spell it.
std::string_view stage_name(Stage stage) noexcept;

// The user passes registered for `stage` at `placement`, in registration order (a snapshot).
std::vector<CustomPass> custom_passes(Stage stage, Placement placement);

// What the user passes of `stage` add to a compile-cache key (names and uuids), or nullopt when
// one of them has no uuid (its compiles must not be cached).
std::optional<std::string> custom_pass_cache_key(Stage stage);

// Bumped by every registration and removal: part of in-memory cache keys.
std::uint64_t custom_pass_generation() noexcept;

// The three stages' pass lists, in the order they run.
std::span<const Pass> pre_grad_pipeline();
std::span<const Pass> joint_graph_pipeline();
std::span<const Pass> post_grad_pipeline();

// The joint-graph stage as the AOT stage runs it: the joint_graph list inside PyTorch's span
// "_recursive_joint_graph_passes". The Output node's arguments keep their order, so a
// TracedGraph's metadata stays valid.
PipelineResult run_joint_graph_passes(graph::Graph& graph);

} // namespace compiler::passes
