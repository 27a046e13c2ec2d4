// kernels: the matrix product loop behind matmul/mm/bmm (matmul.cpp), shared with the
// convolution kernels (conv_pool.cpp), which run it on one image per parallel_for item.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace compiler::kernels {

// Rows [row_begin, row_end) of out = a @ b over contiguous row-major buffers: a is [rows, k]
// and b holds one [k, m] matrix per `n` rows of a (n = rows for one matrix). One output row per
// step: the inner loop runs over a row of b and a row of out with unit stride. (Blocking over
// rows and depth measured no faster here on 256-512 sizes; fast kernels are codegen's job.)
// Float rows accumulate in double: PyTorch's BLAS adds each product unrounded (FMA), which a
// portable loop can only match by keeping the products exact (24-bit factors fit a double's 53
// bits); rounding every product and partial sum to float loses the small result of a
// cancelling dot product (bmm over k = 2, then rsqrt: 4e-4). `accumulate` adds to out.
template <class C>
void matmul_rows(const C* a, const C* b, C* out, std::int64_t n, std::int64_t k, std::int64_t m,
                 std::int64_t row_begin, std::int64_t row_end, bool accumulate = false) {
  using Acc = std::conditional_t<std::is_same_v<C, float>, double, C>;
  std::vector<Acc> acc(static_cast<std::size_t>(m));
  for (std::int64_t r = row_begin; r < row_end; ++r) {
    const C* arow = a + r * k;
    const C* bmat = b + (r / n) * k * m;
    C* orow = out + r * m;
    if (accumulate) {
      std::copy(orow, orow + m, acc.begin());
    } else {
      std::fill(acc.begin(), acc.end(), Acc{0});
    }
    for (std::int64_t p = 0; p < k; ++p) {
      const Acc av = arow[p];
      const C* brow = bmat + p * m;
      for (std::int64_t j = 0; j < m; ++j) {
        acc[static_cast<std::size_t>(j)] += av * static_cast<Acc>(brow[j]);
      }
    }
    for (std::int64_t j = 0; j < m; ++j) {
      orow[j] = static_cast<C>(acc[static_cast<std::size_t>(j)]);
    }
  }
}

} // namespace compiler::kernels
