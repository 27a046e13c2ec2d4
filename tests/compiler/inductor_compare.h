// Test helper: compiled-with-Inductor against eager, within the tolerances generated code is
// held to (docs/COMPILER.md, "Correct"): per dtype, relative to each element and to the scale
// of the result, NaN matching NaN and infinities matching exactly.
#pragma once

#include "compiler/tensor/tensor.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

namespace inductor_test {

inline double tolerance_for(compiler::DType d) {
  switch (d) {
  case compiler::DType::Float16:
    return 2e-3;
  case compiler::DType::BFloat16:
    return 1.6e-2;
  case compiler::DType::Float32:
    return 2e-5;
  default:
    return 0.0; // integers and bools: exact
  }
}

// Whether `got` matches `want` (same shape and dtype); on failure, says where.
inline bool close(const compiler::Tensor& got, const compiler::Tensor& want, std::string& why,
                  double scale_tolerance = -1.0) {
  if (got.sizes() != want.sizes() || got.dtype() != want.dtype()) {
    why = "shape or dtype: " + got.type_string() + " vs " + want.type_string();
    return false;
  }
  const double tol = scale_tolerance >= 0 ? scale_tolerance : tolerance_for(want.dtype());
  const std::vector<double> g = got.to_vector();
  const std::vector<double> w = want.to_vector();
  double scale = 0.0;
  for (double v : w) {
    scale = std::isfinite(v) ? std::max(scale, std::abs(v)) : scale;
  }
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(w[i]) ? std::isnan(g[i]) : (g[i] == w[i])) {
      continue;
    }
    if (std::isfinite(w[i]) && std::abs(g[i] - w[i]) <= tol * (std::abs(w[i]) + scale + 1e-30)) {
      continue;
    }
    why = "element " + std::to_string(i) + ": " + std::to_string(g[i]) + " vs " +
          std::to_string(w[i]);
    return false;
  }
  return true;
}

#define CHECK_CLOSE(got, want)                                                                     \
  do {                                                                                             \
    std::string why_;                                                                              \
    const bool ok_ = ::inductor_test::close((got), (want), why_);                                  \
    INFO(why_); /* after close(): INFO copies the text when declared */                            \
    CHECK(ok_);                                                                                    \
  } while (false)

} // namespace inductor_test
