// compiler/aot: the AOT stage (AOTAutograd's role in PyTorch 2), stage 2 of the compiler
// (compiler/src/pipeline/compile_graph.cpp lists the stages):
//
//   captured graph ──► grad needed? ──yes──► joint graph ─► joint passes ─► min-cut partition
//                            │                               ├─► forward graph  ─►
//                            compiler(Forward) │                               └─► backward graph
//                            ─► compiler(Backward), │ at the first backward └──no───► inference
//                            graph ─► joint passes ─► compiler(Inference)
//
// Every graph is decomposed to primitive ops (aot/decompositions.h). The CompiledGraph it
// returns runs the compiled forward; when grad is needed its results get a backward node
// (CompiledFunctionBackward) that keeps exactly the values the partitioner chose and runs the
// compiled backward graph when autograd's engine reaches it, so eager code around the
// compiled function (a loss, an optimizer) trains through it. Every step is traced with the
// events PyTorch's AOTAutograd writes (docs/COMPILER.md lists them).
#pragma once

#include "compiler/aot/partitioner.h"
#include "compiler/backend/backend.h"

#include <functional>
#include <memory>
#include <string_view>

namespace compiler::aot {

struct AotOptions {
  // Frames that end at a graph break keep every value (later frames read them).
  backend::Keep keep = backend::Keep::Outputs;
  bool decompose = true;
  PartitionOptions partition{};
  // Reuse the traced graphs of an identical earlier compile in this process (PyTorch's
  // AOTAutogradCache, in memory).
  bool cache = true;
  std::string_view frame_name{};
};

// Compiles a captured graph through the AOT stage; each graph it produces goes through
// `compiler` (default: the graph interpreter). Never returns null.
std::unique_ptr<backend::CompiledGraph> aot_compile(const graph::Graph& captured,
                                                    const AotOptions& options,
                                                    const backend::GraphCompiler& compiler);

// A graph compiler a user writes for aot_autograd: gets a forward, backward or inference graph
// (prims only, printed as aot_forward_graph etc. in the trace) and returns the function that
// runs it (backend::GraphFunction: placeholder values in, Output arguments out).
using UserGraphCompiler =
    std::function<backend::GraphFunction(const graph::Graph& graph, backend::GraphRole role)>;

struct AotAutogradOptions {
  UserGraphCompiler fw_compiler; // the forward and inference graphs; empty: the interpreter
  UserGraphCompiler bw_compiler; // the backward graph, at the first backward; empty: fw_compiler
  bool decompose = true;
  PartitionOptions partition{};
};

// PyTorch's aot_autograd(fw_compiler=..., bw_compiler=...): a custom backend
// (CompileOptions::custom_backend) that runs this stage on each captured graph (joint graph,
// decompositions, joint passes, min-cut partition, all traced) and hands each graph it makes to
// the user's compilers; the backward runs when autograd's engine reaches it, as with Inductor.
backend::CustomBackend aot_autograd(AotAutogradOptions options);

// The interpreter as a GraphCompiler.
std::unique_ptr<backend::CompiledGraph> interpret(const graph::Graph& graph, backend::GraphRole);

// Counters of this process's AOT compiles (for tests and the samples).
struct AotStats {
  std::int64_t joint_compiles = 0;
  std::int64_t inference_compiles = 0;
  std::int64_t cache_hits = 0;
  std::int64_t backward_compiles = 0;
};
AotStats aot_stats() noexcept;

} // namespace compiler::aot
