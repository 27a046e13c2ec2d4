// Internal: the caching device allocator. cuMemAlloc and cuMemFree are slow (they synchronise
// the device and cost tens of microseconds), while a compiled graph allocates its buffers on
// every call, so freed blocks are kept and handed out again.
//
//   - Size classes: a request is rounded up to a multiple of 512 bytes up to 4 KiB, and above
//     that to one of 8 classes per power of two (at most 12.5% waste), so blocks are reused
//     exactly, without splitting.
//   - Stream-ordered reuse: a block freed by work on stream S goes back to S's pool and is
//     handed out again at once to later work on S (the stream runs it after everything that
//     used the block). Other streams never take it, unless the block was marked as used by
//     them (record_stream): then it waits until events recorded on those streams at free time
//     have completed.
//   - Out of memory: the cache is emptied (after synchronising the device) and the request
//     retried once; then allocate() returns nullptr and the caller reports.
//   - Statistics: bytes allocated, requested and reserved with their peaks, and counts of
//     requests, cache hits, driver calls and OOM retries (compiler/cuda/cuda.h's MemoryStats).
//
// The allocator knows nothing of CUDA: it talks to an AllocatorBackend (the driver, or a fake
// in tests), so its logic is tested on machines without a GPU. Thread-safe.
#pragma once

#include "compiler/cuda/cuda.h"

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace compiler::cuda {

using StreamId = std::uintptr_t; // a CUstream's value (0 is the legacy default stream)
using EventId = std::uintptr_t;  // a CUevent's value

// What the allocator needs from a device.
class AllocatorBackend {
public:
  virtual ~AllocatorBackend() = default;
  // `nbytes` of device memory, or nullptr when the device is out of memory (any other failure
  // throws).
  virtual void* allocate(std::size_t nbytes) = 0;
  virtual void free(void* ptr) = 0;
  // An event recorded now on `stream`: it completes when the stream's work so far has.
  virtual EventId record_event(StreamId stream) = 0;
  virtual bool event_done(EventId event) = 0;
  virtual void destroy_event(EventId event) = 0;
  // Waits for every stream of the device.
  virtual void synchronize() = 0;
};

class CachingAllocator {
public:
  explicit CachingAllocator(AllocatorBackend& backend) : backend_(backend) {}
  // Gives every block, cached or not, back to the backend.
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  // The size of the block a request of `nbytes` gets.
  static std::size_t size_class(std::size_t nbytes) noexcept;

  // A block of at least `nbytes` for work on `stream`; nullptr when the device is out of
  // memory even after the cache was emptied.
  void* allocate(std::size_t nbytes, StreamId stream);
  // Gives back a block from allocate() (see the reuse rules above). Asserts on a pointer this
  // allocator did not hand out.
  void free(void* ptr);
  // Records that work on `stream` (other than the block's own) uses the block, so it is not
  // reused before that work has finished.
  void record_stream(void* ptr, StreamId stream);
  // Returns every cached block to the backend (after waiting for the device).
  void empty_cache();

  MemoryStats stats() const;
  void reset_peak();

private:
  struct Block {
    std::size_t size = 0;      // its size class
    std::size_t requested = 0; // what the current user asked for
    StreamId stream = 0;       // the stream whose pool it belongs to
    std::vector<StreamId> other_streams;
    bool in_use = false;
  };
  struct Pending {
    void* ptr = nullptr;
    std::vector<EventId> events;
  };
  struct PoolKey {
    StreamId stream;
    std::size_t size;
    friend bool operator==(const PoolKey&, const PoolKey&) = default;
  };
  struct PoolKeyHash {
    std::size_t operator()(const PoolKey& k) const noexcept {
      return std::hash<std::uintptr_t>()(k.stream) ^ (std::hash<std::size_t>()(k.size) * 31u);
    }
  };

  void* take_cached(const PoolKey& key);
  void collect_pending();       // moves blocks whose events completed into their pools
  void release_cached_locked(); // every cached block back to the backend
  void note_usage(std::size_t size, std::size_t requested);

  AllocatorBackend& backend_;
  mutable std::mutex mutex_;
  std::unordered_map<void*, Block> blocks_; // every block taken from the backend
  std::unordered_map<PoolKey, std::vector<void*>, PoolKeyHash> pools_;
  std::vector<Pending> pending_;
  MemoryStats stats_;
};

} // namespace compiler::cuda
