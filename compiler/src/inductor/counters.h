// Internal: the process-wide counters behind inductor::counters() (metrics.h), bumped by the
// compile and run paths.
#pragma once

#include "tracing/counter.h"

namespace compiler::inductor::detail {

struct AtomicCounters {
  tracing::Counter graphs_compiled;
  tracing::Counter kernel_launches;
  tracing::Counter extern_calls;
  tracing::Counter fallback_runs;
  tracing::Counter cache_hits;
  tracing::Counter cache_misses;
};

AtomicCounters& atomic_counters() noexcept;

} // namespace compiler::inductor::detail
