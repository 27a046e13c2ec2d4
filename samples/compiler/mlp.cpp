// An MLP forward pass compiled whole: an nn::Sequential of Linear, GELU, LayerNorm and Linear
// passed as a module argument (guarded by identity and by the attributes its layers read),
// then softmax. Checks compiled against eager for three batch sizes (the second recompiles
// with a dynamic batch), switches GELU to its tanh form (an attribute change: a recompile),
// and prints the per-call time of the cached entry.
//   TORCH_TRACE=/tmp/trace ./sample_mlp
#include "compiler/capture/compile.h"
#include "compiler/nn/layers.h"
#include "compiler/ops/ops.h"
#include "sample_util.h"

#include <chrono>
#include <cstdio>
#include <memory>

using namespace compiler;

int main() {
  auto gelu_layer = std::make_shared<nn::GELU>();
  nn::Sequential model({std::make_shared<nn::Linear>(64, 128, true, 1), gelu_layer,
                        std::make_shared<nn::LayerNorm>(std::vector<std::int64_t>{128}),
                        std::make_shared<nn::Linear>(128, 10, true, 2)});
  auto forward = [](nn::Sequential& m, const Tensor& x) { return softmax(m(x), -1); };
  auto cforward = compile(forward, {.name = "mlp", .arg_names = {"model", "x"}});
  for (std::int64_t batch : {16, 32, 48}) {
    Tensor x = samples::wave({batch, 64}, static_cast<double>(batch));
    samples::expect_same(cforward(model, x), forward(model, x), "mlp");
  }
  gelu_layer->set_attribute("approximate", std::string("tanh"));
  Tensor x = samples::wave({32, 64});
  samples::expect_same(cforward(model, x), forward(model, x), "mlp (tanh gelu)");

  auto t0 = std::chrono::steady_clock::now();
  const int reps = 200;
  for (int i = 0; i < reps; ++i) {
    cforward(model, x);
  }
  double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
      reps;
  std::printf("mlp: %lld compiles (batch 16, dynamic batch, tanh GELU), %.1f us per call\n",
              static_cast<long long>(cforward.stats().compiles), us);
  std::printf("ok\n");
  return 0;
}
