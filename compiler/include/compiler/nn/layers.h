// compiler/nn: the layers a small model needs: Linear, LayerNorm, RMSNorm, BatchNorm1d/2d,
// Embedding, ReLU, GELU, Dropout, the CNN layers (Conv2d, MaxPool2d, AvgPool2d,
// AdaptiveAvgPool2d, GroupNorm) and Sequential. Each keeps its settings as Module attributes
// and reads them in forward() through the attribute API, so capture guards on exactly the
// settings forward used. Initial weights come from randn with a caller-given seed, so models
// are reproducible.
#pragma once

#include "compiler/nn/module.h"

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <vector>

namespace compiler::nn {

// y = x @ weight^T + bias; weight [out, in] drawn from N(0, 1/in), bias zero.
class Linear : public Module {
public:
  Linear(std::int64_t in_features, std::int64_t out_features, bool bias = true,
         std::uint64_t seed = 0);
  Tensor forward(const Tensor& input,
                 std::source_location loc = std::source_location::current()) override;
  const Tensor& weight() const noexcept { return weight_; }
  const Tensor& bias() const noexcept { return bias_; } // undefined without bias

protected:
  std::string extra_repr() const override;

private:
  Tensor weight_;
  Tensor bias_;
};

// Normalises over the trailing `normalized_shape` dims; weight ones, bias zeros.
class LayerNorm : public Module {
public:
  explicit LayerNorm(std::vector<std::int64_t> normalized_shape, double eps = 1e-5,
                     bool elementwise_affine = true);
  Tensor forward(const Tensor& input,
                 std::source_location loc = std::source_location::current()) override;

protected:
  std::string extra_repr() const override;

private:
  std::vector<std::int64_t> normalized_shape_;
  Tensor weight_;
  Tensor bias_;
};

// PyTorch 2.4's F.rms_norm: x / sqrt(mean(x^2 over the trailing `normalized_shape` dims) + eps),
// times weight when given. eps defaults to the machine epsilon of x's dtype, as PyTorch's.
// Written with the public ops (mul, mean, add, rsqrt), so eager, meta, autograd and the
// compiled paths all come from theirs; a graph shows those ops, not an aten.rms_norm node.
Tensor rms_norm(const Tensor& x, const std::vector<std::int64_t>& normalized_shape,
                const Tensor& weight, std::optional<double> eps,
                std::source_location loc = std::source_location::current());

// rms_norm over the trailing `normalized_shape` dims; weight ones.
class RMSNorm : public Module {
public:
  explicit RMSNorm(std::vector<std::int64_t> normalized_shape,
                   std::optional<double> eps = std::nullopt, bool elementwise_affine = true);
  Tensor forward(const Tensor& input,
                 std::source_location loc = std::source_location::current()) override;

protected:
  std::string extra_repr() const override;

private:
  std::vector<std::int64_t> normalized_shape_;
  std::optional<double> eps_; // fixed at construction (no setter), so nothing to guard
  Tensor weight_;
};

// torch.nn.BatchNorm1d / BatchNorm2d: batch_norm (ops.h) per channel (dim 1) of [N, C] or
// [N, C, L] (1d) and [N, C, H, W] (2d). Parameters weight (ones) and bias (zeros); buffers
// running_mean (zeros), running_var (ones) and num_batches_tracked (i64 0), which forward()
// updates in place while training; eval() normalises with the running statistics. eps and
// momentum are fixed at construction (no setters), so only `training` is read and guarded.
class BatchNorm : public Module {
public:
  Tensor forward(const Tensor& input,
                 std::source_location loc = std::source_location::current()) override;
  const Tensor& running_mean() const noexcept { return running_mean_; }
  const Tensor& running_var() const noexcept { return running_var_; }
  const Tensor& num_batches_tracked() const noexcept { return num_batches_tracked_; }

protected:
  BatchNorm(std::string type_name, std::vector<std::int64_t> ranks, std::int64_t num_features,
            double eps, double momentum, bool affine);
  std::string extra_repr() const override;

private:
  std::vector<std::int64_t> ranks_; // the input ranks forward() accepts
  std::int64_t num_features_;
  double eps_;
  double momentum_;
  Tensor weight_;
  Tensor bias_;
  Tensor running_mean_;
  Tensor running_var_;
  Tensor num_batches_tracked_;
};

class BatchNorm1d : public BatchNorm {
public:
  explicit BatchNorm1d(std::int64_t num_features, double eps = 1e-5, double momentum = 0.1,
                       bool affine = true)
      : BatchNorm("BatchNorm1d", {2, 3}, num_features, eps, momentum, affine) {}
};

class BatchNorm2d : public BatchNorm {
public:
  explicit BatchNorm2d(std::int64_t num_features, double eps = 1e-5, double momentum = 0.1,
                       bool affine = true)
      : BatchNorm("BatchNorm2d", {4}, num_features, eps, momentum, affine) {}
};

// Rows of weight [num_embeddings, embedding_dim] (drawn from N(0, 1)) picked by indices.
class Embedding : public Module {
public:
  Embedding(std::int64_t num_embeddings, std::int64_t embedding_dim, std::uint64_t seed = 0);
  Tensor forward(const Tensor& indices,
                 std::source_location loc = std::source_location::current()) override;
  const Tensor& weight() const noexcept { return weight_; }

protected:
  std::string extra_repr() const override;

private:
  Tensor weight_;
};

class ReLU : public Module {
public:
  ReLU();
  Tensor forward(const Tensor& input,
                 std::source_location loc = std::source_location::current()) override;
};

// approximate: "none" or "tanh" (an attribute, so a change recompiles).
class GELU : public Module {
public:
  explicit GELU(std::string approximate = "none");
  Tensor forward(const Tensor& input,
                 std::source_location loc = std::source_location::current()) override;

protected:
  std::string extra_repr() const override;
};

// Dropout with probability p (an attribute, so a change recompiles) while training (the
// module's "training" attribute, set by train()/eval()); the identity in eval mode. Its draws
// come from the process's generator (ops.h: manual_seed), as torch.nn.Dropout's do.
class Dropout : public Module {
public:
  explicit Dropout(double p = 0.5);
  Tensor forward(const Tensor& input,
                 std::source_location loc = std::source_location::current()) override;

protected:
  std::string extra_repr() const override;
};

// F.conv2d with weight [out, in / groups, kh, kw] drawn from N(0, 1 / fan_in), fan_in =
// in / groups * kh * kw, and bias zero (as Linear). kernel_size, stride, padding and dilation
// are one value (both dims) or two; the geometry is fixed at construction (nothing to guard).
class Conv2d : public Module {
public:
  Conv2d(std::int64_t in_channels, std::int64_t out_channels, std::vector<std::int64_t> kernel_size,
         std::vector<std::int64_t> stride = {1}, std::vector<std::int64_t> padding = {0},
         std::vector<std::int64_t> dilation = {1}, std::int64_t groups = 1, bool bias = true,
         std::uint64_t seed = 0);
  Tensor forward(const Tensor& input,
                 std::source_location loc = std::source_location::current()) override;
  const Tensor& weight() const noexcept { return weight_; }
  const Tensor& bias() const noexcept { return bias_; } // undefined without bias

protected:
  std::string extra_repr() const override;

private:
  std::vector<std::int64_t> stride_, padding_, dilation_;
  std::int64_t groups_ = 1;
  Tensor weight_;
  Tensor bias_;
};

// F.max_pool2d; stride empty means kernel_size.
class MaxPool2d : public Module {
public:
  explicit MaxPool2d(std::vector<std::int64_t> kernel_size, std::vector<std::int64_t> stride = {},
                     std::vector<std::int64_t> padding = {0},
                     std::vector<std::int64_t> dilation = {1}, bool ceil_mode = false);
  Tensor forward(const Tensor& input,
                 std::source_location loc = std::source_location::current()) override;

protected:
  std::string extra_repr() const override;

private:
  std::vector<std::int64_t> kernel_size_, stride_, padding_, dilation_;
  bool ceil_mode_ = false;
};

// F.avg_pool2d; stride empty means kernel_size.
class AvgPool2d : public Module {
public:
  explicit AvgPool2d(std::vector<std::int64_t> kernel_size, std::vector<std::int64_t> stride = {},
                     std::vector<std::int64_t> padding = {0}, bool ceil_mode = false,
                     bool count_include_pad = true);
  Tensor forward(const Tensor& input,
                 std::source_location loc = std::source_location::current()) override;

protected:
  std::string extra_repr() const override;

private:
  std::vector<std::int64_t> kernel_size_, stride_, padding_;
  bool ceil_mode_ = false;
  bool count_include_pad_ = true;
};

// F.adaptive_avg_pool2d to output_size {oh, ow} (one value: square).
class AdaptiveAvgPool2d : public Module {
public:
  explicit AdaptiveAvgPool2d(std::vector<std::int64_t> output_size);
  Tensor forward(const Tensor& input,
                 std::source_location loc = std::source_location::current()) override;

protected:
  std::string extra_repr() const override;

private:
  std::vector<std::int64_t> output_size_;
};

// F.group_norm over num_groups groups of num_channels channels; weight ones, bias zeros.
// nn.InstanceNorm2d(C, affine=True) without running statistics is GroupNorm(C, C).
class GroupNorm : public Module {
public:
  GroupNorm(std::int64_t num_groups, std::int64_t num_channels, double eps = 1e-5,
            bool affine = true);
  Tensor forward(const Tensor& input,
                 std::source_location loc = std::source_location::current()) override;

protected:
  std::string extra_repr() const override;

private:
  std::int64_t num_groups_ = 1;
  double eps_ = 1e-5;
  Tensor weight_;
  Tensor bias_;
};

// Runs its children in order; children are named "0", "1", ...
class Sequential : public Module {
public:
  Sequential() : Module("Sequential") {}
  Sequential(std::initializer_list<std::shared_ptr<Module>> modules);
  void push_back(std::shared_ptr<Module> module);
  std::size_t size() const noexcept { return named_children().size(); }
  Tensor forward(const Tensor& input,
                 std::source_location loc = std::source_location::current()) override;
};

} // namespace compiler::nn
