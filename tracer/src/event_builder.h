// Formatting one event: the glog prefix, the envelope with its context keys, the payload with
// its MD5 and TAB framing, and the single write. The C++ templates of tracer/trace.h reach it
// through the exported hooks (begin_event, commit_event, ...); the C API and chromium events use
// the call-site form below, since their caller's location is not a SourceLocation.
#pragma once

#include "tracer/trace.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace tracer::detail {

// The source location an event is attributed to (the glog prefix, and the `stack` frame of an
// event emitted outside any compile).
struct CallSite {
  std::string_view file;
  std::int64_t line = 0;
  std::string_view function;

  static CallSite from(const SourceLocation& where) noexcept {
    return {where.file_name(), static_cast<std::int64_t>(where.line()), where.function_name()};
  }
};

class EventBuilder {
public:
  EventBuilder() : meta(line) {}

  std::string line;    // prefix + envelope (+ payload lines once committed)
  std::string payload; // payload text as the caller wrote it
  std::string scratch; // the payload after repair, when it needed one
  JsonWriter meta;
  std::string_view kind;
  CallSite at; // views of the caller's strings: a builder lives within one call
};

// Starts an event attributed to `at`. Returns nullptr, counting the refusal, when `kind` is
// reserved for the envelope (`str`, `rank`, `frame_id`, ...), and when tracing is off.
EventBuilder* begin_event_at(std::string_view kind, const CallSite& at);

// Interns `s` attributing the `str` line to `at`.
std::int64_t intern_string_at(std::string_view s, const CallSite& at);

// Why `kind` cannot be an event's key, or nullptr when it can.
const char* reserved_kind_reason(std::string_view kind) noexcept;

// The innermost compile id of this thread (what CompileScope and the C API's push/pop set).
const CompileId*& current_compile_id_slot() noexcept;

} // namespace tracer::detail

namespace tracer::detail {

// Writes the extra members of a chromium event's `args` object.
using ChromiumArgsWriter = void (*)(JsonWriter& args, const void* context);

// Emits one chromium_event (`ph` "B", "E", "i") attributed to `at`: name, ts, args (the
// current compile id and what `write_args` adds), in PyTorch's member order.
void emit_chromium_event(std::string_view name, std::string_view ph, const CallSite& at,
                         ChromiumArgsWriter write_args, const void* context);

} // namespace tracer::detail
