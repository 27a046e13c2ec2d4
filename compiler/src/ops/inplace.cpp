// In-place ops (ops.h): each is its out-of-place op followed by one commit step, so an in-place
// op has no op-list entry, kernels, derivative or lowering of its own ("declare once, derive
// the rest": add_ is add, written back). The commit step:
//
//   1. PyTorch's checks: the result must have self's shape (no broadcasting of self) and a dtype
//      that can be cast to self's; a leaf that requires grad (or a view of one) may not be
//      written while grad mode is on.
//   2. Autograd, by rebinding rather than rebasing: the out-of-place op recorded its node as
//      usual, and self takes over the result's grad_fn. PyTorch rebases the history (the
//      in-place node replaces self's grad_fn and its inputs point at self's old history); with
//      the out-of-place node that is the same graph, and it needs no in-place variant of any
//      derivative formula. A tensor saved for backward before the write sees the storage's
//      version change (the "modified by an inplace operation" error), as in PyTorch; an
//      argument the op itself saves is a snapshot taken before the write (PyTorch saves
//      original_self the same way). Writing through a view of a tensor that requires grad would
//      need PyTorch's CopySlices to update the base's history; that is refused (a UserError)
//      rather than given wrong gradients.
//   3. The write: eagerly into self's memory (any strides; views see it through their base)
//      with a version bump; under a hook (capture) OpHook::mutate records it functionally.
#include "autograd/derivatives.h"
#include "compiler/autograd/autograd.h"
#include "compiler/core/errors.h"
#include "compiler/ops/ops.h"
#include "kernels/copy.h"
#include "tensor/scalar_type_name.h"

#include <cstring>
#include <string>

namespace compiler {

namespace {

// PyTorch's canCast: a floating result may not go into an integer or bool tensor, nor a
// non-bool result into a bool tensor.
bool can_cast(DType from, DType to) {
  if (is_floating(from) && !is_floating(to)) {
    return false;
  }
  return !(from != DType::Bool && to == DType::Bool);
}

std::string sizes_text(const std::vector<std::int64_t>& sizes) {
  std::string s = "[";
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    s += (i ? ", " : "") + std::to_string(sizes[i]);
  }
  return s + "]";
}

bool is_view_backward(const autograd::Node& n) {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (int i = 0; i < kNumOps; ++i) {
      const auto op = static_cast<OpKind>(i);
      if (op_category(op) == OpCategory::View) {
        out.emplace_back(autograd::detail::derivative_of(op).backward_name);
      }
    }
    return out;
  }();
  const std::string name = n.name();
  for (const std::string& v : names) {
    if (!v.empty() && v == name) {
      return true;
    }
  }
  return false;
}

// Step 1's autograd checks (grad mode on, self requires grad).
void check_autograd_target(std::string_view op, const Tensor& self) {
  if (!autograd::is_grad_enabled() || !self.requires_grad()) {
    return;
  }
  if (self.is_leaf()) {
    user_error(std::string(op) +
               ": a leaf Variable that requires grad is being used in an in-place operation.");
  }
  std::shared_ptr<autograd::Node> fn = autograd::grad_fn_of(self);
  if (fn == nullptr || !is_view_backward(*fn)) {
    return;
  }
  // A view: find what it views (through chained views).
  while (fn != nullptr && is_view_backward(*fn)) {
    const autograd::Edge& e = fn->next_edges.empty() ? autograd::Edge{} : fn->next_edges[0];
    if (!e.valid()) {
      break;
    }
    if (e.fn->name() == "torch::autograd::AccumulateGrad") {
      user_error(std::string(op) + ": a view of a leaf Variable that requires grad is being "
                                   "used in an in-place operation.");
    }
    fn = e.fn;
  }
  user_error(std::string(op) +
             ": an in-place operation on a view of a tensor that requires grad is not supported "
             "(it would need PyTorch's CopySlices to update the base's history); write to the "
             "base tensor, or to a copy made with contiguous()");
}

// PyTorch refuses to write a tensor where several elements share one memory location.
void check_no_internal_overlap(std::string_view op, const Tensor& self) {
  for (std::size_t d = 0; d < self.sizes().size(); ++d) {
    if (self.sizes()[d] > 1 && self.strides()[d] == 0) {
      user_error(std::string(op) +
                 ": unsupported operation: more than one element of the written-to tensor "
                 "refers to a single memory location. Please clone() the tensor before "
                 "performing the operation.");
    }
  }
}

// `src` (contiguous, self's dtype and sizes) written into self's memory, any strides.
void write_strided(const Tensor& src, const Tensor& self) {
  if (self.numel() == 0) {
    return;
  }
  if (self.is_contiguous()) {
    kernels::copy_into(src, self);
    return;
  }
  const std::size_t elem = dtype_size(self.dtype());
  const auto* in = static_cast<const unsigned char*>(src.raw_data());
  auto* base = static_cast<unsigned char*>(self.impl()->storage->data()) +
               self.storage_offset() * static_cast<std::int64_t>(elem);
  const std::vector<std::int64_t>& sizes = self.sizes();
  const std::vector<std::int64_t>& strides = self.strides();
  std::vector<std::int64_t> index(sizes.size(), 0);
  const std::int64_t n = self.numel();
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t offset = 0;
    for (std::size_t d = 0; d < sizes.size(); ++d) {
      offset += index[d] * strides[d];
    }
    std::memcpy(base + offset * static_cast<std::int64_t>(elem), in + i * elem, elem);
    for (std::size_t d = sizes.size(); d-- > 0;) {
      if (++index[d] < sizes[d]) {
        break;
      }
      index[d] = 0;
    }
  }
}

// The eager write reads and writes host memory (as every eager kernel does).
void check_host(std::string_view op, const Tensor& self, const Tensor& value) {
  if (!self.device().is_cpu() || !value.device().is_cpu()) {
    user_error(std::string(op) + ": eager in-place ops run on the host; a " +
               (self.device().is_cpu() ? value : self).device().repr() +
               " tensor is written by compiled code (compile the function), or copy it with "
               "to(\"cpu\")");
  }
}

// A copy of self's data carrying self's autograd record: what the out-of-place op reads (and
// may save for backward) in place of self, so the write that follows does not change it.
Tensor snapshot(const Tensor& self) {
  Tensor copy = kernels::contiguous_as(self, self.dtype());
  if (copy.is_same(self)) {
    copy = Tensor::empty_uninitialized(self.sizes(), self.dtype());
    kernels::copy_into(self, copy);
  }
  auto impl = std::make_shared<TensorImpl>(*copy.impl());
  impl->autograd = self.impl()->autograd;
  impl->requires_grad = self.requires_grad();
  impl->trace_slot = nullptr;
  return Tensor(std::move(impl));
}

// Steps 2 and 3 for a result computed out of place.
const Tensor& commit(std::string_view op, const Tensor& self, Tensor value, const SourceLoc& loc) {
  CallSiteScope site(loc);
  if (value.sizes() != self.sizes()) {
    user_error(std::string(op) + ": output with shape " + sizes_text(self.sizes()) +
               " doesn't match the broadcast shape " + sizes_text(value.sizes()));
  }
  if (value.dtype() != self.dtype()) {
    if (!can_cast(value.dtype(), self.dtype())) {
      user_error(std::string(op) + ": result type " +
                 std::string(dtype_names::scalar_type_name(value.dtype())) +
                 " can't be cast to the desired output type " +
                 std::string(dtype_names::scalar_type_name(self.dtype())));
    }
    value = to_dtype(value, self.dtype(), loc);
  }
  if (OpHook* hook = current_op_hook(); hook != nullptr) {
    hook->mutate(self, value, op, loc);
  } else if (!value.is_same(self)) {
    check_host(op, self, value);
    // A source sharing self's memory is read completely before the write begins.
    Tensor src = value.shares_storage_with(self) || !value.is_contiguous()
                     ? kernels::contiguous_as(value, value.dtype())
                     : value;
    if (src.shares_storage_with(self)) {
      Tensor copy = Tensor::empty_uninitialized(src.sizes(), src.dtype());
      kernels::copy_into(src, copy);
      src = copy;
    }
    write_strided(src, self);
    self.impl()->storage->bump_version();
  }
  if (autograd::is_grad_enabled()) {
    if (value.requires_grad()) {
      // The edge a gradient of value takes (a leaf's accumulator when copy_ copied a leaf).
      autograd::Edge edge = autograd::gradient_edge(value);
      auto meta = std::make_shared<autograd::AutogradMeta>();
      meta->grad_fn = std::move(edge.fn);
      meta->output_nr = edge.input_nr;
      self.impl()->autograd = std::move(meta);
      self.impl()->requires_grad = true;
    } else if (self.requires_grad()) {
      // Every element now comes from values autograd does not track.
      self.impl()->autograd = nullptr;
      self.impl()->requires_grad = false;
    }
  }
  return self;
}

// Checks self, then computes `op` on (self or its snapshot, rest...) and commits it.
template <class Compute>
const Tensor& in_place(std::string_view name, const Tensor& self, std::span<const Value> others,
                       const SourceLoc& loc, Compute compute) {
  {
    CallSiteScope site(loc);
    check_autograd_target(name, self);
    check_no_internal_overlap(name, self);
  }
  Tensor input = self;
  if (current_op_hook() == nullptr && !self.is_fake() && self.device().is_cpu() &&
      autograd::is_grad_enabled()) {
    bool tracked = self.requires_grad();
    for (const Value& v : others) {
      const Tensor* t = std::get_if<Tensor>(&v);
      tracked = tracked || (t != nullptr && t->defined() && t->requires_grad());
    }
    if (tracked) {
      input = snapshot(self);
    }
  }
  return commit(name, self, compute(input), loc);
}

} // namespace

void OpHook::mutate(const Tensor& dst, const Tensor& value, std::string_view op,
                    const std::source_location& loc) {
  CallSiteScope site(loc);
  if (dst.is_fake() || value.is_fake()) {
    user_error(std::string(op) + ": an in-place op on a tensor without data here (this hook "
                                 "cannot record a mutation)");
  }
  if (!value.is_same(dst)) {
    check_host(op, dst, value);
    Tensor src = kernels::contiguous_as(value, value.dtype());
    if (src.shares_storage_with(dst)) {
      Tensor copy = Tensor::empty_uninitialized(src.sizes(), src.dtype());
      kernels::copy_into(src, copy);
      src = copy;
    }
    write_strided(src, dst);
    dst.impl()->storage->bump_version();
  }
}

// add_, sub_, mul_, div_: the binary op of the same name, with a tensor or a scalar operand.
#define TORCHSCOPE_BINARY_IN_PLACE(op)                                                             \
  const Tensor& op##_(const Tensor& self, const Tensor& other, SourceLoc loc) {                    \
    const Value others[] = {other};                                                                \
    return in_place(#op "_", self, others, loc,                                                    \
                    [&](const Tensor& x) { return op(x, other, loc); });                           \
  }                                                                                                \
  const Tensor& op##_(const Tensor& self, double other, SourceLoc loc) {                           \
    return in_place(#op "_", self, {}, loc, [&](const Tensor& x) { return op(x, other, loc); });   \
  }
TORCHSCOPE_BINARY_IN_PLACE(add)
TORCHSCOPE_BINARY_IN_PLACE(sub)
TORCHSCOPE_BINARY_IN_PLACE(mul)
TORCHSCOPE_BINARY_IN_PLACE(div)
#undef TORCHSCOPE_BINARY_IN_PLACE

const Tensor& clamp_(const Tensor& self, std::optional<double> min, std::optional<double> max,
                     SourceLoc loc) {
  return in_place("clamp_", self, {}, loc,
                  [&](const Tensor& x) { return clamp(x, min, max, loc); });
}

const Tensor& copy_(const Tensor& self, const Tensor& src, SourceLoc loc) {
  const Value o[] = {src};
  return in_place("copy_", self, o, loc, [&](const Tensor&) {
    // Any dtype may be copied (copy_ converts, unlike the arithmetic ops).
    Tensor value = src.dtype() == self.dtype() ? src : to_dtype(src, self.dtype(), loc);
    return value.sizes() == self.sizes() ? value : expand(value, self.sym_sizes(), loc);
  });
}

const Tensor& fill_(const Tensor& self, double value, SourceLoc loc) {
  return in_place("fill_", self, {}, loc, [&](const Tensor&) {
    return self.device() == Device()
               ? full(self.sym_sizes(), value, self.dtype(), loc)
               : full(self.sym_sizes(), value, self.dtype(), self.device(), loc);
  });
}

const Tensor& zero_(const Tensor& self, SourceLoc loc) {
  return fill_(self, 0.0, loc);
}

Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight, const Tensor& bias, bool training, double momentum,
                  double eps, SourceLoc loc) {
  {
    CallSiteScope site(loc);
    if (x.dim() < 2) {
      user_error("batch_norm: expected an input of 2 or more dimensions [N, C, ...], got " +
                 x.type_string());
    }
    if (!training && (!running_mean.defined() || !running_var.defined())) {
      user_error("batch_norm: running_mean and running_var must be defined in evaluation mode");
    }
    const std::int64_t channels = x.sizes()[1];
    for (const Tensor* t : {&running_mean, &running_var, &weight, &bias}) {
      if (t->defined() && (t->dim() != 1 || t->sizes()[0] != channels)) {
        user_error("batch_norm: expected a tensor of " + std::to_string(channels) +
                   " elements (the input's channels), got " + t->type_string());
      }
    }
    if (training && x.numel() / std::max<std::int64_t>(channels, 1) <= 1) {
      user_error("batch_norm: Expected more than 1 value per channel when training, got input "
                 "size " +
                 sizes_text(x.sizes()));
    }
  }
  // Per-channel tensors broadcast as [1, C, 1, ...].
  std::vector<SymInt> channel_shape(static_cast<std::size_t>(x.dim()), SymInt(1));
  channel_shape[1] = x.size(1, loc);
  std::vector<std::int64_t> dims = {0};
  for (std::int64_t d = 2; d < x.dim(); ++d) {
    dims.push_back(d);
  }
  Tensor y;
  if (training) {
    const Tensor batch_mean = mean(x, dims, true, loc);
    const Tensor centered = sub(x, batch_mean, loc);
    const Tensor batch_var = mean(mul(centered, centered, loc), dims, true, loc);
    y = mul(centered, rsqrt(add(batch_var, eps, loc), loc), loc);
    if (running_mean.defined() && running_var.defined()) {
      autograd::NoGradGuard no_grad; // the running statistics are not part of the gradient
      const std::int64_t channels = x.sizes()[1];
      const auto n = static_cast<double>(x.numel() / std::max<std::int64_t>(channels, 1));
      const std::vector<SymInt> flat = {x.size(1, loc)};
      add_(mul_(running_mean, 1.0 - momentum, loc), mul(view(batch_mean, flat, loc), momentum, loc),
           loc);
      add_(mul_(running_var, 1.0 - momentum, loc),
           mul(view(batch_var, flat, loc), momentum * n / (n - 1.0), loc), loc);
    }
  } else {
    y = mul(sub(x, view(running_mean, channel_shape, loc), loc),
            rsqrt(add(view(running_var, channel_shape, loc), eps, loc), loc), loc);
  }
  if (weight.defined()) {
    y = mul(y, view(weight, channel_shape, loc), loc);
  }
  if (bias.defined()) {
    y = add(y, view(bias, channel_shape, loc), loc);
  }
  return y;
}

} // namespace compiler
