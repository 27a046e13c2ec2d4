// compiler/pipeline: the orchestrator, and the one page that lists the compiler's stages in
// order (docs/COMPILER.md, "The stages, in order"). compile_graph() is declared by the seam that
// capture calls (compiler/backend/backend.h) and defined here, above every stage: this is the
// only code that includes several stages, and no stage includes it. Each numbered line is one
// step whose logic lives in its stage's files.
#include "backend/kept_values.h"
#include "compiler/aot/aot.h"
#include "compiler/backend/backend.h"
#include "compiler/core/errors.h"
#include "compiler/inductor/inductor.h"
#include "inductor/compile_fx.h"

#include <cstdlib>
#include <string>

namespace compiler::backend {

namespace {

std::string_view backend_name(const CompileRequest& request) {
  if (!request.backend.empty()) {
    return request.backend;
  }
  const char* env = std::getenv("TORCHSCOPE_COMPILE_BACKEND");
  return env != nullptr && *env != '\0' ? env : "inductor";
}

inductor::Mode compile_mode(const CompileRequest& request) {
  std::string_view mode = request.mode;
  if (mode.empty()) {
    const char* env = std::getenv("TORCHSCOPE_COMPILE_MODE");
    mode = env != nullptr ? env : "";
  }
  return inductor::parse_mode(mode);
}

std::unique_ptr<CompiledGraph> compile_fx_inner(const graph::Graph& graph, GraphRole role);

} // namespace

// 0. Capture (capture/engine.cpp) traced a frame into request.graph on a guard miss and calls
//    this; then it builds the frame's guards and runs what it got back while they pass.
std::unique_ptr<CompiledGraph> compile_graph(const CompileRequest& request) {
  if (request.custom_backend != nullptr) {
    // A user backend sees the graph whose Output names every value capture reads back.
    KeptValues kept = keep_values(request);
    GraphFunction function = (*request.custom_backend)(kept.graph);
    std::unique_ptr<CompiledGraph> compiled =
        compiled_from_function(kept.graph, std::move(function), "compile(): the custom backend");
    return restore_indices(std::move(compiled), request.graph, kept.graph, kept.slots);
  }
  const std::string_view backend = backend_name(request);
  if (backend == "eager") {
    return interpret_graph(request.graph);
  }
  if (backend == "aot_eager") {
    if (!request.graph.input_mutations.empty()) {
      // The mutated inputs' final values must come back as results (capture writes them back).
      KeptValues kept = keep_values(request);
      std::unique_ptr<CompiledGraph> compiled = aot::aot_compile(
          kept.graph, {.keep = Keep::Outputs, .frame_name = request.frame_name}, aot::interpret);
      return restore_indices(std::move(compiled), request.graph, kept.graph, kept.slots);
    }
    return aot::aot_compile(request.graph, {.keep = request.keep, .frame_name = request.frame_name},
                            aot::interpret);
  }
  if (backend != "inductor") {
    user_error("compile(): unknown backend '" + std::string(backend) +
               "' (expected \"inductor\", \"aot_eager\" or \"eager\")");
  }
  const inductor::Mode mode = compile_mode(request);
  // Only compile_fx_inner reads the mode, and the backward graph is compiled when backward()
  // first reaches it, after this call returns: the graph compiler carries the mode to each call.
  const GraphCompiler compile_with_mode = [mode](const graph::Graph& g, GraphRole role) {
    const inductor::ModeScope scope(mode);
    return compile_fx_inner(g, role);
  };
  KeptValues kept = keep_values(request); // the values capture reads back become results
  inductor::pre_grad_passes(kept.graph);  // 1. pre-grad graph passes (inductor/, passes/)
  // 2. AOT (aot/): joint graph, decomposition to prims, joint passes, min-cut partition; each
  //    graph it makes (inference, or forward now and backward at the first backward) goes
  //    through stages 3 to 7.
  std::unique_ptr<CompiledGraph> compiled = aot::aot_compile(
      kept.graph, {.keep = Keep::Outputs, .frame_name = request.frame_name}, compile_with_mode);
  return restore_indices(std::move(compiled), request.graph, kept.graph, kept.slots);
}

namespace {

// Stages 3 to 7 on one graph the AOT stage hands over (Inductor's compile_fx_inner).
std::unique_ptr<CompiledGraph> compile_fx_inner(const graph::Graph& graph, GraphRole role) {
  inductor::GraphCompile c(graph, role); // its device, code generator and compile-cache entry
  c.post_grad_passes();                  // 3. post-grad graph passes (passes/)
  if (!c.generates_code()) {
    return c.interpret(); // no code generator takes it: it runs on the interpreter
  }
  c.lower();           // 4. lowering into the loop IR (inductor/lowering/)
  c.schedule();        // 5. scheduling and fusion into kernels (inductor/scheduler/)
  c.output_code();     // 6. code generation: the output code (inductor/codegen/), then the
  c.compile_kernels(); //    machine code, from the compile cache or the device's generator
  return c.wrap();     // 7. the wrapper that runs the kernels (inductor/runtime/)
}

} // namespace

} // namespace compiler::backend
