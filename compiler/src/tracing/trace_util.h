// Internal helpers shared by the capture sources for writing trace events: user frames from
// std::source_location, and short function names for them.
#pragma once

#include "tracer/trace.h"

#include <source_location>
#include <string>
#include <string_view>

namespace compiler::tracing {

// "main()::<lambda(compiler::Tensor)>" -> "<lambda>", "void f(int)" -> "f": the short name a
// Python frame would show.
std::string_view short_function_name(std::string_view pretty);

// The text of the source line at `where`, stripped of surrounding blanks, read from the source
// file when it can be read (empty otherwise), as Python's linecache does for tracebacks. Files
// are read once and kept; the returned view stays valid. Cold path: compiles only.
std::string_view source_line(const std::source_location& where);

// One user frame for `where` (file name, line, short function name, source text).
tracer::StackFrame user_frame(const std::source_location& where);

// Writes `[frame]` (or `[]` when `where` has no file) as a stack array, interning the file.
void write_user_stack(tracer::JsonWriter& w, const std::source_location& where);

// Writes `[caller, frame]` as a stack array, leaving out either when it has no file: the
// "stack" of create_symbol and guard_added_fast (the user's call, then the traced line).
void write_user_stack(tracer::JsonWriter& w, const std::source_location& caller,
                      const std::source_location& where);

// One frame of a Python-style traceback: "  File \"f.cpp\", line 12, in fn\n", then the
// frame's source text indented on its own line when it has one.
std::string format_user_frame(const tracer::StackFrame& frame);

} // namespace compiler::tracing
