// Storage: 64-byte aligned, zero-filled CPU memory (aligned for vector loads; zero-filled so a
// freshly made tensor has defined contents), uninitialised CPU memory for generated code (large
// blocks reused through a cache), or GPU memory from the device runtime
// (tensor/device_memory.h), which it returns there when the last tensor using it goes.
#include "compiler/tensor/tensor.h"
#include "tensor/device_memory.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <sys/mman.h>

namespace compiler {

namespace {

void* allocate_host(std::size_t nbytes) {
  // aligned_alloc needs a size that is a multiple of the alignment, and a non-zero one.
  std::size_t rounded =
      ((nbytes + Storage::kAlignment - 1) / Storage::kAlignment) * Storage::kAlignment;
  rounded = rounded == 0 ? Storage::kAlignment : rounded;
  void* data = std::aligned_alloc(Storage::kAlignment, rounded);
  if (data == nullptr) {
    throw std::bad_alloc();
  }
  std::memset(data, 0, rounded);
  return data;
}

// Freed large blocks kept for reuse. A fresh large block costs a page fault per 4 KiB page
// and the kernel zeroing it (for a 64 MiB result, as long as computing it); a reused block
// costs neither. Blocks are rounded up to 2 MiB (huge pages where the kernel grants them), and
// at most kBudget bytes are kept.
class BlockCache {
public:
  static constexpr std::size_t kMinBlock = std::size_t{1} << 20;
  static constexpr std::size_t kGranule = std::size_t{2} << 20;
  static constexpr std::size_t kBudget = std::size_t{1} << 30;

  static BlockCache& get() {
    static BlockCache* cache = new BlockCache(); // never destroyed: storages may outlive main
    return *cache;
  }

  static std::size_t block_size(std::size_t nbytes) {
    return ((nbytes + kGranule - 1) / kGranule) * kGranule;
  }

  void* take(std::size_t size) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = free_.find(size);
      if (it != free_.end()) {
        void* p = it->second;
        free_.erase(it);
        cached_ -= size;
        return p;
      }
    }
    void* p = std::aligned_alloc(kGranule, size);
    if (p != nullptr) {
      madvise(p, size, MADV_HUGEPAGE); // a hint; ignored where huge pages are off
    }
    return p;
  }

  void give(void* p, std::size_t size) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (cached_ + size <= kBudget) {
        free_.emplace(size, p);
        cached_ += size;
        return;
      }
    }
    std::free(p);
  }

private:
  std::mutex mutex_;
  std::multimap<std::size_t, void*> free_;
  std::size_t cached_ = 0;
};

} // namespace

Storage::Storage(std::size_t nbytes) : data_(allocate_host(nbytes)), nbytes_(nbytes) {}

Storage::Storage(std::size_t nbytes, Device device)
    : data_(device.is_cpu() ? allocate_host(nbytes) : device_memory::allocate(device, nbytes)),
      nbytes_(nbytes), device_(device) {}

Storage::Storage(std::size_t nbytes, Uninitialized) : data_(nullptr), nbytes_(nbytes) {
  if (nbytes >= BlockCache::kMinBlock) {
    cached_bytes_ = BlockCache::block_size(nbytes);
    data_ = BlockCache::get().take(cached_bytes_);
  } else {
    const std::size_t rounded = ((nbytes + kAlignment - 1) / kAlignment) * kAlignment;
    data_ = std::aligned_alloc(kAlignment, rounded == 0 ? kAlignment : rounded);
  }
  if (data_ == nullptr) {
    throw std::bad_alloc();
  }
}

Storage::~Storage() {
  if (cached_bytes_ != 0) {
    BlockCache::get().give(data_, cached_bytes_);
    return;
  }
  if (device_.is_cpu()) {
    std::free(data_);
  } else {
    device_memory::release(device_, data_);
  }
}

} // namespace compiler
