// DType names, promotion rules, and the 16-bit float formats' rounding.
#include "compiler/tensor/dtype.h"
#include "tensor_test_util.h"

#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

using namespace compiler;

TEST_CASE("dtypes have short and PyTorch names that parse back", "[compiler][tensor]") {
  CHECK(dtype_name(DType::Float32) == "f32");
  CHECK(dtype_name(DType::BFloat16) == "bf16");
  CHECK(dtype_name(DType::Bool) == "b8");
  CHECK(dtype_torch_name(DType::Int64) == "torch.int64");
  CHECK(dtype_torch_name(DType::Float16) == "torch.float16");
  for (int i = 0; i < kNumDTypes; ++i) {
    const auto d = static_cast<DType>(i);
    CHECK(parse_dtype(dtype_name(d)) == d);
    CHECK(parse_dtype(dtype_torch_name(d)) == d);
  }
  CHECK_FALSE(parse_dtype("float128").has_value());
  CHECK(dtype_size(DType::Float16) == 2);
  CHECK(dtype_size(DType::Int64) == 8);
}

TEST_CASE("type promotion follows torch.result_type's category and width order",
          "[compiler][tensor]") {
  CHECK(promote_types(DType::Bool, DType::Int32) == DType::Int32);
  CHECK(promote_types(DType::Int32, DType::Int64) == DType::Int64);
  CHECK(promote_types(DType::Int64, DType::Float16) == DType::Float16);
  CHECK(promote_types(DType::Float16, DType::Float32) == DType::Float32);
  CHECK(promote_types(DType::Float16, DType::BFloat16) == DType::Float32);
  CHECK(promote_types(DType::BFloat16, DType::BFloat16) == DType::BFloat16);
  CHECK(promote_with_float_scalar(DType::Int32) == DType::Float32);
  CHECK(promote_with_float_scalar(DType::Float16) == DType::Float16);
  CHECK(promote_types(DType::Float32, DType::Float64) == DType::Float64);
  CHECK(promote_types(DType::Float64, DType::BFloat16) == DType::Float64);
  CHECK(promote_types(DType::Int64, DType::Float64) == DType::Float64);
  CHECK(compute_type(DType::Float64) == DType::Float64);
  CHECK(compute_type(DType::Float16) == DType::Float32);
}

TEST_CASE("float64 tensors compute in double precision in every kernel family",
          "[compiler][tensor]") {
  using tensor_test::t;
  // 1 + 1e-12 is exact enough in double and rounds to 1 in float.
  const Tensor a = t({1.0, 2.0, 3.0, 4.0}, {2, 2}, DType::Float64);
  const Tensor tiny = t({1e-12}, {1}, DType::Float64);
  const Tensor sum_a = add(a, tiny);
  CHECK(sum_a.dtype() == DType::Float64);
  CHECK(sum_a.to_vector()[0] - 1.0 == Approx(1e-12).epsilon(1e-3));
  CHECK(exp(a).to_vector()[3] == std::exp(4.0));
  CHECK(sum(add(a, tiny)).to_vector()[0] - 10.0 == Approx(4e-12).epsilon(1e-3));
  CHECK(matmul(a, a).to_vector()[0] == 7.0);
  const Tensor sm = softmax(a, 1);
  CHECK(sm.dtype() == DType::Float64);
  CHECK(sm.to_vector()[0] == Approx(1.0 / (1.0 + std::exp(1.0))).epsilon(1e-15));
  const Tensor ln = layer_norm(a, {2});
  CHECK(ln.to_vector()[1] == Approx(1.0 / std::sqrt(1.0 + 4e-5)).epsilon(1e-14));
  CHECK(to_dtype(a, DType::Float32).dtype() == DType::Float32);
  CHECK(full({SymInt(2)}, 0.1, DType::Float64).to_vector()[1] == 0.1);
}

TEST_CASE("float16 rounds to nearest even, overflows to inf and keeps subnormals",
          "[compiler][tensor]") {
  CHECK(float_to_half_bits(1.0f) == 0x3c00);
  CHECK(float_to_half_bits(-2.0f) == 0xc000);
  CHECK(float_to_half_bits(65504.0f) == 0x7bff);
  // 1 + 2^-11 is exactly halfway between 1 and 1 + 2^-10: ties go to the even mantissa (1.0).
  CHECK(float_to_half_bits(1.0f + 0x1.0p-11f) == 0x3c00);
  // 1 + 3*2^-11 is halfway between 1+2^-10 (odd) and 1+2^-9 (even): rounds up.
  CHECK(float_to_half_bits(1.0f + 3 * 0x1.0p-11f) == 0x3c02);
  CHECK(float_to_half_bits(65520.0f) == 0x7c00); // halfway to 65536: rounds to inf
  CHECK(float_to_half_bits(65519.0f) == 0x7bff);
  CHECK(float_to_half_bits(0x1.0p-24f) == 0x0001); // smallest subnormal
  CHECK(float_to_half_bits(0x1.0p-25f) == 0x0000); // halfway to it: ties to even zero
  CHECK(float_to_half_bits(std::numeric_limits<float>::infinity()) == 0x7c00);
  CHECK(std::isnan(half_bits_to_float(float_to_half_bits(std::nanf("")))));
  for (std::uint32_t h = 0; h < 0x7c00; h += 7) { // every finite half round-trips
    CHECK(float_to_half_bits(half_bits_to_float(static_cast<std::uint16_t>(h))) == h);
  }
}

TEST_CASE("bfloat16 rounds to nearest even on the upper 16 bits", "[compiler][tensor]") {
  CHECK(float_to_bfloat16_bits(1.0f) == 0x3f80);
  // 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties to even (1.0).
  CHECK(float_to_bfloat16_bits(1.0f + 0x1.0p-8f) == 0x3f80);
  CHECK(float_to_bfloat16_bits(1.0f + 3 * 0x1.0p-8f) == 0x3f82);
  CHECK(float_to_bfloat16_bits(1.0f + 0x1.0p-8f + 0x1.0p-20f) == 0x3f81);
  CHECK(static_cast<float>(BFloat16(3.140625f)) == 3.140625f);
}

TEST_CASE("16-bit tensors compute in float and store rounded", "[compiler][tensor]") {
  using tensor_test::t;
  const Tensor a = t({1.0, 2048.0}, {2}, DType::Float16);
  const Tensor b = t({0x1.0p-11, 1.0}, {2}, DType::Float16);
  const Tensor sum = add(a, b);
  CHECK(sum.dtype() == DType::Float16);
  // 1 + 2^-11 ties to 1; 2048 + 1 ties to 2048 (the half spacing there is 2).
  tensor_test::check_values(sum, {1.0, 2048.0}, 0.0);
  const Tensor c = t({1.0, 256.0}, {2}, DType::BFloat16);
  const Tensor d = t({0.0078125, 1.0}, {2}, DType::BFloat16);
  tensor_test::check_values(add(c, d), {1.0078125, 256.0}, 0.0);
  CHECK(add(a, c).dtype() == DType::Float32);
}
