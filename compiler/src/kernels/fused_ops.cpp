// The ops Inductor's pattern rewrites produce (op_list.h's inductor block). Each is computed by
// the kernels of the ops it replaces, in the same order, so a rewritten graph run eagerly gives
// bit for bit what the original graph gives; generated code fuses them for speed.
//   silu  {x}                  = mul(x, sigmoid(x))
//   addmm {bias, a, b}         = add(matmul(a, b), bias)
#include "compiler/core/errors.h"
#include "kernels/kernels.h"
#include "kernels/shape_util.h"

#include <array>

namespace compiler::kernels {

namespace {

template <Value (*Sigmoid)(std::span<const Value>), Value (*Mul)(std::span<const Value>)>
Value silu_with(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  // PyTorch's silu is defined for floating tensors only (x * sigmoid(x) promotes the rest).
  if (!is_floating(x.dtype())) {
    user_error("silu: needs a floating tensor, got " + std::string(dtype_name(x.dtype())));
  }
  const std::array<Value, 1> sig_args = {x};
  const std::array<Value, 2> mul_args = {x, Sigmoid(sig_args)};
  return Mul(mul_args);
}

template <Value (*Matmul)(std::span<const Value>), Value (*Add)(std::span<const Value>)>
Value addmm_with(std::span<const Value> args) {
  const Tensor& bias = tensor_arg(args, 0);
  const Tensor& a = tensor_arg(args, 1);
  const Tensor& b = tensor_arg(args, 2);
  if (a.dim() != 2 || b.dim() != 2) {
    user_error("addmm: expected 2-D matrices, got " + a.type_string() + " and " + b.type_string());
  }
  const std::array<Value, 2> mm_args = {a, b};
  const std::array<Value, 2> add_args = {Matmul(mm_args), bias};
  return Add(add_args);
}

} // namespace

Value eager_silu(std::span<const Value> args) {
  return silu_with<&eager_sigmoid, &eager_mul>(args);
}
Value meta_silu(std::span<const Value> args) {
  return silu_with<&meta_sigmoid, &meta_mul>(args);
}

Value eager_addmm(std::span<const Value> args) {
  return addmm_with<&eager_matmul, &eager_add>(args);
}
Value meta_addmm(std::span<const Value> args) {
  return addmm_with<&meta_matmul, &meta_add>(args);
}

} // namespace compiler::kernels
