// Internal: AccumulateGrad, the backward function of a leaf that requires grad: it adds the
// gradient that reaches it into the leaf's grad(). Made on demand by gradient_edge() and kept
// alive by the graphs that use it (the leaf holds it weakly).
#pragma once

#include "compiler/autograd/node.h"

#include <memory>

namespace compiler::autograd {

class AccumulateGrad final : public Node {
public:
  explicit AccumulateGrad(std::shared_ptr<TensorImpl> leaf);
  std::string name() const override { return "torch::autograd::AccumulateGrad"; }
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override;
  const std::shared_ptr<TensorImpl>& leaf() const noexcept { return leaf_; }

private:
  std::shared_ptr<TensorImpl> leaf_;
};

} // namespace compiler::autograd
