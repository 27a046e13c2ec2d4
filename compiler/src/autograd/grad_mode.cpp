// Grad mode and the "below autograd" flag, both per thread.
#include "compiler/autograd/grad_mode.h"

#include "autograd/record.h"

namespace compiler::autograd {

namespace {
thread_local bool t_grad_enabled = true;
thread_local bool t_below_autograd = false;
} // namespace

bool is_grad_enabled() noexcept {
  return t_grad_enabled;
}

void set_grad_enabled(bool enabled) noexcept {
  t_grad_enabled = enabled;
}

GradModeGuard::GradModeGuard(bool enabled) noexcept : previous_(t_grad_enabled) {
  t_grad_enabled = enabled;
}

GradModeGuard::~GradModeGuard() {
  t_grad_enabled = previous_;
}

namespace detail {

bool below_autograd() noexcept {
  return t_below_autograd;
}

BelowAutogradGuard::BelowAutogradGuard() noexcept : previous_(t_below_autograd) {
  t_below_autograd = true;
}

BelowAutogradGuard::~BelowAutogradGuard() {
  t_below_autograd = previous_;
}

} // namespace detail

} // namespace compiler::autograd
