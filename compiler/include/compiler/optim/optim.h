// compiler/optim: optimizers over leaf parameters, as torch.optim's SGD (with momentum) and
// Adam (AdamW with decoupled weight decay).
//
//   optim::Adam opt(model.parameters(), {.lr = 1e-3});
//   loss.backward(); opt.step(); opt.zero_grad();
//
// step() reads each parameter's grad() and updates the parameter's memory in place
// (autograd::assign_, under no_grad), so a compiled function that reads the parameters sees
// the new values on its next call without recompiling. Parameters without a gradient are left
// alone, as in PyTorch.
#pragma once

#include "compiler/tensor/tensor.h"

#include <cstdint>
#include <vector>

namespace compiler::optim {

class Optimizer {
public:
  // UserError when a parameter is not a floating leaf that requires grad.
  explicit Optimizer(std::vector<Tensor> params);
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // One update from the current gradients.
  virtual void step() = 0;
  // Clears every parameter's gradient (PyTorch's default set_to_none=True).
  void zero_grad();
  const std::vector<Tensor>& params() const noexcept { return params_; }
  // How many step() calls ran.
  std::int64_t steps() const noexcept { return steps_; }

protected:
  // One step's loop: under no_grad, calls update(i, parameter, gradient) for each parameter
  // that has a gradient.
  template <class Update>
  void for_each_gradient(Update&& update);

  std::vector<Tensor> params_;
  std::int64_t steps_ = 0;
};

struct SGDOptions {
  double lr = 1e-2;
  double momentum = 0.0;
  double dampening = 0.0;
  double weight_decay = 0.0;
  bool nesterov = false;
};

// p -= lr * v, where v is the gradient (plus weight_decay * p) or, with momentum, the buffer
// b = momentum * b + (1 - dampening) * g (b = g on the first step); nesterov uses g + momentum*b.
class SGD final : public Optimizer {
public:
  SGD(std::vector<Tensor> params, SGDOptions options);
  void step() override;

private:
  SGDOptions options_;
  std::vector<Tensor> momentum_; // per parameter, undefined until its first step
};

struct AdamOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.0;
  // Weight decay applied to the parameter directly (AdamW) instead of added to the gradient.
  bool decoupled_weight_decay = false;
};

// m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2;
// p -= lr * (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps).
class Adam final : public Optimizer {
public:
  Adam(std::vector<Tensor> params, AdamOptions options);
  void step() override;

private:
  AdamOptions options_;
  std::vector<Tensor> m_;
  std::vector<Tensor> v_;
  std::vector<std::int64_t> t_;
};

} // namespace compiler::optim
