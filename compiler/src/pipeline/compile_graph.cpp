// compiler/pipeline: the orchestrator. compile_graph(), declared by the seam that capture calls
// (compiler/backend/backend.h), runs the stages after capture in order; it is the only code that
// includes several stages, and no stage includes it. The stages themselves implement or exchange
// the seam's types (CompiledGraph, GraphCompiler, backend/kept_values.h).
#include "backend/kept_values.h"
#include "compiler/aot/aot.h"
#include "compiler/backend/backend.h"
#include "compiler/core/errors.h"
#include "compiler/inductor/inductor.h"

#include <cstdlib>
#include <string>

namespace compiler::backend {

std::unique_ptr<CompiledGraph> compile_graph(const CompileRequest& request) {
  std::string_view backend = request.backend;
  if (backend.empty()) {
    const char* env = std::getenv("TORCHSCOPE_COMPILE_BACKEND");
    backend = env != nullptr && *env != '\0' ? env : "inductor";
  }
  if (backend == "eager") {
    return interpret_graph(request.graph);
  }
  if (backend == "aot_eager") {
    return aot::aot_compile(request.graph, {.keep = request.keep, .frame_name = request.frame_name},
                            aot::interpret);
  }
  if (backend != "inductor") {
    user_error("compile(): unknown backend '" + std::string(backend) +
               "' (expected \"inductor\", \"aot_eager\" or \"eager\")");
  }
  std::string_view mode = request.mode;
  if (mode.empty()) {
    const char* env = std::getenv("TORCHSCOPE_COMPILE_MODE");
    mode = env != nullptr ? env : "";
  }
  const inductor::Mode parsed_mode = inductor::parse_mode(mode);
  KeptValues kept = keep_values(request); // every kept value is a result: Keep::Outputs below
  inductor::pre_grad_passes(kept.graph);
  // Only compile_fx_inner reads the mode, and the backward graph is compiled when backward()
  // first reaches it, after this call returns: the graph compiler carries the mode to each call.
  const GraphCompiler compile_with_mode = [parsed_mode](const graph::Graph& g, GraphRole role) {
    const inductor::ModeScope scope(parsed_mode);
    return inductor::compile_fx_inner(g, role);
  };
  std::unique_ptr<CompiledGraph> compiled = aot::aot_compile(
      kept.graph, {.keep = Keep::Outputs, .frame_name = request.frame_name}, compile_with_mode);
  return restore_indices(std::move(compiled), request.graph, kept.graph, kept.slots);
}

} // namespace compiler::backend
