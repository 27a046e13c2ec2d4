// Data-dependent control flow, as PyTorch's w03 workload: a branch on a tensor's value breaks
// the graph and the branch taken continues in a resume frame; a count computed in the graph.
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
  // Both inputs sum below zero, as in the PyTorch run of w03: the branch ends graph 0/0, the
  // `x - 1` side becomes the resume frame 1/0, and the second call hits both entries. (The
  // other side would be a frame of its own, as Dynamo makes one resume function per target.)
  Tensor below = sub(samples::wave({10}), 2.0);
  Tensor negative = compiler::neg(ones({SymInt(10)}));
  samples::expect_same(f(below), f_eager(below), "f (negative sum)");
  samples::expect_same(f(negative), f_eager(negative), "f (-1s)");

  // w03's g reads a count with item() under capture_scalar_outputs; we keep the count a 0-dim
  // tensor instead (no unbacked symbols yet), so the whole function is one graph, fullgraph.
  auto g_eager = [](const Tensor& x) {
    Tensor mask = gt(x, 0.0);
    Tensor n = sum(to_dtype(mask, DType::Float32));
    return add(sum(where(mask, x, zeros({SymInt(x.size(0))}))), n);
  };
  auto g = compile(g_eager, {.fullgraph = true, .name = "g", .arg_names = {"x"}});
  Tensor x = samples::wave({100});
  samples::expect_same(g(x), g_eager(x), "g");
  std::printf("f: %lld compiles (%lld graph breaks); g: %lld compiles\n",
              static_cast<long long>(f.stats().compiles),
              static_cast<long long>(f.stats().graph_breaks),
              static_cast<long long>(g.stats().compiles));
  std::printf("ok\n");
  return 0;
}
