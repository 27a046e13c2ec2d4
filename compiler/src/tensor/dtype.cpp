// DType names, promotion, and the 16-bit float conversions.
#include "compiler/tensor/dtype.h"

#include "tensor/scalar_type_name.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace compiler {

namespace {

struct DTypeInfo {
  std::string_view name;
  std::string_view torch_name;
  std::size_t size;
};

// Indexed by DType; the order matches the enum.
constexpr DTypeInfo kDTypeInfo[kNumDTypes] = {
    {"f32", "torch.float32", 4}, {"f16", "torch.float16", 2}, {"bf16", "torch.bfloat16", 2},
    {"i32", "torch.int32", 4},   {"i64", "torch.int64", 8},   {"b8", "torch.bool", 1},
    {"f64", "torch.float64", 8},
};

const DTypeInfo& info(DType t) noexcept {
  return kDTypeInfo[static_cast<int>(t)];
}

// Category rank for promotion: bool < integral < floating.
int category(DType t) noexcept {
  if (t == DType::Bool) {
    return 0;
  }
  return is_integral(t) ? 1 : 2;
}

} // namespace

std::string_view dtype_name(DType t) noexcept {
  return info(t).name;
}
std::string_view dtype_torch_name(DType t) noexcept {
  return info(t).torch_name;
}
std::size_t dtype_size(DType t) noexcept {
  return info(t).size;
}

std::optional<DType> parse_dtype(std::string_view name) noexcept {
  for (int i = 0; i < kNumDTypes; ++i) {
    if (kDTypeInfo[i].name == name || kDTypeInfo[i].torch_name == name) {
      return static_cast<DType>(i);
    }
  }
  return std::nullopt;
}

bool is_floating(DType t) noexcept {
  return t == DType::Float32 || t == DType::Float16 || t == DType::BFloat16 || t == DType::Float64;
}
bool is_integral(DType t) noexcept {
  return t == DType::Int32 || t == DType::Int64;
}

DType promote_types(DType a, DType b) noexcept {
  if (a == b) {
    return a;
  }
  const int ca = category(a);
  const int cb = category(b);
  if (ca != cb) {
    return ca > cb ? a : b;
  }
  if (ca == 1) {
    return DType::Int64; // i32 with i64
  }
  // Two different float types: f64 wins, then f32; f16 with bf16 has no common 16-bit type.
  return (a == DType::Float64 || b == DType::Float64) ? DType::Float64 : DType::Float32;
}

DType promote_with_float_scalar(DType t) noexcept {
  return is_floating(t) ? t : DType::Float32;
}

DType compute_type(DType t) noexcept {
  if (t == DType::Float64) {
    return DType::Float64;
  }
  return is_floating(t) ? DType::Float32 : DType::Int64;
}

double largest_finite(DType t) noexcept {
  switch (t) {
  case DType::Float16:
    return 65504.0;
  case DType::BFloat16:
    return 3.3895313892515355e38; // bits 0x7f7f
  case DType::Float64:
    return std::numeric_limits<double>::max();
  default:
    return std::numeric_limits<float>::max();
  }
}

std::uint16_t float_to_half_bits(float f) noexcept {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) { // inf or NaN
    const std::uint32_t nan_bit = abs > 0x7f800000u ? 0x200u : 0u;
    return static_cast<std::uint16_t>(sign | 0x7c00u | nan_bit);
  }
  if (abs >= 0x477ff000u) { // rounds to >= 65520: overflow to infinity
    return static_cast<std::uint16_t>(sign | 0x7c00u);
  }
  if (abs < 0x38800000u) { // below the smallest normal half (2^-14): subnormal or zero
    // Scale so the half subnormal unit (2^-24) becomes 1.0, and let the FPU round to even.
    const float scaled = std::bit_cast<float>(abs) * 16777216.0f; // 2^24
    const auto mant = static_cast<std::uint32_t>(std::nearbyint(scaled));
    return static_cast<std::uint16_t>(sign | mant); // mant == 0x400 becomes the smallest normal
  }
  // Normal: rebias the exponent (127 -> 15) and round the 13 dropped mantissa bits to even.
  const std::uint32_t rebased = abs - (112u << 23);
  const std::uint32_t lsb = (rebased >> 13) & 1u;
  const std::uint32_t rounded = rebased + 0xfffu + lsb;
  return static_cast<std::uint16_t>(sign | (rounded >> 13));
}

float half_bits_to_float(std::uint16_t h) noexcept {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fu;
  const std::uint32_t mant = h & 0x3ffu;
  if (exp == 0) {
    // Zero or subnormal: mant * 2^-24, exact in float.
    const float v = static_cast<float>(mant) * (1.0f / 16777216.0f);
    return sign != 0 ? -v : v;
  }
  if (exp == 0x1f) {
    return std::bit_cast<float>(sign | 0x7f800000u | (mant << 13));
  }
  return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (mant << 13));
}

std::uint16_t float_to_bfloat16_bits(float f) noexcept {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) {
    return static_cast<std::uint16_t>((x >> 16) | 0x40u); // quiet NaN
  }
  const std::uint32_t lsb = (x >> 16) & 1u;
  return static_cast<std::uint16_t>((x + 0x7fffu + lsb) >> 16);
}

Half::Half(float f) noexcept : bits(float_to_half_bits(f)) {}
Half::operator float() const noexcept {
  return half_bits_to_float(bits);
}
BFloat16::BFloat16(float f) noexcept : bits(float_to_bfloat16_bits(f)) {}

namespace dtype_names {

std::string_view scalar_type_name(DType t) noexcept {
  switch (t) {
  case DType::Float32:
    return "Float";
  case DType::Float16:
    return "Half";
  case DType::BFloat16:
    return "BFloat16";
  case DType::Int32:
    return "Int";
  case DType::Int64:
    return "Long";
  case DType::Float64:
    return "Double";
  case DType::Bool:
    return "Bool";
  }
  return "?";
}

} // namespace dtype_names

} // namespace compiler
