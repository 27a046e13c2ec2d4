// The layers: each forward reads its settings through the attribute API (so capture guards on
// them) and is written with the public ops (so capture records each op with the caller's
// location).
#include "compiler/nn/layers.h"

#include "compiler/core/errors.h"
#include "compiler/ops/ops.h"

#include <cmath>
#include <limits>
#include <sstream>

namespace compiler::nn {

namespace {
std::string shape_list(const std::vector<std::int64_t>& shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    out += (i ? ", " : "") + std::to_string(shape[i]);
  }
  return out + (shape.size() == 1 ? ",)" : ")");
}
} // namespace

Linear::Linear(std::int64_t in_features, std::int64_t out_features, bool bias, std::uint64_t seed)
    : Module("Linear") {
  OpHookGuard eager(nullptr); // initial weights are data, never part of a traced graph
  if (in_features <= 0 || out_features <= 0) {
    user_error("Linear: features must be positive");
  }
  set_attribute("in_features", in_features);
  set_attribute("out_features", out_features);
  const double scale = 1.0 / std::sqrt(static_cast<double>(in_features));
  weight_ = register_parameter("weight", mul(randn({out_features, in_features}, seed), scale));
  if (bias) {
    bias_ = register_parameter("bias", zeros({out_features}));
  }
}

Tensor Linear::forward(const Tensor& input, std::source_location loc) {
  const std::int64_t in_features = attr_int("in_features");
  if (input.dim() == 0 || input.size(-1) != SymInt(in_features)) {
    throw UserError("Linear: expected input with last dim " + std::to_string(in_features) +
                        ", got " + input.type_string(),
                    loc);
  }
  Tensor y = matmul(input, transpose(weight_, 0, 1, loc), loc);
  if (bias_.defined()) {
    y = add(y, bias_, loc);
  }
  return y;
}

std::string Linear::extra_repr() const {
  return "in_features=" + std::to_string(std::get<std::int64_t>(attributes()[1].second)) +
         ", out_features=" + std::to_string(std::get<std::int64_t>(attributes()[2].second)) +
         ", bias=" + (bias_.defined() ? "True" : "False");
}

LayerNorm::LayerNorm(std::vector<std::int64_t> normalized_shape, double eps,
                     bool elementwise_affine)
    : Module("LayerNorm"), normalized_shape_(std::move(normalized_shape)) {
  OpHookGuard eager(nullptr); // initial weights are data, never part of a traced graph
  set_attribute("eps", eps);
  set_attribute("elementwise_affine", elementwise_affine);
  if (elementwise_affine) {
    const std::vector<SymInt> sizes = to_sym_sizes(normalized_shape_);
    weight_ = register_parameter("weight", ones(sizes));
    bias_ = register_parameter("bias", zeros(sizes));
  }
}

Tensor LayerNorm::forward(const Tensor& input, std::source_location loc) {
  const double eps = attr_double("eps");
  return layer_norm(input, normalized_shape_, weight_, bias_, eps, loc);
}

std::string LayerNorm::extra_repr() const {
  return shape_list(normalized_shape_) + ", eps=" + attribute_to_string(attributes()[1].second) +
         ", elementwise_affine=" + attribute_to_string(attributes()[2].second);
}

BatchNorm::BatchNorm(std::string type_name, std::vector<std::int64_t> ranks,
                     std::int64_t num_features, double eps, double momentum, bool affine)
    : Module(std::move(type_name)), ranks_(std::move(ranks)), num_features_(num_features),
      eps_(eps), momentum_(momentum) {
  OpHookGuard eager(nullptr); // initial values are data, never part of a traced graph
  const std::vector<SymInt> sizes = {SymInt(num_features)};
  if (affine) {
    weight_ = register_parameter("weight", ones(sizes));
    bias_ = register_parameter("bias", zeros(sizes));
  }
  running_mean_ = register_buffer("running_mean", zeros(sizes));
  running_var_ = register_buffer("running_var", ones(sizes));
  num_batches_tracked_ = register_buffer("num_batches_tracked", zeros({}, DType::Int64));
}

Tensor BatchNorm::forward(const Tensor& input, std::source_location loc) {
  bool rank_ok = false;
  for (std::int64_t r : ranks_) {
    rank_ok = rank_ok || input.dim() == r;
  }
  if (!rank_ok) {
    throw UserError(type_name() + ": expected " +
                        (ranks_.size() == 1 ? "4D" : std::string("2D or 3D")) + " input (got " +
                        std::to_string(input.dim()) + "D input)",
                    loc);
  }
  const bool training = is_training();
  if (training) {
    // PyTorch counts the batches seen (an i64 add: the counter stays an integer).
    add_(num_batches_tracked_, full({}, 1.0, DType::Int64, loc), loc);
  }
  return batch_norm(input, running_mean_, running_var_, weight_, bias_, training, momentum_, eps_,
                    loc);
}

std::string BatchNorm::extra_repr() const {
  std::ostringstream eps;
  eps << eps_;
  std::ostringstream momentum;
  momentum << momentum_;
  return std::to_string(num_features_) + ", eps=" + eps.str() + ", momentum=" + momentum.str() +
         ", affine=" + (weight_.defined() ? "True" : "False") + ", track_running_stats=True";
}

Tensor rms_norm(const Tensor& x, const std::vector<std::int64_t>& normalized_shape,
                const Tensor& weight, std::optional<double> eps, std::source_location loc) {
  const auto n = static_cast<std::int64_t>(normalized_shape.size());
  bool trailing_match = n <= x.dim();
  for (std::int64_t i = 0; trailing_match && i < n; ++i) {
    trailing_match =
        x.size(x.dim() - n + i) == SymInt(normalized_shape[static_cast<std::size_t>(i)]);
  }
  if (!is_floating(x.dtype()) || !trailing_match) {
    throw UserError("rms_norm: expected a floating input whose trailing dims are " +
                        shape_list(normalized_shape) + ", got " + x.type_string(),
                    loc);
  }
  if (weight.defined() && weight.sizes() != normalized_shape) {
    throw UserError("rms_norm: weight must have shape " + shape_list(normalized_shape) + ", got " +
                        weight.type_string(),
                    loc);
  }
  const double epsilon =
      eps.value_or(x.dtype() == DType::Float64 ? std::numeric_limits<double>::epsilon()
                                               : std::numeric_limits<float>::epsilon());
  std::vector<std::int64_t> dims;
  for (std::int64_t i = x.dim() - n; i < x.dim(); ++i) {
    dims.push_back(i);
  }
  const Tensor mean_square = mean(mul(x, x, loc), dims, /*keepdim=*/true, loc);
  Tensor y = mul(x, rsqrt(add(mean_square, epsilon, loc), loc), loc);
  if (weight.defined()) {
    y = mul(y, weight, loc);
  }
  return y;
}

RMSNorm::RMSNorm(std::vector<std::int64_t> normalized_shape, std::optional<double> eps,
                 bool elementwise_affine)
    : Module("RMSNorm"), normalized_shape_(std::move(normalized_shape)), eps_(eps) {
  OpHookGuard eager(nullptr); // initial weights are data, never part of a traced graph
  set_attribute("elementwise_affine", elementwise_affine);
  if (elementwise_affine) {
    weight_ = register_parameter("weight", ones(to_sym_sizes(normalized_shape_)));
  }
}

Tensor RMSNorm::forward(const Tensor& input, std::source_location loc) {
  return rms_norm(input, normalized_shape_, weight_, eps_, loc);
}

std::string RMSNorm::extra_repr() const {
  return shape_list(normalized_shape_) +
         ", eps=" + (eps_ ? std::to_string(*eps_) : std::string("None")) +
         ", elementwise_affine=" + attribute_to_string(attributes()[0].second);
}

Embedding::Embedding(std::int64_t num_embeddings, std::int64_t embedding_dim, std::uint64_t seed)
    : Module("Embedding") {
  OpHookGuard eager(nullptr); // initial weights are data, never part of a traced graph
  if (num_embeddings <= 0 || embedding_dim <= 0) {
    user_error("Embedding: sizes must be positive");
  }
  set_attribute("num_embeddings", num_embeddings);
  set_attribute("embedding_dim", embedding_dim);
  weight_ = register_parameter("weight", randn({num_embeddings, embedding_dim}, seed));
}

Tensor Embedding::forward(const Tensor& indices, std::source_location loc) {
  return embedding(weight_, indices, loc);
}

std::string Embedding::extra_repr() const {
  return attribute_to_string(attributes()[1].second) + ", " +
         attribute_to_string(attributes()[2].second);
}

ReLU::ReLU() : Module("ReLU") {}

Tensor ReLU::forward(const Tensor& input, std::source_location loc) {
  return relu(input, loc);
}

GELU::GELU(std::string approximate) : Module("GELU") {
  if (approximate != "none" && approximate != "tanh") {
    user_error("GELU: approximate must be 'none' or 'tanh', got '" + approximate + "'");
  }
  set_attribute("approximate", std::move(approximate));
}

Tensor GELU::forward(const Tensor& input, std::source_location loc) {
  return gelu(input, attr_string("approximate"), loc);
}

std::string GELU::extra_repr() const {
  return "approximate=" + attribute_to_string(attributes()[1].second);
}

Dropout::Dropout(double p) : Module("Dropout") {
  if (!(p >= 0.0 && p <= 1.0)) {
    user_error("Dropout: dropout probability has to be between 0 and 1, but got " +
               attribute_to_string(AttributeValue(p)));
  }
  set_attribute("p", p);
}

Tensor Dropout::forward(const Tensor& input, std::source_location loc) {
  return dropout(input, attr_double("p"), is_training(), loc);
}

std::string Dropout::extra_repr() const {
  return "p=" + attribute_to_string(AttributeValue(attr_double("p"))) + ", inplace=False";
}

Sequential::Sequential(std::initializer_list<std::shared_ptr<Module>> modules)
    : Module("Sequential") {
  for (const auto& m : modules) {
    push_back(m);
  }
}

void Sequential::push_back(std::shared_ptr<Module> module) {
  register_module(std::to_string(size()), std::move(module));
}

Tensor Sequential::forward(const Tensor& input, std::source_location loc) {
  Tensor x = input;
  for (const auto& [name, child] : named_children()) {
    x = child->forward(x, loc);
  }
  return x;
}

namespace {

// "3" for {3} or {3, 3}, "(3, 2)" otherwise: PyTorch's repr of a pair setting.
std::string pair_repr(const std::vector<std::int64_t>& v) {
  if (v.size() == 1 || (v.size() == 2 && v[0] == v[1])) {
    return "(" + std::to_string(v[0]) + ", " + std::to_string(v[0]) + ")";
  }
  return "(" + (v.empty() ? std::string() : std::to_string(v[0]) + ", " + std::to_string(v[1])) +
         ")";
}

std::vector<std::int64_t> as_pair(const std::vector<std::int64_t>& v, const char* layer,
                                  const char* what) {
  if (v.size() == 1) {
    return {v[0], v[0]};
  }
  if (v.size() != 2) {
    user_error(std::string(layer) + ": " + what + " must be one value or two, got " +
               shape_list(v));
  }
  return v;
}

} // namespace

Conv2d::Conv2d(std::int64_t in_channels, std::int64_t out_channels,
               std::vector<std::int64_t> kernel_size, std::vector<std::int64_t> stride,
               std::vector<std::int64_t> padding, std::vector<std::int64_t> dilation,
               std::int64_t groups, bool bias, std::uint64_t seed)
    : Module("Conv2d"), stride_(as_pair(stride, "Conv2d", "stride")),
      padding_(as_pair(padding, "Conv2d", "padding")),
      dilation_(as_pair(dilation, "Conv2d", "dilation")), groups_(groups) {
  OpHookGuard eager(nullptr); // initial weights are data, never part of a traced graph
  const std::vector<std::int64_t> kernel = as_pair(kernel_size, "Conv2d", "kernel_size");
  if (in_channels <= 0 || out_channels <= 0 || kernel[0] <= 0 || kernel[1] <= 0) {
    user_error("Conv2d: channels and kernel_size must be positive");
  }
  if (groups <= 0) {
    user_error("Conv2d: groups must be a positive integer");
  }
  if (in_channels % groups != 0) {
    user_error("Conv2d: in_channels must be divisible by groups");
  }
  if (out_channels % groups != 0) {
    user_error("Conv2d: out_channels must be divisible by groups");
  }
  set_attribute("in_channels", in_channels);
  set_attribute("out_channels", out_channels);
  const std::int64_t fan_in = in_channels / groups * kernel[0] * kernel[1];
  const double scale = 1.0 / std::sqrt(static_cast<double>(fan_in));
  weight_ = register_parameter(
      "weight",
      mul(randn({out_channels, in_channels / groups, kernel[0], kernel[1]}, seed), scale));
  if (bias) {
    bias_ = register_parameter("bias", zeros({out_channels}));
  }
}

Tensor Conv2d::forward(const Tensor& input, std::source_location loc) {
  return conv2d(input, weight_, bias_, stride_, padding_, dilation_, groups_, loc);
}

std::string Conv2d::extra_repr() const {
  const auto& w = weight_.sizes();
  std::string s = std::to_string(std::get<std::int64_t>(attributes()[1].second)) + ", " +
                  std::to_string(std::get<std::int64_t>(attributes()[2].second)) +
                  ", kernel_size=" + pair_repr({w[2], w[3]}) + ", stride=" + pair_repr(stride_);
  if (padding_[0] != 0 || padding_[1] != 0) {
    s += ", padding=" + pair_repr(padding_);
  }
  if (dilation_[0] != 1 || dilation_[1] != 1) {
    s += ", dilation=" + pair_repr(dilation_);
  }
  if (groups_ != 1) {
    s += ", groups=" + std::to_string(groups_);
  }
  if (!bias_.defined()) {
    s += ", bias=False";
  }
  return s;
}

MaxPool2d::MaxPool2d(std::vector<std::int64_t> kernel_size, std::vector<std::int64_t> stride,
                     std::vector<std::int64_t> padding, std::vector<std::int64_t> dilation,
                     bool ceil_mode)
    : Module("MaxPool2d"), kernel_size_(std::move(kernel_size)), stride_(std::move(stride)),
      padding_(std::move(padding)), dilation_(std::move(dilation)), ceil_mode_(ceil_mode) {}

Tensor MaxPool2d::forward(const Tensor& input, std::source_location loc) {
  return max_pool2d(input, kernel_size_, stride_, padding_, dilation_, ceil_mode_, loc);
}

std::string MaxPool2d::extra_repr() const {
  return "kernel_size=" + shape_list(kernel_size_) +
         ", stride=" + shape_list(stride_.empty() ? kernel_size_ : stride_) +
         ", padding=" + shape_list(padding_) + ", dilation=" + shape_list(dilation_) +
         ", ceil_mode=" + (ceil_mode_ ? "True" : "False");
}

AvgPool2d::AvgPool2d(std::vector<std::int64_t> kernel_size, std::vector<std::int64_t> stride,
                     std::vector<std::int64_t> padding, bool ceil_mode, bool count_include_pad)
    : Module("AvgPool2d"), kernel_size_(std::move(kernel_size)), stride_(std::move(stride)),
      padding_(std::move(padding)), ceil_mode_(ceil_mode), count_include_pad_(count_include_pad) {}

Tensor AvgPool2d::forward(const Tensor& input, std::source_location loc) {
  return avg_pool2d(input, kernel_size_, stride_, padding_, ceil_mode_, count_include_pad_, loc);
}

std::string AvgPool2d::extra_repr() const {
  return "kernel_size=" + shape_list(kernel_size_) +
         ", stride=" + shape_list(stride_.empty() ? kernel_size_ : stride_) +
         ", padding=" + shape_list(padding_);
}

AdaptiveAvgPool2d::AdaptiveAvgPool2d(std::vector<std::int64_t> output_size)
    : Module("AdaptiveAvgPool2d"),
      output_size_(as_pair(output_size, "AdaptiveAvgPool2d", "output_size")) {}

Tensor AdaptiveAvgPool2d::forward(const Tensor& input, std::source_location loc) {
  return adaptive_avg_pool2d(input, output_size_, loc);
}

std::string AdaptiveAvgPool2d::extra_repr() const {
  return "output_size=" + pair_repr(output_size_);
}

GroupNorm::GroupNorm(std::int64_t num_groups, std::int64_t num_channels, double eps, bool affine)
    : Module("GroupNorm"), num_groups_(num_groups), eps_(eps) {
  OpHookGuard eager(nullptr); // initial weights are data, never part of a traced graph
  if (num_groups <= 0 || num_channels % num_groups != 0) {
    user_error("GroupNorm: num_channels must be divisible by num_groups");
  }
  set_attribute("num_channels", num_channels);
  if (affine) {
    weight_ = register_parameter("weight", ones({num_channels}));
    bias_ = register_parameter("bias", zeros({num_channels}));
  }
}

Tensor GroupNorm::forward(const Tensor& input, std::source_location loc) {
  return group_norm(input, num_groups_, weight_, bias_, eps_, loc);
}

std::string GroupNorm::extra_repr() const {
  return std::to_string(num_groups_) + ", " +
         std::to_string(std::get<std::int64_t>(attributes()[1].second)) +
         ", eps=" + attribute_to_string(eps_) +
         ", affine=" + (weight_.defined() ? "True" : "False");
}

} // namespace compiler::nn
