// Data-dependent control flow, as PyTorch's w03 workload: a branch on a tensor's value breaks
// the graph; each branch becomes an entry of the resume frame; item() feeds a scalar back in.
//   TORCH_TRACE=/tmp/trace ./sample_data_dependent
#include "compiler/capture/compile.h"
#include "compiler/ops/ops.h"
#include "sample_util.h"

#include <cstdio>

using namespace compiler;

int main() {
  auto f_eager = [](const Tensor& x) {
    if (gt(sum(x), 0.0).to_bool()) {
      return mul(x, 2.0);
    }
    return sub(x, 1.0);
  };
  auto f = compile(f_eager, {.name = "f", .arg_names = {"x"}});
  Tensor pos = add(samples::wave({10}), 2.0);
  Tensor negative = compiler::neg(ones({SymInt(10)}));
  samples::expect_same(f(pos), f_eager(pos), "f (positive)");
  samples::expect_same(f(negative), f_eager(negative), "f (negative)");

  auto g_eager = [](const Tensor& x) {
    Tensor mask = gt(x, 0.0);
    double n = sum(to_dtype(mask, DType::Float32)).item_double();
    return add(sum(where(mask, x, zeros({SymInt(x.size(0))}))), n);
  };
  auto g = compile(g_eager, {.name = "g", .arg_names = {"x"}});
  Tensor x = samples::wave({100});
  samples::expect_same(g(x), g_eager(x), "g");
  std::printf("f: %lld compiles (%lld graph breaks); g: %lld compiles\n",
              static_cast<long long>(f.stats().compiles),
              static_cast<long long>(f.stats().graph_breaks),
              static_cast<long long>(g.stats().compiles));
  std::printf("ok\n");
  return 0;
}
