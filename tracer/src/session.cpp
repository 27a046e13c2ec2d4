// Starting and stopping, the first-use decision from TORCH_TRACE, and the warning handler.
#include "session.h"

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#ifndef TORCHSCOPE_TRACER_DEFAULT_SOURCE_ROOT
#define TORCHSCOPE_TRACER_DEFAULT_SOURCE_ROOT ""
#endif

namespace tracer {

namespace detail {

std::atomic<std::uint8_t> g_state{kStateUndecided};

namespace {

std::atomic<std::uint64_t> g_dropped{0};

struct HandlerSlot {
  std::mutex mutex;
  WarningHandler handler = &print_warning_to_stderr;
  void* user_data = nullptr;
};

HandlerSlot& handler_slot() {
  static HandlerSlot* slot = new HandlerSlot;
  return *slot;
}

// Must be called with `s.mutex` held.
void set_source_root_locked(Session& s, std::string_view root) {
  const std::string* current = s.source_root.load(std::memory_order_relaxed);
  if (current != nullptr && *current == root) {
    return;
  }
  s.roots.emplace_back(root);
  s.source_root.store(&s.roots.back(), std::memory_order_release);
}

// Opens a new log; must be called with `s.mutex` held. Returns the warning to deliver, if any.
std::string start_locked(Session& s, const Options& options) {
  s.pid.store(static_cast<int>(::getpid()), std::memory_order_relaxed);
  s.rank.store(options.rank.value_or(kNoRank), std::memory_order_relaxed);
  if (!options.source_root.empty()) {
    set_source_root_locked(s, options.source_root);
  }
  s.strings.clear();
  s.io_warned = false;
  std::string error;
  if (!s.file.open(options.directory, options.rank, error)) {
    return turn_off_after_io_error(s, error);
  }
  g_state.store(kStateOn, std::memory_order_relaxed);
  return {};
}

// Reads TORCH_TRACE and RANK; false when TORCH_TRACE is unset or empty.
bool options_from_environment(Options& options) {
  const char* dir = std::getenv("TORCH_TRACE");
  if (dir == nullptr || *dir == '\0') {
    return false;
  }
  options.directory = dir;
  if (const char* rank = std::getenv("RANK"); rank != nullptr && *rank != '\0') {
    std::int64_t r = 0;
    const auto res = std::from_chars(rank, rank + std::strlen(rank), r);
    if (res.ec == std::errc() && *res.ptr == '\0' && r >= 0) {
      options.rank = r;
    }
  }
  return true;
}

void deliver(const std::string& warning) {
  if (!warning.empty()) {
    report_warning(warning);
  }
}

} // namespace

Session& session() {
  static Session* s = [] {
    auto* created = new Session;
    set_source_root_locked(*created, TORCHSCOPE_TRACER_DEFAULT_SOURCE_ROOT);
    return created;
  }();
  return *s;
}

std::string turn_off_after_io_error(Session& s, std::string_view why) {
  g_state.store(kStateOff, std::memory_order_relaxed);
  s.file.close();
  if (s.io_warned) {
    return {};
  }
  s.io_warned = true;
  std::string warning(why);
  warning += "; structured tracing is off";
  return warning;
}

void report_warning(const std::string& message) noexcept {
  HandlerSlot& slot = handler_slot();
  WarningHandler handler;
  void* user_data;
  {
    std::lock_guard lock(slot.mutex);
    handler = slot.handler;
    user_data = slot.user_data;
  }
  if (handler != nullptr) {
    handler(message.c_str(), user_data);
  }
}

void refuse_event(std::string_view why) noexcept {
  const std::uint64_t n = g_dropped.fetch_add(1, std::memory_order_relaxed) + 1;
  try {
    if (n < kMaxRefusalWarnings) {
      report_warning("event refused: " + std::string(why));
    } else if (n == kMaxRefusalWarnings) {
      report_warning("event refused: " + std::string(why) +
                     " (further refused events are counted, not reported)");
    }
  } catch (...) {
    // Out of memory while reporting: the event is still counted.
  }
}

bool decide_on_first_use() noexcept {
  try {
    Session& s = session();
    std::string warning;
    {
      std::lock_guard lock(s.mutex);
      if (g_state.load(std::memory_order_relaxed) == kStateUndecided) {
        Options options;
        if (options_from_environment(options)) {
          warning = start_locked(s, options);
        } else {
          g_state.store(kStateOff, std::memory_order_relaxed);
        }
      }
    }
    deliver(warning);
  } catch (...) {
    // Out of memory before the first event: stay off rather than fail the host.
    g_state.store(kStateOff, std::memory_order_relaxed);
  }
  return is_on();
}

} // namespace detail

using detail::session;

bool start(const Options& options) {
  detail::Session& s = session();
  std::string warning;
  {
    std::lock_guard lock(s.mutex);
    warning = detail::start_locked(s, options);
  }
  detail::deliver(warning);
  return warning.empty() && detail::is_on();
}

bool start_from_environment() {
  Options options;
  if (!detail::options_from_environment(options)) {
    std::uint8_t undecided = detail::kStateUndecided;
    detail::g_state.compare_exchange_strong(undecided, detail::kStateOff);
    return false;
  }
  return start(options);
}

void stop() {
  detail::Session& s = session();
  std::lock_guard lock(s.mutex);
  detail::g_state.store(detail::kStateOff, std::memory_order_relaxed);
  s.file.close();
}

std::string log_path() {
  (void)enabled(); // the first use may open the log
  detail::Session& s = session();
  std::lock_guard lock(s.mutex);
  return s.file.is_open() ? s.file.path() : std::string();
}

void set_rank(std::optional<std::int64_t> rank) {
  session().rank.store(rank.value_or(detail::kNoRank), std::memory_order_relaxed);
}

void set_source_root(std::string_view root) {
  detail::Session& s = session();
  std::lock_guard lock(s.mutex);
  detail::set_source_root_locked(s, root);
}

void set_warning_handler(WarningHandler handler, void* user_data) {
  detail::HandlerSlot& slot = detail::handler_slot();
  std::lock_guard lock(slot.mutex);
  slot.handler = handler;
  slot.user_data = user_data;
}

void print_warning_to_stderr(const char* message, void*) {
  // One write(2), so that warnings of different threads stay whole lines; control characters
  // (from a folder name, say) are escaped so that nothing reaches a terminal raw.
  std::string line = "warning: torchscope tracer: ";
  for (const char* p = message; p != nullptr && *p != '\0'; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (c < 0x20 || c == 0x7F) {
      static constexpr char kHex[] = "0123456789abcdef";
      line += "\\x";
      line += kHex[c >> 4];
      line += kHex[c & 0xF];
    } else {
      line += static_cast<char>(c);
    }
  }
  line += '\n';
  const char* p = line.data();
  std::size_t left = line.size();
  while (left > 0) {
    const ssize_t n = ::write(STDERR_FILENO, p, left);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

std::uint64_t dropped_events() noexcept {
  return detail::g_dropped.load(std::memory_order_relaxed);
}

} // namespace tracer
