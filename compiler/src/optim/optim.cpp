// SGD and Adam: each update is computed with ops under no_grad and written into the
// parameter's memory with assign_ (which bumps the storage version, so a graph saved before
// the update refuses to run backward).
#include "compiler/optim/optim.h"

#include "compiler/autograd/autograd.h"
#include "compiler/core/errors.h"
#include "compiler/ops/ops.h"

#include <cmath>
#include <string>

namespace compiler::optim {

Optimizer::Optimizer(std::vector<Tensor> params) : params_(std::move(params)) {
  for (std::size_t i = 0; i < params_.size(); ++i) {
    const Tensor& p = params_[i];
    if (!p.defined() || !p.requires_grad() || !p.is_leaf()) {
      user_error("optimizer: parameter " + std::to_string(i) +
                 " must be a leaf tensor that requires grad");
    }
  }
}

template <class Update>
void Optimizer::for_each_gradient(Update&& update) {
  autograd::NoGradGuard no_grad;
  ++steps_;
  for (std::size_t i = 0; i < params_.size(); ++i) {
    const Tensor g = params_[i].grad();
    if (g.defined()) {
      update(i, params_[i], g);
    }
  }
}

void Optimizer::zero_grad() {
  for (const Tensor& p : params_) {
    p.set_grad(Tensor());
  }
}

SGD::SGD(std::vector<Tensor> params, SGDOptions options)
    : Optimizer(std::move(params)), options_(options), momentum_(params_.size()) {
  if (options_.lr < 0 || options_.momentum < 0 || options_.weight_decay < 0) {
    user_error("SGD: lr, momentum and weight_decay must be non-negative");
  }
  if (options_.nesterov && (options_.momentum <= 0 || options_.dampening != 0)) {
    user_error("SGD: nesterov momentum requires a momentum and zero dampening");
  }
}

void SGD::step() {
  for_each_gradient([&](std::size_t i, const Tensor& p, Tensor g) {
    if (options_.weight_decay != 0) {
      g = add(g, mul(p, options_.weight_decay));
    }
    if (options_.momentum != 0) {
      Tensor& buf = momentum_[i];
      buf = buf.defined() ? add(mul(buf, options_.momentum), mul(g, 1.0 - options_.dampening)) : g;
      g = options_.nesterov ? add(g, mul(buf, options_.momentum)) : buf;
    }
    autograd::assign_(p, sub(p, mul(g, options_.lr)));
  });
}

Adam::Adam(std::vector<Tensor> params, AdamOptions options)
    : Optimizer(std::move(params)), options_(options), m_(params_.size()), v_(params_.size()),
      t_(params_.size(), 0) {
  if (options_.lr < 0 || options_.eps < 0 || options_.weight_decay < 0) {
    user_error("Adam: lr, eps and weight_decay must be non-negative");
  }
  if (options_.beta1 < 0 || options_.beta1 >= 1 || options_.beta2 < 0 || options_.beta2 >= 1) {
    user_error("Adam: betas must be in [0, 1)");
  }
}

void Adam::step() {
  for_each_gradient([&](std::size_t i, const Tensor& p, Tensor g) {
    Tensor base = p;
    if (options_.weight_decay != 0) {
      if (options_.decoupled_weight_decay) {
        base = mul(p, 1.0 - options_.lr * options_.weight_decay);
      } else {
        g = add(g, mul(p, options_.weight_decay));
      }
    }
    const std::int64_t t = ++t_[i];
    m_[i] = m_[i].defined() ? add(mul(m_[i], options_.beta1), mul(g, 1.0 - options_.beta1))
                            : mul(g, 1.0 - options_.beta1);
    const Tensor g2 = mul(g, g);
    v_[i] = v_[i].defined() ? add(mul(v_[i], options_.beta2), mul(g2, 1.0 - options_.beta2))
                            : mul(g2, 1.0 - options_.beta2);
    const double bias1 = 1.0 - std::pow(options_.beta1, static_cast<double>(t));
    const double bias2 = 1.0 - std::pow(options_.beta2, static_cast<double>(t));
    const Tensor denom = add(sqrt(div(v_[i], bias2)), options_.eps);
    const Tensor update = mul(div(div(m_[i], bias1), denom), options_.lr);
    autograd::assign_(p, sub(base, update));
  });
}

} // namespace compiler::optim
