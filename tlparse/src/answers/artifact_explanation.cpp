// The rule behind explain_missing_artifacts: checked in the order that names the first cause
// (a failure explains a cache state, not the other way round).
#include "tlparse/answers/artifact_explanation.h"

#include <algorithm>

namespace tlparse::answers {

using index::Compile;
using index::CompileScope;
using index::CompileStatus;

std::optional<std::string> explain_missing_artifacts(const Compile& c,
                                                     const std::set<std::string>& a) {
  if (c.scope != CompileScope::compile) {
    return std::nullopt;
  }
  const bool code = a.count("inductor_output_code") > 0;
  const bool inductor = std::any_of(a.begin(), a.end(), [](const std::string& s) {
    return s.starts_with("inductor_") || s.starts_with("fx_graph_cache");
  });
  const bool aot_hit = a.count("aotautograd_cache_hit") > 0;
  if (c.status == CompileStatus::error) {
    return "The compile failed (" + c.fail_type.value_or("error") + ")" +
           (code ? "." : " before code was generated, so there is no output code.");
  }
  if (c.status == CompileStatus::empty) {
    return "The captured graph has no operators: there was nothing to compile.";
  }
  if (aot_hit && !a.count("aot_joint_graph") && !a.count("aot_forward_graph")) {
    return std::string("AOTAutograd cache hit: the compiled graphs were loaded from the cache, "
                       "so the joint, forward/backward and post-grad graphs were not traced "
                       "again and are not in the log") +
           (code ? " (the output code was loaded with them)." : ", nor is output code.");
  }
  if (code) {
    return std::nullopt;
  }
  if (a.count("fx_graph_cache_hit") > 0) {
    return "FX graph cache hit: the generated code was loaded from the cache and not logged.";
  }
  if (c.status == CompileStatus::missing) {
    return "No compilation_metrics were logged: the compile did not finish before the log "
           "ended (a crash, a hang or a kill).";
  }
  if (!inductor && a.count("dynamo_output_graph") > 0) {
    return "No Inductor artifacts: the backend (eager, aot_eager or a custom backend) writes "
           "no generated code.";
  }
  if (c.status == CompileStatus::restart) {
    return "Dynamo restarted the analysis (for example at a graph break); the compile that "
           "produced code is the next attempt or frame.";
  }
  return "No output code was logged for this compile.";
}

} // namespace tlparse::answers
