// Test and benchmark helper: the 8-op pointwise chain the Inductor and GPU benchmarks time (mul,
// add, sub, relu, abs, gt, where, mul over two inputs), one definition for the GPU generator's
// test and benchmark.
#pragma once

#include "compiler/ops/ops.h"

namespace inductor_test {

inline compiler::Tensor pointwise_chain(const compiler::Tensor& a, const compiler::Tensor& b) {
  using namespace compiler;
  Tensor x = mul(a, b);
  x = add(x, a);
  x = sub(x, b);
  x = relu(x);
  x = abs(x);
  x = where(gt(x, 0.5), x, b);
  return mul(x, a);
}

} // namespace inductor_test
