// The rule behind no_recompile_reason_note: a compile is a frame's first when its
// frame_compile_id is 0 (or was not logged); every later one was a recompile.
#include "tlparse/answers/recompile_explanation.h"

namespace tlparse::answers {

std::string_view no_recompile_reason_note(const index::Compile& compile) {
  return compile.frame_compile_id.value_or(0) == 0 ? "first compile of the frame"
                                                   : "no recompile reason in the log";
}

} // namespace tlparse::answers
