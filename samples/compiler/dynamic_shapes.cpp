// Dynamic shapes, as PyTorch's w16 workload: mark_dynamic, a branch on a symbolic size (a
// guard "s0 > 16"), 0/1 specialisation, and dynamic=true with size arithmetic in a view.
//   TORCH_TRACE=/tmp/trace ./sample_dynamic_shapes
#include "compiler/capture/compile.h"
#include "compiler/ops/ops.h"
#include "sample_util.h"

#include <cstdio>

using namespace compiler;

int main() {
  auto f_eager = [](const Tensor& x, const Tensor& y) {
    if (x.size(0) > 16) {
      return add(sum(mul(x, 2.0), {0}), y);
    }
    return sub(sum(x, {0}), y);
  };
  auto f = compile(f_eager, {.name = "f", .arg_names = {"x", "y"}});
  Tensor x = samples::wave({32, 8});
  mark_dynamic(x, 0);
  Tensor y = samples::wave({8}, 1.0);
  samples::expect_same(f(x, y), f_eager(x, y), "f (32)");
  Tensor x48 = samples::wave({48, 8});
  samples::expect_same(f(x48, y), f_eager(x48, y), "f (48)");
  Tensor x1 = samples::wave({1, 8});
  samples::expect_same(f(x1, y), f_eager(x1, y), "f (1)");

  auto g_eager = [](const Tensor& a) {
    return sum(reshape(a, {SymInt(-1), a.size(-1) / 2, SymInt(2)}), {-1});
  };
  auto g = compile(g_eager, {.dynamic = true, .name = "g", .arg_names = {"a"}});
  Tensor a = samples::wave({3, 10});
  Tensor b = samples::wave({5, 12});
  samples::expect_same(g(a), g_eager(a), "g (3x10)");
  samples::expect_same(g(b), g_eager(b), "g (5x12)");
  std::printf("f: %lld compiles; g: %lld compiles for 2 shapes\n",
              static_cast<long long>(f.stats().compiles),
              static_cast<long long>(g.stats().compiles));
  std::printf("ok\n");
  return 0;
}
