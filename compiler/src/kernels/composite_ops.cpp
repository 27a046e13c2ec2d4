// The composites of issue 26 whose eager kernel is their decomposition's ops: var, logsumexp,
// mse_loss, binary_cross_entropy_with_logits, dropout. The formulas live once, in
// autograd/formula_helpers.h; here they run on real tensors (each op its own eager kernel),
// under the AOT tracer they become prims, so compiled code computes what eager computes op for
// op (and dropout draws the same numbers). The meta functions check the arguments the way the
// eager kernels do and say the result's shape and dtype.
#include "autograd/formula_helpers.h"
#include "autograd/record.h"
#include "kernels/kernels.h"
#include "kernels/shape_util.h"

#include <algorithm>

namespace compiler::kernels {

namespace {

using autograd::detail::BelowAutogradGuard;

// ---- var: {x, int[] dims, double correction, bool keepdim}

Tensor check_var(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  if (!is_floating(x.dtype())) {
    user_error("var: std and var only support floating point and complex dtypes, got " +
               std::string(dtype_name(x.dtype())));
  }
  return x;
}

std::vector<SymInt> reduced_sizes(const Tensor& x, const Value& dims, bool keepdim) {
  const std::vector<std::int64_t> wrapped = reduction_dims(value_ints(dims), x.dim());
  return reduced_shape(x.sym_sizes(), wrapped, keepdim);
}

// ---- losses: {input, target, str reduction}

std::vector<SymInt> loss_sizes(const std::vector<SymInt>& elementwise,
                               const std::string& reduction) {
  return reduction == "none" ? elementwise : std::vector<SymInt>{};
}

std::vector<SymInt> check_mse_loss(std::span<const Value> args) {
  const Tensor& input = tensor_arg(args, 0);
  const Tensor& target = tensor_arg(args, 1);
  autograd::detail::check_reduction(value_string(arg(args, 2)), "mse_loss");
  const DType dtype = promote_types(input.dtype(), target.dtype());
  if (!is_floating(dtype)) {
    user_error("mse_loss: \"mse_cpu\" not implemented for '" + std::string(dtype_name(dtype)) +
               "'");
  }
  return broadcast_shapes(input.sym_sizes(), target.sym_sizes());
}

void check_logits_loss(std::span<const Value> args) {
  const Tensor& input = tensor_arg(args, 0);
  const Tensor& target = tensor_arg(args, 1);
  autograd::detail::check_reduction(value_string(arg(args, 2)), "binary_cross_entropy_with_logits");
  if (input.dim() != target.dim() ||
      !std::equal(input.sym_sizes().begin(), input.sym_sizes().end(), target.sym_sizes().begin(),
                  [](const SymInt& a, const SymInt& b) { return sym_equal(a, b); })) {
    user_error("binary_cross_entropy_with_logits: Target size (" +
               shape_string(target.sym_sizes()) + ") must be the same as input size (" +
               shape_string(input.sym_sizes()) + ")");
  }
  if (!is_floating(input.dtype())) {
    user_error("binary_cross_entropy_with_logits: result type Float can't be cast to the desired "
               "output type " +
               std::string(dtype_name(input.dtype())));
  }
}

// ---- dropout: {x, double p, SymInt seed, SymInt offset}

void check_dropout(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  const double p = value_double(arg(args, 1));
  if (!(p >= 0.0 && p <= 1.0)) {
    user_error("dropout: dropout probability has to be between 0 and 1, but got " +
               std::to_string(p));
  }
  if (!is_floating(x.dtype())) {
    user_error("dropout: result type Float can't be cast to the desired output type " +
               std::string(dtype_name(x.dtype())));
  }
}

} // namespace

Value eager_var(std::span<const Value> args) {
  const Tensor x = check_var(args);
  require_real(x, "var");
  const BelowAutogradGuard below;
  return autograd::detail::variance(x, value_ints(arg(args, 1)), value_double(arg(args, 2)),
                                    value_bool(arg(args, 3)));
}
Value meta_var(std::span<const Value> args) {
  const Tensor x = check_var(args);
  return make_output(reduced_sizes(x, arg(args, 1), value_bool(arg(args, 3))), x.dtype(), true);
}

Value eager_logsumexp(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  require_real(x, "logsumexp");
  (void)reduction_dims(value_ints(arg(args, 1)), x.dim());
  const BelowAutogradGuard below;
  return autograd::detail::log_sum_exp(x, value_ints(arg(args, 1)), value_bool(arg(args, 2)));
}
Value meta_logsumexp(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  const DType dtype = is_floating(x.dtype()) ? x.dtype() : DType::Float32;
  return make_output(reduced_sizes(x, arg(args, 1), value_bool(arg(args, 2))), dtype, true);
}

Value eager_mse_loss(std::span<const Value> args) {
  (void)check_mse_loss(args);
  require_real(tensor_arg(args, 0), "mse_loss");
  require_real(tensor_arg(args, 1), "mse_loss");
  const BelowAutogradGuard below;
  return autograd::detail::reduce_loss(
      autograd::detail::squared_error(tensor_arg(args, 0), tensor_arg(args, 1)),
      value_string(arg(args, 2)));
}
Value meta_mse_loss(std::span<const Value> args) {
  const std::vector<SymInt> sizes = check_mse_loss(args);
  const DType dtype = promote_types(tensor_arg(args, 0).dtype(), tensor_arg(args, 1).dtype());
  return make_output(loss_sizes(sizes, value_string(arg(args, 2))), dtype, true);
}

Value eager_binary_cross_entropy_with_logits(std::span<const Value> args) {
  check_logits_loss(args);
  require_real(tensor_arg(args, 0), "binary_cross_entropy_with_logits");
  require_real(tensor_arg(args, 1), "binary_cross_entropy_with_logits");
  const BelowAutogradGuard below;
  return autograd::detail::reduce_loss(
      autograd::detail::logit_cross_entropy(tensor_arg(args, 0), tensor_arg(args, 1)),
      value_string(arg(args, 2)));
}
Value meta_binary_cross_entropy_with_logits(std::span<const Value> args) {
  check_logits_loss(args);
  const Tensor& input = tensor_arg(args, 0);
  const DType dtype = promote_types(input.dtype(), tensor_arg(args, 1).dtype());
  return make_output(loss_sizes(input.sym_sizes(), value_string(arg(args, 2))), dtype, true);
}

Value eager_dropout(std::span<const Value> args) {
  check_dropout(args);
  const Tensor& x = tensor_arg(args, 0);
  require_real(x, "dropout");
  const BelowAutogradGuard below;
  return autograd::detail::dropout_with_mask(
      x, value_double(arg(args, 1)), value_sym_int(arg(args, 2)), value_sym_int(arg(args, 3)));
}
Value meta_dropout(std::span<const Value> args) {
  check_dropout(args);
  const Tensor& x = tensor_arg(args, 0);
  return make_output(x.sym_sizes(), x.dtype(), true);
}

} // namespace compiler::kernels
