// kernels: loading and storing one element of any dtype as a compute type. The one place that
// knows how each DType is laid out in memory; 16-bit floats round to nearest even on store.
#pragma once

#include "compiler/tensor/dtype.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace compiler::kernels {

// Float to integer without undefined behaviour: NaN gives 0, out-of-range values saturate.
template <class I>
I saturating_cast(double v) noexcept {
  if (std::isnan(v)) {
    return 0;
  }
  if (v <= static_cast<double>(std::numeric_limits<I>::min())) {
    return std::numeric_limits<I>::min();
  }
  if (v >= static_cast<double>(std::numeric_limits<I>::max())) {
    return std::numeric_limits<I>::max();
  }
  return static_cast<I>(v);
}

// Element i of the array at `base` (already offset) of type `t`, converted to C.
template <class C>
C load(const void* base, DType t, std::int64_t i) noexcept {
  switch (t) {
  case DType::Float32:
    return static_cast<C>(static_cast<const float*>(base)[i]);
  case DType::Float16:
    return static_cast<C>(half_bits_to_float(static_cast<const std::uint16_t*>(base)[i]));
  case DType::BFloat16:
    return static_cast<C>(
        static_cast<float>(BFloat16::from_bits(static_cast<const std::uint16_t*>(base)[i])));
  case DType::Int32:
    return static_cast<C>(static_cast<const std::int32_t*>(base)[i]);
  case DType::Int64:
    return static_cast<C>(static_cast<const std::int64_t*>(base)[i]);
  case DType::Bool:
    return static_cast<C>(static_cast<const bool*>(base)[i] ? 1 : 0);
  case DType::Float64:
    return static_cast<C>(static_cast<const double*>(base)[i]);
  }
  return C{};
}

// Stores v (a compute value) as element i of type `t`.
template <class C>
void store(void* base, DType t, std::int64_t i, C v) noexcept {
  switch (t) {
  case DType::Float32:
    static_cast<float*>(base)[i] = static_cast<float>(v);
    return;
  case DType::Float16:
    static_cast<std::uint16_t*>(base)[i] = float_to_half_bits(static_cast<float>(v));
    return;
  case DType::BFloat16:
    static_cast<std::uint16_t*>(base)[i] = float_to_bfloat16_bits(static_cast<float>(v));
    return;
  case DType::Int32:
    if constexpr (std::is_floating_point_v<C>) {
      static_cast<std::int32_t*>(base)[i] = saturating_cast<std::int32_t>(v);
    } else {
      static_cast<std::int32_t*>(base)[i] = static_cast<std::int32_t>(v);
    }
    return;
  case DType::Int64:
    if constexpr (std::is_floating_point_v<C>) {
      static_cast<std::int64_t*>(base)[i] = saturating_cast<std::int64_t>(v);
    } else {
      static_cast<std::int64_t*>(base)[i] = static_cast<std::int64_t>(v);
    }
    return;
  case DType::Bool:
    static_cast<bool*>(base)[i] = (v != C{0});
    return;
  case DType::Float64:
    static_cast<double*>(base)[i] = static_cast<double>(v);
    return;
  }
}

// Calls f(T{}) with T the storage type of `t` (float, Half, BFloat16, int32_t, int64_t, bool,
// double), turning a runtime dtype into a template parameter.
template <class F>
decltype(auto) visit_dtype(DType t, F&& f) {
  switch (t) {
  case DType::Float32:
    return f(float{});
  case DType::Float16:
    return f(Half{});
  case DType::BFloat16:
    return f(BFloat16{});
  case DType::Int32:
    return f(std::int32_t{});
  case DType::Int64:
    return f(std::int64_t{});
  case DType::Float64:
    return f(double{});
  case DType::Bool:
    break;
  }
  return f(bool{});
}

// Calls f(C{}) with C the C++ type of the compute type `compute` (compute_type(): f32, f64 or
// i64), so a kernel instantiates its loop once per compute type.
template <class F>
decltype(auto) visit_compute(DType compute, F&& f) {
  if (compute == DType::Float32) {
    return f(float{});
  }
  if (compute == DType::Float64) {
    return f(double{});
  }
  return f(std::int64_t{});
}

template <class S>
inline constexpr bool kIsFloatStorage =
    std::is_same_v<S, float> || std::is_same_v<S, Half> || std::is_same_v<S, BFloat16>;

// Storage value -> compute value (f32 for float types, i64 for integers and bool).
template <class S>
float to_float(S v) noexcept {
  if constexpr (std::is_same_v<S, bool>) {
    return v ? 1.0f : 0.0f;
  } else {
    return static_cast<float>(v);
  }
}
template <class S>
std::int64_t to_i64(S v) noexcept {
  if constexpr (kIsFloatStorage<S>) {
    return saturating_cast<std::int64_t>(static_cast<double>(to_float(v)));
  } else {
    return static_cast<std::int64_t>(v);
  }
}

// Compute value -> storage value (16-bit floats round to nearest even).
template <class D>
D from_float(float f) noexcept {
  if constexpr (std::is_same_v<D, bool>) {
    return f != 0.0f;
  } else if constexpr (kIsFloatStorage<D>) {
    return D(f);
  } else {
    return saturating_cast<D>(static_cast<double>(f));
  }
}
template <class D>
D from_i64(std::int64_t v) noexcept {
  if constexpr (std::is_same_v<D, bool>) {
    return v != 0;
  } else if constexpr (kIsFloatStorage<D>) {
    return D(static_cast<float>(v));
  } else {
    return static_cast<D>(v);
  }
}

// Storage type S -> storage type D, through the compute type of S (double when either side is
// double, so f64 values keep their precision).
template <class D, class S>
D convert(S v) noexcept {
  if constexpr (std::is_same_v<D, S>) {
    return v;
  } else if constexpr (std::is_same_v<S, double>) {
    if constexpr (std::is_same_v<D, bool>) {
      return v != 0.0;
    } else if constexpr (kIsFloatStorage<D>) {
      return from_float<D>(static_cast<float>(v));
    } else {
      return saturating_cast<D>(v);
    }
  } else if constexpr (std::is_same_v<D, double>) {
    if constexpr (kIsFloatStorage<S> || std::is_same_v<S, bool>) {
      return static_cast<double>(to_float(v));
    } else {
      return static_cast<double>(v);
    }
  } else if constexpr (kIsFloatStorage<S>) {
    return from_float<D>(to_float(v));
  } else {
    return from_i64<D>(to_i64(v));
  }
}

} // namespace compiler::kernels
