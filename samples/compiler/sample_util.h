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

// Exits with a message when compiled and eager results differ by more than float32 rounding
// can explain: the AOT stage computes composite ops (softmax, layer_norm, gelu) from primitive
// ops, and generated code fuses ops, keeps intermediates in f32 registers, sums in vector lanes
// and uses its own exp/log/tanh/erf, so it agrees with eager to a few ulp per op, not bit for
// bit (docs/COMPILER.md, "Correct"). The tolerance is relative to the values' scale.
inline void expect_same(const compiler::Tensor& compiled, const compiler::Tensor& eager,
                        const char* what, double tolerance = 1e-5) {
  if (compiled.sizes() != eager.sizes() || compiled.dtype() != eager.dtype()) {
    std::fprintf(stderr, "%s: compiled result has another shape or dtype than eager\n", what);
    std::exit(1);
  }
  const std::vector<double> c = compiled.to_vector();
  const std::vector<double> e = eager.to_vector();
  double scale = 0.0;
  for (double v : e) {
    scale = std::isfinite(v) ? std::max(scale, std::abs(v)) : scale;
  }
  for (std::size_t i = 0; i < c.size(); ++i) {
    const bool both_nan = std::isnan(c[i]) && std::isnan(e[i]);
    if (!both_nan && !(std::abs(c[i] - e[i]) <= tolerance * std::max(1.0, scale)) && c[i] != e[i]) {
      std::fprintf(stderr, "%s: compiled result differs from eager at element %zu: %.9g vs %.9g\n",
                   what, i, c[i], e[i]);
      std::exit(1);
    }
  }
}

} // namespace samples
