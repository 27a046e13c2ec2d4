// Test and benchmark helper: deterministic float tensors (a sine wave of a given amplitude and
// phase), so compiled and eager runs read the same, easily varied values.
#pragma once

#include "compiler/tensor/tensor.h"

#include <cmath>
#include <vector>

namespace inductor_test {

inline compiler::Tensor wave(std::vector<std::int64_t> sizes, double seed = 0.0,
                             double amplitude = 1.0,
                             compiler::DType dtype = compiler::DType::Float32) {
  std::int64_t n = 1;
  for (std::int64_t s : sizes) {
    n *= s;
  }
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i] = amplitude * std::sin(0.37 * static_cast<double>(i) + seed);
  }
  return compiler::Tensor::from_values(v, std::move(sizes), dtype);
}

} // namespace inductor_test
