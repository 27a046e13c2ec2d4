// Tensor metadata accessors, constructors of real and fake tensors, and the view methods
// (which forward to the dispatched ops).
#include "compiler/tensor/tensor.h"

#include "compiler/core/errors.h"
#include "compiler/ops/ops.h"
#include "kernels/element.h"
#include "tensor/device_memory.h"

namespace compiler {

std::vector<std::int64_t> contiguous_strides(std::span<const std::int64_t> sizes) {
  std::vector<std::int64_t> strides(sizes.size());
  std::int64_t running = 1;
  for (std::size_t i = sizes.size(); i-- > 0;) {
    strides[i] = running;
    running *= std::max<std::int64_t>(sizes[i], 1);
  }
  return strides;
}

std::vector<std::int64_t> size_hints(std::span<const SymInt> sizes) {
  std::vector<std::int64_t> out;
  out.reserve(sizes.size());
  for (const SymInt& s : sizes) {
    out.push_back(s.hint());
  }
  return out;
}

std::vector<SymInt> to_sym_sizes(std::span<const std::int64_t> sizes) {
  return std::vector<SymInt>(sizes.begin(), sizes.end());
}

namespace {

std::int64_t product(std::span<const std::int64_t> sizes) {
  std::int64_t n = 1;
  for (std::int64_t s : sizes) {
    n *= s;
  }
  return n;
}

// Sizes must be non-negative and their product (in bytes, for 8-byte elements) must fit in
// 64 bits, so numel() and byte counts never overflow.
void check_sizes(std::span<const std::int64_t> sizes) {
  std::int64_t n = 8;
  for (std::int64_t s : sizes) {
    if (s < 0) {
      user_error("negative size " + std::to_string(s) + " in a tensor shape");
    }
    if (__builtin_mul_overflow(n, s, &n)) {
      user_error("tensor shape is too large: its element count overflows 64 bits");
    }
  }
}

} // namespace

namespace {

Tensor allocate(std::span<const std::int64_t> sizes, DType dtype, Device device,
                Storage::Fill fill) {
  check_sizes(sizes);
  device = device_memory::resolve(device);
  auto impl = std::make_shared<TensorImpl>();
  impl->dtype = dtype;
  impl->sizes.assign(sizes.begin(), sizes.end());
  impl->sym_sizes = to_sym_sizes(sizes);
  impl->strides = contiguous_strides(sizes);
  impl->storage = std::make_shared<Storage>(
      static_cast<std::size_t>(product(sizes)) * dtype_size(dtype), device, fill);
  impl->device = device;
  return Tensor(std::move(impl));
}

} // namespace

Tensor Tensor::empty(std::span<const std::int64_t> sizes, DType dtype) {
  return allocate(sizes, dtype, Device::cpu(), Storage::Fill::Zeros);
}

Tensor Tensor::empty(std::span<const std::int64_t> sizes, DType dtype, Device device) {
  return allocate(sizes, dtype, device, Storage::Fill::Zeros);
}

Tensor Tensor::empty_uninitialized(std::span<const std::int64_t> sizes, DType dtype) {
  return allocate(sizes, dtype, Device::cpu(), Storage::Fill::Uninitialized);
}

Tensor Tensor::fake(std::vector<SymInt> sizes, DType dtype, std::vector<std::int64_t> strides,
                    std::int64_t storage_offset, Device device) {
  auto impl = std::make_shared<TensorImpl>();
  impl->dtype = dtype;
  impl->device = device_memory::resolve(device);
  impl->sizes = size_hints(sizes);
  check_sizes(impl->sizes);
  impl->sym_sizes = std::move(sizes);
  if (strides.empty() && !impl->sizes.empty()) {
    impl->strides = contiguous_strides(impl->sizes);
  } else {
    if (strides.size() != impl->sizes.size()) {
      user_error("Tensor::fake: " + std::to_string(strides.size()) + " strides for " +
                 std::to_string(impl->sizes.size()) + " sizes");
    }
    impl->strides = std::move(strides);
  }
  impl->storage_offset = storage_offset;
  return Tensor(std::move(impl));
}

Tensor Tensor::from_values(std::span<const double> values, std::vector<std::int64_t> sizes,
                           DType dtype) {
  check_sizes(sizes);
  if (static_cast<std::int64_t>(values.size()) != product(sizes)) {
    user_error("from_values: " + std::to_string(values.size()) +
               " values do not fill a tensor of " + std::to_string(product(sizes)) + " elements");
  }
  Tensor t = empty(sizes, dtype);
  for (std::size_t i = 0; i < values.size(); ++i) {
    kernels::store<double>(t.raw_data(), dtype, static_cast<std::int64_t>(i), values[i]);
  }
  return t;
}

Tensor Tensor::scalar(double value, DType dtype) {
  return from_values(std::span<const double>(&value, 1), {}, dtype);
}

namespace {
std::int64_t wrap_dim_or_fail(std::int64_t d, std::int64_t rank) {
  if (d < -rank || d >= rank || rank == 0) {
    user_error("dimension " + std::to_string(d) + " is out of range for a tensor of rank " +
               std::to_string(rank));
  }
  return d < 0 ? d + rank : d;
}
} // namespace

SymInt Tensor::size(std::int64_t d, std::source_location where) const {
  const SymInt& s = impl_->sym_sizes[static_cast<std::size_t>(wrap_dim_or_fail(d, dim()))];
  if (s.is_symbolic()) {
    if (SymGuardRecorder* r = active_sym_guard_recorder()) {
      r->on_size_read(where);
    }
  }
  return s;
}

std::int64_t Tensor::stride(std::int64_t d) const {
  return impl_->strides[static_cast<std::size_t>(wrap_dim_or_fail(d, dim()))];
}

std::int64_t Tensor::numel() const {
  return product(impl_->sizes);
}

SymInt Tensor::sym_numel() const {
  SymInt n = 1;
  for (const SymInt& s : impl_->sym_sizes) {
    n = n * s;
  }
  return n;
}

bool Tensor::is_contiguous() const {
  std::int64_t expected = 1;
  for (std::size_t i = impl_->sizes.size(); i-- > 0;) {
    const std::int64_t size = impl_->sizes[i];
    if (size == 0) {
      return true;
    }
    if (size != 1 && impl_->strides[i] != expected) {
      return false;
    }
    expected *= size;
  }
  return true;
}

bool Tensor::has_symbolic_sizes() const {
  for (const SymInt& s : impl_->sym_sizes) {
    if (s.is_symbolic()) {
      return true;
    }
  }
  return false;
}

bool Tensor::shares_storage_with(const Tensor& other) const {
  return defined() && other.defined() && impl_->storage != nullptr &&
         impl_->storage == other.impl_->storage;
}

void* Tensor::raw_data() const {
  if (impl_->storage == nullptr) {
    return nullptr;
  }
  return static_cast<char*>(impl_->storage->data()) +
         impl_->storage_offset * static_cast<std::int64_t>(dtype_size(impl_->dtype));
}

void Tensor::throw_undefined() {
  user_error("use of an undefined tensor");
}

void Tensor::check_host_data(std::string_view what) const {
  if (is_fake()) {
    user_error(std::string(what) + " on a fake tensor (it has no storage)");
  }
  if (!impl_->device.is_cpu()) {
    user_error(std::string(what) + " on a tensor on " + impl_->device.str() +
               ": its data is in GPU memory; copy it to the host with .to(\"cpu\") first");
  }
}

void Tensor::check_data_access(DType requested) const {
  if (!defined()) {
    user_error("data access on an undefined tensor");
  }
  check_host_data("data access");
  if (requested != impl_->dtype) {
    user_error("data<" + std::string(dtype_name(requested)) + ">() on a tensor of dtype " +
               std::string(dtype_name(impl_->dtype)));
  }
}

double Tensor::at(std::span<const std::int64_t> index) const {
  check_host_data("at()");
  if (static_cast<std::int64_t>(index.size()) != dim()) {
    user_error("at(): index of rank " + std::to_string(index.size()) + " for a tensor of rank " +
               std::to_string(dim()));
  }
  std::int64_t offset = 0;
  for (std::size_t d = 0; d < index.size(); ++d) {
    if (index[d] < 0 || index[d] >= impl_->sizes[d]) {
      user_error("at(): index " + std::to_string(index[d]) + " out of range for dim " +
                 std::to_string(d) + " of size " + std::to_string(impl_->sizes[d]));
    }
    offset += index[d] * impl_->strides[d];
  }
  return kernels::load<double>(raw_data(), impl_->dtype, offset);
}

std::vector<double> Tensor::to_vector() const {
  check_host_data("to_vector()");
  const std::int64_t n = numel();
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(n));
  const std::size_t rank = impl_->sizes.size();
  std::vector<std::int64_t> index(rank, 0);
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t offset = 0;
    for (std::size_t d = 0; d < rank; ++d) {
      offset += index[d] * impl_->strides[d];
    }
    out.push_back(kernels::load<double>(raw_data(), impl_->dtype, offset));
    for (std::size_t d = rank; d-- > 0;) {
      if (++index[d] < impl_->sizes[d]) {
        break;
      }
      index[d] = 0;
    }
  }
  return out;
}

std::string Tensor::type_string() const {
  if (!defined()) {
    return "None";
  }
  std::string out(dtype_name(impl_->dtype));
  out += '[';
  for (std::size_t i = 0; i < impl_->sym_sizes.size(); ++i) {
    out += (i ? ", " : "") + impl_->sym_sizes[i].to_string();
  }
  out += ']';
  return out;
}

double Tensor::item_double(std::source_location loc) const {
  return compiler::item(*this, loc);
}
bool Tensor::to_bool(std::source_location loc) const {
  return compiler::to_bool(*this, loc);
}

Tensor Tensor::view(std::vector<SymInt> sizes, std::source_location loc) const {
  return compiler::view(*this, std::move(sizes), loc);
}
Tensor Tensor::reshape(std::vector<SymInt> sizes, std::source_location loc) const {
  return compiler::reshape(*this, std::move(sizes), loc);
}
Tensor Tensor::transpose(std::int64_t dim0, std::int64_t dim1, std::source_location loc) const {
  return compiler::transpose(*this, dim0, dim1, loc);
}
Tensor Tensor::permute(std::vector<std::int64_t> dims, std::source_location loc) const {
  return compiler::permute(*this, std::move(dims), loc);
}
Tensor Tensor::slice(std::int64_t dim, SymInt start, SymInt end, std::int64_t step,
                     std::source_location loc) const {
  return compiler::slice(*this, dim, std::move(start), std::move(end), step, loc);
}
Tensor Tensor::expand(std::vector<SymInt> sizes, std::source_location loc) const {
  return compiler::expand(*this, std::move(sizes), loc);
}
Tensor Tensor::contiguous(std::source_location loc) const {
  return compiler::contiguous(*this, loc);
}
Tensor Tensor::unsqueeze(std::int64_t dim, std::source_location loc) const {
  return compiler::unsqueeze(*this, dim, loc);
}
Tensor Tensor::squeeze(std::int64_t dim, std::source_location loc) const {
  return compiler::squeeze(*this, dim, loc);
}
Tensor Tensor::to(Device device, std::source_location loc) const {
  return compiler::to(*this, device, loc);
}

} // namespace compiler
