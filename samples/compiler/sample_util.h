// Helpers shared by the compiler samples: deterministic input tensors and a results check.
#pragma once

#include "compiler/tensor/tensor.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace samples {

// A tensor of `sizes` filled with a deterministic wave (different per `seed`).
inline compiler::Tensor wave(std::vector<std::int64_t> sizes, double seed = 0.0,
                             compiler::DType dtype = compiler::DType::Float32) {
  std::int64_t n = 1;
  for (std::int64_t s : sizes) {
    n *= s;
  }
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i] = std::sin(0.37 * static_cast<double>(i) + seed);
  }
  return compiler::Tensor::from_values(v, std::move(sizes), dtype);
}

// Exits with a message when compiled and eager results differ (they must match bit for bit).
inline void expect_same(const compiler::Tensor& compiled, const compiler::Tensor& eager,
                        const char* what) {
  if (compiled.sizes() != eager.sizes() || compiled.to_vector() != eager.to_vector()) {
    std::fprintf(stderr, "%s: compiled result differs from eager\n", what);
    std::exit(1);
  }
}

} // namespace samples
