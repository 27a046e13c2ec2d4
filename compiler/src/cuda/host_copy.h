// Internal: memcpy on several threads, for the host half of staged copies.
//
// One thread moves about 8-11 GB/s between ordinary and pinned host memory on the GPU machine
// (bench_cuda_runtime), a fifth of what the copy engine takes from a pinned buffer (55 GB/s on
// an H100), so a staged copy that filled its buffers on one thread would be slower than the
// driver's own pageable path. The copy is cut into slices that a few persistent worker threads
// and the caller move at once. Copies under 4 MiB stay on the caller: there, waking threads
// cost more than they saved (a 1 MiB staged copy ran at 8.8 GB/s on one thread, 7.7 on eight).
// Eight threads were the fastest of 1, 4, 8 and 16 on the 16-core machine.
#pragma once

#include <cstddef>

namespace compiler::cuda {

// memcpy(dst, src, n), on up to host_copy_threads() threads when n is large. The ranges must
// not overlap. Thread-safe: concurrent calls take turns with the workers.
void parallel_memcpy(void* dst, const void* src, std::size_t n);

// The threads parallel_memcpy uses, the caller included: TORCHSCOPE_CUDA_COPY_THREADS, or
// half the machine's hardware threads, between 1 and 8.
int host_copy_threads();

// The bytes [begin, end) that thread `index` of `threads` copies out of `n`: cache-line aligned
// slices that cover every byte once (the last ones may be empty).
struct Slice {
  std::size_t begin;
  std::size_t end;
};
Slice copy_slice(std::size_t n, int threads, int index) noexcept;

} // namespace compiler::cuda
