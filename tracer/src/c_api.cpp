// The C API (tracer/tracer.h) over the C++ implementation: arguments checked, JSON text read
// back through the JsonWriter (src/json_text.h), exceptions turned into status codes. A refused
// call is counted and reported to the warning handler; nothing of it reaches the log.
#include "event_builder.h"
#include "json_text.h"
#include "session.h"
#include "tracer/tracer.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <new>
#include <optional>
#include <string>

namespace {

using tracer::JsonWriter;
using tracer::detail::CallSite;

// Thrown out of a metadata or args writer to drop the event being formatted.
struct InvalidJson {
  std::string why;
};

constexpr std::int64_t kMaxId = 0xFFFFFFFF; // tlparse reads ids and ranks as 32-bit unsigned

int refuse(int status, const std::string& why) {
  tracer::detail::refuse_event(why);
  return status;
}

CallSite call_site(const torchscope_trace_location& where) {
  return {where.file != nullptr ? where.file : "", where.line,
          where.function != nullptr ? where.function : ""};
}

// Runs `body`, which returns a status, turning what it throws into one.
template <class Body>
int guarded(const char* what, Body&& body) noexcept {
  try {
    try {
      return body();
    } catch (const InvalidJson& e) {
      return refuse(TORCHSCOPE_TRACE_INVALID_JSON, std::string(what) + ": " + e.why);
    } catch (const std::bad_alloc&) {
      return refuse(TORCHSCOPE_TRACE_OUT_OF_MEMORY, std::string(what) + ": out of memory");
    }
  } catch (...) {
    return TORCHSCOPE_TRACE_OUT_OF_MEMORY; // reporting itself failed
  }
}

// After writing: an I/O failure turns tracing off (and was reported once).
int written_status() {
  return tracer::detail::is_on() ? TORCHSCOPE_TRACE_OK : TORCHSCOPE_TRACE_IO_ERROR;
}

void copy_metadata(const char* metadata_json, JsonWriter& w, std::string_view taken_key = {}) {
  if (metadata_json == nullptr) {
    return;
  }
  std::string error;
  if (!tracer::detail::copy_json_object_members(metadata_json, w, error, taken_key)) {
    throw InvalidJson{"metadata " + error};
  }
}

// Checks what every event call shares; returns OK to go on writing.
int check_event(const char* what, const char* kind) {
  if (kind == nullptr) {
    return refuse(TORCHSCOPE_TRACE_INVALID_ARGUMENT, std::string(what) + ": kind is NULL");
  }
  if (!tracer::enabled()) {
    return TORCHSCOPE_TRACE_OFF;
  }
  if (const char* why = tracer::detail::reserved_kind_reason(kind)) {
    return refuse(TORCHSCOPE_TRACE_RESERVED_KIND,
                  std::string(what) + " '" + std::string(kind).substr(0, 64) + "': " + why);
  }
  return TORCHSCOPE_TRACE_OK;
}

bool id_in_range(std::int64_t v) {
  return v <= kMaxId;
}

std::optional<std::int64_t> id_member(std::int64_t v) {
  return v < 0 ? std::nullopt : std::optional<std::int64_t>(v);
}

// C pushes live here, per thread; each remembers the id it replaced as the current one.
struct PushedId {
  tracer::CompileId id;
  const tracer::CompileId* previous;
};
thread_local std::deque<PushedId> t_pushed;

} // namespace

extern "C" {

const char* torchscope_trace_status_message(int status) {
  switch (status) {
  case TORCHSCOPE_TRACE_OK:
    return "ok";
  case TORCHSCOPE_TRACE_OFF:
    return "tracing is off";
  case TORCHSCOPE_TRACE_INVALID_ARGUMENT:
    return "invalid argument";
  case TORCHSCOPE_TRACE_INVALID_JSON:
    return "not a JSON object that tlparse can read";
  case TORCHSCOPE_TRACE_RESERVED_KIND:
    return "the event kind is an envelope key";
  case TORCHSCOPE_TRACE_IO_ERROR:
    return "the trace could not be written";
  case TORCHSCOPE_TRACE_SCOPE_MISMATCH:
    return "pop without a matching push on this thread";
  case TORCHSCOPE_TRACE_OUT_OF_MEMORY:
    return "out of memory";
  default:
    return "unknown status";
  }
}

int torchscope_trace_version(void) {
  return TORCHSCOPE_TRACER_VERSION;
}

int torchscope_trace_start(const torchscope_trace_options* options) {
  return guarded("start", [&]() -> int {
    // The members of version 1 end with source_root; a caller built against later headers
    // passes a larger struct_size, and the members it adds are read only when present.
    constexpr std::size_t kVersion1Size =
        offsetof(torchscope_trace_options, source_root) + sizeof(const char*);
    if (options == nullptr || options->struct_size < kVersion1Size ||
        options->directory == nullptr || options->directory[0] == '\0') {
      return refuse(TORCHSCOPE_TRACE_INVALID_ARGUMENT,
                    "start: options, their struct_size or their directory are missing");
    }
    if (!id_in_range(options->rank)) {
      return refuse(TORCHSCOPE_TRACE_INVALID_ARGUMENT, "start: rank beyond 32 bits");
    }
    tracer::Options o;
    o.directory = options->directory;
    o.rank = id_member(options->rank);
    if (options->source_root != nullptr) {
      o.source_root = options->source_root;
    }
    return tracer::start(o) ? TORCHSCOPE_TRACE_OK : TORCHSCOPE_TRACE_IO_ERROR;
  });
}

int torchscope_trace_start_from_environment(void) {
  return guarded("start_from_environment", []() -> int {
    const char* dir = std::getenv("TORCH_TRACE");
    const bool requested = dir != nullptr && dir[0] != '\0';
    const bool started = tracer::start_from_environment();
    if (!requested) {
      return TORCHSCOPE_TRACE_OFF;
    }
    return started ? TORCHSCOPE_TRACE_OK : TORCHSCOPE_TRACE_IO_ERROR;
  });
}

void torchscope_trace_stop(void) {
  tracer::stop();
}

int torchscope_trace_enabled(void) {
  return tracer::enabled() ? 1 : 0;
}

size_t torchscope_trace_log_path(char* buffer, size_t size) {
  try {
    const std::string path = tracer::log_path();
    if (buffer != nullptr && size > 0) {
      const std::size_t n = path.size() < size ? path.size() : size - 1;
      std::memcpy(buffer, path.data(), n);
      buffer[n] = '\0';
    }
    return path.size();
  } catch (...) {
    if (buffer != nullptr && size > 0) {
      buffer[0] = '\0';
    }
    return 0;
  }
}

int torchscope_trace_set_rank(int64_t rank) {
  if (!id_in_range(rank)) {
    return refuse(TORCHSCOPE_TRACE_INVALID_ARGUMENT, "set_rank: rank beyond 32 bits");
  }
  tracer::set_rank(id_member(rank));
  return TORCHSCOPE_TRACE_OK;
}

int torchscope_trace_set_source_root(const char* root) {
  return guarded("set_source_root", [&]() -> int {
    tracer::set_source_root(root != nullptr ? root : "");
    return TORCHSCOPE_TRACE_OK;
  });
}

void torchscope_trace_set_warning_handler(torchscope_trace_warning_handler handler,
                                          void* user_data) {
  tracer::set_warning_handler(handler, user_data);
}

void torchscope_trace_print_warning_to_stderr(const char* message, void* user_data) {
  tracer::print_warning_to_stderr(message, user_data);
}

uint64_t torchscope_trace_dropped_events(void) {
  return tracer::dropped_events();
}

int torchscope_trace_push_compile_id(const torchscope_compile_id* id) {
  return guarded("push_compile_id", [&]() -> int {
    if (id == nullptr || !id_in_range(id->compiled_autograd_id) || !id_in_range(id->frame_id) ||
        !id_in_range(id->frame_compile_id) || !id_in_range(id->attempt)) {
      return refuse(TORCHSCOPE_TRACE_INVALID_ARGUMENT,
                    "push_compile_id: the id is NULL or a member is beyond 32 bits");
    }
    const tracer::CompileId*& current = tracer::detail::current_compile_id_slot();
    t_pushed.push_back({{.compiled_autograd_id = id_member(id->compiled_autograd_id),
                         .frame_id = id_member(id->frame_id),
                         .frame_compile_id = id_member(id->frame_compile_id),
                         .attempt = id_member(id->attempt)},
                        current});
    current = &t_pushed.back().id;
    return TORCHSCOPE_TRACE_OK;
  });
}

int torchscope_trace_pop_compile_id(void) {
  const tracer::CompileId*& current = tracer::detail::current_compile_id_slot();
  if (t_pushed.empty() || current != &t_pushed.back().id) {
    return refuse(TORCHSCOPE_TRACE_SCOPE_MISMATCH,
                  "pop_compile_id: no push of this thread is the innermost compile id");
  }
  current = t_pushed.back().previous;
  t_pushed.pop_back();
  return TORCHSCOPE_TRACE_OK;
}

int torchscope_trace_event(const char* kind, const char* metadata_json,
                           torchscope_trace_location where) {
  return guarded("event", [&]() -> int {
    if (const int status = check_event("event", kind); status != TORCHSCOPE_TRACE_OK) {
      return status;
    }
    tracer::detail::write_event(tracer::detail::begin_event_at(kind, call_site(where)),
                                [&](JsonWriter& w) { copy_metadata(metadata_json, w); });
    return written_status();
  });
}

int torchscope_trace_event_with_payload(const char* kind, const char* metadata_json,
                                        const char* payload, size_t payload_size,
                                        torchscope_trace_location where) {
  return guarded("event_with_payload", [&]() -> int {
    if (payload == nullptr && payload_size > 0) {
      return refuse(TORCHSCOPE_TRACE_INVALID_ARGUMENT, "event_with_payload: payload is NULL");
    }
    if (const int status = check_event("event_with_payload", kind); status != TORCHSCOPE_TRACE_OK) {
      return status;
    }
    tracer::detail::write_event(
        tracer::detail::begin_event_at(kind, call_site(where)),
        [&](JsonWriter& w) { copy_metadata(metadata_json, w); },
        [&](std::string& out) {
          if (payload_size > 0) {
            out.append(payload, payload_size);
          }
        });
    return written_status();
  });
}

int torchscope_trace_event_with_stack(const char* kind, const char* metadata_json,
                                      const torchscope_stack_frame* frames, size_t frame_count,
                                      torchscope_trace_location where) {
  return guarded("event_with_stack", [&]() -> int {
    if (frames == nullptr && frame_count > 0) {
      return refuse(TORCHSCOPE_TRACE_INVALID_ARGUMENT, "event_with_stack: frames is NULL");
    }
    for (size_t i = 0; i < frame_count; ++i) {
      if (frames[i].filename == nullptr || frames[i].line < 0 || frames[i].line > kMaxId) {
        return refuse(TORCHSCOPE_TRACE_INVALID_ARGUMENT,
                      "event_with_stack: frame " + std::to_string(i) +
                          " has no filename or a line outside 0..2^32-1");
      }
    }
    if (const int status = check_event("event_with_stack", kind); status != TORCHSCOPE_TRACE_OK) {
      return status;
    }
    const CallSite at = call_site(where);
    tracer::detail::write_event(tracer::detail::begin_event_at(kind, at), [&](JsonWriter& w) {
      copy_metadata(metadata_json, w, "stack");
      w.key("stack").begin_array();
      for (size_t i = 0; i < frame_count; ++i) {
        const torchscope_stack_frame& f = frames[i];
        const std::int64_t file_index = tracer::detail::intern_string_at(f.filename, at);
        w.begin_object()
            .member("line", f.line)
            .member("name", f.name != nullptr ? f.name : "")
            .member("filename", file_index);
        if (f.loc != nullptr) {
          w.member("loc", f.loc);
        }
        w.end_object();
      }
      w.end_array();
    });
    return written_status();
  });
}

int torchscope_trace_artifact(const char* name, torchscope_trace_encoding encoding,
                              const char* payload, size_t payload_size,
                              torchscope_trace_location where) {
  return guarded("artifact", [&]() -> int {
    if (name == nullptr || (payload == nullptr && payload_size > 0) ||
        (encoding != TORCHSCOPE_TRACE_ENCODING_STRING &&
         encoding != TORCHSCOPE_TRACE_ENCODING_JSON)) {
      return refuse(TORCHSCOPE_TRACE_INVALID_ARGUMENT,
                    "artifact: name or payload is NULL, or the encoding is unknown");
    }
    if (!tracer::enabled()) {
      return TORCHSCOPE_TRACE_OFF;
    }
    tracer::detail::write_event(
        tracer::detail::begin_event_at("artifact", call_site(where)),
        [&](JsonWriter& w) {
          w.member("name", std::string_view(name))
              .member("encoding", encoding == TORCHSCOPE_TRACE_ENCODING_JSON ? "json" : "string");
        },
        [&](std::string& out) {
          if (payload_size > 0) {
            out.append(payload, payload_size);
          }
        });
    return written_status();
  });
}

int torchscope_trace_chromium_event(const char* name, const char* phase, const char* args_json,
                                    torchscope_trace_location where) {
  return guarded("chromium_event", [&]() -> int {
    const std::string_view ph = phase != nullptr ? phase : "";
    if (name == nullptr || (ph != "B" && ph != "E" && ph != "i")) {
      return refuse(TORCHSCOPE_TRACE_INVALID_ARGUMENT,
                    "chromium_event: name is NULL or phase is not \"B\", \"E\" or \"i\"");
    }
    if (!tracer::enabled()) {
      return TORCHSCOPE_TRACE_OFF;
    }
    tracer::detail::emit_chromium_event(
        name, ph, call_site(where),
        args_json == nullptr
            ? nullptr
            : +[](JsonWriter& w, const void* context) {
                std::string error;
                if (!tracer::detail::copy_json_object_members(static_cast<const char*>(context),
                                                              w, error)) {
                  throw InvalidJson{"args " + error};
                }
              },
        args_json);
    return written_status();
  });
}

int64_t torchscope_trace_intern_string(const char* text, size_t size,
                                       torchscope_trace_location where) {
  if (text == nullptr && size > 0) {
    return refuse(TORCHSCOPE_TRACE_INVALID_ARGUMENT, "intern_string: text is NULL");
  }
  try {
    return tracer::detail::intern_string_at(std::string_view(text != nullptr ? text : "", size),
                                            call_site(where));
  } catch (...) {
    return refuse(TORCHSCOPE_TRACE_OUT_OF_MEMORY, "intern_string: out of memory");
  }
}

} // extern "C"
