// Neural-network composites: softmax, log_softmax, layer_norm, embedding, cross_entropy.
// They compute in the input's compute type (f32, or f64 for f64) with the numerically safe
// forms (max subtraction for softmax, double accumulation for the layer_norm statistics) and
// store in the input's float dtype.
#include "kernels/copy.h"
#include "kernels/element.h"
#include "kernels/kernels.h"
#include "kernels/parallel.h"
#include "kernels/shape_util.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace compiler::kernels {

namespace {

void require_floating(const Tensor& x, const char* name) {
  if (!is_floating(x.dtype())) {
    user_error(std::string(name) + ": needs a floating tensor, got " +
               std::string(dtype_name(x.dtype())));
  }
}

// softmax / log_softmax over dim d of a contiguous buffer viewed as [outer, len, inner].
template <class C>
void softmax_rows(const C* in, C* out, std::int64_t outer, std::int64_t len, std::int64_t inner,
                  bool log) {
  parallel_for(
      outer * inner, std::max<std::int64_t>(1, kDefaultGrain / std::max<std::int64_t>(len, 1)),
      [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t r = begin; r < end; ++r) {
          const std::int64_t o = r / inner;
          const std::int64_t i = r % inner;
          const C* x = in + o * len * inner + i;
          C* y = out + o * len * inner + i;
          C max = -std::numeric_limits<C>::infinity();
          for (std::int64_t j = 0; j < len; ++j) {
            max = std::max(max, x[j * inner]);
          }
          if (std::isinf(max) && max < 0) {
            max = C{0}; // every input is -inf: avoid inf - inf
          }
          double total = 0.0;
          for (std::int64_t j = 0; j < len; ++j) {
            total += std::exp(static_cast<double>(x[j * inner] - max));
          }
          if (log) {
            const auto log_total = static_cast<C>(std::log(total));
            for (std::int64_t j = 0; j < len; ++j) {
              y[j * inner] = x[j * inner] - max - log_total;
            }
          } else {
            for (std::int64_t j = 0; j < len; ++j) {
              y[j * inner] =
                  static_cast<C>(std::exp(static_cast<double>(x[j * inner] - max)) / total);
            }
          }
        }
      });
}

Tensor softmax_eager(const Tensor& x, std::int64_t dim_arg, bool log) {
  const char* name = log ? "log_softmax" : "softmax";
  require_floating(x, name);
  require_real(x, name);
  const std::int64_t d = wrap_dim(dim_arg, x.dim());
  std::int64_t outer = 1;
  std::int64_t inner = 1;
  for (std::int64_t i = 0; i < d; ++i) {
    outer *= x.sizes()[static_cast<std::size_t>(i)];
  }
  for (std::int64_t i = d + 1; i < x.dim(); ++i) {
    inner *= x.sizes()[static_cast<std::size_t>(i)];
  }
  const std::int64_t len = x.dim() == 0 ? 1 : x.sizes()[static_cast<std::size_t>(d)];
  const DType compute = compute_type(x.dtype());
  const Tensor in = contiguous_as(x, compute);
  Tensor out = make_output(x.sym_sizes(), compute, false);
  if (compute == DType::Float64) {
    softmax_rows(static_cast<const double*>(in.raw_data()), static_cast<double*>(out.raw_data()),
                 outer, len, inner, log);
  } else {
    softmax_rows(static_cast<const float*>(in.raw_data()), static_cast<float*>(out.raw_data()),
                 outer, len, inner, log);
  }
  return to_result(std::move(out), x.dtype());
}

Value softmax_meta(std::span<const Value> args, bool log) {
  const Tensor& x = tensor_arg(args, 0);
  require_floating(x, log ? "log_softmax" : "softmax");
  (void)wrap_dim(value_int(arg(args, 1)), x.dim());
  return make_output(x.sym_sizes(), x.dtype(), true);
}

// layer_norm: {x, int[] normalized_shape, weight|None, bias|None, double eps}
struct LayerNormPlan {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
};

LayerNormPlan plan_layer_norm(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  const std::vector<std::int64_t>& shape = value_ints(arg(args, 1));
  const Tensor weight = value_optional_tensor(arg(args, 2));
  const Tensor bias = value_optional_tensor(arg(args, 3));
  (void)value_double(arg(args, 4));
  require_floating(x, "layer_norm");
  const auto n = static_cast<std::int64_t>(shape.size());
  if (n == 0 || n > x.dim()) {
    user_error("layer_norm: normalized_shape " + value_to_string(shape) +
               " does not fit the trailing dims of " + x.type_string());
  }
  LayerNormPlan plan;
  plan.cols = 1;
  for (std::int64_t i = 0; i < n; ++i) {
    const SymInt& have = x.sym_sizes()[static_cast<std::size_t>(x.dim() - n + i)];
    if (!sym_equal(have, SymInt(shape[static_cast<std::size_t>(i)]))) {
      user_error("layer_norm: normalized_shape " + value_to_string(shape) +
                 " does not match the trailing dims of " + x.type_string());
    }
    plan.cols *= shape[static_cast<std::size_t>(i)];
  }
  for (const Tensor* p : {&weight, &bias}) {
    if (p->defined() && p->sizes() != shape) {
      user_error("layer_norm: weight and bias must have shape " + value_to_string(shape) +
                 ", got " + p->type_string());
    }
    // PyTorch does not promote between the input and the affine parameters.
    if (p->defined() && p->dtype() != x.dtype()) {
      user_error("layer_norm: weight and bias must have the input's dtype " +
                 std::string(dtype_name(x.dtype())) + ", got " + p->type_string());
    }
  }
  plan.rows = plan.cols == 0 ? 0 : x.numel() / plan.cols;
  return plan;
}

// Normalises each row of `in` (contiguous, compute type C) into `out`; statistics in double.
template <class C>
void layer_norm_rows(const Tensor& in, const Tensor& w, const Tensor& b, const Tensor& out,
                     const LayerNormPlan& plan, double eps) {
  const auto* src = static_cast<const C*>(in.raw_data());
  auto* dst = static_cast<C*>(out.raw_data());
  const C* wp = w.defined() ? static_cast<const C*>(w.raw_data()) : nullptr;
  const C* bp = b.defined() ? static_cast<const C*>(b.raw_data()) : nullptr;
  const std::int64_t cols = plan.cols;
  parallel_for(plan.rows,
               std::max<std::int64_t>(1, kDefaultGrain / std::max<std::int64_t>(cols, 1)),
               [&](std::int64_t begin, std::int64_t end) {
                 for (std::int64_t r = begin; r < end; ++r) {
                   const C* row = src + r * cols;
                   double mean = 0.0;
                   for (std::int64_t j = 0; j < cols; ++j) {
                     mean += row[j];
                   }
                   mean /= static_cast<double>(cols);
                   double var = 0.0;
                   for (std::int64_t j = 0; j < cols; ++j) {
                     const double c = row[j] - mean;
                     var += c * c;
                   }
                   var /= static_cast<double>(cols); // biased, as PyTorch's layer_norm
                   const double rstd = 1.0 / std::sqrt(var + eps);
                   C* o = dst + r * cols;
                   for (std::int64_t j = 0; j < cols; ++j) {
                     double y = (row[j] - mean) * rstd;
                     if (wp != nullptr) {
                       y *= wp[j];
                     }
                     if (bp != nullptr) {
                       y += bp[j];
                     }
                     o[j] = static_cast<C>(y);
                   }
                 }
               });
}

// embedding: {weight [num, dim], indices (integer)}
void check_embedding(const Tensor& weight, const Tensor& indices) {
  if (weight.dim() != 2) {
    user_error("embedding: weight must be 2-D [num_embeddings, dim], got " + weight.type_string());
  }
  if (!is_integral(indices.dtype())) {
    user_error("embedding: indices must be an integer tensor, got " + indices.type_string());
  }
}

// cross_entropy: {logits [N, C] or [C], target integer [N] or []}
void check_cross_entropy(const Tensor& logits, const Tensor& target) {
  require_floating(logits, "cross_entropy");
  if (!is_integral(target.dtype())) {
    user_error("cross_entropy: target must hold integer class indices, got " +
               target.type_string());
  }
  if (logits.dim() == 2) {
    if (target.dim() != 1 || !sym_equal(target.size(0), logits.size(0))) {
      user_error("cross_entropy: target " + target.type_string() + " does not match logits " +
                 logits.type_string() + " (expected [N])");
    }
  } else if (logits.dim() == 1) {
    if (target.dim() != 0) {
      user_error("cross_entropy: for 1-D logits the target must be 0-dim, got " +
                 target.type_string());
    }
  } else {
    user_error("cross_entropy: logits must be [N, C] or [C], got " + logits.type_string());
  }
}

} // namespace

Value eager_softmax(std::span<const Value> args) {
  return softmax_eager(tensor_arg(args, 0), value_int(arg(args, 1)), false);
}
Value meta_softmax(std::span<const Value> args) {
  return softmax_meta(args, false);
}
Value eager_log_softmax(std::span<const Value> args) {
  return softmax_eager(tensor_arg(args, 0), value_int(arg(args, 1)), true);
}
Value meta_log_softmax(std::span<const Value> args) {
  return softmax_meta(args, true);
}

Value eager_layer_norm(std::span<const Value> args) {
  const LayerNormPlan plan = plan_layer_norm(args);
  const Tensor& x = tensor_arg(args, 0);
  const Tensor weight = value_optional_tensor(arg(args, 2));
  const Tensor bias = value_optional_tensor(arg(args, 3));
  const double eps = value_double(arg(args, 4));
  require_real(x, "layer_norm");
  const DType compute = compute_type(x.dtype());
  const Tensor in = contiguous_as(x, compute);
  const Tensor w = weight.defined() ? contiguous_as(weight, compute) : Tensor();
  const Tensor b = bias.defined() ? contiguous_as(bias, compute) : Tensor();
  Tensor out = make_output(x.sym_sizes(), compute, false);
  if (compute == DType::Float64) {
    layer_norm_rows<double>(in, w, b, out, plan, eps);
  } else {
    layer_norm_rows<float>(in, w, b, out, plan, eps);
  }
  return to_result(std::move(out), x.dtype());
}

Value meta_layer_norm(std::span<const Value> args) {
  (void)plan_layer_norm(args);
  const Tensor& x = tensor_arg(args, 0);
  return make_output(x.sym_sizes(), x.dtype(), true);
}

Value eager_embedding(std::span<const Value> args) {

  const Tensor& weight = tensor_arg(args, 0);
  const Tensor& indices = tensor_arg(args, 1);
  check_embedding(weight, indices);
  require_real(weight, "embedding");
  require_real(indices, "embedding");
  std::vector<SymInt> sizes = indices.sym_sizes();
  sizes.push_back(weight.size(1));
  Tensor out = make_output(sizes, weight.dtype(), false);
  const Tensor idx = contiguous_as(indices, DType::Int64);
  const Tensor w = contiguous_as(weight, weight.dtype());
  const auto* ip = static_cast<const std::int64_t*>(idx.raw_data());
  const std::int64_t num = weight.sizes()[0];
  const std::int64_t dim = weight.sizes()[1];
  const std::size_t row_bytes = static_cast<std::size_t>(dim) * dtype_size(weight.dtype());
  for (std::int64_t i = 0; i < idx.numel(); ++i) {
    if (ip[i] < 0 || ip[i] >= num) {
      user_error("embedding: index " + std::to_string(ip[i]) + " is out of range for " +
                 std::to_string(num) + " embeddings");
    }
    std::memcpy(static_cast<char*>(out.raw_data()) + static_cast<std::size_t>(i) * row_bytes,
                static_cast<const char*>(w.raw_data()) +
                    static_cast<std::size_t>(ip[i]) * row_bytes,
                row_bytes);
  }
  return out;
}

Value meta_embedding(std::span<const Value> args) {
  const Tensor& weight = tensor_arg(args, 0);
  const Tensor& indices = tensor_arg(args, 1);
  check_embedding(weight, indices);
  std::vector<SymInt> sizes = indices.sym_sizes();
  sizes.push_back(weight.size(1));
  return make_output(std::move(sizes), weight.dtype(), true);
}

Value eager_cross_entropy(std::span<const Value> args) {
  const Tensor& logits = tensor_arg(args, 0);
  const Tensor& target = tensor_arg(args, 1);
  check_cross_entropy(logits, target);
  require_real(logits, "cross_entropy");
  require_real(target, "cross_entropy");
  const Tensor logp = softmax_eager(logits, -1, true);
  const Tensor lp = contiguous_as(logp, DType::Float64);
  const Tensor t = contiguous_as(target, DType::Int64);
  const auto* lpp = static_cast<const double*>(lp.raw_data());
  const auto* tp = static_cast<const std::int64_t*>(t.raw_data());
  const std::int64_t classes = logits.sizes().back();
  const std::int64_t batch = logits.dim() == 2 ? logits.sizes()[0] : 1;
  double total = 0.0;
  for (std::int64_t i = 0; i < batch; ++i) {
    if (tp[i] < 0 || tp[i] >= classes) {
      user_error("cross_entropy: target " + std::to_string(tp[i]) + " is out of range for " +
                 std::to_string(classes) + " classes");
    }
    total -= lpp[i * classes + tp[i]];
  }
  const double loss =
      batch == 0 ? std::numeric_limits<double>::quiet_NaN() : total / static_cast<double>(batch);
  Tensor out = make_output({}, logits.dtype(), false);
  store<double>(out.raw_data(), logits.dtype(), 0, loss);
  return out;
}

Value meta_cross_entropy(std::span<const Value> args) {
  const Tensor& logits = tensor_arg(args, 0);
  check_cross_entropy(logits, tensor_arg(args, 1));
  return make_output({}, logits.dtype(), true);
}

} // namespace compiler::kernels
