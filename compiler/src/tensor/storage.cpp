// Storage: 64-byte aligned, zero-filled CPU memory (aligned for vector loads; zero-filled so a
// freshly made tensor has defined contents).
#include "compiler/tensor/tensor.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace compiler {

Storage::Storage(std::size_t nbytes) : data_(nullptr), nbytes_(nbytes) {
  // aligned_alloc needs a size that is a multiple of the alignment, and a non-zero one.
  const std::size_t rounded = ((nbytes + kAlignment - 1) / kAlignment) * kAlignment;
  data_ = std::aligned_alloc(kAlignment, rounded == 0 ? kAlignment : rounded);
  if (data_ == nullptr) {
    throw std::bad_alloc();
  }
  std::memset(data_, 0, rounded == 0 ? kAlignment : rounded);
}

Storage::Storage(std::size_t nbytes, Uninitialized) : data_(nullptr), nbytes_(nbytes) {
  const std::size_t rounded = ((nbytes + kAlignment - 1) / kAlignment) * kAlignment;
  data_ = std::aligned_alloc(kAlignment, rounded == 0 ? kAlignment : rounded);
  if (data_ == nullptr) {
    throw std::bad_alloc();
  }
}

Storage::~Storage() {
  std::free(data_);
}

} // namespace compiler
