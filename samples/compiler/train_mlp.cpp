// Training an MLP classifier for 50 steps with a compiled model, as PyTorch's w01 workload
// does: nn::Sequential(Linear(256, 512), GELU, LayerNorm(512), Linear(512, 10)) compiled, the
// cross-entropy loss and AdamW eager around it. The compiled forward runs the AOT stage's
// forward graph; loss.backward() reaches its CompiledFunctionBackward and runs the backward
// graph; the optimizer updates the parameters in place (no recompile). An identical eager
// model trains alongside, and every step prints both losses and the largest gradient
// difference; the program fails if they disagree beyond the stated tolerances.
//   TORCH_TRACE=/tmp/trace ./sample_train_mlp
#include "compiler/autograd/autograd.h"
#include "compiler/capture/compile.h"
#include "compiler/nn/layers.h"
#include "compiler/ops/ops.h"
#include "compiler/optim/optim.h"
#include "training_util.h"

#include <cstdio>
#include <memory>

using namespace compiler;

namespace {

std::shared_ptr<nn::Sequential> make_model() {
  return std::make_shared<nn::Sequential>(std::initializer_list<std::shared_ptr<nn::Module>>{
      std::make_shared<nn::Linear>(256, 512, true, 11), std::make_shared<nn::GELU>(),
      std::make_shared<nn::LayerNorm>(std::vector<std::int64_t>{512}),
      std::make_shared<nn::Linear>(512, 10, true, 12)});
}

} // namespace

int main() {
  constexpr int kSteps = 50;
  constexpr std::int64_t kBatch = 64;
  auto compiled_model = make_model();
  auto eager_model = make_model();
  auto forward = [](nn::Sequential& m, const Tensor& x) { return m(x); };
  auto cmodel = compile(forward, {.name = "mlp_forward", .arg_names = {"model", "x"}});
  const optim::AdamOptions adamw{.lr = 1e-3, .weight_decay = 0.01, .decoupled_weight_decay = true};
  optim::Adam copt(compiled_model->parameters(), adamw);
  optim::Adam eopt(eager_model->parameters(), adamw);
  // A fixed random "teacher" labels the inputs, so the loss has something to learn.
  const Tensor teacher = randn({256, 10}, 99);

  samples::TrainingCheck check("train_mlp", {.loss = 1e-4, .grad = 1e-3});
  for (int step = 0; step < kSteps; ++step) {
    const Tensor x = randn({kBatch, 256}, static_cast<std::uint64_t>(1000 + step));
    Tensor y;
    {
      autograd::NoGradGuard no_grad;
      y = argmax(matmul(x, teacher), 1);
    }
    const Tensor closs = cross_entropy(cmodel(*compiled_model, x), y);
    const Tensor eloss = cross_entropy(forward(*eager_model, x), y);
    closs.backward();
    eloss.backward();
    check.step(step, closs, eloss, compiled_model->named_parameters(),
               eager_model->named_parameters());
    copt.step();
    eopt.step();
    copt.zero_grad();
    eopt.zero_grad();
  }
  std::printf("train_mlp: %lld compile(s) of the model for %d steps\n",
              static_cast<long long>(cmodel.stats().compiles), kSteps);
  return check.finish();
}
