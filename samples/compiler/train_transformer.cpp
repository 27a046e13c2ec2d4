// Training a small GPT-style model for 50 steps with the model compiled, as PyTorch's w08
// workload does: token and position embeddings, one transformer block (layer norm, causal
// multi-head attention, layer norm, GELU MLP, residuals), a final layer norm and the output
// head; next-token cross-entropy and AdamW stay eager. An identical eager model trains
// alongside; every step prints both losses and the largest gradient difference, and the
// program fails if they disagree beyond the stated tolerances.
//   TORCH_TRACE=/tmp/trace ./sample_train_transformer
#include "compiler/autograd/autograd.h"
#include "compiler/capture/compile.h"
#include "compiler/nn/layers.h"
#include "compiler/ops/ops.h"
#include "compiler/optim/optim.h"
#include "training_util.h"

#include <cmath>
#include <cstdio>
#include <memory>

using namespace compiler;

namespace {

constexpr std::int64_t kVocab = 64;
constexpr std::int64_t kDim = 32;
constexpr std::int64_t kHeads = 4;
constexpr std::int64_t kContext = 16;
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

class Block : public nn::Module {
public:
  Block(std::int64_t dim, std::int64_t heads, std::uint64_t seed)
      : Module("Block"), mask_(causal_mask(kContext)) {
    set_attribute("heads", heads);
    ln1_ = register_module("ln1", std::make_shared<nn::LayerNorm>(std::vector<std::int64_t>{dim}));
    qkv_ = register_module("qkv", std::make_shared<nn::Linear>(dim, 3 * dim, true, seed));
    proj_ = register_module("proj", std::make_shared<nn::Linear>(dim, dim, true, seed + 1));
    ln2_ = register_module("ln2", std::make_shared<nn::LayerNorm>(std::vector<std::int64_t>{dim}));
    fc1_ = register_module("fc1", std::make_shared<nn::Linear>(dim, 4 * dim, true, seed + 2));
    fc2_ = register_module("fc2", std::make_shared<nn::Linear>(4 * dim, dim, true, seed + 3));
  }

  Tensor forward(const Tensor& x, std::source_location = std::source_location::current()) override {
    const SymInt b = x.size(0);
    const SymInt t = x.size(1);
    const std::int64_t c = x.size(2).guard_int();
    const std::int64_t h = attr_int("heads");
    const Tensor qkv = (*qkv_)(ln1_->forward(x));
    auto head_view = [&](std::int64_t part) {
      const Tensor p = slice(qkv, 2, part * c, (part + 1) * c);
      return transpose(reshape(p, {b, t, h, c / h}), 1, 2); // [B, heads, T, head_dim]
    };
    const Tensor q = head_view(0);
    const Tensor k = head_view(1);
    const Tensor v = head_view(2);
    const double scale = 1.0 / std::sqrt(static_cast<double>(c / h));
    const Tensor scores = add(mul(matmul(q, transpose(k, -1, -2)), scale), mask_);
    const Tensor y = matmul(softmax(scores, -1), v);
    const Tensor merged = reshape(contiguous(transpose(y, 1, 2)), {b, t, c});
    const Tensor attended = add(x, (*proj_)(merged));
    return add(attended, (*fc2_)(gelu((*fc1_)(ln2_->forward(attended)))));
  }

private:
  Tensor mask_;
  std::shared_ptr<nn::LayerNorm> ln1_, ln2_;
  std::shared_ptr<nn::Linear> qkv_, proj_, fc1_, fc2_;
};

class TinyGPT : public nn::Module {
public:
  explicit TinyGPT(std::uint64_t seed) : Module("TinyGPT") {
    tok_ = register_module("tok", std::make_shared<nn::Embedding>(kVocab, kDim, seed));
    pos_ = register_module("pos", std::make_shared<nn::Embedding>(kContext, kDim, seed + 1));
    block_ = register_module("block", std::make_shared<Block>(kDim, kHeads, seed + 2));
    ln_ = register_module("ln", std::make_shared<nn::LayerNorm>(std::vector<std::int64_t>{kDim}));
    head_ = register_module("head", std::make_shared<nn::Linear>(kDim, kVocab, true, seed + 9));
  }

  Tensor forward(const Tensor& idx,
                 std::source_location = std::source_location::current()) override {
    const Tensor x = add(tok_->forward(idx), pos_->forward(arange(idx.size(1))));
    return head_->forward(ln_->forward(block_->forward(x)));
  }

private:
  std::shared_ptr<nn::Embedding> tok_, pos_;
  std::shared_ptr<Block> block_;
  std::shared_ptr<nn::LayerNorm> ln_;
  std::shared_ptr<nn::Linear> head_;
};

std::pair<Tensor, Tensor> batch(int step) {
  return samples::next_token_batch(step, kBatch, kContext, kVocab);
}

} // namespace

int main() {
  constexpr int kSteps = 50;
  TinyGPT compiled_model(21);
  TinyGPT eager_model(21);
  auto forward = [](TinyGPT& m, const Tensor& idx) { return m(idx); };
  auto cmodel = compile(forward, {.name = "gpt_forward", .arg_names = {"model", "idx"}});
  const optim::AdamOptions adamw{.lr = 3e-3, .weight_decay = 0.01, .decoupled_weight_decay = true};
  optim::Adam copt(compiled_model.parameters(), adamw);
  optim::Adam eopt(eager_model.parameters(), adamw);

  samples::TrainingCheck check("train_transformer", {.loss = 1e-4, .grad = 1e-3});
  for (int step = 0; step < kSteps; ++step) {
    const auto [idx, targets] = batch(step);
    const SymInt rows(kBatch * kContext);
    const Tensor closs =
        cross_entropy(reshape(cmodel(compiled_model, idx), {rows, SymInt(kVocab)}), targets);
    const Tensor eloss =
        cross_entropy(reshape(forward(eager_model, idx), {rows, SymInt(kVocab)}), targets);
    closs.backward();
    eloss.backward();
    check.step(step, closs, eloss, compiled_model.named_parameters(),
               eager_model.named_parameters());
    copt.step();
    eopt.step();
    copt.zero_grad();
    eopt.zero_grad();
  }
  std::printf("train_transformer: %lld compile(s) of the model for %d steps\n",
              static_cast<long long>(cmodel.stats().compiles), kSteps);
  return check.finish();
}
