// compiler/tensor: Tensor, a cheap handle to a TensorImpl (dtype, sizes, strides, storage
// offset, storage), with PyTorch's semantics: views share storage, sizes may be symbolic while
// capture traces, and a "fake" tensor has metadata but no storage.
//
// Real tensors live in CPU memory (64-byte aligned, zero-filled on allocation) or in a CUDA
// GPU's memory (from the runtime's caching allocator, not initialised). Every operation on
// tensors (including the view methods, to(), item() and to_bool()) goes through dispatch() in
// ops/op_hook.h, so capture sees each one; the accessors here only read metadata. Eager kernels
// run on the CPU only: an eager op on a CUDA tensor is a UserError (compile the function, or
// move the tensor with to("cpu")), except to(), item()/to_bool() and factories with a device.
#pragma once

#include "compiler/core/sym_int.h"
#include "compiler/tensor/device.h"
#include "compiler/tensor/dtype.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <source_location>
#include <span>
#include <string>
#include <vector>

namespace compiler {

namespace autograd {
struct AutogradMeta; // autograd/node.h
} // namespace autograd

// A block of memory shared by a tensor and its views, on the host or on a GPU; it frees
// through the allocator it came from.
class Storage {
public:
  // Host memory is zero-filled unless the caller will write every byte itself
  // (Fill::Uninitialized: kernel outputs, which skip a memset the size of the result). Large
  // uninitialised blocks come from (and go back to) a process-wide cache of freed blocks, so a
  // graph that runs again does not fault its output pages in again (storage.cpp).
  enum class Fill : std::uint8_t { Zeros, Uninitialized };
  // CPU memory: 64-byte aligned, filled as `fill` says.
  explicit Storage(std::size_t nbytes, Fill fill = Fill::Zeros);
  // Memory on `device` (a resolved device: "cuda:0", not "cuda"). CPU memory as above; CUDA
  // memory comes from the device's caching allocator, at least 256-byte aligned and not
  // initialised. UserError when the device cannot be used (no CUDA in this build, no driver,
  // no such device, out of memory).
  Storage(std::size_t nbytes, Device device, Fill fill = Fill::Zeros);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  // A host pointer for CPU storage, a device pointer for CUDA storage.
  void* data() const noexcept { return data_; }
  std::size_t nbytes() const noexcept { return nbytes_; }
  Device device() const noexcept { return device_; }

  static constexpr std::size_t kAlignment = 64;

  // Counts in-place writes to this memory (the optimizers' updates). Autograd records it when
  // it saves a tensor for backward and refuses to use the tensor if it changed since.
  std::uint64_t version() const noexcept { return version_.load(std::memory_order_relaxed); }
  void bump_version() noexcept { version_.fetch_add(1, std::memory_order_relaxed); }

private:
  void* data_;
  std::size_t nbytes_;
  std::atomic<std::uint64_t> version_{0};
  Device device_;
  std::size_t cached_bytes_ = 0; // non-zero: the block's size in the block cache
};

// What a Tensor handle points at. Fields are public because the kernels and capture read and
// build them directly; Tensor's methods are the friendly way in.
struct TensorImpl {
  DType dtype = DType::Float32;
  std::vector<SymInt> sym_sizes;     // symbolic while tracing; concrete otherwise
  std::vector<std::int64_t> sizes;   // the hints of sym_sizes
  std::vector<std::int64_t> strides; // in elements, computed from the hints
  std::int64_t storage_offset = 0;   // in elements
  std::shared_ptr<Storage> storage;  // null for a fake tensor
  bool requires_grad = false;
  // Capture's slot (its proxy: the graph node and symbolic sizes); opaque to the tensor code.
  std::shared_ptr<void> trace_slot;
  // Autograd's record (grad, grad_fn); null until autograd touches the tensor.
  std::shared_ptr<autograd::AutogradMeta> autograd;
  // Where the data lives (always resolved: "cuda:0", never "cuda"); a real tensor's is its
  // storage's. Fake tensors carry it for capture (graph annotations, guards).
  Device device;
};

// Contiguous (row-major) strides for `sizes`.
std::vector<std::int64_t> contiguous_strides(std::span<const std::int64_t> sizes);
// The hints of `sizes`.
std::vector<std::int64_t> size_hints(std::span<const SymInt> sizes);
// Concrete SymInts for `sizes`.
std::vector<SymInt> to_sym_sizes(std::span<const std::int64_t> sizes);

class Tensor {
public:
  Tensor() = default; // undefined (a "None" tensor argument)
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  // A real, contiguous, zero-filled tensor. These constructors are not ops: they allocate.
  static Tensor empty(std::span<const std::int64_t> sizes, DType dtype = DType::Float32);
  static Tensor empty(std::initializer_list<std::int64_t> sizes, DType dtype = DType::Float32) {
    return empty(std::span<const std::int64_t>(sizes.begin(), sizes.size()), dtype);
  }
  // A real, contiguous tensor whose elements the caller must all write before reading (a
  // kernel's output): like empty() without the zero fill.
  static Tensor empty_uninitialized(std::span<const std::int64_t> sizes,
                                    DType dtype = DType::Float32);
  // A real, contiguous tensor on `device` ("cuda" means the current CUDA device). CUDA memory
  // is not initialised (torch.empty's contract); CPU memory is zero-filled as above.
  static Tensor empty(std::span<const std::int64_t> sizes, DType dtype, Device device);
  static Tensor empty(std::initializer_list<std::int64_t> sizes, DType dtype, Device device) {
    return empty(std::span<const std::int64_t>(sizes.begin(), sizes.size()), dtype, device);
  }
  // A fake tensor: metadata only. `strides` empty means contiguous (from the hints).
  static Tensor fake(std::vector<SymInt> sizes, DType dtype, std::vector<std::int64_t> strides = {},
                     std::int64_t storage_offset = 0, Device device = Device());
  // A real tensor holding `values` (row-major) converted to `dtype` (16-bit floats rounded to
  // nearest even; bool is value != 0). UserError when the count does not match the sizes.
  static Tensor from_values(std::span<const double> values, std::vector<std::int64_t> sizes,
                            DType dtype = DType::Float32);
  static Tensor from_values(std::initializer_list<double> values, std::vector<std::int64_t> sizes,
                            DType dtype = DType::Float32) {
    return from_values(std::span<const double>(values.begin(), values.size()), std::move(sizes),
                       dtype);
  }
  // A 0-dim real tensor.
  static Tensor scalar(double value, DType dtype = DType::Float32);

  bool defined() const noexcept { return impl_ != nullptr; }
  TensorImpl* impl() const noexcept { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl_ptr() const noexcept { return impl_; }
  // Same impl (not merely equal values).
  bool is_same(const Tensor& other) const noexcept { return impl_ == other.impl_; }

  DType dtype() const { return checked().dtype; }
  std::int64_t dim() const { return static_cast<std::int64_t>(checked().sizes.size()); }
  // Negative d counts from the end; UserError when out of range. `where` (the caller's line)
  // tells a trace where a symbolic size was read, for the guards that follow.
  SymInt size(std::int64_t d, std::source_location where = std::source_location::current()) const;
  std::int64_t stride(std::int64_t d) const;
  const std::vector<SymInt>& sym_sizes() const { return checked().sym_sizes; }
  const std::vector<std::int64_t>& sizes() const { return checked().sizes; }
  const std::vector<std::int64_t>& strides() const { return checked().strides; }
  std::int64_t storage_offset() const { return checked().storage_offset; }
  // The number of elements, from the hints.
  std::int64_t numel() const;
  // The number of elements as a SymInt (symbolic while tracing).
  SymInt sym_numel() const;
  bool is_contiguous() const;
  bool requires_grad() const { return checked().requires_grad; }
  // Makes this tensor a leaf that autograd tracks (or stops tracking it). UserError for a
  // non-floating tensor or a non-leaf (a result of tracked ops). Defined in src/autograd/.
  void set_requires_grad(bool value);
  // Where the data lives: "cpu" or "cuda:N" (compares with text: `x.device() == "cuda:0"`).
  Device device() const { return checked().device; }
  bool is_fake() const { return checked().storage == nullptr; }
  bool has_symbolic_sizes() const;
  // Whether two tensors share storage (a view relation).
  bool shares_storage_with(const Tensor& other) const;

  // Pointer to the first element (storage + offset). UserError when the tensor is fake, on a
  // GPU, or T is not the tensor's element type.
  template <class T>
  T* data() const {
    check_data_access(DTypeOf<T>::value);
    return static_cast<T*>(impl_->storage->data()) + impl_->storage_offset;
  }
  // Raw pointer to the first element (a device pointer for a CUDA tensor); nullptr for a fake
  // tensor.
  void* raw_data() const;

  // Every element in logical (row-major) order, as double. For tests and printing; UserError on
  // a fake or CUDA tensor (copy it with to("cpu") first).
  std::vector<double> to_vector() const;
  // Element at a multi-index, as double.
  double at(std::span<const std::int64_t> index) const;
  double at(std::initializer_list<std::int64_t> index) const {
    return at(std::span<const std::int64_t>(index.begin(), index.size()));
  }

  // The value of a one-element tensor. Data-dependent: dispatched (OpKind::item) so capture can
  // break the graph here.
  double item_double(std::source_location loc = std::source_location::current()) const;
  template <class T>
  T item(std::source_location loc = std::source_location::current()) const {
    return static_cast<T>(item_double(loc));
  }
  // Truth value of a one-element tensor (there is no operator bool on purpose: branching on
  // data is a graph break). Dispatched as OpKind::to_bool.
  bool to_bool(std::source_location loc = std::source_location::current()) const;

  // Views and shape ops, as methods; each forwards to the op of the same name in ops/ops.h.
  Tensor view(std::vector<SymInt> sizes,
              std::source_location loc = std::source_location::current()) const;
  Tensor reshape(std::vector<SymInt> sizes,
                 std::source_location loc = std::source_location::current()) const;
  Tensor transpose(std::int64_t dim0, std::int64_t dim1,
                   std::source_location loc = std::source_location::current()) const;
  Tensor permute(std::vector<std::int64_t> dims,
                 std::source_location loc = std::source_location::current()) const;
  Tensor slice(std::int64_t dim, SymInt start, SymInt end, std::int64_t step = 1,
               std::source_location loc = std::source_location::current()) const;
  Tensor expand(std::vector<SymInt> sizes,
                std::source_location loc = std::source_location::current()) const;
  Tensor contiguous(std::source_location loc = std::source_location::current()) const;
  Tensor unsqueeze(std::int64_t dim,
                   std::source_location loc = std::source_location::current()) const;
  Tensor squeeze(std::int64_t dim,
                 std::source_location loc = std::source_location::current()) const;
  // This tensor on `device` (ops/ops.h's to()): itself when it is already there.
  Tensor to(Device device, std::source_location loc = std::source_location::current()) const;

  // Metadata as "f32[2, 3]" (symbolic sizes printed as expressions).
  std::string type_string() const;

  // ---- autograd (autograd/autograd.h has the rest; defined in src/autograd/)
  // The gradient backward() accumulated into this leaf; undefined before the first backward
  // (and for non-leaves).
  Tensor grad() const;
  // Replaces the accumulated gradient (an undefined tensor clears it, as zero_grad does).
  // (A Tensor is a handle: this changes the shared TensorImpl, hence const.)
  void set_grad(const Tensor& grad) const;
  // True unless the tensor is the result of ops autograd recorded.
  bool is_leaf() const;
  // Computes the gradients of this tensor with respect to the leaves it depends on and adds
  // them to their grad(). `gradient` may be undefined only for a one-element tensor (it is
  // then 1). The graph's saved tensors are freed unless `retain_graph`.
  void backward(const Tensor& gradient = Tensor(), bool retain_graph = false,
                std::source_location loc = std::source_location::current()) const;
  // The same data, not tracked by autograd (forwards to the op detach()).
  Tensor detach(std::source_location loc = std::source_location::current()) const;

private:
  // The impl, or UserError for an undefined tensor (a "None" used as a tensor).
  const TensorImpl& checked() const {
    if (impl_ == nullptr) [[unlikely]] {
      throw_undefined();
    }
    return *impl_;
  }
  TensorImpl& checked_mutable() {
    if (impl_ == nullptr) [[unlikely]] {
      throw_undefined();
    }
    return *impl_;
  }
  [[noreturn]] static void throw_undefined();
  void check_data_access(DType requested) const;
  // UserError unless the data is host memory; `what` names the access.
  void check_host_data(std::string_view what) const;

  std::shared_ptr<TensorImpl> impl_;
};

} // namespace compiler
