// Internal helpers shared by the capture sources for writing trace events: user frames from
// std::source_location, and short function names for them.
#pragma once

#include "tracer/trace.h"

#include <source_location>
#include <string>
#include <string_view>

namespace compiler::capture::detail {

// "main()::<lambda(compiler::Tensor)>" -> "<lambda>", "void f(int)" -> "f": the short name a
// Python frame would show.
std::string_view short_function_name(std::string_view pretty);

// One user frame for `where` (file name, line, short function name).
tracer::StackFrame user_frame(const std::source_location& where);

// Writes `[frame]` (or `[]` when `where` has no file) as a stack array, interning the file.
void write_user_stack(tracer::JsonWriter& w, const std::source_location& where);

// "File \"f.cpp\", line 12, in fn" lines, as Python tracebacks print user frames.
std::string format_user_frame(const std::source_location& where);

} // namespace compiler::capture::detail
