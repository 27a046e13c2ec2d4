// The tracer's process-wide state: the log file, the string table, the rank, the source root,
// and where warnings go. One mutex guards the file and the table; what every event reads without
// it (rank, pid, source root) is atomic. Warnings are collected under the lock and delivered to
// the host's handler after it is released, so a handler may call the tracer.
#pragma once

#include "log_file.h"
#include "tracer/trace.h"

#include <atomic>
#include <cstdint>
#include <deque>
#include <limits>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace tracer::detail {

inline constexpr std::int64_t kNoRank = std::numeric_limits<std::int64_t>::min();

struct Session {
  std::mutex mutex;
  LogFile file;                                          // guarded by `mutex`
  std::unordered_map<std::string, std::int64_t> strings; // guarded by `mutex`
  bool io_warned = false;                                // guarded by `mutex`
  std::atomic<std::int64_t> rank{kNoRank};
  std::atomic<int> pid{0};
  // The current source root. Every root ever set stays alive in `roots` (guarded by `mutex`),
  // so an event formatting outside the lock never reads a freed string.
  std::atomic<const std::string*> source_root{nullptr};
  std::deque<std::string> roots;
};

// The one session, created on first use and never destroyed (events may be emitted from static
// destructors of other translation units).
Session& session();

inline bool is_on() noexcept {
  return g_state.load(std::memory_order_relaxed) == kStateOn;
}

// Turns tracing off after an I/O failure. Called with the session locked; returns the warning
// to deliver once unlocked (empty when one was already delivered since the last start).
std::string turn_off_after_io_error(Session& s, std::string_view why);

// Delivers `message` to the host's warning handler. Never call it with a tracer lock held.
void report_warning(const std::string& message) noexcept;

// Counts a refused event and reports `why` (the first kMaxRefusalWarnings times, then once that
// further refusals are only counted).
void refuse_event(std::string_view why) noexcept;
inline constexpr std::uint64_t kMaxRefusalWarnings = 10;

} // namespace tracer::detail
