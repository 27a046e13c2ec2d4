// tracer: write structured compile traces in exactly the format PyTorch writes under
// TORCH_TRACE (docs/TRACER.md), so that tlparse and tlparse-gui read any compiler's logs. This is
// the C++ API; tracer/tracer.h is the C API over the same implementation.
//
// Usage:
//   tracer::CompileScope scope({.frame_id = 0, .frame_compile_id = 0, .attempt = 0});
//   tracer::ChromiumSpan span("entire_frame_compile");
//   tracer::event("dynamo_start", [&](tracer::JsonWriter& meta) { meta.key("stack"); ... });
//   tracer::artifact("recompile_reasons", tracer::Encoding::Json,
//                    [&](tracer::JsonWriter& w) { w.begin_array().value(reason).end_array(); });
//
// Starting: explicitly with start(), or from the TORCH_TRACE environment variable the first time
// any entry point is used (never from a static initializer).
//
// Cost when off: every entry point is an inline test of one relaxed atomic; the callables that
// build metadata and payloads never run. When on, each event is formatted into a thread-local
// buffer and written with one write(2) on an O_APPEND descriptor under a mutex, so lines of
// different threads never interleave and a killed process leaves every finished event.
//
// Failure policy: the library neither prints nor aborts, and the traced program never fails
// because of tracing. An unwritable folder or a failed write (full disk) turns tracing off and
// reports one warning to the host's warning handler (by default one line on stderr).
#pragma once

#include "tracer/export.h"
#include "tracer/json_writer.h"
#include "tracer/version.h"

#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <version>
#if __has_include(<source_location>)
#include <source_location>
#endif
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace tracer {

// Where an event comes from: the glog prefix names its file and line. Filled in at the call site
// through the compilers' builtins (GCC and Clang), so the API does not need
// std::source_location, which some toolchains lack (Clang 14 with libstdc++ 12); converts from
// one where the standard library has it.
class SourceLocation {
public:
  static constexpr SourceLocation current(const char* file = __builtin_FILE(),
                                          std::uint_least32_t line = __builtin_LINE(),
                                          const char* function = __builtin_FUNCTION()) noexcept {
    return SourceLocation(file, line, function);
  }
  constexpr SourceLocation() noexcept = default;
  constexpr SourceLocation(const char* file, std::uint_least32_t line,
                           const char* function) noexcept
      : file_(file), line_(line), function_(function) {}
#if defined(__cpp_lib_source_location)
  // Implicit, so that a std::source_location can be passed wherever the API takes a location.
  constexpr SourceLocation(const std::source_location& where) noexcept
      : file_(where.file_name()), line_(where.line()), function_(where.function_name()) {}
#endif

  constexpr const char* file_name() const noexcept {
    return file_;
  }
  constexpr std::uint_least32_t line() const noexcept {
    return line_;
  }
  constexpr const char* function_name() const noexcept {
    return function_;
  }

private:
  const char* file_ = "";
  std::uint_least32_t line_ = 0;
  const char* function_ = "";
};

// The compile id PyTorch attaches to every event emitted during a compile. Its three spellings
// are the functions below, the only formatter of compile ids in the tracer and the compiler; a
// missing part prints as `-` in each (so an empty id is `-/-`).
struct TORCHSCOPE_TRACER_API CompileId {
  std::optional<std::int64_t> compiled_autograd_id{};
  std::optional<std::int64_t> frame_id{};
  std::optional<std::int64_t> frame_compile_id{};
  std::optional<std::int64_t> attempt{};

  // `[frame/compile]`, `[frame/compile_attempt]` when attempt > 0, `[!caid/frame/compile]`: the
  // display form, as tlparse shows ids.
  std::string to_string() const;
  // `frame/compile_attempt`: to_string() without brackets, PyTorch's str(TraceId); chromium
  // events carry it in their args.
  std::string trace_id_text() const;
  // `frame/compile`, `!caid/frame/compile`: without the attempt, PyTorch's str(CompileId); the
  // `compile_id` of compilation_metrics and cache events, and the prefix of recompile reasons.
  std::string compile_id_text() const;
  friend bool operator==(const CompileId&, const CompileId&) = default;
};

// One frame of a user or framework stack. `filename` is interned through `str` events when the
// frame is written, as PyTorch does.
struct StackFrame {
  std::string_view filename;
  std::int64_t line = 0;
  std::string_view name;
  std::string_view loc; // the source text of the line; empty = omitted
};

enum class Encoding { String, Json };

struct Options {
  std::string directory{};            // the TORCH_TRACE folder; created if missing
  std::optional<std::int64_t> rank{}; // goes into the file name and every envelope
  // Prefix stripped from source file names in the glog prefix (PyTorch prints paths relative
  // to its package root). Empty: keep the current one (see docs/TRACER.md, "File names").
  std::string source_root{};
};

namespace detail {
// The tracer's state, read by every entry point: off, on, or not yet decided (the first use
// then looks at TORCH_TRACE). Written only by start(), stop(), the first use and a fatal write
// error. An exported variable rather than an inline one, so that the host and the shared library
// read the same flag.
enum : std::uint8_t { kStateOff = 0, kStateOn = 1, kStateUndecided = 2 };
extern TORCHSCOPE_TRACER_API std::atomic<std::uint8_t> g_state;
// Decides the state on first use from TORCH_TRACE and RANK; returns whether tracing is on.
TORCHSCOPE_TRACER_API bool decide_on_first_use() noexcept;
} // namespace detail

// True when tracing is on. Off costs this one load and branch.
inline bool enabled() noexcept {
  const std::uint8_t state = detail::g_state.load(std::memory_order_relaxed);
  if (state == detail::kStateOff) [[likely]] {
    return false;
  }
  return state == detail::kStateOn || detail::decide_on_first_use();
}

// Starts tracing into `options.directory` (closing any previous log). Returns false, with one
// warning, if the folder cannot be created or the file cannot be opened. Without a call to
// start(), the first use of the tracer starts it from the environment (start_from_environment).
TORCHSCOPE_TRACER_API bool start(const Options& options);
// Starts tracing into $TORCH_TRACE, with $RANK as the rank when it is a non-negative integer, as
// PyTorch does. Returns false when TORCH_TRACE is unset or empty (a running trace goes on) or
// the log cannot be opened.
TORCHSCOPE_TRACER_API bool start_from_environment();
// Stops tracing and closes the log. After stop(), TORCH_TRACE is not looked at again.
TORCHSCOPE_TRACER_API void stop();
// The path of the current log file ("" when off).
TORCHSCOPE_TRACER_API std::string log_path();
// Sets the rank written into each envelope from now on (the file name keeps its rank).
TORCHSCOPE_TRACER_API void set_rank(std::optional<std::int64_t> rank);
// Sets the prefix stripped from source file names in the glog prefix (Options::source_root).
TORCHSCOPE_TRACER_API void set_source_root(std::string_view root);

// Where warnings go: `handler(message, user_data)` with one line of text, no newline. It runs on
// the thread that met the problem, never under the tracer's locks, so it may call the tracer.
using WarningHandler = void (*)(const char* message, void* user_data);
// Installs `handler` (nullptr: warnings are dropped). The default is print_warning_to_stderr.
TORCHSCOPE_TRACER_API void set_warning_handler(WarningHandler handler, void* user_data = nullptr);
// The default handler: writes `warning: torchscope tracer: <message>` as one line on stderr, with
// control characters escaped.
TORCHSCOPE_TRACER_API void print_warning_to_stderr(const char* message, void* user_data);
// How many events were refused since the process started (a reserved event kind, or invalid
// arguments given to the C API); each refusal is also reported to the warning handler, up to a
// limit.
TORCHSCOPE_TRACER_API std::uint64_t dropped_events() noexcept;

// RAII: every event emitted on this thread while the scope lives carries `id`'s context keys.
// Scopes nest; the innermost wins.
class TORCHSCOPE_TRACER_API CompileScope {
public:
  explicit CompileScope(const CompileId& id) noexcept;
  ~CompileScope();
  CompileScope(const CompileScope&) = delete;
  CompileScope& operator=(const CompileScope&) = delete;

private:
  const CompileId* previous_;
  CompileId id_;
};

// The innermost compile id of this thread, if any scope is active.
TORCHSCOPE_TRACER_API const CompileId* current_compile_id() noexcept;

// Interns `s` (writing `{"str": [s, index]}` the first time it is seen in this process) and
// returns its index. Thread-safe.
TORCHSCOPE_TRACER_API std::int64_t intern_string(std::string_view s,
                                                 SourceLocation where = SourceLocation::current());

// Writes `frames` as a JSON array of PyTorch stack frames, interning each file name.
TORCHSCOPE_TRACER_API void write_stack(JsonWriter& w, std::span<const StackFrame> frames,
                                       SourceLocation where = SourceLocation::current());

namespace detail {
class EventBuilder; // formats one event into a thread-local buffer; see event.cpp

// Hooks between the inline templates below and event.cpp. `begin` returns nullptr when the
// event is not written (tracing went off, or `kind` is reserved for the envelope).
TORCHSCOPE_TRACER_API EventBuilder* begin_event(std::string_view kind, const SourceLocation& where);
TORCHSCOPE_TRACER_API JsonWriter& metadata_writer(EventBuilder* b);
TORCHSCOPE_TRACER_API void end_metadata(EventBuilder* b);
TORCHSCOPE_TRACER_API std::string& payload_buffer(EventBuilder* b);
TORCHSCOPE_TRACER_API void commit_event(EventBuilder* b,
                                        bool has_payload);          // writes and releases `b`
TORCHSCOPE_TRACER_API void release_event(EventBuilder* b) noexcept; // drops `b` unwritten

// Releases the builder if a metadata or payload callable throws.
struct EventGuard {
  EventBuilder* builder;
  bool committed = false;
  ~EventGuard() {
    if (!committed) {
      release_event(builder);
    }
  }
};

struct NoMetadata {
  void operator()(JsonWriter&) const noexcept {}
};

struct NoPayload {};

// Fills the event begun as `b` (nothing when it is nullptr) and writes it: `meta(JsonWriter&)`
// writes the metadata members, `payload(std::string&)` the payload text when there is one.
template <class Meta, class Payload = NoPayload>
void write_event(EventBuilder* b, Meta&& meta, Payload&& payload = {}) {
  if (b == nullptr) {
    return;
  }
  constexpr bool kHasPayload = !std::is_same_v<std::remove_cvref_t<Payload>, NoPayload>;
  EventGuard guard{b};
  std::forward<Meta>(meta)(metadata_writer(b));
  end_metadata(b);
  if constexpr (kHasPayload) {
    std::forward<Payload>(payload)(payload_buffer(b));
  }
  guard.committed = true;
  commit_event(b, kHasPayload);
}
} // namespace detail

// `{}` metadata, for events whose information is all in the payload.
inline constexpr detail::NoMetadata no_metadata{};

// Emits an event with no payload. `meta(JsonWriter&)` writes the members of the metadata
// object (the object itself is opened and closed for it).
template <class Meta>
void event(std::string_view kind, Meta&& meta, SourceLocation where = SourceLocation::current()) {
  if (!enabled()) [[likely]] {
    return;
  }
  detail::write_event(detail::begin_event(kind, where), std::forward<Meta>(meta));
}

// Emits an event with a text payload: `payload(std::string&)` appends the payload text
// (lines joined by '\n', no trailing newline). Bytes that are not UTF-8 are written as U+FFFD
// and a carriage return before a line end is dropped, as tlparse would read them anyway.
template <class Meta, class Payload>
void event_with_payload(std::string_view kind, Meta&& meta, Payload&& payload,
                        SourceLocation where = SourceLocation::current()) {
  if (!enabled()) [[likely]] {
    return;
  }
  detail::write_event(detail::begin_event(kind, where), std::forward<Meta>(meta),
                      std::forward<Payload>(payload));
}

// Emits an event whose payload is JSON, written by `payload(JsonWriter&)` in PyTorch's
// indent=0 layout.
template <class Meta, class Payload>
void event_with_json_payload(std::string_view kind, Meta&& meta, Payload&& payload,
                             SourceLocation where = SourceLocation::current()) {
  event_with_payload(
      kind, std::forward<Meta>(meta),
      [&](std::string& out) {
        JsonWriter w(out, JsonWriter::Layout::Indent0);
        std::forward<Payload>(payload)(w);
      },
      where);
}

// Emits `{"artifact": {"name": name, "encoding": "string"|"json"}}` with its payload.
// `payload` is `void(std::string&)` (text) or `void(JsonWriter&)` (JSON, indent=0 layout).
template <class Payload>
void artifact(std::string_view name, Encoding encoding, Payload&& payload,
              SourceLocation where = SourceLocation::current()) {
  if (!enabled()) [[likely]] {
    return;
  }
  auto meta = [&](JsonWriter& w) {
    w.member("name", name).member("encoding", encoding == Encoding::Json ? "json" : "string");
  };
  // PyTorch passes either a JSON-producing or a text-producing payload function for either
  // encoding (its recompile_reasons, "json" encoded, is plain text); both forms are accepted.
  if constexpr (std::is_invocable_v<Payload, JsonWriter&>) {
    event_with_json_payload("artifact", meta, std::forward<Payload>(payload), where);
  } else {
    static_assert(std::is_invocable_v<Payload, std::string&>,
                  "artifact payload must be callable with JsonWriter& or std::string&");
    event_with_payload("artifact", meta, std::forward<Payload>(payload), where);
  }
}

// RAII timer that writes a `chromium_event` B on construction and E on destruction, as
// PyTorch's dynamo_timed does (cat "dynamo_timed", args.compile_id from the current scope).
// Extra args for the E event (timing counters) can be attached with add_end_arg.
class TORCHSCOPE_TRACER_API ChromiumSpan {
public:
  explicit ChromiumSpan(std::string_view name, SourceLocation where = SourceLocation::current());
  ~ChromiumSpan();
  ChromiumSpan(const ChromiumSpan&) = delete;
  ChromiumSpan& operator=(const ChromiumSpan&) = delete;

  void add_end_arg(std::string_view key, double value);
  void add_end_arg(std::string_view key, std::string_view value);

private:
  bool active_;
  std::string name_;
  std::string end_args_; // serialised `"k": v` members, comma separated
  SourceLocation where_;
};

// Writes one chromium_event now (`ph` is "B", "E", "i" or "X"); ChromiumSpan uses it.
TORCHSCOPE_TRACER_API void chromium_event(std::string_view name, std::string_view ph,
                                          std::string_view extra_args = {},
                                          SourceLocation where = SourceLocation::current());

// Microseconds since the Unix epoch, as chromium `ts` values are.
TORCHSCOPE_TRACER_API double now_us() noexcept;

} // namespace tracer
