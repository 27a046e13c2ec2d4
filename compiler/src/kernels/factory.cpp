// Factories: arange, full, zeros, ones, randn and rand.
//
// randn's and rand's generator is counter-based (kernels/counter_rng.h), so every element
// depends only on (seed, its counter):
//   r(j)     = random_bits(seed, j)                          (j = 0, 1, 2, ... for randn)
//   element 2p and 2p+1 come from the Box-Muller transform of the pair (r(2p), r(2p+1)):
//     u1 = ((r(2p) >> 11) + 1) / 2^53  in (0, 1]        u2 = (r(2p+1) >> 11) / 2^53  in [0, 1)
//     z0 = sqrt(-2 ln u1) cos(2 pi u2)                    z1 = sqrt(-2 ln u1) sin(2 pi u2)
// computed in double and stored rounded to the dtype. The same seed and shape give the same
// tensor on every platform with IEEE doubles and a correctly rounded libm on these inputs, and
// the first k elements of a larger draw equal a draw of k elements.
//
// rand's element i is uniform(seed, offset + i) (24 random bits), truncated to 11 bits for f16
// and 8 for bf16 so the value is exact in the dtype and below 1; the code generators lower it
// to the same arithmetic (loop op rand_uniform), so compiled draws equal eager draws.
#include "kernels/counter_rng.h"
#include "kernels/device_copy.h"
#include "kernels/element.h"
#include "kernels/kernels.h"
#include "kernels/parallel.h"
#include "kernels/shape_util.h"
#include "tensor/device_memory.h"

#include <cmath>
#include <numbers>

// Factories with a device (their optional last argument) make the tensor on the host and copy
// it over, so every device gets the same values; zeros are set on the device directly.

namespace compiler::kernels {

namespace {

void check_factory_sizes(const std::vector<SymInt>& sizes, const char* name) {
  for (const SymInt& s : sizes) {
    if (!s.is_symbolic() && s.hint() < 0) {
      user_error(std::string(name) + ": negative size in " + shape_string(sizes));
    }
  }
}

Tensor filled(const std::vector<SymInt>& sizes, double value, DType dtype, const char* name) {
  check_factory_sizes(sizes, name);
  Tensor out = make_output(sizes, dtype, false);
  if (value != 0.0) { // storage starts zeroed
    visit_dtype(dtype, [&](auto tag) {
      using T = decltype(tag);
      T* p = static_cast<T*>(out.raw_data());
      T v;
      if constexpr (std::is_same_v<T, double>) {
        v = value;
      } else if constexpr (kIsFloatStorage<T>) {
        v = from_float<T>(static_cast<float>(value));
      } else if constexpr (std::is_same_v<T, bool>) {
        v = value != 0.0;
      } else {
        v = saturating_cast<T>(value);
      }
      const std::int64_t n = out.numel();
      for (std::int64_t i = 0; i < n; ++i) {
        p[i] = v;
      }
    });
  }
  return out;
}

// arange's element count for the {start, end, step} form.
std::int64_t arange_count(double start, double end, double step) {
  if (step == 0.0 || !std::isfinite(start) || !std::isfinite(end) || !std::isfinite(step)) {
    user_error("arange: step must be non-zero and the bounds finite");
  }
  if ((end - start) * step < 0) {
    user_error("arange: the bounds [" + std::to_string(start) + ", " + std::to_string(end) +
               ") are inconsistent with the step's sign");
  }
  return static_cast<std::int64_t>(std::ceil((end - start) / step));
}

} // namespace

namespace {

// arange on the host. Its forms differ in their first argument: {SymInt end, dtype} or
// {double start, double end, double step, dtype}.
Tensor arange_host(std::span<const Value> args) {
  if (std::holds_alternative<SymInt>(arg(args, 0))) {
    const SymInt& end = value_sym_int(arg(args, 0));
    const DType dtype = value_dtype(arg(args, 1));
    if (end.hint() < 0) {
      user_error("arange: end must be non-negative, got " + end.to_string());
    }
    Tensor out = make_output({end}, dtype, false);
    for (std::int64_t i = 0; i < end.hint(); ++i) {
      store<std::int64_t>(out.raw_data(), dtype, i, i);
    }
    return out;
  }
  const double start = value_double(arg(args, 0));
  const double end = value_double(arg(args, 1));
  const double step = value_double(arg(args, 2));
  const DType dtype = value_dtype(arg(args, 3));
  const std::int64_t n = arange_count(start, end, step);
  Tensor out = make_output({SymInt(n)}, dtype, false);
  for (std::int64_t i = 0; i < n; ++i) {
    store<double>(out.raw_data(), dtype, i, start + static_cast<double>(i) * step);
  }
  return out;
}

} // namespace

Value eager_arange(std::span<const Value> args) {
  return to_device(arange_host(args), factory_device(args));
}

Value meta_arange(std::span<const Value> args) {
  if (std::holds_alternative<SymInt>(arg(args, 0))) {
    const SymInt& end = value_sym_int(arg(args, 0));
    if (!end.is_symbolic() && end.hint() < 0) {
      user_error("arange: end must be non-negative, got " + end.to_string());
    }
    return make_output({end}, value_dtype(arg(args, 1)), true);
  }
  const std::int64_t n = arange_count(value_double(arg(args, 0)), value_double(arg(args, 1)),
                                      value_double(arg(args, 2)));
  return make_output({SymInt(n)}, value_dtype(arg(args, 3)), true);
}

Value eager_full(std::span<const Value> args) {
  return to_device(filled(value_sym_ints(arg(args, 0)), value_double(arg(args, 1)),
                          value_dtype(arg(args, 2)), "full"),
                   factory_device(args));
}
Value meta_full(std::span<const Value> args) {
  check_factory_sizes(value_sym_ints(arg(args, 0)), "full");
  (void)value_double(arg(args, 1));
  return make_output(value_sym_ints(arg(args, 0)), value_dtype(arg(args, 2)), true);
}

Value eager_zeros(std::span<const Value> args) {
  const Device device = factory_device(args);
  if (device.is_cpu()) {
    return filled(value_sym_ints(arg(args, 0)), 0.0, value_dtype(arg(args, 1)), "zeros");
  }
  check_factory_sizes(value_sym_ints(arg(args, 0)), "zeros");
  const std::vector<std::int64_t> sizes = size_hints(value_sym_ints(arg(args, 0)));
  Tensor out = Tensor::empty(sizes, value_dtype(arg(args, 1)), device);
  device_memory::zero(device, out.raw_data(), out.impl()->storage->nbytes());
  return out;
}
Value meta_zeros(std::span<const Value> args) {
  check_factory_sizes(value_sym_ints(arg(args, 0)), "zeros");
  return make_output(value_sym_ints(arg(args, 0)), value_dtype(arg(args, 1)), true);
}

Value eager_ones(std::span<const Value> args) {
  return to_device(filled(value_sym_ints(arg(args, 0)), 1.0, value_dtype(arg(args, 1)), "ones"),
                   factory_device(args));
}
Value meta_ones(std::span<const Value> args) {
  check_factory_sizes(value_sym_ints(arg(args, 0)), "ones");
  return make_output(value_sym_ints(arg(args, 0)), value_dtype(arg(args, 1)), true);
}

Value eager_randn(std::span<const Value> args) {
  const std::vector<SymInt>& sizes = value_sym_ints(arg(args, 0));
  const auto seed = static_cast<std::uint64_t>(value_int(arg(args, 1)));
  const DType dtype = value_dtype(arg(args, 2));
  if (!is_floating(dtype)) {
    user_error("randn: needs a floating dtype, got " + std::string(dtype_name(dtype)));
  }
  check_factory_sizes(sizes, "randn");
  Tensor out = make_output(sizes, dtype, false);
  const std::uint64_t key = mix(seed);
  const std::int64_t n = out.numel();
  const std::int64_t pairs = (n + 1) / 2;
  void* data = out.raw_data();
  parallel_for(pairs, kDefaultGrain / 16, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t p = begin; p < end; ++p) {
      const auto j = static_cast<std::uint64_t>(2 * p);
      const std::uint64_t r1 = mix(key ^ (j * kCounterStride));
      const std::uint64_t r2 = mix(key ^ ((j + 1) * kCounterStride));
      const double u1 = static_cast<double>((r1 >> 11) + 1) * 0x1.0p-53;
      const double u2 = static_cast<double>(r2 >> 11) * 0x1.0p-53;
      const double radius = std::sqrt(-2.0 * std::log(u1));
      const double angle = 2.0 * std::numbers::pi * u2;
      store<double>(data, dtype, 2 * p, radius * std::cos(angle));
      if (2 * p + 1 < n) {
        store<double>(data, dtype, 2 * p + 1, radius * std::sin(angle));
      }
    }
  });
  return to_device(out, factory_device(args));
}

Value meta_randn(std::span<const Value> args) {
  const DType dtype = value_dtype(arg(args, 2));
  if (!is_floating(dtype)) {
    user_error("randn: needs a floating dtype, got " + std::string(dtype_name(dtype)));
  }
  check_factory_sizes(value_sym_ints(arg(args, 0)), "randn");
  return make_output(value_sym_ints(arg(args, 0)), dtype, true);
}

namespace {

void check_rand(std::span<const Value> args) {
  const DType dtype = value_dtype(arg(args, 3));
  if (!is_floating(dtype)) {
    user_error("rand: \"check_uniform_bounds\" not implemented for '" +
               std::string(dtype_name(dtype)) + "'");
  }
  check_factory_sizes(value_sym_ints(arg(args, 0)), "rand");
}

} // namespace

Value eager_rand(std::span<const Value> args) {
  check_rand(args);
  const std::vector<SymInt>& sizes = value_sym_ints(arg(args, 0));
  const auto seed = static_cast<std::uint64_t>(value_int(arg(args, 1)));
  const auto offset = static_cast<std::uint64_t>(value_int(arg(args, 2)));
  const DType dtype = value_dtype(arg(args, 3));
  Tensor out = make_output(sizes, dtype, false);
  const float scale = static_cast<float>(1 << uniform_bits_kept(dtype));
  const bool truncate = uniform_bits_kept(dtype) < kUniformBits;
  void* data = out.raw_data();
  parallel_for(out.numel(), kDefaultGrain / 4, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      float u = uniform(seed, offset + static_cast<std::uint64_t>(i));
      if (truncate) {
        u = std::floor(u * scale) / scale;
      }
      store<double>(data, dtype, i, static_cast<double>(u));
    }
  });
  return to_device(out, factory_device(args));
}

Value meta_rand(std::span<const Value> args) {
  check_rand(args);
  return make_output(value_sym_ints(arg(args, 0)), value_dtype(arg(args, 3)), true);
}

} // namespace compiler::kernels
