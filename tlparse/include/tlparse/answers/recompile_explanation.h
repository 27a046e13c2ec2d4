// What the recompile explorers say about a compile that has no recompile reason to show: the
// first compile of its frame, or a recompile whose reasons the log did not record. The one place
// this rule lives: the report's "Recompilations" section and the GUI's Recompiles page both ask
// it (docs/ANSWERS.md), from the compile's row as the read API returns it.
#pragma once

#include "tlparse/index/schema.gen.h"

#include <string_view>

namespace tlparse::answers {

// "first compile of the frame" for a frame's first compile (its attempts included), else
// "no recompile reason in the log". Asked only when the index holds no recompile reason for it.
std::string_view no_recompile_reason_note(const index::Compile& compile);

} // namespace tlparse::answers
