// Internal trace helpers for capture (see trace_util.h).
#include "capture/trace_util.h"

#include <array>

namespace compiler::capture::detail {

std::string_view short_function_name(std::string_view pretty) {
  if (pretty.empty()) {
    return "<unknown>";
  }
  if (pretty.find("<lambda") != std::string_view::npos) {
    return "<lambda>";
  }
  // Drop the parameter list, then any return type and qualifiers before the name.
  std::size_t paren = pretty.find('(');
  std::string_view head = pretty.substr(0, paren);
  std::size_t space = head.rfind(' ');
  if (space != std::string_view::npos) {
    head = head.substr(space + 1);
  }
  std::size_t scope = head.rfind("::");
  if (scope != std::string_view::npos) {
    head = head.substr(scope + 2);
  }
  return head.empty() ? pretty : head;
}

tracer::StackFrame user_frame(const std::source_location& where) {
  tracer::StackFrame f;
  f.filename = where.file_name();
  f.line = static_cast<std::int64_t>(where.line());
  f.name = short_function_name(where.function_name());
  return f;
}

void write_user_stack(tracer::JsonWriter& w, const std::source_location& where) {
  if (where.file_name() == nullptr || where.file_name()[0] == '\0') {
    w.begin_array().end_array();
    return;
  }
  std::array<tracer::StackFrame, 1> frames{user_frame(where)};
  tracer::write_stack(w, frames);
}

std::string format_user_frame(const std::source_location& where) {
  std::string out = "  File \"";
  out += where.file_name();
  out += "\", line ";
  out += std::to_string(where.line());
  out += ", in ";
  out += short_function_name(where.function_name());
  return out;
}

} // namespace compiler::capture::detail
