// The sections of index.html that answer questions (issue 15): the recompilation explorer, the
// graph-break summary, the compile-time chart (SVG flame charts from the chromium spans) and why
// compiles lack generated code or other artifacts. Read through the read API's views.
#pragma once

#include "report/render_context.h"

#include <string>

namespace tlparse::report::detail {

// Appended to `file`'s buffer, flushed as the per-compile tables grow (one row a compile).
void render_answer_sections(RenderContext& ctx, StreamedFile& file);

} // namespace tlparse::report::detail
