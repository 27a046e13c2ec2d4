// compiler/inductor: Inductor's role (docs/COMPILER.md, "Inductor"): its options and compile
// modes, and pre_grad_passes(), which the orchestrator (compiler/src/pipeline/compile_graph.cpp)
// runs on the captured graph before the AOT stage. On each graph the AOT stage hands over
// (inference, or forward and backward) the orchestrator then runs Inductor's compile_fx_inner
// steps (compiler/src/inductor/compile_fx.h): the post-grad passes, lowering into the
// define-by-run loop IR, scheduling and fusion, machine code through LLVM (or NVRTC) cached on
// disk, and the wrapper that runs it; what code generation cannot handle runs node by node on
// the eager kernels. Every step is traced the way PyTorch traces it (before/after_pre_grad_graph,
// before_post_grad_graph, inductor_post_grad_graph, inductor_output_code, provenance,
// fx_graph_cache_*).
#pragma once

#include "compiler/backend/backend.h"
#include "compiler/graph/graph.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace compiler::inductor {

// Which graph of a compile compile_fx_inner is given (PyTorch's AOT ids "0_inference",
// "0_forward", "0_backward").
using backend::GraphRole;

// Inductor's options, read from the environment when first used; set them before compiling
// (they are not synchronised with compiles running on other threads).
struct Config {
  // The on-disk compile cache (TORCHINDUCTOR_FX_GRAPH_CACHE=0 turns it off, as in PyTorch).
  bool fx_graph_cache = true;
  // Its folder: TORCHINDUCTOR_CACHE_DIR, else the user's cache folder (see
  // inductor/cache/fx_graph_cache.h).
  std::string cache_dir;
  // Write inductor_provenance_tracking_* artifacts (TORCHSCOPE_INDUCTOR_PROVENANCE=1; PyTorch's
  // inductor.config.trace.provenance_tracking_level).
  bool provenance_tracking = false;
  // Compile every host kernel's schedule for the GPU too, with NVRTC to PTX, and fail on an
  // error (TORCHSCOPE_INDUCTOR_CHECK_CUDA=1: CI's check of the GPU generator without a GPU).
  bool check_cuda = false;
};
Config& config();

// torch.compile's `mode=` (CompileOptions::mode): "default"; "reduce-overhead" (CUDA graphs);
// "max-autotune" (launch configurations and matmul implementations measured, and CUDA graphs);
// "max-autotune-no-cudagraphs". Modes change GPU programs only, as in PyTorch.
enum class Mode : std::uint8_t { Default, ReduceOverhead, MaxAutotune, MaxAutotuneNoCudagraphs };
// UserError for a name that is none of the above ("" is "default").
Mode parse_mode(std::string_view name);
bool uses_cudagraphs(Mode m) noexcept;
bool uses_autotune(Mode m) noexcept;

// RAII: compile_fx_inner calls on this thread compile for `mode` while the scope lives (the
// orchestrator sets it from the compile request, so every stage's graphs share it).
class ModeScope {
public:
  explicit ModeScope(Mode mode);
  ~ModeScope();
  ModeScope(const ModeScope&) = delete;
  ModeScope& operator=(const ModeScope&) = delete;

private:
  Mode previous_;
};
Mode current_mode() noexcept;

// The pre-grad passes on the captured graph, in place. Placeholders keep their order;
// every node the Output node names keeps producing its value. Traces before_pre_grad_graph and
// after_pre_grad_graph, and the graph after each pass that changed it.
void pre_grad_passes(graph::Graph& graph);

} // namespace compiler::inductor
