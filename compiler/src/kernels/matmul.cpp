// matmul (torch.matmul's rules: dot, matrix-vector, matrix-matrix, and batched with broadcast
// batch dims), mm and bmm. Operands are brought to [batch, n, k] and [batch, k, m] contiguous
// buffers of the compute type; the product is the i-k-j loop (unit-stride inner loop, which the
// compiler vectorises), with rows split across parallel_for.
#include "kernels/matmul.h"

#include "kernels/copy.h"
#include "kernels/element.h"
#include "kernels/kernels.h"
#include "kernels/parallel.h"
#include "kernels/shape_util.h"

#include <algorithm>
#include <type_traits>
#include <vector>

namespace compiler::kernels {

namespace {

struct MatmulPlan {
  std::vector<SymInt> batch; // broadcast batch dims
  SymInt n, k, m;
  bool squeeze_n = false; // a was 1-D: drop the n dim from the result
  bool squeeze_m = false; // b was 1-D: drop the m dim
  std::vector<SymInt> out_sizes;
  DType result = DType::Float32;
};

MatmulPlan plan_matmul(const Tensor& a, const Tensor& b, const char* name) {
  if (a.dim() == 0 || b.dim() == 0) {
    user_error(std::string(name) + ": both arguments need at least one dimension, got " +
               a.type_string() + " and " + b.type_string());
  }
  MatmulPlan p;
  std::vector<SymInt> as = a.sym_sizes();
  std::vector<SymInt> bs = b.sym_sizes();
  if (as.size() == 1) {
    as.insert(as.begin(), SymInt(1));
    p.squeeze_n = true;
  }
  if (bs.size() == 1) {
    bs.emplace_back(1);
    p.squeeze_m = true;
  }
  p.n = as[as.size() - 2];
  p.k = as[as.size() - 1];
  p.m = bs[bs.size() - 1];
  const SymInt kb = bs[bs.size() - 2];
  if (!sym_equal(p.k, kb)) {
    user_error(std::string(name) + ": inner dimensions do not match: " + a.type_string() + " @ " +
               b.type_string() + " (" + p.k.to_string() + " vs " + kb.to_string() + ")");
  }
  const std::span<const SymInt> a_batch(as.data(), as.size() - 2);
  const std::span<const SymInt> b_batch(bs.data(), bs.size() - 2);
  p.batch = broadcast_shapes(a_batch, b_batch);
  p.out_sizes = p.batch;
  if (!p.squeeze_n) {
    p.out_sizes.push_back(p.n);
  }
  if (!p.squeeze_m) {
    p.out_sizes.push_back(p.m);
  }
  // PyTorch's matrix products do not promote: mixed dtypes are an error there, so they are here.
  if (a.dtype() != b.dtype()) {
    user_error(std::string(name) + ": expected both operands to have the same dtype, got " +
               a.type_string() + " and " + b.type_string());
  }
  p.result = promote_types(a.dtype(), b.dtype());
  if (p.result == DType::Bool) {
    user_error(std::string(name) + ": bool tensors are not supported");
  }
  return p;
}

template <class C>
void matmul_loop(const C* a, const C* b, C* out, std::int64_t batch, std::int64_t n, std::int64_t k,
                 std::int64_t m) {
  // Rows split across parallel_for; each row is computed by matmul_rows (matmul.h).
  const std::int64_t rows = batch * n;
  const std::int64_t grain =
      std::max<std::int64_t>(1, kDefaultGrain / std::max<std::int64_t>(k * m, 1));
  parallel_for(rows, grain, [&](std::int64_t begin, std::int64_t end) {
    matmul_rows<C>(a, b, out, n, k, m, begin, end);
  });
}

Value run_matmul(const MatmulPlan& p, const Tensor& a, const Tensor& b) {
  const DType compute = compute_type(p.result);
  std::vector<std::int64_t> a_full = size_hints(p.batch);
  std::vector<std::int64_t> b_full = a_full;
  a_full.push_back(p.n.hint());
  a_full.push_back(p.k.hint());
  b_full.push_back(p.k.hint());
  b_full.push_back(p.m.hint());
  // 1-D operands become [1, k] and [k, 1] views before broadcasting.
  const Tensor a2 =
      p.squeeze_n ? make_view(a, {SymInt(1), a.size(0)}, {0, a.stride(0)}, a.storage_offset()) : a;
  const Tensor b2 =
      p.squeeze_m ? make_view(b, {b.size(0), SymInt(1)}, {b.stride(0), 0}, b.storage_offset()) : b;
  const Tensor ac = broadcast_contiguous_as(a2, a_full, compute);
  const Tensor bc = broadcast_contiguous_as(b2, b_full, compute);
  const std::int64_t batch = product(size_hints(p.batch));
  Tensor out = make_overwritten_output(p.out_sizes, compute); // matmul_loop writes each row
  visit_compute(compute, [&](auto c) {
    using C = decltype(c);
    matmul_loop<C>(static_cast<const C*>(ac.raw_data()), static_cast<const C*>(bc.raw_data()),
                   static_cast<C*>(out.raw_data()), batch, p.n.hint(), p.k.hint(), p.m.hint());
  });
  if (out.dtype() == p.result) {
    return out;
  }
  Tensor converted = make_output(p.out_sizes, p.result, false);
  copy_into(out, converted);
  return converted;
}

MatmulPlan plan_bmm(const Tensor& a, const Tensor& b) {
  if (a.dim() != 3 || b.dim() != 3) {
    user_error("bmm: expected two 3-D tensors, got " + a.type_string() + " and " + b.type_string());
  }
  if (!sym_equal(a.size(0), b.size(0))) {
    user_error("bmm: batch sizes differ: " + a.type_string() + " and " + b.type_string());
  }
  return plan_matmul(a, b, "bmm");
}

MatmulPlan plan_mm(const Tensor& a, const Tensor& b) {
  if (a.dim() != 2 || b.dim() != 2) {
    user_error("mm: expected two 2-D tensors, got " + a.type_string() + " and " + b.type_string());
  }
  return plan_matmul(a, b, "mm");
}

} // namespace

Value eager_mm(std::span<const Value> args) {
  const Tensor& a = tensor_arg(args, 0);
  const Tensor& b = tensor_arg(args, 1);
  const MatmulPlan p = plan_mm(a, b);
  require_real(a, "mm");
  require_real(b, "mm");
  return run_matmul(p, a, b);
}

Value meta_mm(std::span<const Value> args) {
  const MatmulPlan p = plan_mm(tensor_arg(args, 0), tensor_arg(args, 1));
  return make_output(p.out_sizes, p.result, true);
}

Value eager_matmul(std::span<const Value> args) {
  const Tensor& a = tensor_arg(args, 0);
  const Tensor& b = tensor_arg(args, 1);
  const MatmulPlan p = plan_matmul(a, b, "matmul");
  require_real(a, "matmul");
  require_real(b, "matmul");
  return run_matmul(p, a, b);
}

Value meta_matmul(std::span<const Value> args) {
  const MatmulPlan p = plan_matmul(tensor_arg(args, 0), tensor_arg(args, 1), "matmul");
  return make_output(p.out_sizes, p.result, true);
}

Value eager_bmm(std::span<const Value> args) {
  const Tensor& a = tensor_arg(args, 0);
  const Tensor& b = tensor_arg(args, 1);
  const MatmulPlan p = plan_bmm(a, b);
  require_real(a, "bmm");
  require_real(b, "bmm");
  return run_matmul(p, a, b);
}

Value meta_bmm(std::span<const Value> args) {
  const MatmulPlan p = plan_bmm(tensor_arg(args, 0), tensor_arg(args, 1));
  return make_output(p.out_sizes, p.result, true);
}

} // namespace compiler::kernels
