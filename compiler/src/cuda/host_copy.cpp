// parallel_memcpy: a fixed pool of workers woken per copy, each moving one slice.
#include "cuda/host_copy.h"

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

namespace compiler::cuda {

namespace {

// Below this a copy runs on the caller alone (see host_copy.h).
constexpr std::size_t kParallelMinBytes = std::size_t{4} << 20;
// Slices start on cache-line boundaries.
constexpr std::size_t kSliceAlign = 64;

int configured_threads() {
  if (const char* text = std::getenv("TORCHSCOPE_CUDA_COPY_THREADS")) {
    const int n = std::atoi(text);
    if (n >= 1) {
      return std::min(n, 64);
    }
  }
  const int hardware = static_cast<int>(std::thread::hardware_concurrency());
  return std::clamp(hardware / 2, 1, 8);
}

class CopyPool {
public:
  explicit CopyPool(int threads) : threads_(threads) {
    for (int i = 1; i < threads_; ++i) {
      std::thread([this, i] { work(i); }).detach(); // the pool lives as long as the process
    }
  }

  int threads() const noexcept { return threads_; }

  void copy(char* dst, const char* src, std::size_t n) {
    std::lock_guard turn(turn_); // one copy at a time owns the workers
    {
      std::lock_guard lock(mutex_);
      dst_ = dst;
      src_ = src;
      n_ = n;
      pending_ = threads_ - 1;
      ++generation_;
    }
    start_.notify_all();
    copy_slice(0);
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return pending_ == 0; });
  }

private:
  void copy_slice(int index) {
    const Slice s = cuda::copy_slice(n_, threads_, index);
    if (s.end > s.begin) {
      std::memcpy(dst_ + s.begin, src_ + s.begin, s.end - s.begin);
    }
  }

  void work(int index) {
    std::uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock lock(mutex_);
        start_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
      }
      copy_slice(index); // the job's fields do not change until every slice is done
      std::lock_guard lock(mutex_);
      if (--pending_ == 0) {
        done_.notify_one();
      }
    }
  }

  const int threads_;
  std::mutex turn_;
  std::mutex mutex_;
  std::condition_variable start_;
  std::condition_variable done_;
  char* dst_ = nullptr;
  const char* src_ = nullptr;
  std::size_t n_ = 0;
  int pending_ = 0;
  std::uint64_t generation_ = 0;
};

CopyPool& pool() {
  static CopyPool* p = new CopyPool(configured_threads()); // never destroyed: workers never exit
  return *p;
}

} // namespace

Slice copy_slice(std::size_t n, int threads, int index) noexcept {
  const auto t = static_cast<std::size_t>(threads);
  const std::size_t per_thread = (n + t - 1) / t; // rounded up, so t slices cover n
  const std::size_t slice = (per_thread + kSliceAlign - 1) / kSliceAlign * kSliceAlign;
  const std::size_t begin = std::min(n, slice * static_cast<std::size_t>(index));
  return {begin, std::min(n, begin + slice)};
}

int host_copy_threads() {
  return pool().threads();
}

void parallel_memcpy(void* dst, const void* src, std::size_t n) {
  if (n < kParallelMinBytes || pool().threads() == 1) {
    std::memcpy(dst, src, n);
    return;
  }
  pool().copy(static_cast<char*>(dst), static_cast<const char*>(src), n);
}

} // namespace compiler::cuda
