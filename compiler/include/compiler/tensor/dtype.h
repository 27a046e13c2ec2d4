// compiler/tensor: element types, their names, PyTorch's type-promotion rules, and the two
// 16-bit float formats (stored as bits, computed in float, rounded to nearest even on store).
// Float64 computes in double (gradient checks by finite differences need its precision).
#pragma once

#include <bit>
#include <cstdint>
#include <optional>
#include <string_view>

namespace compiler {

// Float64 comes last so the earlier values keep their numbers.
enum class DType : std::uint8_t { Float32, Float16, BFloat16, Int32, Int64, Bool, Float64 };

inline constexpr int kNumDTypes = 7;

// Short names as the compiler prints them: "f32", "f16", "bf16", "i32", "i64", "b8", "f64".
std::string_view dtype_name(DType t) noexcept;
// PyTorch's names: "torch.float32", "torch.float16", "torch.bfloat16", "torch.int32",
// "torch.int64", "torch.bool", "torch.float64".
std::string_view dtype_torch_name(DType t) noexcept;
// Parses either spelling; nullopt when unknown.
std::optional<DType> parse_dtype(std::string_view name) noexcept;
// Bytes per element.
std::size_t dtype_size(DType t) noexcept;
bool is_floating(DType t) noexcept;
bool is_integral(DType t) noexcept; // i32, i64 (not bool)

// The result type of a binary op on two tensors, as torch.result_type: bool < integers <
// floats; within a category the wider type wins; f16 with bf16 gives f32; f64 beats every other
// float type.
DType promote_types(DType a, DType b) noexcept;
// The result type of `tensor op python-float-scalar`: the tensor's type if it is floating,
// otherwise the default float type (f32).
DType promote_with_float_scalar(DType t) noexcept;
// The type a kernel computes in: f64 for f64, f32 for the other float types (16-bit types are
// widened), i64 for integers and bool.
DType compute_type(DType t) noexcept;
// The largest finite value of a floating type (nan_to_num's default for +inf; its negation
// for -inf).
double largest_finite(DType t) noexcept;

// IEEE 754 binary16, stored as bits.
struct Half {
  std::uint16_t bits = 0;
  Half() = default;
  explicit Half(float f) noexcept;
  explicit operator float() const noexcept;
  static Half from_bits(std::uint16_t b) noexcept {
    Half h;
    h.bits = b;
    return h;
  }
};

// bfloat16 (the upper half of a binary32), stored as bits.
struct BFloat16 {
  std::uint16_t bits = 0;
  BFloat16() = default;
  explicit BFloat16(float f) noexcept;
  explicit operator float() const noexcept {
    return std::bit_cast<float>(std::uint32_t{bits} << 16);
  }
  static BFloat16 from_bits(std::uint16_t b) noexcept {
    BFloat16 h;
    h.bits = b;
    return h;
  }
};

// float -> 16-bit formats, rounding to nearest, ties to even (NaN stays NaN).
std::uint16_t float_to_half_bits(float f) noexcept;
float half_bits_to_float(std::uint16_t h) noexcept;
std::uint16_t float_to_bfloat16_bits(float f) noexcept;

// The C++ type stored for each DType, and back.
template <class T>
struct DTypeOf;
template <>
struct DTypeOf<float> {
  static constexpr DType value = DType::Float32;
};
template <>
struct DTypeOf<double> {
  static constexpr DType value = DType::Float64;
};
template <>
struct DTypeOf<Half> {
  static constexpr DType value = DType::Float16;
};
template <>
struct DTypeOf<BFloat16> {
  static constexpr DType value = DType::BFloat16;
};
template <>
struct DTypeOf<std::int32_t> {
  static constexpr DType value = DType::Int32;
};
template <>
struct DTypeOf<std::int64_t> {
  static constexpr DType value = DType::Int64;
};
template <>
struct DTypeOf<bool> {
  static constexpr DType value = DType::Bool;
};

} // namespace compiler
