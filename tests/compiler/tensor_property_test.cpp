// Randomised checks: pointwise ops and reductions on random shapes, broadcasts, strides
// (transposed and stepped views) and dtypes agree with a per-element reference computed from
// Tensor::at, and run_meta agrees with run_eager on every case. The generator is seeded, so a
// failure reproduces.
#include "compiler/core/errors.h"
#include "compiler/ops/op_hook.h"
#include "tensor_test_util.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <random>

using namespace compiler;

namespace {

using Index = std::vector<std::int64_t>;

// Every multi-index of `sizes` in row-major order.
std::vector<Index> all_indices(const Index& sizes) {
  std::vector<Index> out;
  std::int64_t n = 1;
  for (std::int64_t s : sizes) {
    n *= s;
  }
  Index idx(sizes.size(), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    out.push_back(idx);
    for (std::size_t d = sizes.size(); d-- > 0;) {
      if (++idx[d] < sizes[d]) {
        break;
      }
      idx[d] = 0;
    }
  }
  return out;
}

// A tensor of `sizes` and `dtype` with small integer or half-integer values (exact in every
// dtype), laid out randomly: contiguous, a transposed copy viewed back, or a stepped slice.
Tensor random_tensor(std::mt19937& rng, const Index& sizes, DType dtype) {
  std::uniform_int_distribution<int> value(-8, 8);
  std::uniform_int_distribution<int> layout(0, 2);
  const bool halves = is_floating(dtype);
  auto fill = [&](const Index& s) {
    std::vector<double> values;
    for (std::size_t i = 0; i < all_indices(s).size(); ++i) {
      const double v = value(rng);
      values.push_back(dtype == DType::Bool ? (v > 0 ? 1.0 : 0.0) : (halves ? v / 2 : v));
    }
    return Tensor::from_values(values, s, dtype);
  };
  const int kind = layout(rng);
  if (kind == 1 && sizes.size() >= 2) {
    Index swapped = sizes;
    std::swap(swapped[0], swapped.back());
    return fill(swapped).transpose(0, static_cast<std::int64_t>(sizes.size()) - 1);
  }
  if (kind == 2 && !sizes.empty()) {
    Index doubled = sizes;
    doubled[0] *= 2;
    return fill(doubled).slice(0, 0, doubled[0], 2);
  }
  return fill(sizes);
}

DType random_dtype(std::mt19937& rng, bool allow_bool) {
  static constexpr DType kTypes[] = {DType::Float32, DType::Float16, DType::BFloat16,
                                     DType::Int32,   DType::Int64,   DType::Bool};
  std::uniform_int_distribution<int> pick(0, allow_bool ? 5 : 4);
  return kTypes[pick(rng)];
}

// The value of `x` at `out_index` under broadcasting to the output's rank.
double broadcast_at(const Tensor& x, const Index& out_index) {
  Index idx;
  const std::size_t lead = out_index.size() - static_cast<std::size_t>(x.dim());
  for (std::size_t d = 0; d < static_cast<std::size_t>(x.dim()); ++d) {
    idx.push_back(x.sizes()[d] == 1 ? 0 : out_index[lead + d]);
  }
  return x.at(idx);
}

} // namespace

TEST_CASE("pointwise ops on random broadcast, strided, mixed-dtype inputs match a reference",
          "[compiler][tensor]") {
  std::mt19937 rng(1234);
  std::uniform_int_distribution<int> rank_dist(0, 3);
  std::uniform_int_distribution<int> size_dist(1, 4);
  std::uniform_int_distribution<int> coin(0, 1);
  for (int iter = 0; iter < 300; ++iter) {
    Index out;
    for (int d = rank_dist(rng); d > 0; --d) {
      out.push_back(size_dist(rng));
    }
    auto operand_shape = [&] {
      Index s;
      const std::size_t drop = out.empty() ? 0 : static_cast<std::size_t>(coin(rng));
      for (std::size_t d = drop; d < out.size(); ++d) {
        s.push_back(coin(rng) ? out[d] : 1);
      }
      return s;
    };
    const DType da = random_dtype(rng, true);
    const DType db = random_dtype(rng, true);
    const Tensor a = random_tensor(rng, operand_shape(), da);
    const Tensor b = random_tensor(rng, operand_shape(), db);
    INFO("iteration " << iter << ": " << a.type_string() << " op " << b.type_string());

    struct Case {
      OpKind op;
      double (*ref)(double, double);
    };
    const Case cases[] = {
        {OpKind::add, [](double x, double y) { return x + y; }},
        {OpKind::mul, [](double x, double y) { return x * y; }},
        {OpKind::div, [](double x, double y) { return x / y; }},
        {OpKind::gt, [](double x, double y) { return x > y ? 1.0 : 0.0; }},
        {OpKind::eq, [](double x, double y) { return x == y ? 1.0 : 0.0; }},
    };
    for (const Case& c : cases) {
      INFO("op " << op_name(c.op));
      const std::vector<Value> args = {a, b};
      const Tensor got = value_tensor(run_eager(c.op, args));
      const Tensor meta = value_tensor(run_meta(c.op, args));
      CHECK(meta.sizes() == got.sizes());
      CHECK(meta.dtype() == got.dtype());
      const std::vector<Index> indices = all_indices(got.sizes());
      std::vector<double> want;
      for (const Index& idx : indices) {
        want.push_back(c.ref(broadcast_at(a, idx), broadcast_at(b, idx)));
      }
      // Round the reference through the result dtype, as the kernel stores it.
      const Tensor expected = Tensor::from_values(want, got.sizes(), got.dtype());
      const std::vector<double> g = got.to_vector();
      const std::vector<double> e = expected.to_vector();
      for (std::size_t i = 0; i < g.size(); ++i) {
        if (std::isnan(e[i])) {
          CHECK(std::isnan(g[i]));
        } else {
          CHECK(g[i] == e[i]);
        }
      }
    }
  }
}

TEST_CASE("reductions over random dims of random strided tensors match a reference",
          "[compiler][tensor]") {
  std::mt19937 rng(99);
  std::uniform_int_distribution<int> rank_dist(1, 4);
  std::uniform_int_distribution<int> size_dist(1, 4);
  std::uniform_int_distribution<int> coin(0, 1);
  for (int iter = 0; iter < 200; ++iter) {
    Index sizes;
    for (int d = rank_dist(rng); d > 0; --d) {
      sizes.push_back(size_dist(rng));
    }
    const DType dtype = random_dtype(rng, false);
    const Tensor x = random_tensor(rng, sizes, dtype);
    std::vector<std::int64_t> dims;
    for (std::size_t d = 0; d < sizes.size(); ++d) {
      if (coin(rng)) {
        dims.push_back(coin(rng) ? static_cast<std::int64_t>(d)
                                 : static_cast<std::int64_t>(d) - x.dim());
      }
    }
    const bool keepdim = coin(rng) == 1;
    INFO("iteration " << iter << ": " << x.type_string() << " dims " << value_to_string(dims)
                      << " keepdim " << keepdim);
    const Tensor s = sum(x, dims, keepdim);
    const Tensor m = amax(x, dims, keepdim);
    // Reference: accumulate each input element into its output slot.
    std::vector<bool> reduced(sizes.size(), dims.empty());
    for (std::int64_t d : dims) {
      reduced[static_cast<std::size_t>(d < 0 ? d + x.dim() : d)] = true;
    }
    Index out_sizes;
    for (std::size_t d = 0; d < sizes.size(); ++d) {
      if (!reduced[d]) {
        out_sizes.push_back(sizes[d]);
      } else if (keepdim) {
        out_sizes.push_back(1);
      }
    }
    REQUIRE(s.sizes() == out_sizes);
    REQUIRE(m.sizes() == out_sizes);
    const std::size_t out_n = all_indices(out_sizes).size();
    std::vector<double> want_sum(out_n, 0.0);
    std::vector<double> want_max(out_n, -INFINITY);
    for (const Index& idx : all_indices(sizes)) {
      std::size_t slot = 0;
      std::size_t od = 0;
      for (std::size_t d = 0; d < sizes.size(); ++d) {
        if (!reduced[d]) {
          slot = slot * static_cast<std::size_t>(out_sizes[od]) + static_cast<std::size_t>(idx[d]);
          ++od;
        } else if (keepdim) {
          ++od; // a kept size-1 dim contributes index 0
        }
      }
      const double v = x.at(idx);
      want_sum[slot] += v;
      want_max[slot] = std::max(want_max[slot], v);
    }
    tensor_test::check_values(s, want_sum, 1e-6);
    tensor_test::check_values(m, want_max, 0.0);
    if (is_floating(dtype)) {
      std::vector<double> want_mean;
      const double count = static_cast<double>(x.numel()) / static_cast<double>(out_n);
      for (double v : want_sum) {
        want_mean.push_back(v / count);
      }
      tensor_test::check_values(mean(x, dims, keepdim), want_mean, 1e-2);
    }
  }
}
