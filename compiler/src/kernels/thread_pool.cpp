// The kernel thread pool (kernels/thread_pool.h).
#include "kernels/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace compiler::inductor {

namespace {

thread_local bool t_in_job = false;

constexpr std::int64_t kPartsPerThread = 4;

class Pool {
public:
  explicit Pool(int threads) {
    for (int i = 1; i < threads; ++i) {
      workers_.emplace_back([this] { work(); });
    }
  }

  ~Pool() {
    stop_.store(true);
    generation_.fetch_add(1);
    generation_.notify_all();
    for (std::thread& t : workers_) {
      t.join();
    }
  }

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  // Runs part(0) ... part(parts - 1), each once, on the caller and the workers. Parts are claimed
  // one at a time (not dealt out by thread), so a thread the OS takes away for a while leaves its
  // share to the others.
  void run(int parts, const std::function<void(int)>& part) {
    std::lock_guard<std::mutex> one_job(job_mutex_);
    job_.store(&part, std::memory_order_relaxed);
    parts_.store(parts, std::memory_order_relaxed);
    pending_.store(parts, std::memory_order_relaxed);
    const std::uint64_t g = generation_.load(std::memory_order_relaxed) + 1;
    ticket_.store(g << 32, std::memory_order_release);
    generation_.store(g, std::memory_order_release);
    generation_.notify_all();
    t_in_job = true;
    claim_parts(g);
    t_in_job = false;
    // Spin briefly (jobs are short), then sleep until the last part finishes.
    for (int spin = 0; pending_.load(std::memory_order_acquire) != 0; ++spin) {
      if (spin > 2000) {
        int left = pending_.load(std::memory_order_acquire);
        if (left != 0) {
          pending_.wait(left, std::memory_order_acquire);
        }
      }
    }
  }

private:
  // Claims and runs the parts of job `g` until none is left. A ticket is the job's generation
  // (high half) and the next part (low half); a thread that woke late for a finished job finds
  // another generation there and claims nothing, so job_ and parts_ read after a successful
  // claim are those of the job claimed from (the caller cannot start the next job before every
  // claimed part has finished).
  void claim_parts(std::uint64_t g) {
    std::uint64_t t = ticket_.load(std::memory_order_acquire);
    for (;;) {
      if ((t >> 32) != g ||
          static_cast<std::int64_t>(t & 0xffffffffu) >= parts_.load(std::memory_order_relaxed)) {
        return;
      }
      if (!ticket_.compare_exchange_weak(t, t + 1, std::memory_order_acq_rel,
                                         std::memory_order_acquire)) {
        continue;
      }
      (*job_.load(std::memory_order_relaxed))(static_cast<int>(t & 0xffffffffu));
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        pending_.notify_one();
      }
      t = ticket_.load(std::memory_order_acquire);
    }
  }

  void work() {
    std::uint64_t seen = 0;
    t_in_job = true;
    for (;;) {
      std::uint64_t g = generation_.load(std::memory_order_acquire);
      for (int spin = 0; g == seen && spin < 20000; ++spin) {
        g = generation_.load(std::memory_order_acquire);
      }
      if (g == seen) {
        generation_.wait(seen, std::memory_order_acquire);
        continue;
      }
      seen = g;
      if (stop_.load()) {
        return;
      }
      claim_parts(g);
    }
  }

  std::vector<std::thread> workers_;
  std::mutex job_mutex_;
  std::atomic<const std::function<void(int)>*> job_{nullptr};
  std::atomic<int> parts_{0};
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<std::uint64_t> ticket_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stop_{false};
};

int configured_threads() {
  if (const char* env = std::getenv("TORCHSCOPE_NUM_THREADS")) {
    const int n = std::atoi(env);
    if (n >= 1) {
      return std::min(n, 256);
    }
  }
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

Pool& pool() {
  static Pool p(configured_threads());
  return p;
}

} // namespace

int thread_count() noexcept {
  return pool().size();
}

void parallel_for(std::int64_t n, std::int64_t align, std::int64_t cost_per_item,
                  std::int64_t min_work,
                  const std::function<void(std::int64_t, std::int64_t)>& fn) {
  if (n <= 0) {
    return;
  }
  const std::int64_t threads = t_in_job ? 1 : pool().size();
  // Up to kPartsPerThread parts a thread, claimed as threads get to them: on a shared machine a
  // thread the OS sets aside holds up one small part, not half the job.
  std::int64_t parts =
      std::min<std::int64_t>(threads == 1 ? 1 : threads * kPartsPerThread, (n + align - 1) / align);
  if (cost_per_item > 0) {
    parts = std::min<std::int64_t>(parts, std::max<std::int64_t>(1, n * cost_per_item / min_work));
  }
  if (parts <= 1) {
    fn(0, n);
    return;
  }
  // Equal parts, each a multiple of `align` (the last takes the remainder).
  const std::int64_t chunk = ((n / parts + align - 1) / align) * align;
  const auto count = static_cast<int>(std::min<std::int64_t>(parts, (n + chunk - 1) / chunk));
  pool().run(count, [&](int i) {
    const std::int64_t begin = chunk * i;
    const std::int64_t end = i + 1 == count ? n : std::min(n, begin + chunk);
    if (begin < end) {
      fn(begin, end);
    }
  });
}

} // namespace compiler::inductor
