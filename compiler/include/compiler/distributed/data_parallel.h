// compiler/distributed: data parallel training, torch.nn.parallel.DistributedDataParallel's role.
//
//   auto pg = distributed::ProcessGroup::from_environment();
//   distributed::DistributedDataParallel ddp(pg, *model);   // rank 0's parameters everywhere
//   Tensor loss = cross_entropy(compiled(*model, my_shard), labels);
//   loss.backward();
//   ddp.synchronize_gradients();   // every gradient averaged over the ranks
//   optimizer.step();
//
// Each rank trains on its shard of the batch; averaging the gradients makes every rank take the
// step the whole batch would give (for a loss that is a mean and equal shards), so the replicas
// stay equal. Gradients travel in buckets: the parameters, last first (the order backward
// produces their gradients), are packed into flat float32 buffers of at most
// `bucket_cap_bytes` (25 MB, as PyTorch's DDP), one all-reduce each. Our autograd engine has no
// per-gradient hook, so the buckets are reduced after backward, not overlapped with it.
#pragma once

#include "compiler/distributed/process_group.h"
#include "compiler/nn/module.h"
#include "compiler/tensor/tensor.h"

#include <cstddef>
#include <memory>
#include <vector>

namespace compiler::distributed {

struct DataParallelOptions {
  std::size_t bucket_cap_bytes = 25u * 1024u * 1024u;
  // Copy rank 0's parameters to every rank at construction (DDP does; turn it off only when the
  // ranks are known to start equal).
  bool broadcast_parameters = true;
};

class DistributedDataParallel {
public:
  // The parameters to keep in step: float32, contiguous, on the CPU (UserError otherwise).
  DistributedDataParallel(std::shared_ptr<ProcessGroup> group, std::vector<Tensor> parameters,
                          DataParallelOptions options = {});
  // The module's parameters(), in registration order.
  DistributedDataParallel(std::shared_ptr<ProcessGroup> group, const nn::Module& module,
                          DataParallelOptions options = {});

  // Averages every parameter's gradient over the ranks, bucket by bucket. Call it on every rank
  // after backward and before the optimizer's step. A parameter without a gradient on this rank
  // counts as a zero gradient (every rank must take part in every bucket) and gets the average.
  void synchronize_gradients();

  // Rank 0's parameter values to every rank (the constructor does it once).
  void broadcast_parameters();

  // Which parameters (indices into the constructor's list) each bucket holds, in reduction order.
  const std::vector<std::vector<std::size_t>>& buckets() const noexcept { return buckets_; }
  ProcessGroup& group() const noexcept { return *group_; }

private:
  std::shared_ptr<ProcessGroup> group_;
  std::vector<Tensor> parameters_;
  std::vector<std::vector<std::size_t>> buckets_;
  std::vector<float> flat_; // one bucket's gradients, reused
};

} // namespace compiler::distributed
