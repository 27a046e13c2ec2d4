// Indexing: gather and scatter_add along one dim, PyTorch's semantics. For an index tensor of
// the same rank as the input:
//   gather:       out[i][j][k] = x[index[i][j][k]][j][k]          (dim 0)
//   scatter_add:  out = x; out[index[i][j][k]][j][k] += src[i][j][k]
// They are the primitive ops that embedding and cross_entropy decompose into, and each is the
// other's derivative. Loops walk the index tensor with an odometer over its coordinates, so
// any strides of the operands work.
#include "kernels/copy.h"
#include "kernels/element.h"
#include "kernels/kernels.h"
#include "kernels/shape_util.h"

#include <array>
#include <string>
#include <utility>

namespace compiler::kernels {

namespace {

struct IndexPlan {
  std::size_t dim = 0;
  std::int64_t dim_size = 1; // x's size along dim (1 for a 0-dim x)
};

// Checks the shapes shared by gather and scatter_add: `index` integral, of x's rank, no larger
// than `bound` in any dim other than `dim` (bound: x for gather, src for scatter_add's src).
IndexPlan plan_index(const char* name, const Tensor& x, std::int64_t dim_arg, const Tensor& index) {
  if (!is_integral(index.dtype())) {
    user_error(std::string(name) + ": index must be an integer tensor, got " + index.type_string());
  }
  if (index.dim() != x.dim()) {
    user_error(std::string(name) + ": index " + index.type_string() + " must have the rank of " +
               x.type_string());
  }
  IndexPlan p;
  p.dim = static_cast<std::size_t>(wrap_dim(dim_arg, x.dim()));
  p.dim_size = x.dim() == 0 ? 1 : x.sizes()[p.dim];
  for (std::size_t d = 0; d < index.sizes().size(); ++d) {
    if (d != p.dim && index.sizes()[d] > x.sizes()[d]) {
      user_error(std::string(name) + ": index " + index.type_string() + " is larger than " +
                 x.type_string() + " at dim " + std::to_string(d));
    }
  }
  return p;
}

// Calls f(offset of the element in `a`, offset in `b`, index value) for every element of
// `index`, where the offsets use the coordinates of the index element (the `dim` coordinate
// replaced by the index value for `a`).
template <class F>
void for_each_index(const Tensor& index, std::size_t dim, std::span<const std::int64_t> a_strides,
                    std::int64_t a_dim_size, std::span<const std::int64_t> b_strides,
                    const char* name, F&& f) {
  const Tensor idx = contiguous_as(index, DType::Int64);
  const auto* ip = static_cast<const std::int64_t*>(idx.raw_data());
  const std::vector<std::int64_t>& sizes = index.sizes();
  const std::size_t rank = sizes.size();
  std::vector<std::int64_t> coord(rank, 0);
  const std::int64_t n = index.numel();
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t v = ip[i];
    if (v < -a_dim_size || v >= a_dim_size) {
      user_error(std::string(name) + ": index " + std::to_string(v) +
                 " is out of bounds for size " + std::to_string(a_dim_size));
    }
    if (v < 0) {
      v += a_dim_size;
    }
    std::int64_t a_off = 0;
    std::int64_t b_off = 0;
    for (std::size_t d = 0; d < rank; ++d) {
      a_off += (d == dim ? v : coord[d]) * a_strides[d];
      b_off += coord[d] * b_strides[d];
    }
    f(a_off, b_off);
    for (std::size_t d = rank; d-- > 0;) {
      if (++coord[d] < sizes[d]) {
        break;
      }
      coord[d] = 0;
    }
  }
}

} // namespace

// gather: {x, SymInt dim, index}
Value eager_gather(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  const Tensor& index = tensor_arg(args, 2);
  const IndexPlan p = plan_index("gather", x, value_int(arg(args, 1)), index);
  require_real(x, "gather");
  require_real(index, "gather");
  Tensor out = make_output(index.sym_sizes(), x.dtype(), false);
  const std::vector<std::int64_t> out_strides = contiguous_strides(index.sizes());
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = static_cast<const T*>(x.raw_data());
    T* dst = static_cast<T*>(out.raw_data());
    for_each_index(index, p.dim, x.strides(), p.dim_size, out_strides, "gather",
                   [&](std::int64_t x_off, std::int64_t out_off) { dst[out_off] = src[x_off]; });
  });
  return out;
}

Value meta_gather(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  const Tensor& index = tensor_arg(args, 2);
  (void)plan_index("gather", x, value_int(arg(args, 1)), index);
  return make_output(index.sym_sizes(), x.dtype(), true);
}

// scatter_add: {x, SymInt dim, index, src}
Value eager_scatter_add(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  const Tensor& index = tensor_arg(args, 2);
  const Tensor& src = tensor_arg(args, 3);
  const IndexPlan p = plan_index("scatter_add", x, value_int(arg(args, 1)), index);
  if (src.dim() != index.dim()) {
    user_error("scatter_add: src " + src.type_string() + " must have the rank of index " +
               index.type_string());
  }
  for (std::size_t d = 0; d < index.sizes().size(); ++d) {
    if (index.sizes()[d] > src.sizes()[d]) {
      user_error("scatter_add: index " + index.type_string() + " is larger than src " +
                 src.type_string() + " at dim " + std::to_string(d));
    }
  }
  require_real(x, "scatter_add");
  require_real(index, "scatter_add");
  require_real(src, "scatter_add");
  const DType compute = compute_type(x.dtype());
  Tensor acc = make_output(x.sym_sizes(), compute, false);
  copy_into(x, acc);
  visit_compute(compute, [&](auto tag) {
    using C = decltype(tag);
    const Tensor s = contiguous_as(src, compute);
    const C* sp = static_cast<const C*>(s.raw_data());
    C* ap = static_cast<C*>(acc.raw_data());
    for_each_index(index, p.dim, acc.strides(), p.dim_size, s.strides(), "scatter_add",
                   [&](std::int64_t a_off, std::int64_t s_off) { ap[a_off] += sp[s_off]; });
  });
  if (compute == x.dtype()) {
    return acc;
  }
  Tensor out = make_output(x.sym_sizes(), x.dtype(), false);
  copy_into(acc, out);
  return out;
}

Value meta_scatter_add(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  (void)plan_index("scatter_add", x, value_int(arg(args, 1)), tensor_arg(args, 2));
  (void)tensor_arg(args, 3);
  return make_output(x.sym_sizes(), x.dtype(), true);
}

// ---- indexing, more: index_select, narrow, tril, triu (composites: aot/decompositions.cpp
// rewrites them into gather, slice and where; these kernels are their eager reference)

namespace {

// index_select's shape checks, PyTorch's messages; returns the wrapped dim.
std::size_t check_index_select(const Tensor& x, std::int64_t dim_arg, const Tensor& index) {
  if (index.dtype() != DType::Int64 && index.dtype() != DType::Int32) {
    user_error("index_select: expected dtype int32 or int64 for index, got " + index.type_string());
  }
  if (index.dim() > 1) {
    user_error("index_select: index is supposed to be a vector, got " + index.type_string());
  }
  if (x.dim() == 0) {
    user_error("index_select: needs a tensor of at least one dim, got " + x.type_string());
  }
  return static_cast<std::size_t>(wrap_dim(dim_arg, x.dim()));
}

std::vector<SymInt> index_select_sizes(const Tensor& x, std::size_t dim, const Tensor& index) {
  std::vector<SymInt> sizes = x.sym_sizes();
  sizes[dim] = index.sym_numel();
  return sizes;
}

// narrow's checks, PyTorch's messages; returns {dim, start counted from 0}.
std::pair<std::size_t, SymInt> check_narrow(const Tensor& x, std::span<const Value> args) {
  if (x.dim() == 0) {
    user_error("narrow: cannot be applied to a 0-dim tensor");
  }
  const auto d = static_cast<std::size_t>(wrap_dim(value_int(arg(args, 1)), x.dim()));
  const SymInt& size = x.sym_sizes()[d];
  SymInt start = value_sym_int(arg(args, 2));
  const SymInt& length = value_sym_int(arg(args, 3));
  if (start.hint() < -size.hint() || start.hint() > size.hint()) {
    user_error("narrow: start " + std::to_string(start.hint()) + " is out of range for dim " +
               std::to_string(d) + " of size " + std::to_string(size.hint()));
  }
  if (start.hint() < 0) {
    start = start + size;
  }
  if (length.hint() < 0) {
    user_error("narrow: length must be non-negative, got " + std::to_string(length.hint()));
  }
  if (start.hint() + length.hint() > size.hint()) {
    user_error("narrow: start " + std::to_string(start.hint()) + " + length " +
               std::to_string(length.hint()) + " exceeds dim " + std::to_string(d) + " of size " +
               std::to_string(size.hint()));
  }
  return {d, start};
}

void check_triangle(const char* name, const Tensor& x) {
  if (x.dim() < 2) {
    user_error(std::string(name) + ": input tensor must have at least 2 dimensions, got " +
               x.type_string());
  }
}

// tril (lower = true) keeps col - row <= diagonal; triu keeps col - row >= diagonal.
Value triangle(std::span<const Value> args, bool lower) {
  const char* name = lower ? "tril" : "triu";
  const Tensor& x = tensor_arg(args, 0);
  check_triangle(name, x);
  require_real(x, name);
  const std::int64_t diagonal = value_int(arg(args, 1));
  Tensor out = make_output(x.sym_sizes(), x.dtype(), false);
  copy_into(x, out);
  const std::int64_t rows = x.sizes()[x.sizes().size() - 2];
  const std::int64_t cols = x.sizes().back();
  const std::int64_t matrices = rows * cols == 0 ? 0 : x.numel() / (rows * cols);
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* p = static_cast<T*>(out.raw_data());
    for (std::int64_t m = 0; m < matrices; ++m) {
      for (std::int64_t i = 0; i < rows; ++i) {
        for (std::int64_t j = 0; j < cols; ++j) {
          const bool keep = lower ? j - i <= diagonal : j - i >= diagonal;
          if (!keep) {
            p[(m * rows + i) * cols + j] = T{};
          }
        }
      }
    }
  });
  return out;
}

// Fills a new tensor of `sizes` (x's dtype) with out[c] = x[source(c)], `source` mapping each
// output coordinate (row-major order) to the offset of the element of x it copies.
template <class Source>
Tensor copy_by_coordinate(const Tensor& x, std::vector<SymInt> sizes, Source&& source) {
  Tensor out = make_output(std::move(sizes), x.dtype(), false);
  const std::vector<std::int64_t>& shape = out.sizes();
  std::vector<std::int64_t> coord(shape.size(), 0);
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = static_cast<const T*>(x.raw_data());
    T* dst = static_cast<T*>(out.raw_data());
    for (std::int64_t n = 0; n < out.numel(); ++n) {
      dst[n] = src[source(coord)];
      for (std::size_t d = shape.size(); d-- > 0;) {
        if (++coord[d] < shape[d]) {
          break;
        }
        coord[d] = 0;
      }
    }
  });
  return out;
}

// repeat's checks; returns the output sizes.
std::vector<SymInt> repeat_sizes(const Tensor& x, const std::vector<std::int64_t>& repeats) {
  if (repeats.size() < x.sym_sizes().size()) {
    user_error("repeat: number of dimensions of repeat dims (" + std::to_string(repeats.size()) +
               ") can not be smaller than number of dimensions of tensor " + x.type_string());
  }
  const std::size_t lead = repeats.size() - x.sym_sizes().size();
  std::vector<SymInt> sizes;
  for (std::size_t i = 0; i < repeats.size(); ++i) {
    if (repeats[i] < 0) {
      user_error("repeat: repeats must be non-negative, got " + std::to_string(repeats[i]));
    }
    sizes.push_back(i < lead ? SymInt(repeats[i]) : x.sym_sizes()[i - lead] * SymInt(repeats[i]));
  }
  return sizes;
}

// roll's checks: as many shifts as dims (one shift when there are no dims); returns the
// wrapped dims.
std::vector<std::size_t> roll_dims(const Tensor& x, const std::vector<std::int64_t>& shifts,
                                   const std::vector<std::int64_t>& dims) {
  if (dims.empty() ? shifts.size() != 1 : shifts.size() != dims.size()) {
    user_error("roll: shifts and dimensions must align. shifts: " + std::to_string(shifts.size()) +
               ", dims: " + std::to_string(dims.size()));
  }
  std::vector<std::size_t> wrapped;
  for (std::int64_t d : dims) {
    wrapped.push_back(static_cast<std::size_t>(wrap_dim(d, x.dim(), false)));
  }
  return wrapped;
}

} // namespace

// index_select: {x, SymInt dim, index}
Value eager_index_select(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  const Tensor& index = tensor_arg(args, 2);
  const std::size_t dim = check_index_select(x, value_int(arg(args, 1)), index);
  require_real(x, "index_select");
  require_real(index, "index_select");
  const Tensor idx = contiguous_as(index, DType::Int64);
  const auto* ip = static_cast<const std::int64_t*>(idx.raw_data());
  const std::int64_t dim_size = x.sizes()[dim];
  for (std::int64_t i = 0; i < idx.numel(); ++i) {
    if (ip[i] < 0 || ip[i] >= dim_size) { // PyTorch counts no index from the end here
      user_error("index_select: index " + std::to_string(ip[i]) + " is out of range for dim " +
                 std::to_string(dim) + " of size " + std::to_string(dim_size));
    }
  }
  Tensor out = make_output(index_select_sizes(x, dim, index), x.dtype(), false);
  const std::vector<std::int64_t>& sizes = out.sizes();
  const std::size_t rank = sizes.size();
  std::vector<std::int64_t> coord(rank, 0);
  visit_dtype(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* src = static_cast<const T*>(x.raw_data());
    T* dst = static_cast<T*>(out.raw_data());
    for (std::int64_t n = 0; n < out.numel(); ++n) {
      std::int64_t off = 0;
      for (std::size_t d = 0; d < rank; ++d) {
        off += (d == dim ? ip[coord[d]] : coord[d]) * x.strides()[d];
      }
      dst[n] = src[off];
      for (std::size_t d = rank; d-- > 0;) {
        if (++coord[d] < sizes[d]) {
          break;
        }
        coord[d] = 0;
      }
    }
  });
  return out;
}

Value meta_index_select(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  const Tensor& index = tensor_arg(args, 2);
  const std::size_t dim = check_index_select(x, value_int(arg(args, 1)), index);
  return make_output(index_select_sizes(x, dim, index), x.dtype(), true);
}

// narrow: {x, SymInt dim, SymInt start, SymInt length}: the view slice(x, dim, start,
// start + length) after narrow's own (stricter than slicing's) bounds checks.
Value eager_narrow(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  const auto [dim, start] = check_narrow(x, args);
  const std::array<Value, 5> slice_args{x, SymInt(static_cast<std::int64_t>(dim)), start,
                                        start + value_sym_int(arg(args, 3)), SymInt(1)};
  return eager_slice(slice_args);
}

Value meta_narrow(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  const auto [dim, start] = check_narrow(x, args);
  const std::array<Value, 5> slice_args{x, SymInt(static_cast<std::int64_t>(dim)), start,
                                        start + value_sym_int(arg(args, 3)), SymInt(1)};
  return meta_slice(slice_args);
}

// tril/triu: {x, SymInt diagonal}
Value eager_tril(std::span<const Value> args) {
  return triangle(args, true);
}
Value meta_tril(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  check_triangle("tril", x);
  return make_output(x.sym_sizes(), x.dtype(), true);
}
Value eager_triu(std::span<const Value> args) {
  return triangle(args, false);
}
Value meta_triu(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  check_triangle("triu", x);
  return make_output(x.sym_sizes(), x.dtype(), true);
}

// repeat: {x, int[] repeats}: out[c] = x[c mod x's sizes] (x's dims aligned to the end).
Value eager_repeat(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  const std::vector<std::int64_t>& repeats = value_ints(arg(args, 1));
  std::vector<SymInt> sizes = repeat_sizes(x, repeats);
  require_real(x, "repeat");
  const std::size_t lead = repeats.size() - x.sizes().size();
  return copy_by_coordinate(x, std::move(sizes), [&](const std::vector<std::int64_t>& c) {
    std::int64_t off = 0;
    for (std::size_t d = 0; d < x.sizes().size(); ++d) {
      off += (c[lead + d] % x.sizes()[d]) * x.strides()[d];
    }
    return off;
  });
}

Value meta_repeat(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  return make_output(repeat_sizes(x, value_ints(arg(args, 1))), x.dtype(), true);
}

// roll: {x, int[] shifts, int[] dims}: out[c] = x[c - shift mod n] along each rolled dim.
Value eager_roll(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  const std::vector<std::int64_t>& shifts = value_ints(arg(args, 1));
  const std::vector<std::size_t> dims = roll_dims(x, shifts, value_ints(arg(args, 2)));
  require_real(x, "roll");
  if (dims.empty()) { // the flattened x, rolled, in x's shape
    const Tensor flat = contiguous_as(x, x.dtype());
    const std::int64_t n = x.numel();
    return copy_by_coordinate(
        flat, x.sym_sizes(), [&, i = std::int64_t{0}](const std::vector<std::int64_t>&) mutable {
          const std::int64_t from = n == 0 ? 0 : (((i - shifts[0]) % n) + n) % n;
          ++i;
          return from;
        });
  }
  std::vector<std::int64_t> shift_of(x.sizes().size(), 0);
  for (std::size_t k = 0; k < dims.size(); ++k) {
    shift_of[dims[k]] += shifts[k];
  }
  return copy_by_coordinate(x, x.sym_sizes(), [&](const std::vector<std::int64_t>& c) {
    std::int64_t off = 0;
    for (std::size_t d = 0; d < c.size(); ++d) {
      const std::int64_t n = x.sizes()[d];
      off += ((((c[d] - shift_of[d]) % n) + n) % n) * x.strides()[d];
    }
    return off;
  });
}

Value meta_roll(std::span<const Value> args) {
  const Tensor& x = tensor_arg(args, 0);
  (void)roll_dims(x, value_ints(arg(args, 1)), value_ints(arg(args, 2)));
  return make_output(x.sym_sizes(), x.dtype(), true);
}

} // namespace compiler::kernels
