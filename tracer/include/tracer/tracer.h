/* tracer/tracer.h: the tracer's C API (C99), for compilers written in C and for other languages
 * through their foreign-function interfaces (Rust, Python's ctypes, ...). It is a thin layer over
 * the C++ implementation of tracer/trace.h: the same log, the same compile-id context per
 * thread, the same string table, the same warning handler.
 *
 *   torchscope_trace_options options = TORCHSCOPE_TRACE_OPTIONS_INIT;
 *   options.directory = "/tmp/trace";
 *   torchscope_trace_start(&options);          (or set TORCH_TRACE and skip this)
 *   torchscope_compile_id id = TORCHSCOPE_COMPILE_ID_INIT;
 *   id.frame_id = 0; id.frame_compile_id = 0; id.attempt = 0;
 *   torchscope_trace_push_compile_id(&id);
 *   torchscope_trace_event_with_payload("dynamo_output_graph", "{}", graph, strlen(graph),
 *                                       TORCHSCOPE_TRACE_HERE);
 *   torchscope_trace_pop_compile_id();
 *
 * Every function is thread-safe and never aborts or prints: failures are returned as a
 * torchscope_trace_status and reported to the warning handler. Metadata is JSON text; it is
 * checked and rewritten in PyTorch's layout, and refused (nothing written) when it is not a JSON
 * object that tlparse can read. docs/TRACER.md is the guide; its "Versions and ABI" section says
 * what stays stable. */
#ifndef TORCHSCOPE_TRACER_TRACER_H
#define TORCHSCOPE_TRACER_TRACER_H

#include "tracer/export.h"
#include "tracer/version.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a call did. Negative values are errors; TORCHSCOPE_TRACE_OFF is not one. */
typedef enum torchscope_trace_status {
  TORCHSCOPE_TRACE_OK = 0,
  TORCHSCOPE_TRACE_OFF = 1,               /* tracing is off: nothing was written */
  TORCHSCOPE_TRACE_INVALID_ARGUMENT = -1, /* a NULL where text is needed, a value out of range */
  TORCHSCOPE_TRACE_INVALID_JSON = -2,     /* metadata or args are not a JSON object tlparse reads */
  TORCHSCOPE_TRACE_RESERVED_KIND = -3,    /* the kind is an envelope key (str, rank, frame_id...) */
  TORCHSCOPE_TRACE_IO_ERROR = -4,         /* the log could not be created or written */
  TORCHSCOPE_TRACE_SCOPE_MISMATCH = -5,   /* pop without a matching push on this thread */
  TORCHSCOPE_TRACE_OUT_OF_MEMORY = -6
} torchscope_trace_status;

/* A short English description of `status` (a static string). */
TORCHSCOPE_TRACER_API const char* torchscope_trace_status_message(int status);

/* The library's version as TORCHSCOPE_TRACER_VERSION computes it; compare with the headers'. */
TORCHSCOPE_TRACER_API int torchscope_trace_version(void);

/* Where an event comes from: the glog prefix shows `file:line`, and an event emitted outside any
 * compile carries this frame as its `stack`. A zeroed location means "unknown". */
typedef struct torchscope_trace_location {
  const char* file;
  int line;
  const char* function;
} torchscope_trace_location;

#ifdef __cplusplus
#define TORCHSCOPE_TRACE_HERE (torchscope_trace_location{__FILE__, __LINE__, __func__})
#else
#define TORCHSCOPE_TRACE_HERE ((torchscope_trace_location){__FILE__, __LINE__, __func__})
#endif

/* ---- Starting and stopping ------------------------------------------------------------------ */

typedef struct torchscope_trace_options {
  size_t struct_size;      /* sizeof(torchscope_trace_options): later versions may add members */
  const char* directory;   /* the log folder, created if missing (TORCH_TRACE's role) */
  int64_t rank;            /* the distributed rank, or < 0 for none */
  const char* source_root; /* prefix stripped from file names in the glog prefix; NULL: keep */
} torchscope_trace_options;

#define TORCHSCOPE_TRACE_OPTIONS_INIT                                                              \
  { sizeof(torchscope_trace_options), NULL, -1, NULL }

/* Starts tracing into a new log in options->directory (closing any previous log). */
TORCHSCOPE_TRACER_API int torchscope_trace_start(const torchscope_trace_options* options);
/* Starts tracing into $TORCH_TRACE with $RANK as the rank, as PyTorch does. Returns
 * TORCHSCOPE_TRACE_OFF when TORCH_TRACE is unset. Without any start call, the first use of the
 * tracer does this itself. */
TORCHSCOPE_TRACER_API int torchscope_trace_start_from_environment(void);
/* Stops tracing and closes the log. */
TORCHSCOPE_TRACER_API void torchscope_trace_stop(void);
/* 1 when tracing is on, else 0. Test it before building expensive metadata or payloads. */
TORCHSCOPE_TRACER_API int torchscope_trace_enabled(void);
/* Copies the log's path (NUL-terminated, truncated to `size`) and returns its full length;
 * 0 when off. */
TORCHSCOPE_TRACER_API size_t torchscope_trace_log_path(char* buffer, size_t size);
/* The rank written into every envelope from now on; < 0 removes it. */
TORCHSCOPE_TRACER_API int torchscope_trace_set_rank(int64_t rank);
/* The prefix stripped from file names in the glog prefix. */
TORCHSCOPE_TRACER_API int torchscope_trace_set_source_root(const char* root);

/* ---- Warnings ------------------------------------------------------------------------------- */

/* Receives one line of text (no newline) on the thread that met the problem, never under the
 * tracer's locks. */
typedef void (*torchscope_trace_warning_handler)(const char* message, void* user_data);
/* Installs `handler` (NULL drops warnings). The default is
 * torchscope_trace_print_warning_to_stderr. */
TORCHSCOPE_TRACER_API void
torchscope_trace_set_warning_handler(torchscope_trace_warning_handler handler, void* user_data);
/* The default handler: one line `warning: torchscope tracer: ...` on stderr. */
TORCHSCOPE_TRACER_API void torchscope_trace_print_warning_to_stderr(const char* message,
                                                                    void* user_data);
/* How many events were refused (invalid arguments, reserved kinds) since the process started. */
TORCHSCOPE_TRACER_API uint64_t torchscope_trace_dropped_events(void);

/* ---- Compile-id context --------------------------------------------------------------------- */

/* PyTorch's compile id: `[frame/compile]`, `[frame/compile_attempt]`, `[!caid/frame/compile]`.
 * A negative member is absent. Values must fit in 32 bits. */
typedef struct torchscope_compile_id {
  int64_t compiled_autograd_id;
  int64_t frame_id;
  int64_t frame_compile_id;
  int64_t attempt;
} torchscope_compile_id;

#define TORCHSCOPE_COMPILE_ID_INIT                                                                 \
  { -1, -1, -1, -1 }

/* Every event this thread emits until the matching pop carries `id`'s context keys. Pushes
 * nest (the innermost wins) and mix with C++ CompileScopes in last-in first-out order. */
TORCHSCOPE_TRACER_API int torchscope_trace_push_compile_id(const torchscope_compile_id* id);
TORCHSCOPE_TRACER_API int torchscope_trace_pop_compile_id(void);

/* ---- Events --------------------------------------------------------------------------------- */

/* `metadata_json` is the text of a JSON object (NULL means {}), written as the event's
 * metadata; any JSON layout is accepted. */

/* An event without a payload: `{"<kind>": <metadata>, <context keys>}`. */
TORCHSCOPE_TRACER_API int torchscope_trace_event(const char* kind, const char* metadata_json,
                                                 torchscope_trace_location where);

/* An event with a text payload of `payload_size` bytes (lines joined by '\n'). Bytes that are
 * not UTF-8 become U+FFFD and a carriage return before a line end is dropped, as tlparse would
 * read them. */
TORCHSCOPE_TRACER_API int torchscope_trace_event_with_payload(const char* kind,
                                                              const char* metadata_json,
                                                              const char* payload,
                                                              size_t payload_size,
                                                              torchscope_trace_location where);

/* One frame of a user or framework stack; `filename` is interned. `loc` (the line's source
 * text) may be NULL. */
typedef struct torchscope_stack_frame {
  const char* filename;
  int64_t line;
  const char* name;
  const char* loc;
} torchscope_stack_frame;

/* An event whose metadata gets a "stack" member holding `frames` (outermost first), after the
 * members of `metadata_json`: what `dynamo_start` needs to place a compile in tlparse's stack
 * trie. */
TORCHSCOPE_TRACER_API int torchscope_trace_event_with_stack(const char* kind,
                                                            const char* metadata_json,
                                                            const torchscope_stack_frame* frames,
                                                            size_t frame_count,
                                                            torchscope_trace_location where);

typedef enum torchscope_trace_encoding {
  TORCHSCOPE_TRACE_ENCODING_STRING = 0,
  TORCHSCOPE_TRACE_ENCODING_JSON = 1
} torchscope_trace_encoding;

/* `{"artifact": {"name": name, "encoding": "string"|"json"}}` with its payload: the generic way
 * to show a named text (a pass's IR dump) or JSON document in tlparse's report. */
TORCHSCOPE_TRACER_API int torchscope_trace_artifact(const char* name,
                                                    torchscope_trace_encoding encoding,
                                                    const char* payload, size_t payload_size,
                                                    torchscope_trace_location where);

/* A chromium trace event of the current compile: `phase` "B" (begin) or "E" (end) of a span
 * named `name`, or "i" (an instant). `args_json` (NULL means none) is a JSON object whose
 * members are added to the event's args (timing counters). */
TORCHSCOPE_TRACER_API int torchscope_trace_chromium_event(const char* name, const char* phase,
                                                          const char* args_json,
                                                          torchscope_trace_location where);

/* Interns `size` bytes of `text` (writing `{"str": [text, index]}` the first time) and returns
 * its index, or a negative torchscope_trace_status. */
TORCHSCOPE_TRACER_API int64_t torchscope_trace_intern_string(const char* text, size_t size,
                                                             torchscope_trace_location where);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TORCHSCOPE_TRACER_TRACER_H */
