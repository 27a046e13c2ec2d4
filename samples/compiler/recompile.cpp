// Recompilations, as PyTorch's w02 workload: a static compile, a size change that makes dim 0
// dynamic, a dtype change, a scalar change, then a function with a graph break. The trace has
// the compile ids, recompile reasons and graph break of PyTorch's log of w02
// (tests/compiler/sample_logs_test.cpp checks it).
//   TORCH_TRACE=/tmp/trace ./sample_recompile
#include "compiler/capture/compile.h"
#include "compiler/ops/ops.h"
#include "sample_util.h"

#include <cstdio>

using namespace compiler;

int main() {
  auto f_eager = [](const Tensor& x, double scale) {
    Tensor y = mul(sin(x), scale);
    // Named steps keep the ops in Python's order (C++ leaves argument order unspecified).
    Tensor r = relu(y);
    Tensor m = mean(x, {-1}, true);
    return add(r, m);
  };
  auto f = compile(f_eager, {.name = "f", .arg_names = {"x", "scale"}});
  for (std::int64_t n : {8, 16, 32, 64}) {
    Tensor x = samples::wave({n, 128});
    samples::expect_same(f(x, 2.0), f_eager(x, 2.0), "f");
  }
  Tensor half = samples::wave({8, 128}, 0.0, DType::Float16);
  samples::expect_same(f(half, 2.0), f_eager(half, 2.0), "f (f16)");
  Tensor x8 = samples::wave({8, 128});
  samples::expect_same(f(x8, 3.0), f_eager(x8, 3.0), "f (scale 3)");

  auto g_eager = [](const Tensor& x) {
    Tensor a = cos(x);
    // Printing a tensor's value reads it on the host: a graph break at a call, as print() is
    // in the Python workload. The graph restarts, ends before sum().item(), and the rest of
    // the function is a resume frame.
    std::printf("graph break here (%.3f)\n", sum(a).item_double());
    return mul(a, 2.0);
  };
  auto g = compile(g_eager, {.name = "g", .arg_names = {"x"}});
  Tensor x4 = samples::wave({4, 4});
  samples::expect_same(g(x4), g_eager(x4), "g");

  std::printf(
      "f: %lld compiles, %lld cache hits; g: %lld compiles, %lld graph breaks\n",
      static_cast<long long>(f.stats().compiles), static_cast<long long>(f.stats().cache_hits),
      static_cast<long long>(g.stats().compiles), static_cast<long long>(g.stats().graph_breaks));
  std::printf("ok\n");
  return 0;
}
