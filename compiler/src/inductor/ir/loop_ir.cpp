// Layouts and buffer kinds of the loop IR (inductor/ir/loop_ir.h).
#include "inductor/ir/loop_ir.h"

namespace compiler::inductor {

Layout Layout::contiguous(DType dtype, std::vector<Expr> sizes) {
  Layout l;
  l.dtype = dtype;
  l.strides = inductor::contiguous_strides(sizes);
  l.sizes = std::move(sizes);
  return l;
}

bool Layout::is_contiguous() const {
  return offset.is_zero() && strides == inductor::contiguous_strides(sizes);
}

Expr Layout::storage_extent() const {
  Expr last = offset;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    last = last + (sizes[i] - 1) * strides[i];
  }
  return last + 1;
}

std::string_view buffer_kind_name(BufferKind k) noexcept {
  switch (k) {
#define TORCHSCOPE_BUFFER_KIND_NAME(name)                                                          \
  case BufferKind::name:                                                                           \
    return #name;
    TORCHSCOPE_BUFFER_KINDS(TORCHSCOPE_BUFFER_KIND_NAME)
#undef TORCHSCOPE_BUFFER_KIND_NAME
  }
  return "?";
}

} // namespace compiler::inductor
