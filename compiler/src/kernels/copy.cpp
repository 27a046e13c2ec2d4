// The strided copy: iterates the rows (all dims but the last) of the source, converting each
// element to the destination type. Rows are split across parallel_for.
#include "kernels/copy.h"

#include "compiler/core/errors.h"
#include "kernels/element.h"
#include "kernels/parallel.h"
#include "kernels/shape_util.h"

#include <cstring>

namespace compiler::kernels {

namespace {

template <class D, class S>
void copy_typed(const Tensor& src, const Tensor& dst) {
  const S* in = static_cast<const S*>(src.raw_data());
  D* out = static_cast<D*>(dst.raw_data());
  const std::int64_t n = src.numel();
  if (src.is_contiguous()) {
    parallel_for(n, kDefaultGrain, [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t i = begin; i < end; ++i) {
        out[i] = convert<D>(in[i]);
      }
    });
    return;
  }
  const std::vector<std::int64_t>& sizes = src.sizes();
  const std::vector<std::int64_t>& strides = src.strides();
  const std::size_t rank = sizes.size();
  const std::int64_t inner = sizes[rank - 1];
  const std::int64_t inner_stride = strides[rank - 1];
  const std::int64_t rows = n / inner;
  const std::int64_t grain =
      std::max<std::int64_t>(1, kDefaultGrain / std::max<std::int64_t>(inner, 1));
  parallel_for(rows, grain, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t row = begin; row < end; ++row) {
      // Source offset of this row: decompose the row number over the outer dims.
      std::int64_t rem = row;
      std::int64_t offset = 0;
      for (std::size_t d = rank - 1; d-- > 0;) {
        offset += (rem % sizes[d]) * strides[d];
        rem /= sizes[d];
      }
      D* o = out + row * inner;
      for (std::int64_t j = 0; j < inner; ++j) {
        o[j] = convert<D>(in[offset + j * inner_stride]);
      }
    }
  });
}

} // namespace

Tensor to_result(Tensor computed, DType dtype) {
  if (computed.dtype() == dtype) {
    return computed;
  }
  Tensor out = make_output(computed.sym_sizes(), dtype, false);
  copy_into(computed, out);
  return out;
}

void copy_into(const Tensor& src, const Tensor& dst) {
  TORCHSCOPE_ASSERT(src.sizes() == dst.sizes(), "copy_into: size mismatch");
  TORCHSCOPE_ASSERT(dst.is_contiguous(), "copy_into: destination must be contiguous");
  TORCHSCOPE_ASSERT(!src.is_fake() && !dst.is_fake(), "copy_into: fake tensor");
  if (src.numel() == 0) {
    return;
  }
  if (src.dtype() == dst.dtype() && src.is_contiguous()) {
    std::memcpy(dst.raw_data(), src.raw_data(),
                static_cast<std::size_t>(src.numel()) * dtype_size(src.dtype()));
    return;
  }
  if (src.dim() == 0) {
    visit_dtype(src.dtype(), [&](auto s) {
      using S = decltype(s);
      visit_dtype(dst.dtype(), [&](auto d) {
        using D = decltype(d);
        *static_cast<D*>(dst.raw_data()) = convert<D>(*static_cast<const S*>(src.raw_data()));
      });
    });
    return;
  }
  visit_dtype(src.dtype(), [&](auto s) {
    using S = decltype(s);
    visit_dtype(dst.dtype(), [&](auto d) {
      using D = decltype(d);
      copy_typed<D, S>(src, dst);
    });
  });
}

Tensor contiguous_as(const Tensor& x, DType dtype) {
  if (x.dtype() == dtype && x.is_contiguous()) {
    return x;
  }
  Tensor out = Tensor::empty_uninitialized(x.sizes(), dtype);
  copy_into(x, out);
  return out;
}

Tensor broadcast_view(const Tensor& x, std::span<const std::int64_t> sizes) {
  const std::size_t rank = sizes.size();
  const std::size_t xrank = x.sizes().size();
  TORCHSCOPE_ASSERT(xrank <= rank, "broadcast_view to a smaller rank");
  std::vector<std::int64_t> strides(rank, 0);
  for (std::size_t i = 0; i < xrank; ++i) {
    const std::size_t d = rank - xrank + i;
    const std::int64_t xs = x.sizes()[i];
    TORCHSCOPE_ASSERT(xs == sizes[d] || xs == 1, "broadcast_view: incompatible size");
    strides[d] = xs == 1 ? 0 : x.strides()[i];
  }
  return make_view(x, to_sym_sizes(sizes), std::move(strides), x.storage_offset());
}

Tensor broadcast_contiguous_as(const Tensor& x, std::span<const std::int64_t> sizes, DType dtype) {
  if (x.sizes().size() == sizes.size() &&
      std::equal(sizes.begin(), sizes.end(), x.sizes().begin())) {
    return contiguous_as(x, dtype);
  }
  Tensor out = Tensor::empty_uninitialized(sizes, dtype);
  copy_into(broadcast_view(x, sizes), out);
  return out;
}

} // namespace compiler::kernels
