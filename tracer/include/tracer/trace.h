// tracer: write structured compile traces in exactly the format PyTorch writes under
// TORCH_TRACE (docs/TRACE-FORMAT.md), so any C++ compiler can be read by tlparse.
//
// Usage:
//   tracer::CompileScope scope({.frame_id = 0, .frame_compile_id = 0, .attempt = 0});
//   tracer::ChromiumSpan span("entire_frame_compile");
//   tracer::event("dynamo_start", [&](tracer::JsonWriter& meta) { meta.key("stack"); ... });
//   tracer::artifact("recompile_reasons", tracer::Encoding::Json,
//                    [&](tracer::JsonWriter& w) { w.begin_array().value(reason).end_array(); });
//
// Cost when off: every entry point is an inline test of one relaxed atomic; the callables that
// build metadata and payloads never run. When on, each event is formatted into a thread-local
// buffer and written with one write(2) on an O_APPEND descriptor under a mutex, so lines of
// different threads never interleave and a killed process leaves every finished event.
//
// Failure policy: the traced program never fails because of tracing. An unwritable folder or a
// failed write (full disk) turns tracing off and prints one warning on stderr.
#pragma once

#include "tracer/json_writer.h"

#include <atomic>
#include <cstdint>
#include <optional>
#include <source_location>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace tracer {

// The compile id PyTorch attaches to every event emitted during a compile. Printed
// `[frame/compile]`, `[frame/compile_attempt]` when attempt > 0, `[!caid/frame/compile]`.
struct CompileId {
  std::optional<std::int64_t> compiled_autograd_id{};
  std::optional<std::int64_t> frame_id{};
  std::optional<std::int64_t> frame_compile_id{};
  std::optional<std::int64_t> attempt{};

  std::string to_string() const;
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
  // to its package root). Empty: use the build's own source root (see docs/TRACER.md).
  std::string source_root{};
};

namespace detail {
// Read on every entry point; written only by start()/stop() and on a fatal write error.
inline std::atomic<bool> g_enabled{false};
} // namespace detail

// True when tracing is on. Off costs this one load and branch.
inline bool enabled() noexcept {
  return detail::g_enabled.load(std::memory_order_relaxed);
}

// Starts tracing into `options.directory` (closing any previous log). Returns false, with one
// warning on stderr, if the folder cannot be created or the file cannot be opened. Called
// automatically at program start when the TORCH_TRACE environment variable is set (with RANK
// as the rank when it is set).
bool start(const Options& options);
// Stops tracing and closes the log.
void stop();
// The path of the current log file ("" when off or not yet opened).
std::string log_path();
// Sets the rank written into each envelope from now on (the file name keeps its rank).
void set_rank(std::optional<std::int64_t> rank);

// RAII: every event emitted on this thread while the scope lives carries `id`'s context keys.
// Scopes nest; the innermost wins.
class CompileScope {
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
const CompileId* current_compile_id() noexcept;

// Interns `s` (writing `{"str": [s, index]}` the first time it is seen in this process) and
// returns its index. Thread-safe.
std::int64_t intern_string(std::string_view s,
                           std::source_location where = std::source_location::current());

// Writes `frames` as a JSON array of PyTorch stack frames, interning each file name.
void write_stack(JsonWriter& w, std::span<const StackFrame> frames,
                 std::source_location where = std::source_location::current());

namespace detail {
class EventBuilder; // formats one event into a thread-local buffer; see trace.cpp

// Hooks between the inline templates below and trace.cpp. `begin` returns nullptr when the log
// cannot be opened (tracing is then off).
EventBuilder* begin_event(std::string_view kind, const std::source_location& where);
JsonWriter& metadata_writer(EventBuilder* b);
void end_metadata(EventBuilder* b);
std::string& payload_buffer(EventBuilder* b);
void commit_event(EventBuilder* b, bool has_payload); // writes and releases `b`
void release_event(EventBuilder* b) noexcept;         // drops `b` unwritten

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
} // namespace detail

// `{}` metadata, for events whose information is all in the payload.
inline constexpr detail::NoMetadata no_metadata{};

// Emits an event with no payload. `meta(JsonWriter&)` writes the members of the metadata
// object (the object itself is opened and closed for it).
template <class Meta>
void event(std::string_view kind, Meta&& meta,
           std::source_location where = std::source_location::current()) {
  if (!enabled()) [[likely]] {
    return;
  }
  detail::EventBuilder* b = detail::begin_event(kind, where);
  if (b == nullptr) {
    return;
  }
  detail::EventGuard guard{b};
  std::forward<Meta>(meta)(detail::metadata_writer(b));
  detail::end_metadata(b);
  guard.committed = true;
  detail::commit_event(b, false);
}

// Emits an event with a text payload: `payload(std::string&)` appends the payload text
// (lines joined by '\n', no trailing newline).
template <class Meta, class Payload>
void event_with_payload(std::string_view kind, Meta&& meta, Payload&& payload,
                        std::source_location where = std::source_location::current()) {
  if (!enabled()) [[likely]] {
    return;
  }
  detail::EventBuilder* b = detail::begin_event(kind, where);
  if (b == nullptr) {
    return;
  }
  detail::EventGuard guard{b};
  std::forward<Meta>(meta)(detail::metadata_writer(b));
  detail::end_metadata(b);
  std::forward<Payload>(payload)(detail::payload_buffer(b));
  guard.committed = true;
  detail::commit_event(b, true);
}

// Emits an event whose payload is JSON, written by `payload(JsonWriter&)` in PyTorch's
// indent=0 layout.
template <class Meta, class Payload>
void event_with_json_payload(std::string_view kind, Meta&& meta, Payload&& payload,
                             std::source_location where = std::source_location::current()) {
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
              std::source_location where = std::source_location::current()) {
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
class ChromiumSpan {
public:
  explicit ChromiumSpan(std::string_view name,
                        std::source_location where = std::source_location::current());
  ~ChromiumSpan();
  ChromiumSpan(const ChromiumSpan&) = delete;
  ChromiumSpan& operator=(const ChromiumSpan&) = delete;

  void add_end_arg(std::string_view key, double value);
  void add_end_arg(std::string_view key, std::string_view value);

private:
  bool active_;
  std::string name_;
  std::string end_args_; // serialised `"k": v` members, comma separated
  std::source_location where_;
};

// Writes one chromium_event now (`ph` is "B", "E", "i" or "X"); ChromiumSpan uses it.
void chromium_event(std::string_view name, std::string_view ph, std::string_view extra_args = {},
                    std::source_location where = std::source_location::current());

// Microseconds since the Unix epoch, as chromium `ts` values are.
double now_us() noexcept;

} // namespace tracer
