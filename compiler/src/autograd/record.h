// Internal: how dispatch() records history. An op call whose tensor inputs require grad (with
// grad mode on) goes through call_with_history(): the op runs "below autograd" (the hook or
// the eager kernel, and any ops they issue, record nothing), then a backward node built from
// the op's derivative entry becomes the output's grad_fn. Everything else dispatches directly.
#pragma once

#include "compiler/core/value.h"
#include "compiler/ops/op_hook.h"

#include <source_location>
#include <span>

namespace compiler::autograd::detail {

// True while an op is being computed below autograd on this thread.
bool below_autograd() noexcept;

// RAII: marks this thread as below autograd.
class BelowAutogradGuard {
public:
  BelowAutogradGuard() noexcept;
  ~BelowAutogradGuard();
  BelowAutogradGuard(const BelowAutogradGuard&) = delete;
  BelowAutogradGuard& operator=(const BelowAutogradGuard&) = delete;

private:
  bool previous_;
};

// Whether a call with these arguments records history: grad mode on, not below autograd, and
// some tensor argument requires grad.
bool wants_history(std::span<const Value> args) noexcept;

// Runs the op below autograd and attaches its backward node to the result.
Value call_with_history(OpKind op, std::span<const Value> args, const std::source_location& loc);

} // namespace compiler::autograd::detail
