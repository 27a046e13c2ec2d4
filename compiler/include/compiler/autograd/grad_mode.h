// compiler/autograd: grad mode, the per-thread switch that says whether ops record history for
// backward (torch.is_grad_enabled). Off inside backward itself, in the optimizers' updates, and
// wherever a NoGradGuard lives; compiled entries guard on it (a change recompiles).
#pragma once

namespace compiler::autograd {

// True unless a NoGradGuard (or set_grad_enabled(false)) is active on this thread.
bool is_grad_enabled() noexcept;
void set_grad_enabled(bool enabled) noexcept;

// RAII: sets grad mode for the scope's lifetime and restores the previous mode (torch.no_grad
// is GradModeGuard(false); torch.enable_grad is GradModeGuard(true)).
class GradModeGuard {
public:
  explicit GradModeGuard(bool enabled) noexcept;
  ~GradModeGuard();
  GradModeGuard(const GradModeGuard&) = delete;
  GradModeGuard& operator=(const GradModeGuard&) = delete;

private:
  bool previous_;
};

// RAII: no history is recorded in this scope (torch.no_grad()).
class NoGradGuard : public GradModeGuard {
public:
  NoGradGuard() noexcept : GradModeGuard(false) {}
};

} // namespace compiler::autograd
