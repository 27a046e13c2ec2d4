// kernels (shared with inductor/runtime): the thread pool generated kernels and the GEMM run on.
// One pool per process, of TORCHSCOPE_NUM_THREADS threads (default: the machine's hardware
// threads), the caller being one of them; workers wait on a futex-backed atomic between jobs, so a
// launch costs a wake-up, not a thread start, and claim a job's parts one at a time. One job runs
// at a time; a parallel_for from inside a job runs inline.
#pragma once

#include <cstdint>
#include <functional>

namespace compiler::inductor {

// The number of threads a parallel_for uses (callers included).
int thread_count() noexcept;

// Calls fn(begin, end) on disjoint ranges covering [0, n), a few per thread, each a multiple of
// `align` long (except the last) and worth at least `min_work` (n * cost_per_item in all); the
// threads claim ranges as they finish the previous one. Runs inline when there is less than
// twice min_work. fn must not throw.
void parallel_for(std::int64_t n, std::int64_t align, std::int64_t cost_per_item,
                  std::int64_t min_work, const std::function<void(std::int64_t, std::int64_t)>& fn);

} // namespace compiler::inductor
