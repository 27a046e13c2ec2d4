// Training a small Llama-style decoder with its whole training step's forward compiled: token
// embedding, blocks of RMSNorm -> causal self-attention with rotary position embeddings ->
// residual -> RMSNorm -> SwiGLU MLP -> residual, a final RMSNorm and the output head, and the
// next-token cross-entropy inside the compiled function (the AOT stage compiles forward and
// backward together); AdamW stays eager. An identical eager model trains alongside; every step
// prints both losses and the largest gradient difference, and the program fails if they disagree
// beyond the stated tolerances.
//
//   TORCH_TRACE=/tmp/trace ./sample_train_llama            # 20 checked steps
//   ./sample_train_llama --bench [--no-eager] [--steps N]  # timings (--no-eager: ours only)
//
// --bench prints the cold compile time of the step (its first call, forward and backward) and
// the median time of a compiled step and of an eager step after it; scripts/bench-models.sh runs
// PyTorch 1.13 eager on the same model (scripts/bench_models_torch.py) beside it.
#include "compiler/autograd/autograd.h"
#include "compiler/capture/compile.h"
#include "compiler/nn/layers.h"
#include "compiler/ops/ops.h"
#include "compiler/optim/optim.h"
#include "training_util.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace compiler;

namespace {

// The model's sizes (scripts/bench_models_torch.py builds the same model).
constexpr std::int64_t kVocab = 256;
constexpr std::int64_t kDim = 128;
constexpr std::int64_t kHeads = 4;
constexpr std::int64_t kHeadDim = kDim / kHeads;
constexpr std::int64_t kHidden = 344; // SwiGLU's width: about 8/3 of kDim, as Llama sizes it
constexpr std::int64_t kLayers = 2;
constexpr std::int64_t kContext = 64;
constexpr std::int64_t kBatch = 8;

// 0 on and below the diagonal, -1e9 above: added to the attention scores, it hides the future.
Tensor causal_mask(std::int64_t t) {
  std::vector<double> v(static_cast<std::size_t>(t * t));
  for (std::int64_t i = 0; i < t; ++i) {
    for (std::int64_t j = 0; j < t; ++j) {
      v[static_cast<std::size_t>(i * t + j)] = j > i ? -1e9 : 0.0;
    }
  }
  return Tensor::from_values(v, {t, t});
}

// Rotary embedding tables [T, head_dim / 2]: angle t * base^(-2i / head_dim), base 10000.
std::pair<Tensor, Tensor> rotary_tables(std::int64_t t, std::int64_t head_dim) {
  const std::int64_t half = head_dim / 2;
  std::vector<double> c(static_cast<std::size_t>(t * half));
  std::vector<double> s(c.size());
  for (std::int64_t p = 0; p < t; ++p) {
    for (std::int64_t i = 0; i < half; ++i) {
      const double angle =
          static_cast<double>(p) *
          std::pow(10000.0, -2.0 * static_cast<double>(i) / static_cast<double>(head_dim));
      c[static_cast<std::size_t>(p * half + i)] = std::cos(angle);
      s[static_cast<std::size_t>(p * half + i)] = std::sin(angle);
    }
  }
  return {Tensor::from_values(c, {t, half}), Tensor::from_values(s, {t, half})};
}

// Rotates each (first half, second half) pair of the last dim of x [B, H, T, D] by its angle.
Tensor apply_rotary(const Tensor& x, const Tensor& cos_t, const Tensor& sin_t) {
  const std::int64_t d = x.size(-1).guard_int();
  const Tensor x1 = slice(x, -1, 0, d / 2);
  const Tensor x2 = slice(x, -1, d / 2, d);
  return cat({sub(mul(x1, cos_t), mul(x2, sin_t)), add(mul(x1, sin_t), mul(x2, cos_t))}, -1);
}

class Block : public nn::Module {
public:
  explicit Block(std::uint64_t seed) : Module("Block"), mask_(causal_mask(kContext)) {
    std::tie(cos_, sin_) = rotary_tables(kContext, kHeadDim);
    attn_norm_ = register_module(
        "attn_norm", std::make_shared<nn::RMSNorm>(std::vector<std::int64_t>{kDim}, 1e-5));
    wqkv_ = register_module("wqkv", std::make_shared<nn::Linear>(kDim, 3 * kDim, false, seed));
    wo_ = register_module("wo", std::make_shared<nn::Linear>(kDim, kDim, false, seed + 1));
    mlp_norm_ = register_module(
        "mlp_norm", std::make_shared<nn::RMSNorm>(std::vector<std::int64_t>{kDim}, 1e-5));
    w1_ = register_module("w1", std::make_shared<nn::Linear>(kDim, kHidden, false, seed + 2));
    w3_ = register_module("w3", std::make_shared<nn::Linear>(kDim, kHidden, false, seed + 3));
    w2_ = register_module("w2", std::make_shared<nn::Linear>(kHidden, kDim, false, seed + 4));
  }

  Tensor forward(const Tensor& x, std::source_location = std::source_location::current()) override {
    const SymInt b = x.size(0);
    const SymInt t = x.size(1);
    const Tensor qkv = (*wqkv_)(attn_norm_->forward(x));
    auto heads = [&](std::int64_t part) { // [B, heads, T, head_dim]
      const Tensor p = slice(qkv, 2, part * kDim, (part + 1) * kDim);
      return transpose(reshape(p, {b, t, SymInt(kHeads), SymInt(kHeadDim)}), 1, 2);
    };
    const Tensor q = apply_rotary(heads(0), cos_, sin_);
    const Tensor k = apply_rotary(heads(1), cos_, sin_);
    const Tensor v = heads(2);
    const double scale = 1.0 / std::sqrt(static_cast<double>(kHeadDim));
    const Tensor scores = add(mul(matmul(q, transpose(k, -1, -2)), scale), mask_);
    const Tensor y = matmul(softmax(scores, -1), v);
    const Tensor merged = reshape(contiguous(transpose(y, 1, 2)), {b, t, SymInt(kDim)});
    const Tensor h = add(x, (*wo_)(merged));
    const Tensor n = mlp_norm_->forward(h);
    return add(h, (*w2_)(mul(silu((*w1_)(n)), (*w3_)(n)))); // SwiGLU
  }

private:
  Tensor mask_, cos_, sin_;
  std::shared_ptr<nn::RMSNorm> attn_norm_, mlp_norm_;
  std::shared_ptr<nn::Linear> wqkv_, wo_, w1_, w3_, w2_;
};

class Llama : public nn::Module {
public:
  explicit Llama(std::uint64_t seed) : Module("Llama") {
    tok_ = register_module("tok", std::make_shared<nn::Embedding>(kVocab, kDim, seed));
    for (std::int64_t l = 0; l < kLayers; ++l) {
      blocks_.push_back(register_module("layers_" + std::to_string(l),
                                        std::make_shared<Block>(seed + 10 * (l + 1))));
    }
    norm_ = register_module("norm",
                            std::make_shared<nn::RMSNorm>(std::vector<std::int64_t>{kDim}, 1e-5));
    head_ = register_module("head", std::make_shared<nn::Linear>(kDim, kVocab, false, seed + 99));
  }

  Tensor forward(const Tensor& idx,
                 std::source_location = std::source_location::current()) override {
    Tensor x = mul(tok_->forward(idx), 0.1); // small embeddings keep the first steps calm
    for (const auto& block : blocks_) {
      x = block->forward(x);
    }
    return head_->forward(norm_->forward(x));
  }

private:
  std::shared_ptr<nn::Embedding> tok_;
  std::vector<std::shared_ptr<Block>> blocks_;
  std::shared_ptr<nn::RMSNorm> norm_;
  std::shared_ptr<nn::Linear> head_;
};

std::pair<Tensor, Tensor> batch(int step) {
  return samples::next_token_batch(step, kBatch, kContext, kVocab);
}

// The step's loss: logits of every position against the next token.
Tensor step_loss(Llama& model, const Tensor& idx, const Tensor& targets) {
  const Tensor logits = model(idx);
  return cross_entropy(reshape(logits, {SymInt(kBatch * kContext), SymInt(kVocab)}), targets);
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

const optim::AdamOptions kAdamW{.lr = 3e-3, .weight_decay = 0.01, .decoupled_weight_decay = true};

int bench(int steps, bool with_eager) {
  Llama compiled_model(21);
  Llama eager_model(21);
  auto cstep = compile(step_loss, {.name = "llama_step", .arg_names = {"model", "idx", "targets"}});
  optim::Adam copt(compiled_model.parameters(), kAdamW);
  optim::Adam eopt(eager_model.parameters(), kAdamW);
  auto one_step = [](auto& loss_fn, Llama& m, optim::Adam& opt, int step) {
    const auto [idx, targets] = batch(step);
    const Tensor loss = loss_fn(m, idx, targets);
    loss.backward();
    opt.step();
    opt.zero_grad();
    return loss.item_double();
  };
  const auto c0 = std::chrono::steady_clock::now();
  one_step(cstep, compiled_model, copt, 0);
  const double cold_ms = ms_since(c0);
  std::vector<double> compiled_ms;
  std::vector<double> eager_ms;
  auto eager_fn = [](Llama& m, const Tensor& idx, const Tensor& targets) {
    return step_loss(m, idx, targets);
  };
  if (with_eager) {
    one_step(eager_fn, eager_model, eopt, 0);
  }
  for (int s = 1; s <= steps; ++s) {
    auto t0 = std::chrono::steady_clock::now();
    one_step(cstep, compiled_model, copt, s);
    compiled_ms.push_back(ms_since(t0));
    if (with_eager) {
      t0 = std::chrono::steady_clock::now();
      one_step(eager_fn, eager_model, eopt, s);
      eager_ms.push_back(ms_since(t0));
    }
  }
  std::printf("train_llama bench: batch %lld x context %lld, dim %lld, %lld layers, vocab %lld\n",
              static_cast<long long>(kBatch), static_cast<long long>(kContext),
              static_cast<long long>(kDim), static_cast<long long>(kLayers),
              static_cast<long long>(kVocab));
  std::printf("cold_compile_ms: %.1f\n", cold_ms);
  std::printf("compiled_step_ms: %.3f\n", median(compiled_ms));
  if (with_eager) {
    std::printf("eager_step_ms: %.3f\n", median(eager_ms));
  }
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  int steps = 20;
  bool do_bench = false;
  bool with_eager = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--bench") == 0) {
      do_bench = true;
    } else if (std::strcmp(argv[i], "--no-eager") == 0) {
      with_eager = false;
    } else if (std::strcmp(argv[i], "--steps") == 0 && i + 1 < argc) {
      steps = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: %s [--bench [--no-eager]] [--steps N]\n", argv[0]);
      return 2;
    }
  }
  if (do_bench) {
    return bench(steps, with_eager);
  }
  Llama compiled_model(21);
  Llama eager_model(21);
  auto cstep = compile(step_loss, {.name = "llama_step", .arg_names = {"model", "idx", "targets"}});
  optim::Adam copt(compiled_model.parameters(), kAdamW);
  optim::Adam eopt(eager_model.parameters(), kAdamW);

  samples::TrainingCheck check("train_llama", {.loss = 1e-4, .grad = 2e-3});
  for (int step = 0; step < steps; ++step) {
    const auto [idx, targets] = batch(step);
    const Tensor closs = cstep(compiled_model, idx, targets);
    const Tensor eloss = step_loss(eager_model, idx, targets);
    closs.backward();
    eloss.backward();
    check.step(step, closs, eloss, compiled_model.named_parameters(),
               eager_model.named_parameters());
    copt.step();
    eopt.step();
    copt.zero_grad();
    eopt.zero_grad();
  }
  std::printf("train_llama: %lld compile(s) of the step for %d steps\n",
              static_cast<long long>(cstep.stats().compiles), steps);
  return check.finish();
}
