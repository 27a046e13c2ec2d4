// Internal trace helpers for capture (see trace_util.h).
#include "tracing/trace_util.h"

#include <array>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace compiler::tracing {

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

std::string_view source_line(const std::source_location& where) {
  if (where.file_name() == nullptr || where.file_name()[0] == '\0' || where.line() == 0) {
    return {};
  }
  static std::mutex mutex;
  // Lines per file; an unreadable file maps to no lines. Never shrinks, so views stay valid.
  static std::map<std::string, std::unique_ptr<std::vector<std::string>>, std::less<>> files;
  std::lock_guard lock(mutex);
  auto it = files.find(std::string_view(where.file_name()));
  if (it == files.end()) {
    auto lines = std::make_unique<std::vector<std::string>>();
    std::ifstream in(where.file_name());
    for (std::string line; std::getline(in, line);) {
      std::size_t b = line.find_first_not_of(" \t");
      std::size_t e = line.find_last_not_of(" \t\r");
      lines->push_back(b == std::string::npos ? std::string() : line.substr(b, e - b + 1));
    }
    it = files.emplace(where.file_name(), std::move(lines)).first;
  }
  const std::vector<std::string>& lines = *it->second;
  return where.line() <= lines.size() ? std::string_view(lines[where.line() - 1])
                                      : std::string_view();
}

tracer::StackFrame user_frame(const std::source_location& where) {
  tracer::StackFrame f;
  f.loc = source_line(where);
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

void write_user_stack(tracer::JsonWriter& w, const std::source_location& caller,
                      const std::source_location& where) {
  std::array<tracer::StackFrame, 2> frames;
  std::size_t n = 0;
  for (const std::source_location* l : {&caller, &where}) {
    if (l->file_name() != nullptr && l->file_name()[0] != '\0') {
      frames[n++] = user_frame(*l);
    }
  }
  tracer::write_stack(w, std::span(frames.data(), n));
}

std::string format_user_frame(const tracer::StackFrame& frame) {
  std::string out = "  File \"";
  out += frame.filename;
  out += "\", line ";
  out += std::to_string(frame.line);
  out += ", in ";
  out += frame.name;
  out += "\n";
  if (!frame.loc.empty()) {
    out += "    ";
    out += frame.loc;
    out += "\n";
  }
  return out;
}

} // namespace compiler::tracing
