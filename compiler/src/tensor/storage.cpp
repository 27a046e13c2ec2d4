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

void* allocate_host(std::size_t nbytes, Storage::Fill fill) {
  // aligned_alloc needs a size that is a multiple of the alignment, and a non-zero one.
  std::size_t rounded =
      ((nbytes + Storage::kAlignment - 1) / Storage::kAlignment) * Storage::kAlignment;
  rounded = rounded == 0 ? Storage::kAlignment : rounded;
  void* data = std::aligned_alloc(Storage::kAlignment, rounded);
  if (data == nullptr) {
    throw std::bad_alloc();
  }
  if (fill == Storage::Fill::Zeros) {
    std::memset(data, 0, rounded);
  }
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

Storage::Storage(std::size_t nbytes, Fill fill) : Storage(nbytes, Device::cpu(), fill) {}

Storage::Storage(std::size_t nbytes, Device device, Fill fill)
    : data_(nullptr), nbytes_(nbytes), device_(device) {
  if (!device.is_cpu()) {
    data_ = device_memory::allocate(device, nbytes);
  } else if (fill == Fill::Uninitialized && nbytes >= BlockCache::kMinBlock) {
    cached_bytes_ = BlockCache::block_size(nbytes);
    data_ = BlockCache::get().take(cached_bytes_);
    if (data_ == nullptr) {
      throw std::bad_alloc();
    }
  } else {
    data_ = allocate_host(nbytes, fill);
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
