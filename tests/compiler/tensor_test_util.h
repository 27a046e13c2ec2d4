// Helpers shared by the tensor tests: building tensors from literals and comparing values.
#pragma once

#include "compiler/core/errors.h"
#include "compiler/ops/ops.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace tensor_test {

inline compiler::Tensor t(std::initializer_list<double> values, std::vector<std::int64_t> sizes,
                          compiler::DType dtype = compiler::DType::Float32) {
  return compiler::Tensor::from_values(values, std::move(sizes), dtype);
}

// Checks every element (row-major) against `expected` within `tol` (NaN matches NaN).
inline void check_values(const compiler::Tensor& x, const std::vector<double>& expected,
                         double tol = 1e-6) {
  const std::vector<double> got = x.to_vector();
  REQUIRE(got.size() == expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", expected " << expected[i]);
    if (std::isnan(expected[i])) {
      CHECK(std::isnan(got[i]));
    } else if (std::isinf(expected[i])) {
      CHECK(got[i] == expected[i]);
    } else {
      CHECK(std::abs(got[i] - expected[i]) <= tol * std::max(1.0, std::abs(expected[i])));
    }
  }
}

inline std::vector<std::int64_t> shape(std::initializer_list<std::int64_t> s) {
  return s;
}

// The message of the UserError `f` throws, or "" when it throws none.
inline std::string user_error_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const compiler::UserError& e) {
    return e.message();
  }
  return "";
}

} // namespace tensor_test
