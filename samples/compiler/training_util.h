// Helpers shared by the training samples: the per-step comparison of a compiled model with its
// eager twin (loss and every parameter's gradient), printed as a table, with the tolerances the
// samples promise.
#pragma once

#include "compiler/tensor/tensor.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace samples {

struct Tolerances {
  double loss = 1e-4; // |compiled - eager| / max(1, |eager|)
  double grad = 1e-3; // max |compiled - eager| over every gradient / max |eager gradient|
};

// Sequences that follow a fixed rule (next = 5 * token + 3 mod vocab) from a per-row start, so
// next-token prediction is learnable: the inputs [batch, context] and the targets (each input
// shifted by one) [batch * context], both int64.
inline std::pair<compiler::Tensor, compiler::Tensor>
next_token_batch(int step, std::int64_t batch, std::int64_t context, std::int64_t vocab) {
  std::vector<double> idx;
  std::vector<double> next;
  for (std::int64_t r = 0; r < batch; ++r) {
    std::int64_t token = (step * 13 + r * 7) % vocab;
    for (std::int64_t i = 0; i < context; ++i) {
      idx.push_back(static_cast<double>(token));
      token = (5 * token + 3) % vocab;
      next.push_back(static_cast<double>(token));
    }
  }
  return {compiler::Tensor::from_values(idx, {batch, context}, compiler::DType::Int64),
          compiler::Tensor::from_values(next, {batch * context}, compiler::DType::Int64)};
}

class TrainingCheck {
public:
  TrainingCheck(std::string name, Tolerances tol) : name_(std::move(name)), tol_(tol) {
    std::printf("%s: compiled vs eager, per step\n", name_.c_str());
    std::printf("  step  loss(compiled)   loss(eager)      |dloss|    max|dgrad|/max|grad|\n");
  }

  using Params = std::vector<std::pair<std::string, compiler::Tensor>>;

  void step(int step, const compiler::Tensor& compiled_loss, const compiler::Tensor& eager_loss,
            const Params& compiled, const Params& eager) {
    const double lc = compiled_loss.item_double();
    const double le = eager_loss.item_double();
    const double dloss = std::abs(lc - le) / std::max(1.0, std::abs(le));
    double diff = 0.0;
    double scale = 0.0;
    for (std::size_t i = 0; i < compiled.size() && i < eager.size(); ++i) {
      const compiler::Tensor gc = compiled[i].second.grad();
      const compiler::Tensor ge = eager[i].second.grad();
      if (!gc.defined() || !ge.defined()) {
        missing_ = missing_ || gc.defined() != ge.defined();
        continue;
      }
      const std::vector<double> a = gc.to_vector();
      const std::vector<double> b = ge.to_vector();
      for (std::size_t k = 0; k < a.size(); ++k) {
        diff = std::max(diff, std::abs(a[k] - b[k]));
        scale = std::max(scale, std::abs(b[k]));
      }
    }
    const double dgrad = scale > 0 ? diff / scale : diff;
    std::printf("  %4d  %14.8f  %14.8f  %10.2e  %10.2e\n", step, lc, le, dloss, dgrad);
    if (step == 0) {
      first_loss_ = le;
    }
    last_loss_ = le;
    max_dloss_ = std::max(max_dloss_, dloss);
    max_dgrad_ = std::max(max_dgrad_, dgrad);
    ++steps_;
  }

  // Prints the summary; the process's exit status (1 when the tolerances were exceeded).
  int finish() const {
    const bool ok = !missing_ && max_dloss_ <= tol_.loss && max_dgrad_ <= tol_.grad;
    std::printf("%s: %d steps, eager loss %.4f -> %.4f; compiled vs eager: max |dloss| %.2e "
                "(tolerance %.0e), max gradient difference %.2e of the largest gradient "
                "(tolerance %.0e)%s\n",
                name_.c_str(), steps_, first_loss_, last_loss_, max_dloss_, tol_.loss, max_dgrad_,
                tol_.grad, missing_ ? "; a gradient is missing on one side" : "");
    std::printf("%s\n", ok ? "ok" : "FAILED: compiled and eager training disagree");
    return ok ? 0 : 1;
  }

private:
  std::string name_;
  Tolerances tol_;
  int steps_ = 0;
  double first_loss_ = 0.0;
  double last_loss_ = 0.0;
  double max_dloss_ = 0.0;
  double max_dgrad_ = 0.0;
  bool missing_ = false;
};

} // namespace samples
