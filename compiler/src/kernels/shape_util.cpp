// Shape helpers shared by eager kernels and meta functions.
#include "kernels/shape_util.h"

#include <algorithm>

namespace compiler::kernels {

std::int64_t wrap_dim(std::int64_t dim, std::int64_t rank, bool allow_scalar) {
  const std::int64_t effective = (rank == 0 && allow_scalar) ? 1 : rank;
  if (dim < -effective || dim >= effective) {
    user_error("dimension " + std::to_string(dim) + " is out of range for a tensor of rank " +
               std::to_string(rank) + " (expected a dim in [" + std::to_string(-effective) + ", " +
               std::to_string(effective - 1) + "])");
  }
  return dim < 0 ? dim + effective : dim;
}

std::vector<SymInt> broadcast_shapes(std::span<const SymInt> a, std::span<const SymInt> b) {
  const std::size_t rank = std::max(a.size(), b.size());
  std::vector<SymInt> out(rank);
  for (std::size_t i = 0; i < rank; ++i) {
    // Align from the right; a missing dim acts as size 1.
    const bool has_a = i + a.size() >= rank;
    const bool has_b = i + b.size() >= rank;
    const SymInt sa = has_a ? a[i + a.size() - rank] : SymInt(1);
    const SymInt sb = has_b ? b[i + b.size() - rank] : SymInt(1);
    if (is_concrete(sa, 1)) {
      out[i] = sb;
    } else if (is_concrete(sb, 1)) {
      out[i] = sa;
    } else if (sym_equal(sa, sb)) {
      out[i] = sa.is_symbolic() ? sa : sb;
    } else {
      user_error("shapes " + shape_string(a) + " and " + shape_string(b) +
                 " cannot be broadcast together (size " + sa.to_string() + " vs " + sb.to_string() +
                 " at dim " + std::to_string(i) + ")");
    }
  }
  return out;
}

bool sym_equal(const SymInt& a, const SymInt& b) {
  return a.same_as(b) || a == b;
}

const Value& arg(std::span<const Value> args, std::size_t i) {
  if (i >= args.size()) {
    user_error("the op expects at least " + std::to_string(i + 1) + " arguments, got " +
               std::to_string(args.size()));
  }
  return args[i];
}

const Tensor& tensor_arg(std::span<const Value> args, std::size_t i) {
  return value_tensor(arg(args, i));
}

void require_real(const Tensor& t, std::string_view op) {
  if (t.is_fake()) {
    user_error(std::string(op) + ": eager execution needs real tensors, got a fake tensor");
  }
}

Tensor make_output(std::vector<SymInt> sizes, DType dtype, bool fake) {
  if (fake) {
    return Tensor::fake(std::move(sizes), dtype);
  }
  const std::vector<std::int64_t> hints = size_hints(sizes);
  Tensor t = Tensor::empty(hints, dtype);
  t.impl()->sym_sizes = std::move(sizes);
  return t;
}

Tensor make_overwritten_output(std::vector<SymInt> sizes, DType dtype) {
  const std::vector<std::int64_t> hints = size_hints(sizes);
  Tensor t = Tensor::empty_uninitialized(hints, dtype);
  t.impl()->sym_sizes = std::move(sizes);
  return t;
}

Tensor make_view(const Tensor& base, std::vector<SymInt> sizes, std::vector<std::int64_t> strides,
                 std::int64_t storage_offset) {
  auto impl = std::make_shared<TensorImpl>();
  impl->dtype = base.dtype();
  impl->sizes = size_hints(sizes);
  impl->sym_sizes = std::move(sizes);
  impl->strides = std::move(strides);
  impl->storage_offset = storage_offset;
  impl->storage = base.impl()->storage;
  impl->device = base.device();
  TORCHSCOPE_ASSERT(impl->strides.size() == impl->sizes.size(), "view rank mismatch");
  return Tensor(std::move(impl));
}

SymInt sym_product(std::span<const SymInt> sizes) {
  SymInt n = 1;
  for (const SymInt& s : sizes) {
    n = n * s;
  }
  return n;
}

std::int64_t product(std::span<const std::int64_t> sizes) {
  std::int64_t n = 1;
  for (std::int64_t s : sizes) {
    n *= s;
  }
  return n;
}

std::vector<std::int64_t> reduction_dims(std::span<const std::int64_t> dims, std::int64_t rank) {
  std::vector<std::int64_t> out;
  if (dims.empty()) {
    for (std::int64_t d = 0; d < rank; ++d) {
      out.push_back(d);
    }
    return out;
  }
  for (std::int64_t d : dims) {
    const std::int64_t w = wrap_dim(d, rank);
    if (rank == 0) {
      continue; // reducing a scalar over dim 0/-1 is the identity
    }
    if (std::find(out.begin(), out.end(), w) != out.end()) {
      user_error("dim " + std::to_string(d) + " appears more than once in the reduction dims");
    }
    out.push_back(w);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<SymInt> reduced_shape(std::span<const SymInt> sizes, std::span<const std::int64_t> dims,
                                  bool keepdim) {
  std::vector<SymInt> out;
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    const bool reduced =
        std::find(dims.begin(), dims.end(), static_cast<std::int64_t>(d)) != dims.end();
    if (!reduced) {
      out.push_back(sizes[d]);
    } else if (keepdim) {
      out.emplace_back(1);
    }
  }
  return out;
}

std::string shape_string(std::span<const SymInt> sizes) {
  std::string out = "[";
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    out += (i ? ", " : "") + sizes[i].to_string();
  }
  return out + "]";
}

} // namespace compiler::kernels
