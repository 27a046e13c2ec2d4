// parallel_for over at most two threads (the eager kernels' reference speed-up; a real thread
// pool is codegen's business).
#include "kernels/parallel.h"

#include <thread>

namespace compiler::kernels {

void parallel_for(std::int64_t n, std::int64_t grain,
                  const std::function<void(std::int64_t, std::int64_t)>& fn) {
  if (n <= 0) {
    return;
  }
  if (n < 2 * grain || std::thread::hardware_concurrency() < 2) {
    fn(0, n);
    return;
  }
  const std::int64_t mid = n / 2;
  std::thread worker([&fn, mid, n] { fn(mid, n); });
  fn(0, mid);
  worker.join();
}

} // namespace compiler::kernels
