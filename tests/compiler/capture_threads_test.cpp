// compile() from several threads: one compiled function called concurrently with inputs that
// hit, miss and recompile its cache (and its resume frames) returns eager's results, and
// compiles each distinct entry once.
#include "compiler/capture/compile.h"
#include "compiler/ops/ops.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <thread>
#include <vector>

using namespace compiler;

namespace {

Tensor ramp(std::vector<std::int64_t> sizes, double start, DType dtype = DType::Float32) {
  std::int64_t n = 1;
  for (std::int64_t s : sizes) {
    n *= s;
  }
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i] = start + 0.25 * static_cast<double>(i % 5);
  }
  return Tensor::from_values(v, std::move(sizes), dtype);
}

} // namespace

TEST_CASE("one compiled function called from several threads equals eager and compiles each "
          "entry once",
          "[compiler][capture]") {
  auto f_eager = [](const Tensor& x, double scale) {
    Tensor y = mul(sin(x), scale);
    // A data-dependent branch: every call also goes through a resume frame.
    if (gt(sum(y), 0.0).to_bool()) {
      return add(y, 1.0);
    }
    return sub(y, 1.0);
  };
  auto f = compile(f_eager, {.name = "f", .arg_names = {"x", "scale"}});
  // Inputs every thread cycles through: two dtypes, two scales, a positive and a negative sum.
  std::vector<std::pair<Tensor, double>> inputs{{ramp({4, 8}, 0.5), 2.0},
                                                {ramp({4, 8}, -3.0), 2.0},
                                                {ramp({4, 8}, 0.5, DType::Float16), 2.0},
                                                {ramp({4, 8}, 0.5), -1.0}};
  std::vector<Tensor> expected;
  for (const auto& [x, s] : inputs) {
    expected.push_back(f_eager(x, s));
  }
  constexpr int kThreads = 4;
  constexpr int kRounds = 50;
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        std::size_t i = static_cast<std::size_t>(t + r) % inputs.size();
        Tensor out = f(inputs[i].first, inputs[i].second);
        if (out.sizes() != expected[i].sizes() || out.to_vector() != expected[i].to_vector()) {
          ++mismatches;
        }
      }
    });
  }
  for (std::thread& th : threads) {
    th.join();
  }
  CHECK(mismatches.load() == 0);
  const capture::CaptureStats s = f.stats();
  CHECK(s.calls == kThreads * kRounds);
  // Each input compiles the root frame at most once, and its branch's resume frame at most once
  // (a compile that another thread already made is found under the lock, not redone).
  CHECK(s.compiles <= 2 * static_cast<std::int64_t>(inputs.size()));
  CHECK(s.compiles >= 3);
  CHECK(s.failed_compiles == 0);
  CHECK(s.eager_frames == 0);
  CHECK(f.records().size() == static_cast<std::size_t>(s.compiles));
}
