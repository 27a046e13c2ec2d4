// A user op for the tests that cover every op of the op list: "test::scale_mul"(x, y, alpha) =
// x * y * alpha (same shapes), with its backward and no decomposition, registered once per
// process (compiler/ops/custom_ops.h).
#pragma once

#include "compiler/ops/custom_ops.h"
#include "compiler/ops/ops.h"

namespace test_ops {

inline const char* scale_mul_name() {
  static const compiler::CustomOpHandle handle = compiler::register_custom_op({
      .name = "test::scale_mul",
      .schema = "(Tensor x, Tensor y, float alpha) -> Tensor",
      .kernel =
          [](std::span<const compiler::Tensor> in, std::span<const double> s) {
            return compiler::mul(compiler::mul(in[0], in[1]), s[0]);
          },
      .backward =
          [](const compiler::CustomOpGrad& g) {
            const double alpha = g.scalars[0];
            return std::vector<compiler::Tensor>{
                compiler::mul(compiler::mul(g.grad_output, g.inputs[1]), alpha),
                compiler::mul(compiler::mul(g.grad_output, g.inputs[0]), alpha)};
          },
  });
  return "test::scale_mul";
}

// The op's arguments in OpKind::custom_op's layout.
inline std::vector<compiler::Value> scale_mul_args(const compiler::Tensor& x,
                                                   const compiler::Tensor& y, double alpha) {
  return {std::string(scale_mul_name()), std::vector<compiler::Tensor>{x, y}, alpha};
}

} // namespace test_ops
