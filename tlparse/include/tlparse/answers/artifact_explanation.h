// Why a compile has no generated code, or lacks the graphs of the later stages: a cache hit, a
// failure, an empty graph, a backend that writes no code, a run that ended first, a restart.
// The one place this rule lives: the report's "Artifacts explained" section and the GUI's
// compile page both ask it (docs/ANSWERS.md), from a compile's row and the artifact names of
// its outputs as the read API returns them.
#pragma once

#include "tlparse/index/schema.gen.h"

#include <optional>
#include <set>
#include <string>

namespace tlparse::answers {

// `artifacts`: the artifact names (Output::artifact) of the outputs of every compile-directory
// entry of `compile`. nullopt when nothing is missing to explain.
std::optional<std::string> explain_missing_artifacts(const index::Compile& compile,
                                                     const std::set<std::string>& artifacts);

} // namespace tlparse::answers
