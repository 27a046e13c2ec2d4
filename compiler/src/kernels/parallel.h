// kernels: parallel_for, the one threading primitive of the eager kernels. Work of at least
// `grain` items is split in two halves, the second on a short-lived thread; smaller work runs
// inline, where a thread would cost more than it saves. Results never depend on the split:
// each index is computed by exactly one call, in the same way.
#pragma once

#include <cstdint>
#include <functional>

namespace compiler::kernels {

// Items per parallel_for below which everything runs on the calling thread. Chosen so a chunk
// does tens of microseconds of work, well above a thread start.
inline constexpr std::int64_t kDefaultGrain = 32768;

// Calls fn(begin, end) over disjoint ranges covering [0, n). fn must not throw.
void parallel_for(std::int64_t n, std::int64_t grain,
                  const std::function<void(std::int64_t, std::int64_t)>& fn);

} // namespace compiler::kernels
