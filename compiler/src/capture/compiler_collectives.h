// Internal: the engine's side of compiler collectives (compiler/capture/compiler_collectives.h):
// run the installed exchange for one compile, trace it, and say which dims the ranks disagree on.
#pragma once

#include "compiler/capture/compiler_collectives.h"

#include <map>
#include <string>
#include <vector>

namespace compiler::capture::detail {

// For each tensor input, the dims whose size is not the same on every rank; empty when no
// exchange is installed. Traced under the current compile: a `compiler_collective` chromium span
// and a `compiler_collective` artifact (what was sent, every rank's answer, the dims made dynamic
// and the exchange's duration). Throws what the exchange throws.
std::map<std::string, std::vector<bool>> exchange_input_sizes(const std::string& frame_name,
                                                              const std::vector<InputSizes>& local);

} // namespace compiler::capture::detail
