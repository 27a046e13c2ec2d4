// Reductions: sum, mean, amax, amin over a set of dims (keepdim or not), and argmax.
//
// One layout trick serves all of them: permute the reduced dims to the end and make the result
// contiguous in the compute type, so the reduction is over `inner` consecutive values for
// each of `outer` output elements. Float sums accumulate in double (then round once), so
// results are accurate and independent of how the outer loop is split across threads.
#include "kernels/copy.h"
#include "kernels/element.h"
#include "kernels/kernels.h"
#include "kernels/parallel.h"
#include "kernels/shape_util.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace compiler::kernels {

namespace {

enum class ReduceOp { Sum, Mean, Amax, Amin };

const char* reduce_name(ReduceOp op) {
  static constexpr const char* kNames[] = {"sum", "mean", "amax", "amin"};
  return kNames[static_cast<int>(op)];
}

struct ReducePlan {
  std::vector<std::int64_t> dims; // wrapped, sorted
  std::vector<SymInt> sizes;      // output sizes
  DType result;
};

ReducePlan plan_reduce(ReduceOp op, std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  const std::vector<std::int64_t>& dims_arg = value_ints(arg(args, 1));
  const bool keepdim = value_bool(arg(args, 2));
  ReducePlan plan;
  plan.dims = reduction_dims(dims_arg, x.dim());
  plan.sizes = reduced_shape(x.sym_sizes(), plan.dims, keepdim);
  switch (op) {
  case ReduceOp::Sum:
    plan.result = is_floating(x.dtype()) ? x.dtype() : DType::Int64;
    break;
  case ReduceOp::Mean:
    if (!is_floating(x.dtype())) {
      user_error("mean: needs a floating tensor, got " + std::string(dtype_name(x.dtype())));
    }
    plan.result = x.dtype();
    break;
  case ReduceOp::Amax:
  case ReduceOp::Amin:
    plan.result = x.dtype();
    break;
  }
  return plan;
}

// `x` with the reduced dims moved last, contiguous in `compute`; sets outer/inner counts.
Tensor reduction_layout(const Tensor& x, std::span<const std::int64_t> dims, DType compute,
                        std::int64_t& outer, std::int64_t& inner) {
  std::vector<std::int64_t> order;
  std::vector<SymInt> sizes;
  std::vector<std::int64_t> strides;
  outer = 1;
  inner = 1;
  for (std::int64_t d = 0; d < x.dim(); ++d) {
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) {
      order.push_back(d);
      outer *= x.sizes()[static_cast<std::size_t>(d)];
    }
  }
  for (std::int64_t d : dims) {
    order.push_back(d);
    inner *= x.sizes()[static_cast<std::size_t>(d)];
  }
  for (std::int64_t d : order) {
    sizes.push_back(x.sym_sizes()[static_cast<std::size_t>(d)]);
    strides.push_back(x.strides()[static_cast<std::size_t>(d)]);
  }
  return contiguous_as(make_view(x, std::move(sizes), std::move(strides), x.storage_offset()),
                       compute);
}

template <class C>
void reduce_rows(ReduceOp op, const C* in, C* out, std::int64_t outer, std::int64_t inner) {
  parallel_for(outer, std::max<std::int64_t>(1, kDefaultGrain / std::max<std::int64_t>(inner, 1)),
               [&](std::int64_t begin, std::int64_t end) {
                 for (std::int64_t r = begin; r < end; ++r) {
                   const C* row = in + r * inner;
                   if (op == ReduceOp::Sum || op == ReduceOp::Mean) {
                     if constexpr (std::is_floating_point_v<C>) {
                       double acc = 0.0;
                       for (std::int64_t j = 0; j < inner; ++j) {
                         acc += static_cast<double>(row[j]);
                       }
                       if (op == ReduceOp::Mean) {
                         acc = inner == 0 ? std::numeric_limits<double>::quiet_NaN()
                                          : acc / static_cast<double>(inner);
                       }
                       out[r] = static_cast<C>(acc);
                     } else {
                       C acc = 0;
                       for (std::int64_t j = 0; j < inner; ++j) {
                         acc += row[j];
                       }
                       out[r] = acc;
                     }
                   } else {
                     const bool is_max = op == ReduceOp::Amax;
                     C best = row[0];
                     for (std::int64_t j = 1; j < inner; ++j) {
                       const C v = row[j];
                       if constexpr (std::is_floating_point_v<C>) {
                         if (std::isnan(best)) {
                           break; // NaN propagates
                         }
                         if (std::isnan(v)) {
                           best = v;
                           break;
                         }
                       }
                       if (is_max ? (v > best) : (v < best)) {
                         best = v;
                       }
                     }
                     out[r] = best;
                   }
                 }
               });
}

Value eager_reduce(ReduceOp op, std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  ReducePlan plan = plan_reduce(op, args);
  require_real(x, reduce_name(op));
  const DType compute = compute_type(plan.result);
  std::int64_t outer = 0;
  std::int64_t inner = 0;
  const Tensor in = reduction_layout(x, plan.dims, compute, outer, inner);
  if ((op == ReduceOp::Amax || op == ReduceOp::Amin) && inner == 0 && outer > 0) {
    user_error(std::string(reduce_name(op)) + ": cannot reduce over an empty dimension");
  }
  Tensor out = make_overwritten_output(plan.sizes, compute); // every row is written
  visit_compute(compute, [&](auto c) {
    using C = decltype(c);
    reduce_rows<C>(op, static_cast<const C*>(in.raw_data()), static_cast<C*>(out.raw_data()), outer,
                   inner);
  });
  if (out.dtype() == plan.result) {
    return out;
  }
  Tensor converted = make_output(std::move(plan.sizes), plan.result, false);
  copy_into(out, converted);
  return converted;
}

Value meta_reduce(ReduceOp op, std::span<const Value> args) {
  ReducePlan plan = plan_reduce(op, args);
  return make_output(std::move(plan.sizes), plan.result, true);
}

// argmax: {x, SymInt dim | None, bool keepdim}
struct ArgmaxPlan {
  std::vector<std::int64_t> dims;
  std::vector<SymInt> sizes;
};

ArgmaxPlan plan_argmax(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  const bool keepdim = value_bool(arg(args, 2));
  ArgmaxPlan plan;
  if (std::holds_alternative<std::monostate>(arg(args, 1))) {
    plan.dims = reduction_dims({}, x.dim());
    if (keepdim) {
      plan.sizes.assign(x.sym_sizes().size(), SymInt(1));
    }
  } else {
    const std::int64_t d = wrap_dim(value_int(arg(args, 1)), x.dim());
    if (x.dim() > 0) {
      plan.dims = {d};
    }
    plan.sizes = reduced_shape(x.sym_sizes(), plan.dims, keepdim);
  }
  return plan;
}

} // namespace

#define TORCHSCOPE_REDUCE_KERNELS(name, kind)                                                      \
  Value eager_##name(std::span<const Value> args) {                                                \
    return eager_reduce(ReduceOp::kind, args);                                                     \
  }                                                                                                \
  Value meta_##name(std::span<const Value> args) {                                                 \
    return meta_reduce(ReduceOp::kind, args);                                                      \
  }
TORCHSCOPE_REDUCE_KERNELS(sum, Sum)
TORCHSCOPE_REDUCE_KERNELS(mean, Mean)
TORCHSCOPE_REDUCE_KERNELS(amax, Amax)
TORCHSCOPE_REDUCE_KERNELS(amin, Amin)
#undef TORCHSCOPE_REDUCE_KERNELS

Value eager_argmax(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  ArgmaxPlan plan = plan_argmax(args);
  require_real(x, "argmax");
  std::int64_t outer = 0;
  std::int64_t inner = 0;
  const DType compute = compute_type(x.dtype());
  const Tensor in = reduction_layout(x, plan.dims, compute, outer, inner);
  if (inner == 0) {
    user_error("argmax: cannot take the argmax of an empty dimension");
  }
  Tensor out = make_output(std::move(plan.sizes), DType::Int64, false);
  std::int64_t* o = out.data<std::int64_t>();
  auto run = [&](auto tag) {
    using C = decltype(tag);
    const C* data = static_cast<const C*>(in.raw_data());
    for (std::int64_t r = 0; r < outer; ++r) {
      const C* row = data + r * inner;
      std::int64_t best = 0;
      for (std::int64_t j = 1; j < inner; ++j) {
        if constexpr (std::is_floating_point_v<C>) {
          if (std::isnan(row[best])) {
            break; // NaN counts as the maximum; the first one wins
          }
          if (std::isnan(row[j])) {
            best = j;
            break;
          }
        }
        if (row[j] > row[best]) {
          best = j;
        }
      }
      o[r] = best;
    }
  };
  visit_compute(compute, run);
  return out;
}

Value meta_argmax(std::span<const Value> args) {
  ArgmaxPlan plan = plan_argmax(args);
  return make_output(std::move(plan.sizes), DType::Int64, true);
}

} // namespace compiler::kernels
