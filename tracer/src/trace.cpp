// The tracer's state and event formatting. One process-wide state (the log file, the string
// table, the rank) guarded by one mutex; per-thread event buffers so formatting happens outside
// the lock and only the final write(2) is serialised.
#include "tracer/trace.h"

#include "log_file.h"
#include "md5.h"

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <limits>
#include <memory>
#include <mutex>
#include <unistd.h>
#include <unordered_map>
#include <vector>

#ifndef TORCHSCOPE_TRACER_DEFAULT_SOURCE_ROOT
#define TORCHSCOPE_TRACER_DEFAULT_SOURCE_ROOT ""
#endif

namespace tracer {

namespace {

constexpr std::int64_t kNoRank = std::numeric_limits<std::int64_t>::min();

struct State {
  std::mutex mutex;
  detail::LogFile file;
  // Read by every event without the mutex; kNoRank when unset.
  std::atomic<std::int64_t> rank{kNoRank};
  std::string source_root = TORCHSCOPE_TRACER_DEFAULT_SOURCE_ROOT;
  std::unordered_map<std::string, std::int64_t> strings;
  bool warned = false;
  int pid = 0;
};

// Leaked on purpose: events may be emitted from static destructors of other translation units.
State& state() {
  static State* s = new State;
  return *s;
}

// Turns tracing off after an I/O failure, warning once (the program must keep running).
void disable_with_warning(State& s, const std::string& why) {
  detail::g_enabled.store(false, std::memory_order_relaxed);
  s.file.close();
  if (!s.warned) {
    s.warned = true;
    std::fprintf(stderr, "warning: torchscope tracer: %s; structured tracing is off\n",
                 why.c_str());
  }
}

thread_local const CompileId* t_current_id = nullptr;

// The glog prefix `V1122 02:58:46.243000 539 path/to/file.cpp:123] `. The calendar part is
// cached per thread for the current second, since localtime_r is the slow step.
void append_prefix(std::string& out, const std::source_location& where, int pid,
                   const std::string& source_root) {
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
  auto pid_end = std::to_chars(buf + 8, buf + sizeof buf - 1, pid).ptr;
  *pid_end++ = ' ';
  out.append(buf, static_cast<std::size_t>(pid_end - buf));
  std::string_view file = where.file_name();
  if (!source_root.empty() && file.substr(0, source_root.size()) == source_root) {
    file.remove_prefix(source_root.size());
  }
  out.append(file);
  out.push_back(':');
  auto res = std::to_chars(buf, buf + sizeof buf, where.line());
  out.append(buf, static_cast<std::size_t>(res.ptr - buf));
  out.append("] ");
}

std::string compile_id_arg(const CompileId& id) {
  // chromium args carry the id without brackets: "0/0", "1/0_1", "!0/1/0".
  std::string s = id.to_string();
  return s.size() >= 2 ? s.substr(1, s.size() - 2) : s;
}

} // namespace

std::string CompileId::to_string() const {
  std::string s = "[";
  if (compiled_autograd_id) {
    s.push_back('!');
    s.append(std::to_string(*compiled_autograd_id));
    s.push_back('/');
  }
  s.append(frame_id ? std::to_string(*frame_id) : std::string("-"));
  s.push_back('/');
  s.append(frame_compile_id ? std::to_string(*frame_compile_id) : std::string("-"));
  if (attempt && *attempt != 0) {
    s.push_back('_');
    s.append(std::to_string(*attempt));
  }
  s.push_back(']');
  return s;
}

bool start(const Options& options) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.pid = static_cast<int>(::getpid());
  s.rank.store(options.rank.value_or(kNoRank), std::memory_order_relaxed);
  if (!options.source_root.empty()) {
    s.source_root = options.source_root;
  }
  s.strings.clear();
  std::string error;
  if (!s.file.open(options.directory, options.rank, error)) {
    disable_with_warning(s, error);
    return false;
  }
  s.warned = false;
  detail::g_enabled.store(true, std::memory_order_relaxed);
  return true;
}

void stop() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  detail::g_enabled.store(false, std::memory_order_relaxed);
  s.file.close();
}

std::string log_path() {
  State& s = state();
  std::lock_guard lock(s.mutex);
  return s.file.is_open() ? s.file.path() : std::string();
}

void set_rank(std::optional<std::int64_t> rank) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  s.rank.store(rank.value_or(kNoRank), std::memory_order_relaxed);
}

CompileScope::CompileScope(const CompileId& id) noexcept : previous_(t_current_id), id_(id) {
  t_current_id = &id_;
}

CompileScope::~CompileScope() {
  t_current_id = previous_;
}

const CompileId* current_compile_id() noexcept {
  return t_current_id;
}

std::int64_t intern_string(std::string_view str, std::source_location where) {
  State& s = state();
  std::unique_lock lock(s.mutex);
  auto it = s.strings.find(std::string(str));
  if (it != s.strings.end()) {
    return it->second;
  }
  const auto index = static_cast<std::int64_t>(s.strings.size());
  s.strings.emplace(std::string(str), index);
  if (!enabled() || !s.file.is_open()) {
    return index;
  }
  std::string line;
  line.reserve(64 + str.size());
  append_prefix(line, where, s.pid, s.source_root);
  line.append("{\"str\": [");
  JsonWriter::append_escaped(line, str);
  line.append(", ");
  line.append(std::to_string(index));
  line.append("]}\n");
  std::string error;
  if (!s.file.append(line, error)) {
    disable_with_warning(s, "cannot write the trace: " + error);
  }
  return index;
}

void write_stack(JsonWriter& w, std::span<const StackFrame> frames, std::source_location where) {
  w.begin_array();
  for (const StackFrame& f : frames) {
    const std::int64_t file_index = intern_string(f.filename, where);
    w.begin_object().member("line", f.line).member("name", f.name).member("filename", file_index);
    if (!f.loc.empty()) {
      w.member("loc", f.loc);
    }
    w.end_object();
  }
  w.end_array();
}

namespace detail {

class EventBuilder {
public:
  EventBuilder() : meta(line) {}

  std::string line;    // prefix + envelope (+ payload lines once committed)
  std::string payload; // payload text as the caller wrote it
  JsonWriter meta;
  std::string_view kind;
  std::source_location where;
};

namespace {

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

} // namespace

EventBuilder* begin_event(std::string_view kind, const std::source_location& where) {
  State& s = state();
  if (t_pool.depth == t_pool.builders.size()) {
    t_pool.builders.push_back(std::make_unique<EventBuilder>());
  }
  EventBuilder* b = t_pool.builders[t_pool.depth++].get();
  b->line.clear();
  b->payload.clear();
  b->kind = kind;
  b->where = where;
  // The pid and source root only change in start(); reading them unlocked is benign.
  append_prefix(b->line, where, s.pid, s.source_root);
  b->line.append("{");
  JsonWriter::append_escaped(b->line, kind);
  b->line.append(": ");
  b->meta = JsonWriter(b->line);
  b->meta.begin_object();
  return b;
}

JsonWriter& metadata_writer(EventBuilder* b) {
  return b->meta;
}

void end_metadata(EventBuilder* b) {
  b->meta.end_object();
  const std::int64_t rank = state().rank.load(std::memory_order_relaxed);
  std::string& line = b->line;
  auto add_int = [&line](std::string_view key, std::int64_t v) {
    line.append(", \"");
    line.append(key);
    line.append("\": ");
    char buf[24];
    auto res = std::to_chars(buf, buf + sizeof buf, v);
    line.append(buf, static_cast<std::size_t>(res.ptr - buf));
  };
  if (rank != kNoRank) {
    add_int("rank", rank);
  }
  if (const CompileId* id = t_current_id) {
    if (id->compiled_autograd_id) {
      add_int("compiled_autograd_id", *id->compiled_autograd_id);
    }
    if (id->frame_id) {
      add_int("frame_id", *id->frame_id);
    }
    if (id->frame_compile_id) {
      add_int("frame_compile_id", *id->frame_compile_id);
    }
    if (id->attempt) {
      add_int("attempt", *id->attempt);
    }
  } else if (gets_stack_without_context(b->kind)) {
    line.append(", \"stack\": ");
    // The C++ caller is the only frame we know; `function_name` is the full signature.
    const StackFrame frame{b->where.file_name(),
                           static_cast<std::int64_t>(b->where.line()),
                           b->where.function_name(),
                           {}};
    JsonWriter w(line);
    write_stack(w, std::span<const StackFrame>(&frame, 1), b->where);
  }
}

std::string& payload_buffer(EventBuilder* b) {
  return b->payload;
}

void commit_event(EventBuilder* b, bool has_payload) {
  std::string& line = b->line;
  if (has_payload) {
    const std::array<char, 32> digest = Md5::hex_of(b->payload);
    line.append(", \"has_payload\": \"");
    line.append(digest.data(), digest.size());
    line.append("\"}\n");
    // Each payload line gets a leading TAB; the payload's lines are joined by '\n' and the last
    // one ends the event with a newline (an empty payload is a lone TAB line).
    line.reserve(line.size() + b->payload.size() + b->payload.size() / 32 + 2);
    std::string_view rest = b->payload;
    for (;;) {
      line.push_back('\t');
      const std::size_t nl = rest.find('\n');
      if (nl == std::string_view::npos) {
        line.append(rest);
        line.push_back('\n');
        break;
      }
      line.append(rest.substr(0, nl + 1));
      rest.remove_prefix(nl + 1);
    }
  } else {
    line.append("}\n");
  }
  State& s = state();
  {
    std::lock_guard lock(s.mutex);
    if (enabled() && s.file.is_open()) {
      std::string error;
      if (!s.file.append(line, error)) {
        disable_with_warning(s, "cannot write the trace: " + error);
      }
    }
  }
  release_event(b);
}

void release_event(EventBuilder* b) noexcept {
  // Builders are released in LIFO order; `b` is the top of this thread's pool.
  if (t_pool.depth > 0 && t_pool.builders[t_pool.depth - 1].get() == b) {
    --t_pool.depth;
  }
}

} // namespace detail

double now_us() noexcept {
  struct timespec ts;
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

void chromium_event(std::string_view name, std::string_view ph, std::string_view extra_args,
                    std::source_location where) {
  if (!enabled()) {
    return;
  }
  const CompileId* id = current_compile_id();
  event_with_payload(
      "chromium_event", no_metadata,
      [&](std::string& out) {
        JsonWriter w(out, JsonWriter::Layout::Indent0);
        w.begin_object().member("name", name).member("ts", now_us());
        w.key("args").begin_object();
        const bool end = ph == "E";
        if (end && id) {
          w.member("compile_id", compile_id_arg(*id));
        }
        if (!extra_args.empty()) {
          // `extra_args` holds `"k": v` members separated by "\n" (see ChromiumSpan).
          std::string_view rest = extra_args;
          while (!rest.empty()) {
            const std::size_t nl = rest.find('\n');
            w.raw(rest.substr(0, nl));
            rest.remove_prefix(nl == std::string_view::npos ? rest.size() : nl + 1);
          }
        }
        if (!end && id) {
          w.member("compile_id", compile_id_arg(*id));
        }
        w.end_object();
        w.member("ph", ph).member("cat", "dynamo_timed").member("tid", 0).member("pid", 0);
        w.end_object();
      },
      where);
}

ChromiumSpan::ChromiumSpan(std::string_view name, std::source_location where)
    : active_(enabled()), where_(where) {
  if (active_) {
    name_ = name;
    chromium_event(name_, "B", {}, where_);
  }
}

ChromiumSpan::~ChromiumSpan() {
  if (active_) {
    chromium_event(name_, "E", end_args_, where_);
  }
}

void ChromiumSpan::add_end_arg(std::string_view key, double value) {
  if (!active_) {
    return;
  }
  if (!end_args_.empty()) {
    end_args_.push_back('\n');
  }
  JsonWriter::append_escaped(end_args_, key);
  end_args_.append(": ");
  JsonWriter::append_python_float(end_args_, value);
}

void ChromiumSpan::add_end_arg(std::string_view key, std::string_view value) {
  if (!active_) {
    return;
  }
  if (!end_args_.empty()) {
    end_args_.push_back('\n');
  }
  JsonWriter::append_escaped(end_args_, key);
  end_args_.append(": ");
  JsonWriter::append_escaped(end_args_, value);
}

namespace {

// TORCH_TRACE turns tracing on at program start, as in PyTorch; RANK names the rank.
const bool g_started_from_environment = [] {
  const char* dir = std::getenv("TORCH_TRACE");
  if (dir == nullptr || *dir == '\0') {
    return false;
  }
  Options options;
  options.directory = dir;
  if (const char* rank = std::getenv("RANK"); rank != nullptr && *rank != '\0') {
    std::int64_t r = 0;
    auto res = std::from_chars(rank, rank + std::strlen(rank), r);
    if (res.ec == std::errc() && *res.ptr == '\0' && r >= 0) {
      options.rank = r;
    }
  }
  return start(options);
}();

} // namespace

} // namespace tracer
