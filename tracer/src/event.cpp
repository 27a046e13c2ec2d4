// Event formatting and writing. Formatting happens in a per-thread builder outside any lock;
// only the final write(2) is serialised under the session mutex.
#include "event_builder.h"
#include "md5.h"
#include "session.h"
#include "utf8.h"

#include <array>
#include <charconv>
#include <cstdio>
#include <ctime>
#include <memory>
#include <vector>

namespace tracer {

namespace detail {

namespace {

thread_local const CompileId* t_current_id = nullptr;

// Appends `file` as the glog prefix's path: tlparse's prefix pattern stops a path at ':', the
// prefix ends at "] " and a line must stay one line, so ':', ']' and control characters become
// '_', and bytes that are not UTF-8 become '?' (tlparse drops a line that is not UTF-8).
void append_path(std::string& out, std::string_view file) {
  std::size_t i = 0;
  while (i < file.size()) {
    const auto c = static_cast<unsigned char>(file[i]);
    if (c < 0x80) {
      out.push_back(c < 0x20 || c == 0x7F || c == ':' || c == ']' ? '_' : static_cast<char>(c));
      ++i;
      continue;
    }
    const std::size_t start = i;
    if (decode_utf8(file, i) == kInvalidUtf8) {
      out.push_back('?');
    } else {
      out.append(file.substr(start, i - start));
    }
  }
}

// The glog prefix `V1122 02:58:46.243000 539 path/to/file.cpp:123] `. The calendar part is
// cached per thread for the current second, since localtime_r is the slow step.
void append_prefix(std::string& out, const CallSite& at, const Session& s) {
  struct timespec ts;
  ::clock_gettime(CLOCK_REALTIME, &ts);
  thread_local time_t cached_second = -1;
  thread_local char cached[32]; // "MMDD HH:MM:SS"
  if (ts.tv_sec != cached_second) {
    struct tm tm;
    ::localtime_r(&ts.tv_sec, &tm);
    std::snprintf(cached, sizeof cached, "%02d%02d %02d:%02d:%02d", (tm.tm_mon + 1) % 100,
                  tm.tm_mday % 100, tm.tm_hour % 100, tm.tm_min % 100, tm.tm_sec % 100);
    cached_second = ts.tv_sec;
  }
  out.push_back('V');
  out.append(cached, 13);
  // ".MMMMMM PID " by hand: snprintf was a visible share of a small event's cost.
  char buf[64];
  long micros = ts.tv_nsec / 1000;
  buf[0] = '.';
  for (int i = 6; i >= 1; --i) {
    buf[i] = static_cast<char>('0' + micros % 10);
    micros /= 10;
  }
  buf[7] = ' ';
  auto pid_end =
      std::to_chars(buf + 8, buf + sizeof buf - 1, s.pid.load(std::memory_order_relaxed)).ptr;
  *pid_end++ = ' ';
  out.append(buf, static_cast<std::size_t>(pid_end - buf));
  std::string_view file = at.file.empty() ? std::string_view("unknown") : at.file;
  const std::string* root = s.source_root.load(std::memory_order_acquire);
  if (root != nullptr && !root->empty() && file.size() > root->size() &&
      file.substr(0, root->size()) == *root) {
    file.remove_prefix(root->size());
  }
  append_path(out, file);
  out.push_back(':');
  auto res = std::to_chars(buf, buf + sizeof buf, at.line < 0 ? 0 : at.line);
  out.append(buf, static_cast<std::size_t>(res.ptr - buf));
  out.append("] ");
}

// A small per-thread stack of builders so that a metadata callable may itself emit events
// (interning, nested spans) without clobbering the outer event.
struct BuilderPool {
  std::vector<std::unique_ptr<EventBuilder>> builders;
  std::size_t depth = 0;
};
thread_local BuilderPool t_pool;

// Kinds that PyTorch never decorates with a `stack` key when no compile context is active.
bool gets_stack_without_context(std::string_view kind) {
  return kind != "chromium_event" && kind != "str" && kind != "stack";
}

void append_int_member(std::string& line, std::string_view key, std::int64_t v) {
  line.append(", \"");
  line.append(key);
  line.append("\": ");
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  line.append(buf, static_cast<std::size_t>(res.ptr - buf));
}

// Appends the payload's lines, each behind a TAB; the payload's lines are joined by '\n' and the
// last one ends the event with a newline (an empty payload is a lone TAB line).
void append_framed_payload(std::string& line, std::string_view payload) {
  line.reserve(line.size() + payload.size() + payload.size() / 32 + 2);
  for (;;) {
    line.push_back('\t');
    const std::size_t nl = payload.find('\n');
    if (nl == std::string_view::npos) {
      line.append(payload);
      line.push_back('\n');
      return;
    }
    line.append(payload.substr(0, nl + 1));
    payload.remove_prefix(nl + 1);
  }
}

} // namespace

const CompileId*& current_compile_id_slot() noexcept {
  return t_current_id;
}

const char* reserved_kind_reason(std::string_view kind) noexcept {
  if (kind.empty()) {
    return "an event kind cannot be empty";
  }
  // Keys tlparse reads from the envelope with a type of their own (an object there breaks the
  // line), and the keys tlparse adds to each raw.jsonl row (a clash drops the row).
  static constexpr std::string_view kReserved[] = {"str",
                                                   "stack",
                                                   "rank",
                                                   "frame_id",
                                                   "frame_compile_id",
                                                   "attempt",
                                                   "compiled_autograd_id",
                                                   "has_payload",
                                                   "timestamp",
                                                   "thread",
                                                   "pathname",
                                                   "lineno",
                                                   "payload_filename"};
  for (std::string_view reserved : kReserved) {
    if (kind == reserved) {
      return "this name is an envelope key, not an event kind";
    }
  }
  return nullptr;
}

EventBuilder* begin_event_at(std::string_view kind, const CallSite& at) {
  if (const char* why = reserved_kind_reason(kind)) {
    refuse_event("'" + std::string(kind.substr(0, 64)) + "': " + why);
    return nullptr;
  }
  const Session& s = session();
  if (t_pool.depth == t_pool.builders.size()) {
    t_pool.builders.push_back(std::make_unique<EventBuilder>());
  }
  EventBuilder* b = t_pool.builders[t_pool.depth++].get();
  b->line.clear();
  b->payload.clear();
  b->kind = kind;
  b->at = at;
  append_prefix(b->line, at, s);
  b->line.append("{");
  JsonWriter::append_escaped(b->line, kind);
  b->line.append(": ");
  b->meta = JsonWriter(b->line);
  b->meta.begin_object();
  return b;
}

EventBuilder* begin_event(std::string_view kind, const SourceLocation& where) {
  return begin_event_at(kind, CallSite::from(where));
}

JsonWriter& metadata_writer(EventBuilder* b) {
  return b->meta;
}

void end_metadata(EventBuilder* b) {
  b->meta.end_object();
  const std::int64_t rank = session().rank.load(std::memory_order_relaxed);
  std::string& line = b->line;
  if (rank != kNoRank) {
    append_int_member(line, "rank", rank);
  }
  if (const CompileId* id = t_current_id) {
    if (id->compiled_autograd_id) {
      append_int_member(line, "compiled_autograd_id", *id->compiled_autograd_id);
    }
    if (id->frame_id) {
      append_int_member(line, "frame_id", *id->frame_id);
    }
    if (id->frame_compile_id) {
      append_int_member(line, "frame_compile_id", *id->frame_compile_id);
    }
    if (id->attempt) {
      append_int_member(line, "attempt", *id->attempt);
    }
  } else if (gets_stack_without_context(b->kind)) {
    line.append(", \"stack\": ");
    // The caller is the only frame we know (its function name as the compiler spells it).
    const StackFrame frame{b->at.file, b->at.line, b->at.function, {}};
    JsonWriter w(line);
    w.begin_array();
    const std::int64_t file_index = intern_string_at(frame.filename, b->at);
    w.begin_object()
        .member("line", frame.line)
        .member("name", frame.name)
        .member("filename", file_index)
        .end_object();
    w.end_array();
  }
}

std::string& payload_buffer(EventBuilder* b) {
  return b->payload;
}

void commit_event(EventBuilder* b, bool has_payload) {
  std::string& line = b->line;
  if (has_payload) {
    std::string_view payload = b->payload;
    if (may_need_repair(payload)) {
      b->scratch.clear();
      if (repair_text(payload, b->scratch)) {
        payload = b->scratch;
      }
    }
    const std::array<char, 32> digest = Md5::hex_of(payload);
    line.append(", \"has_payload\": \"");
    line.append(digest.data(), digest.size());
    line.append("\"}\n");
    append_framed_payload(line, payload);
  } else {
    line.append("}\n");
  }
  Session& s = session();
  std::string warning;
  {
    std::lock_guard lock(s.mutex);
    if (is_on() && s.file.is_open()) {
      std::string error;
      if (!s.file.append(line, error)) {
        warning = turn_off_after_io_error(s, "cannot write the trace: " + error);
      }
    }
  }
  release_event(b);
  if (!warning.empty()) {
    report_warning(warning);
  }
}

void release_event(EventBuilder* b) noexcept {
  // Builders are released in LIFO order; `b` is the top of this thread's pool.
  if (t_pool.depth > 0 && t_pool.builders[t_pool.depth - 1].get() == b) {
    --t_pool.depth;
  }
}

std::int64_t intern_string_at(std::string_view str, const CallSite& at) {
  const bool on = enabled();
  Session& s = session();
  std::string warning;
  std::int64_t index = 0;
  {
    std::lock_guard lock(s.mutex);
    auto it = s.strings.find(std::string(str));
    if (it != s.strings.end()) {
      return it->second;
    }
    index = static_cast<std::int64_t>(s.strings.size());
    s.strings.emplace(std::string(str), index);
    if (on && is_on() && s.file.is_open()) {
      std::string line;
      line.reserve(64 + str.size());
      append_prefix(line, at, s);
      line.append("{\"str\": [");
      JsonWriter::append_escaped(line, str);
      line.append(", ");
      line.append(std::to_string(index));
      line.append("]}\n");
      std::string error;
      if (!s.file.append(line, error)) {
        warning = turn_off_after_io_error(s, "cannot write the trace: " + error);
      }
    }
  }
  if (!warning.empty()) {
    report_warning(warning);
  }
  return index;
}

} // namespace detail

namespace {

// The one formatter behind CompileId's three spellings.
std::string compile_id_spelling(const CompileId& id, bool with_attempt) {
  std::string s;
  if (id.compiled_autograd_id) {
    s.push_back('!');
    s.append(std::to_string(*id.compiled_autograd_id));
    s.push_back('/');
  }
  s.append(id.frame_id ? std::to_string(*id.frame_id) : std::string("-"));
  s.push_back('/');
  s.append(id.frame_compile_id ? std::to_string(*id.frame_compile_id) : std::string("-"));
  if (with_attempt && id.attempt && *id.attempt != 0) {
    s.push_back('_');
    s.append(std::to_string(*id.attempt));
  }
  return s;
}

} // namespace

std::string CompileId::to_string() const {
  return "[" + compile_id_spelling(*this, true) + "]";
}

std::string CompileId::trace_id_text() const {
  return compile_id_spelling(*this, true);
}

std::string CompileId::compile_id_text() const {
  return compile_id_spelling(*this, false);
}

CompileScope::CompileScope(const CompileId& id) noexcept
    : previous_(detail::t_current_id), id_(id) {
  detail::t_current_id = &id_;
}

CompileScope::~CompileScope() {
  detail::t_current_id = previous_;
}

const CompileId* current_compile_id() noexcept {
  return detail::t_current_id;
}

std::int64_t intern_string(std::string_view s, SourceLocation where) {
  return detail::intern_string_at(s, detail::CallSite::from(where));
}

void write_stack(JsonWriter& w, std::span<const StackFrame> frames, SourceLocation where) {
  const detail::CallSite at = detail::CallSite::from(where);
  w.begin_array();
  for (const StackFrame& f : frames) {
    const std::int64_t file_index = detail::intern_string_at(f.filename, at);
    w.begin_object().member("line", f.line).member("name", f.name).member("filename", file_index);
    if (!f.loc.empty()) {
      w.member("loc", f.loc);
    }
    w.end_object();
  }
  w.end_array();
}

} // namespace tracer
