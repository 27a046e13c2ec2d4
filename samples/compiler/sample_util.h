// Helpers shared by the compiler samples: deterministic input tensors and a results check.
#pragma once

#include "compiler/tensor/tensor.h"

#include <algorithm>
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

// Exits with a message when compiled and eager results differ by more than rounding: the
// backend computes composite ops (softmax, layer_norm, gelu) from primitive ops, which may round
// differently in the last places.
inline void expect_same(const compiler::Tensor& compiled, const compiler::Tensor& eager,
                        const char* what, double tolerance = 1e-5) {
  bool same = compiled.sizes() == eager.sizes();
  const std::vector<double> a = compiled.to_vector();
  const std::vector<double> b = eager.to_vector();
  for (std::size_t i = 0; same && i < a.size(); ++i) {
    same = std::abs(a[i] - b[i]) <= tolerance * std::max(1.0, std::abs(b[i]));
  }
  if (!same) {
    std::fprintf(stderr, "%s: compiled result differs from eager\n", what);
    std::exit(1);
  }
}

} // namespace samples
