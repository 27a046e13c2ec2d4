// Internal: the process-wide counters behind inductor::counters() (metrics.h), bumped by the
// compile and run paths.
#pragma once

#include <atomic>
#include <cstdint>

namespace compiler::inductor::detail {

struct AtomicCounters {
  std::atomic<std::int64_t> graphs_compiled{0};
  std::atomic<std::int64_t> kernel_launches{0};
  std::atomic<std::int64_t> extern_calls{0};
  std::atomic<std::int64_t> fallback_runs{0};
  std::atomic<std::int64_t> cache_hits{0};
  std::atomic<std::int64_t> cache_misses{0};
};

AtomicCounters& atomic_counters() noexcept;

inline void bump(std::atomic<std::int64_t>& c, std::int64_t by = 1) noexcept {
  c.fetch_add(by, std::memory_order_relaxed);
}

} // namespace compiler::inductor::detail
