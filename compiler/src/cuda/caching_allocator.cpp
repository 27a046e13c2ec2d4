// CachingAllocator: size classes, per-stream pools, deferred reuse across streams, statistics.
#include "cuda/caching_allocator.h"

#include "compiler/core/errors.h"

#include <algorithm>
#include <bit>

namespace compiler::cuda {

CachingAllocator::~CachingAllocator() {
  for (Pending& p : pending_) {
    for (EventId e : p.events) {
      backend_.destroy_event(e);
    }
  }
  for (const auto& [ptr, block] : blocks_) {
    backend_.free(ptr);
  }
}

std::size_t CachingAllocator::size_class(std::size_t nbytes) noexcept {
  constexpr std::size_t kMinBlock = 512;
  constexpr std::size_t kSmall = 4096;
  if (nbytes <= kSmall) {
    return std::max<std::size_t>(kMinBlock, (nbytes + kMinBlock - 1) / kMinBlock * kMinBlock);
  }
  const std::size_t granule = std::bit_floor(nbytes) / 8; // 8 classes per power of two
  return (nbytes + granule - 1) / granule * granule;
}

void* CachingAllocator::take_cached(const PoolKey& key) {
  auto it = pools_.find(key);
  if (it == pools_.end() || it->second.empty()) {
    return nullptr;
  }
  void* ptr = it->second.back();
  it->second.pop_back();
  return ptr;
}

void CachingAllocator::collect_pending() {
  for (std::size_t i = 0; i < pending_.size();) {
    Pending& p = pending_[i];
    const bool done = std::all_of(p.events.begin(), p.events.end(),
                                  [&](EventId e) { return backend_.event_done(e); });
    if (!done) {
      ++i;
      continue;
    }
    for (EventId e : p.events) {
      backend_.destroy_event(e);
    }
    const Block& b = blocks_.at(p.ptr);
    pools_[PoolKey{b.stream, b.size}].push_back(p.ptr);
    pending_[i] = std::move(pending_.back());
    pending_.pop_back();
  }
}

void CachingAllocator::note_usage(std::size_t size, std::size_t requested) {
  ++stats_.allocations;
  stats_.allocated_bytes += size;
  stats_.requested_bytes += requested;
  stats_.peak_allocated_bytes = std::max(stats_.peak_allocated_bytes, stats_.allocated_bytes);
}

void* CachingAllocator::allocate(std::size_t nbytes, StreamId stream) {
  const std::size_t size = size_class(nbytes);
  std::lock_guard lock(mutex_);
  if (!pending_.empty()) {
    collect_pending();
  }
  if (void* ptr = take_cached(PoolKey{stream, size})) {
    Block& b = blocks_.at(ptr);
    b.in_use = true;
    b.requested = nbytes;
    ++stats_.cache_hits;
    note_usage(size, nbytes);
    return ptr;
  }
  void* ptr = backend_.allocate(size);
  if (ptr == nullptr && stats_.reserved_bytes > stats_.allocated_bytes) {
    // Cached blocks of other sizes or streams may make room.
    ++stats_.oom_retries;
    release_cached_locked();
    ptr = backend_.allocate(size);
  }
  if (ptr == nullptr) {
    return nullptr;
  }
  ++stats_.driver_allocations;
  stats_.reserved_bytes += size;
  stats_.peak_reserved_bytes = std::max(stats_.peak_reserved_bytes, stats_.reserved_bytes);
  blocks_[ptr] = Block{size, nbytes, stream, {}, true};
  note_usage(size, nbytes);
  return ptr;
}

void CachingAllocator::free(void* ptr) {
  std::lock_guard lock(mutex_);
  auto it = blocks_.find(ptr);
  TORCHSCOPE_ASSERT(it != blocks_.end() && it->second.in_use,
                    "CachingAllocator::free of a block it does not hold in use");
  Block& b = it->second;
  b.in_use = false;
  ++stats_.frees;
  stats_.allocated_bytes -= b.size;
  stats_.requested_bytes -= b.requested;
  b.requested = 0;
  if (b.other_streams.empty()) {
    pools_[PoolKey{b.stream, b.size}].push_back(ptr);
    return;
  }
  Pending p{ptr, {}};
  for (StreamId s : b.other_streams) {
    p.events.push_back(backend_.record_event(s));
  }
  b.other_streams.clear();
  pending_.push_back(std::move(p));
}

void CachingAllocator::record_stream(void* ptr, StreamId stream) {
  std::lock_guard lock(mutex_);
  auto it = blocks_.find(ptr);
  TORCHSCOPE_ASSERT(it != blocks_.end() && it->second.in_use,
                    "record_stream on a block not in use");
  Block& b = it->second;
  if (stream != b.stream &&
      std::find(b.other_streams.begin(), b.other_streams.end(), stream) == b.other_streams.end()) {
    b.other_streams.push_back(stream);
  }
}

void CachingAllocator::release_cached_locked() {
  backend_.synchronize(); // blocks in a pool may still be read by queued work
  collect_pending();      // everything has finished now
  for (auto& [key, ptrs] : pools_) {
    for (void* ptr : ptrs) {
      backend_.free(ptr);
      stats_.reserved_bytes -= key.size;
      ++stats_.driver_frees;
      blocks_.erase(ptr);
    }
  }
  pools_.clear();
}

void CachingAllocator::empty_cache() {
  std::lock_guard lock(mutex_);
  release_cached_locked();
}

MemoryStats CachingAllocator::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void CachingAllocator::reset_peak() {
  std::lock_guard lock(mutex_);
  stats_.peak_allocated_bytes = stats_.allocated_bytes;
  stats_.peak_reserved_bytes = stats_.reserved_bytes;
}

} // namespace compiler::cuda
