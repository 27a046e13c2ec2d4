// Data parallel training (distributed/data_parallel.h): buckets of gradients, one all-reduce each.
#include "compiler/distributed/data_parallel.h"

#include "compiler/autograd/grad_mode.h"
#include "compiler/core/errors.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace compiler::distributed {

namespace {

void check_parameter(const Tensor& p, std::size_t index) {
  const std::string which = "DistributedDataParallel: parameter " + std::to_string(index);
  if (!p.defined() || p.is_fake()) {
    user_error(which + " is not a real tensor");
  }
  if (p.dtype() != DType::Float32 || !p.device().is_cpu() || !p.is_contiguous()) {
    user_error(which + " must be a contiguous float32 CPU tensor (Gloo reduces on the host); it " +
               "is " + std::string(dtype_name(p.dtype())) + " on " + p.device().str());
  }
}

} // namespace

DistributedDataParallel::DistributedDataParallel(std::shared_ptr<ProcessGroup> group,
                                                 std::vector<Tensor> parameters,
                                                 DataParallelOptions options)
    : group_(std::move(group)), parameters_(std::move(parameters)) {
  if (!group_) {
    user_error("DistributedDataParallel: no process group");
  }
  if (options.bucket_cap_bytes < sizeof(float)) {
    user_error("DistributedDataParallel: bucket_cap_bytes must hold at least one float");
  }
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    check_parameter(parameters_[i], i);
  }
  // Last parameter first: backward produces the gradients of the last layers first, so a
  // bucket is complete early (what an overlapping reducer would exploit). A parameter larger
  // than the cap gets a bucket of its own.
  const std::size_t cap = options.bucket_cap_bytes / sizeof(float);
  std::size_t filled = 0;
  for (std::size_t k = parameters_.size(); k-- > 0;) {
    const auto n = static_cast<std::size_t>(parameters_[k].numel());
    if (buckets_.empty() || (filled > 0 && filled + n > cap)) {
      buckets_.emplace_back();
      filled = 0;
    }
    buckets_.back().push_back(k);
    filled += n;
  }
  if (options.broadcast_parameters) {
    broadcast_parameters();
  }
}

DistributedDataParallel::DistributedDataParallel(std::shared_ptr<ProcessGroup> group,
                                                 const nn::Module& module,
                                                 DataParallelOptions options)
    : DistributedDataParallel(std::move(group), module.parameters(), options) {}

void DistributedDataParallel::broadcast_parameters() {
  // Written in place, under no_grad as torch's DDP copies: no autograd node records the copy.
  autograd::NoGradGuard no_grad;
  for (const Tensor& p : parameters_) {
    group_->broadcast(p, 0);
  }
}

void DistributedDataParallel::synchronize_gradients() {
  autograd::NoGradGuard no_grad;
  for (const std::vector<std::size_t>& bucket : buckets_) {
    std::size_t total = 0;
    for (std::size_t k : bucket) {
      total += static_cast<std::size_t>(parameters_[k].numel());
    }
    flat_.assign(total, 0.0f);
    std::size_t at = 0;
    for (std::size_t k : bucket) {
      const auto n = static_cast<std::size_t>(parameters_[k].numel());
      const Tensor g = parameters_[k].grad();
      if (g.defined()) {
        const Tensor packed = g.is_contiguous() ? g : g.contiguous();
        if (packed.dtype() != DType::Float32 || !packed.device().is_cpu() ||
            packed.numel() != static_cast<std::int64_t>(n)) {
          user_error("DistributedDataParallel: the gradient of parameter " + std::to_string(k) +
                     " is not a float32 CPU tensor of its parameter's size");
        }
        std::memcpy(flat_.data() + at, packed.data<float>(), n * sizeof(float));
      }
      at += n;
    }
    group_->all_reduce(std::span<float>(flat_), ReduceOp::Average);
    at = 0;
    for (std::size_t k : bucket) {
      const Tensor& p = parameters_[k];
      const auto n = static_cast<std::size_t>(p.numel());
      Tensor g = p.grad();
      if (!g.defined() || !g.is_contiguous()) {
        g = Tensor::empty(p.sizes(), DType::Float32);
        p.set_grad(g);
      }
      std::memcpy(g.data<float>(), flat_.data() + at, n * sizeof(float));
      at += n;
    }
  }
}

} // namespace compiler::distributed
