// Views (view, reshape, transpose, permute, slice, expand, unsqueeze, squeeze) and the shape
// ops that copy (contiguous, cat, stack).
//
// A view only computes new metadata over the same storage, so its eager and meta functions are
// the same function: on a real input it returns a real view, on a fake input a fake one. The
// size arithmetic is over SymInt, so symbolic sizes flow through views, and decisions such as
// "does this size match?" record guards while tracing.
#include "kernels/copy.h"
#include "kernels/element.h"
#include "kernels/kernels.h"
#include "kernels/shape_util.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>

namespace compiler::kernels {

// Strides that let `new_sizes` view memory laid out as (old_sizes, old_strides), or nullopt
// when the memory is not evenly spaced across a merged group of dims (then view fails and
// reshape copies). Groups of old dims that are contiguous with each other can be split and
// merged freely.
std::optional<std::vector<std::int64_t>> view_strides(std::span<const std::int64_t> old_sizes,
                                                      std::span<const std::int64_t> old_strides,
                                                      std::span<const std::int64_t> new_sizes) {
  std::vector<std::int64_t> strides(new_sizes.size(), 1);
  if (old_sizes.empty()) {
    return contiguous_strides(new_sizes);
  }
  if (product(old_sizes) == 0) {
    return contiguous_strides(new_sizes);
  }
  std::int64_t view_d = static_cast<std::int64_t>(new_sizes.size()) - 1;
  std::int64_t chunk_base_stride = old_strides.back();
  std::int64_t tensor_numel = 1;
  std::int64_t view_numel = 1;
  for (std::int64_t tensor_d = static_cast<std::int64_t>(old_sizes.size()) - 1; tensor_d >= 0;
       --tensor_d) {
    tensor_numel *= old_sizes[static_cast<std::size_t>(tensor_d)];
    // End of a chunk: the previous old dim is not contiguous with this one.
    const bool chunk_end =
        tensor_d == 0 ||
        (old_sizes[static_cast<std::size_t>(tensor_d - 1)] != 1 &&
         old_strides[static_cast<std::size_t>(tensor_d - 1)] != tensor_numel * chunk_base_stride);
    if (!chunk_end) {
      continue;
    }
    while (view_d >= 0 &&
           (view_numel < tensor_numel || new_sizes[static_cast<std::size_t>(view_d)] == 1)) {
      strides[static_cast<std::size_t>(view_d)] = view_numel * chunk_base_stride;
      view_numel *= new_sizes[static_cast<std::size_t>(view_d)];
      --view_d;
    }
    if (view_numel != tensor_numel) {
      return std::nullopt;
    }
    if (tensor_d > 0) {
      chunk_base_stride = old_strides[static_cast<std::size_t>(tensor_d - 1)];
      tensor_numel = 1;
      view_numel = 1;
    }
  }
  if (view_d != -1) {
    return std::nullopt;
  }
  return strides;
}

namespace {

// Resolves one -1 in `sizes` against `numel`; UserError when the sizes cannot hold it.
std::vector<SymInt> infer_sizes(std::vector<SymInt> sizes, const SymInt& numel, const char* name) {
  std::optional<std::size_t> infer;
  SymInt known = 1;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (is_concrete(sizes[i], -1)) {
      if (infer) {
        user_error(std::string(name) + ": only one dimension can be -1");
      }
      infer = i;
    } else if (!sizes[i].is_symbolic() && sizes[i].hint() < 0) {
      user_error(std::string(name) + ": invalid size " + sizes[i].to_string());
    } else {
      known = known * sizes[i];
    }
  }
  if (infer) {
    if (is_concrete(known, 0)) {
      user_error(std::string(name) + ": cannot infer -1 in shape " + shape_string(sizes) +
                 " for a tensor with 0 elements");
    }
    if (!numel.is_symbolic() && !known.is_symbolic() && numel.hint() % known.hint() != 0) {
      user_error(std::string(name) + ": shape " + shape_string(sizes) +
                 " is invalid for input of size " + numel.to_string());
    }
    sizes[*infer] = numel / known;
    return sizes;
  }
  if (!sym_equal(known, numel)) {
    user_error(std::string(name) + ": shape " + shape_string(sizes) +
               " is invalid for input of size " + numel.to_string());
  }
  return sizes;
}

Tensor view_impl(const Tensor& x, std::vector<SymInt> sizes_arg, const char* name,
                 bool copy_if_needed) {
  std::vector<SymInt> sizes = infer_sizes(std::move(sizes_arg), x.sym_numel(), name);
  const std::vector<std::int64_t> hints = size_hints(sizes);
  auto strides = view_strides(x.sizes(), x.strides(), hints);
  if (strides) {
    return make_view(x, std::move(sizes), std::move(*strides), x.storage_offset());
  }
  if (!copy_if_needed) {
    user_error(std::string(name) + ": the input's strides are not compatible with shape " +
               shape_string(sizes) + " (use reshape, which copies when it must)");
  }
  if (x.is_fake()) {
    return Tensor::fake(std::move(sizes), x.dtype());
  }
  Tensor copy = contiguous_as(x, x.dtype());
  if (copy.is_same(x)) {
    copy = Tensor::empty(x.sizes(), x.dtype());
    copy_into(x, copy);
  }
  return make_view(copy, std::move(sizes), contiguous_strides(hints), 0);
}

Value view_op(std::span<const Value> args) {
  return view_impl(tensor_arg(args, 0), value_sym_ints(arg(args, 1)), "view", false);
}

Value reshape_op(std::span<const Value> args) {
  return view_impl(tensor_arg(args, 0), value_sym_ints(arg(args, 1)), "reshape", true);
}

Value transpose_op(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  if (x.dim() == 0) {
    return make_view(x, {}, {}, x.storage_offset());
  }
  const auto d0 = static_cast<std::size_t>(wrap_dim(value_int(arg(args, 1)), x.dim()));
  const auto d1 = static_cast<std::size_t>(wrap_dim(value_int(arg(args, 2)), x.dim()));
  std::vector<SymInt> sizes = x.sym_sizes();
  std::vector<std::int64_t> strides = x.strides();
  std::swap(sizes[d0], sizes[d1]);
  std::swap(strides[d0], strides[d1]);
  return make_view(x, std::move(sizes), std::move(strides), x.storage_offset());
}

Value permute_op(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  const std::vector<std::int64_t>& dims = value_ints(arg(args, 1));
  if (static_cast<std::int64_t>(dims.size()) != x.dim()) {
    user_error("permute: expected " + std::to_string(x.dim()) + " dims, got " +
               std::to_string(dims.size()));
  }
  std::vector<bool> seen(dims.size(), false);
  std::vector<SymInt> sizes;
  std::vector<std::int64_t> strides;
  for (std::int64_t d : dims) {
    const auto w = static_cast<std::size_t>(wrap_dim(d, x.dim()));
    if (seen[w]) {
      user_error("permute: dim " + std::to_string(d) + " appears more than once");
    }
    seen[w] = true;
    sizes.push_back(x.sym_sizes()[w]);
    strides.push_back(x.strides()[w]);
  }
  return make_view(x, std::move(sizes), std::move(strides), x.storage_offset());
}

constexpr std::int64_t kSliceToEnd = std::numeric_limits<std::int64_t>::max();

// Clamps a Python slice bound into [0, size].
SymInt clamp_bound(const SymInt& bound, const SymInt& size) {
  if (!bound.is_symbolic() && bound.hint() == kSliceToEnd) {
    return size;
  }
  SymInt b = bound;
  if (!b.is_symbolic() && b.hint() < 0) {
    b = b + size;
    if (!b.is_symbolic() && b.hint() < 0) {
      return SymInt(0);
    }
    if (b.is_symbolic() && b < SymInt(0)) {
      return SymInt(0);
    }
  }
  if (!b.is_symbolic() && !size.is_symbolic()) {
    return std::min(b.hint(), size.hint());
  }
  if (b.same_as(size)) {
    return size;
  }
  return b > size ? size : b;
}

Value slice_op(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  if (x.dim() == 0) {
    user_error("slice: cannot slice a 0-dim tensor");
  }
  const auto d = static_cast<std::size_t>(wrap_dim(value_int(arg(args, 1)), x.dim()));
  const std::int64_t step = value_int(arg(args, 4));
  if (step <= 0) {
    user_error("slice: step must be positive, got " + std::to_string(step));
  }
  const SymInt& size = x.sym_sizes()[d];
  const SymInt start = clamp_bound(value_sym_int(arg(args, 2)), size);
  const SymInt end = clamp_bound(value_sym_int(arg(args, 3)), size);
  SymInt length = 0;
  if (start.same_as(SymInt(0)) && end.same_as(size)) {
    length = step == 1 ? size : (size + SymInt(step - 1)) / SymInt(step);
  } else if (end > start) {
    length = (end - start + SymInt(step - 1)) / SymInt(step);
  }
  std::vector<SymInt> sizes = x.sym_sizes();
  std::vector<std::int64_t> strides = x.strides();
  sizes[d] = length;
  const std::int64_t offset = x.storage_offset() + start.hint() * strides[d];
  strides[d] *= step;
  return make_view(x, std::move(sizes), std::move(strides), offset);
}

Value expand_op(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  const std::vector<SymInt>& target = value_sym_ints(arg(args, 1));
  if (target.size() < x.sym_sizes().size()) {
    user_error("expand: the target shape " + shape_string(target) + " has fewer dims than " +
               x.type_string());
  }
  const std::size_t lead = target.size() - x.sym_sizes().size();
  std::vector<SymInt> sizes(target.size());
  std::vector<std::int64_t> strides(target.size(), 0);
  for (std::size_t i = 0; i < target.size(); ++i) {
    if (i < lead) {
      if (is_concrete(target[i], -1)) {
        user_error("expand: -1 is not allowed for a new leading dim");
      }
      sizes[i] = target[i];
      continue;
    }
    const SymInt& have = x.sym_sizes()[i - lead];
    if (is_concrete(target[i], -1) || sym_equal(target[i], have)) {
      sizes[i] = have;
      strides[i] = x.strides()[i - lead];
    } else if (is_concrete(have, 1)) {
      sizes[i] = target[i];
    } else {
      user_error("expand: cannot expand " + x.type_string() + " to " + shape_string(target) +
                 " (size " + have.to_string() + " at dim " + std::to_string(i - lead) +
                 " is not 1)");
    }
  }
  return make_view(x, std::move(sizes), std::move(strides), x.storage_offset());
}

Value unsqueeze_op(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  const auto d = static_cast<std::size_t>(wrap_dim(value_int(arg(args, 1)), x.dim() + 1, false));
  std::vector<SymInt> sizes = x.sym_sizes();
  std::vector<std::int64_t> strides = x.strides();
  const std::int64_t stride = d < sizes.size() ? x.sizes()[d] * strides[d] : 1;
  sizes.insert(sizes.begin() + static_cast<std::ptrdiff_t>(d), SymInt(1));
  strides.insert(strides.begin() + static_cast<std::ptrdiff_t>(d), stride);
  return make_view(x, std::move(sizes), std::move(strides), x.storage_offset());
}

Value squeeze_op(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  std::vector<SymInt> sizes;
  std::vector<std::int64_t> strides;
  std::optional<std::size_t> only;
  if (!std::holds_alternative<std::monostate>(arg(args, 1))) {
    only = static_cast<std::size_t>(wrap_dim(value_int(arg(args, 1)), x.dim()));
  }
  for (std::size_t i = 0; i < x.sym_sizes().size(); ++i) {
    const bool drop = is_concrete(x.sym_sizes()[i], 1) && (!only || *only == i);
    if (!drop) {
      sizes.push_back(x.sym_sizes()[i]);
      strides.push_back(x.strides()[i]);
    }
  }
  return make_view(x, std::move(sizes), std::move(strides), x.storage_offset());
}

// ---- copies

struct CatPlan {
  std::size_t dim = 0;
  std::vector<SymInt> sizes;
  DType result = DType::Float32;
};

CatPlan plan_cat(const std::vector<Tensor>& xs, std::int64_t dim_arg, const char* name) {
  if (xs.empty()) {
    user_error(std::string(name) + ": expected a non-empty list of tensors");
  }
  for (const Tensor& t : xs) {
    if (!t.defined()) {
      user_error(std::string(name) + ": the list holds an undefined tensor");
    }
  }
  const Tensor& first = xs.front();
  if (first.dim() == 0) {
    user_error(std::string(name) + ": zero-dimensional tensors cannot be concatenated");
  }
  CatPlan p;
  p.dim = static_cast<std::size_t>(wrap_dim(dim_arg, first.dim()));
  p.sizes = first.sym_sizes();
  p.result = first.dtype();
  for (std::size_t i = 1; i < xs.size(); ++i) {
    const Tensor& t = xs[i];
    if (t.dim() != first.dim()) {
      user_error(std::string(name) + ": tensors must have the same rank, got " +
                 first.type_string() + " and " + t.type_string());
    }
    for (std::size_t d = 0; d < p.sizes.size(); ++d) {
      if (d == p.dim) {
        p.sizes[d] = p.sizes[d] + t.sym_sizes()[d];
      } else if (!sym_equal(p.sizes[d], t.sym_sizes()[d])) {
        user_error(std::string(name) + ": sizes must match except in dim " + std::to_string(p.dim) +
                   ", got " + first.type_string() + " and " + t.type_string());
      }
    }
    p.result = promote_types(p.result, t.dtype());
  }
  return p;
}

Tensor cat_eager(const std::vector<Tensor>& xs, const CatPlan& p) {
  Tensor out = make_output(p.sizes, p.result, false);
  const std::size_t elem = dtype_size(p.result);
  std::int64_t outer = 1;
  for (std::size_t d = 0; d < p.dim; ++d) {
    outer *= out.sizes()[d];
  }
  std::int64_t inner = 1;
  for (std::size_t d = p.dim + 1; d < out.sizes().size(); ++d) {
    inner *= out.sizes()[d];
  }
  const std::int64_t out_row = out.sizes()[p.dim] * inner;
  auto* dst = static_cast<char*>(out.raw_data());
  std::int64_t offset = 0; // along dim
  for (const Tensor& t : xs) {
    require_real(t, "cat");
    const Tensor src = contiguous_as(t, p.result);
    const std::int64_t len = t.sizes()[p.dim] * inner;
    const auto* s = static_cast<const char*>(src.raw_data());
    for (std::int64_t o = 0; o < outer; ++o) {
      std::memcpy(
          dst + static_cast<std::size_t>((o * out_row + offset) * static_cast<std::int64_t>(elem)),
          s + static_cast<std::size_t>(o * len * static_cast<std::int64_t>(elem)),
          static_cast<std::size_t>(len) * elem);
    }
    offset += len;
  }
  return out;
}

std::vector<Tensor> unsqueezed_for_stack(const std::vector<Tensor>& xs, std::int64_t dim) {
  if (xs.empty()) {
    user_error("stack: expected a non-empty list of tensors");
  }
  std::vector<Tensor> out;
  for (const Tensor& t : xs) {
    if (!t.defined()) {
      user_error("stack: the list holds an undefined tensor");
    }
    if (t.dim() != xs.front().dim()) {
      user_error("stack: tensors must have the same shape, got " + xs.front().type_string() +
                 " and " + t.type_string());
    }
    const Value args[] = {t, SymInt(dim)};
    out.push_back(std::get<Tensor>(unsqueeze_op(args)));
  }
  return out;
}

} // namespace

Value eager_view(std::span<const Value> args) {
  return view_op(args);
}
Value meta_view(std::span<const Value> args) {
  return view_op(args);
}
Value eager_reshape(std::span<const Value> args) {
  return reshape_op(args);
}
Value meta_reshape(std::span<const Value> args) {
  return reshape_op(args);
}
Value eager_transpose(std::span<const Value> args) {
  return transpose_op(args);
}
Value meta_transpose(std::span<const Value> args) {
  return transpose_op(args);
}
Value eager_permute(std::span<const Value> args) {
  return permute_op(args);
}
Value meta_permute(std::span<const Value> args) {
  return permute_op(args);
}
Value eager_slice(std::span<const Value> args) {
  return slice_op(args);
}
Value meta_slice(std::span<const Value> args) {
  return slice_op(args);
}
Value eager_expand(std::span<const Value> args) {
  return expand_op(args);
}
Value meta_expand(std::span<const Value> args) {
  return expand_op(args);
}
Value eager_unsqueeze(std::span<const Value> args) {
  return unsqueeze_op(args);
}
Value meta_unsqueeze(std::span<const Value> args) {
  return unsqueeze_op(args);
}
Value eager_squeeze(std::span<const Value> args) {
  return squeeze_op(args);
}
Value meta_squeeze(std::span<const Value> args) {
  return squeeze_op(args);
}

// detach: the same data and metadata in a new tensor (autograd treats it as a fresh leaf).
Value eager_detach(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  return make_view(x, x.sym_sizes(), x.strides(), x.storage_offset());
}
Value meta_detach(std::span<const Value> args) {
  return eager_detach(args);
}

Value eager_contiguous(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  require_real(x, "contiguous");
  if (x.is_contiguous()) {
    return x;
  }
  Tensor out = make_output(x.sym_sizes(), x.dtype(), false);
  copy_into(x, out);
  return out;
}

Value meta_contiguous(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  if (x.is_contiguous()) {
    return x;
  }
  return make_output(x.sym_sizes(), x.dtype(), true);
}

Value eager_cat(std::span<const Value> args) {
  const std::vector<Tensor>& xs = value_tensors(arg(args, 0));
  const CatPlan p = plan_cat(xs, value_int(arg(args, 1)), "cat");
  return cat_eager(xs, p);
}

Value meta_cat(std::span<const Value> args) {
  const std::vector<Tensor>& xs = value_tensors(arg(args, 0));
  CatPlan p = plan_cat(xs, value_int(arg(args, 1)), "cat");
  return make_output(std::move(p.sizes), p.result, true);
}

Value eager_stack(std::span<const Value> args) {
  const std::vector<Tensor>& xs = value_tensors(arg(args, 0));
  const std::int64_t dim =
      wrap_dim(value_int(arg(args, 1)), xs.empty() ? 1 : xs.front().dim() + 1, false);
  const std::vector<Tensor> parts = unsqueezed_for_stack(xs, dim);
  const CatPlan p = plan_cat(parts, dim, "stack");
  return cat_eager(parts, p);
}

Value meta_stack(std::span<const Value> args) {
  const std::vector<Tensor>& xs = value_tensors(arg(args, 0));
  const std::int64_t dim =
      wrap_dim(value_int(arg(args, 1)), xs.empty() ? 1 : xs.front().dim() + 1, false);
  CatPlan p = plan_cat(unsqueezed_for_stack(xs, dim), dim, "stack");
  return make_output(std::move(p.sizes), p.result, true);
}

} // namespace compiler::kernels
