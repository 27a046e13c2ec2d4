// Internal: the one counter type of the compiler's process-wide statistics (capture's
// CaptureStats, the AOT stage's AotStats, Inductor's Counters). Any thread bumps it without
// ordering; tests, samples and benchmarks read a snapshot of a set of them.
#pragma once

#include <atomic>
#include <cstdint>

namespace compiler::tracing {

class Counter {
public:
  void bump(std::int64_t by = 1) noexcept { value_.fetch_add(by, std::memory_order_relaxed); }
  std::int64_t get() const noexcept { return value_.load(std::memory_order_relaxed); }
  void reset() noexcept { value_.store(0, std::memory_order_relaxed); }

private:
  std::atomic<std::int64_t> value_{0};
};

// `bump(stats.calls)`: found by argument-dependent lookup wherever a Counter is bumped.
inline void bump(Counter& counter, std::int64_t by = 1) noexcept {
  counter.bump(by);
}

} // namespace compiler::tracing
