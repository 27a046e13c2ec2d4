// compiler/distributed: a process group over Gloo, torch.distributed's role for our compiler.
//
//   auto pg = compiler::distributed::ProcessGroup::from_environment(); // as torchrun sets it
//   pg->all_reduce(grad);                 // sum over every rank, in place
//   pg->broadcast(weight, /*root=*/0);    // rank 0's values everywhere
//   std::vector<Tensor> all = pg->all_gather(sizes);
//
// Rendezvous: every rank of one run meets in a folder (TORCHSCOPE_RENDEZVOUS_DIR, which
// scripts/torchscope-run makes) through Gloo's FileStore, which needs a shared file system (one
// machine, or a network mount); or, without a folder, at MASTER_ADDR:MASTER_PORT as torchrun
// sets them, through a TCP store of ours that rank 0 serves (Gloo's headers offer none). The
// processes then talk over TCP on TORCHSCOPE_GLOO_HOST (default 127.0.0.1: one machine).
// Collectives run on contiguous CPU tensors; every rank must call the same collectives in the
// same order, as with torch.distributed. A peer that never arrives or stops answering is a
// UserError after the group's timeout, never an endless wait.
#pragma once

#include "compiler/tensor/tensor.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace compiler::distributed {

// The default of every wait: rendezvous and each collective (torch.distributed's 30 minutes
// are for jobs of thousands of ranks; ours run on one machine). TORCHSCOPE_DIST_TIMEOUT_S
// overrides it in from_environment().
inline constexpr std::chrono::milliseconds kDefaultTimeout{std::chrono::seconds(60)};

struct RendezvousOptions {
  int rank = 0;
  int world_size = 1;
  // The folder every rank of this run shares; created if missing. Files of the run go under
  // run_id inside it and are removed once every rank is connected, so one folder (and one id)
  // can serve runs one after another; runs at the same time need ids of their own.
  std::string rendezvous_dir{};
  std::string run_id{"default"};
  // Without a folder: rank 0 serves a TCP store on master_addr:master_port and every rank
  // meets there (torchrun's MASTER_ADDR and MASTER_PORT).
  std::string master_addr{"127.0.0.1"};
  int master_port = 0;
  // The address the ranks' TCP connections use (every rank of one machine: 127.0.0.1).
  std::string host{"127.0.0.1"};
  std::chrono::milliseconds timeout = kDefaultTimeout;
};

enum class ReduceOp : std::uint8_t { Sum, Average };

class ProcessGroup {
public:
  // Meets the other ranks and connects to each. UserError for options that cannot work
  // (rank outside [0, world_size), no folder), for a peer that says another world size, and
  // for ranks that do not arrive within the timeout (named in the message).
  static std::shared_ptr<ProcessGroup> create(const RendezvousOptions& options);
  // RANK, WORLD_SIZE, TORCHSCOPE_RENDEZVOUS_DIR (else MASTER_ADDR and MASTER_PORT) and
  // optionally TORCHSCOPE_RUN_ID (else TORCHELASTIC_RUN_ID, else "default"),
  // TORCHSCOPE_GLOO_HOST and TORCHSCOPE_DIST_TIMEOUT_S, as scripts/torchscope-run sets them.
  // UserError naming the variable that is missing or malformed.
  static std::shared_ptr<ProcessGroup> from_environment();
  // Whether RANK and WORLD_SIZE are set (the program was started by a launcher).
  static bool environment_has_rank();

  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  int rank() const noexcept;
  int world_size() const noexcept;
  std::chrono::milliseconds timeout() const noexcept;

  // Sums (or averages) a contiguous float32 CPU tensor over every rank, in place.
  void all_reduce(const Tensor& tensor, ReduceOp op = ReduceOp::Sum);
  // The same into a new tensor; `tensor` is left as it was.
  Tensor all_reduced(const Tensor& tensor, ReduceOp op = ReduceOp::Sum);
  // all_reduce(tensor, ReduceOp::Average).
  void all_reduce_average(const Tensor& tensor) { all_reduce(tensor, ReduceOp::Average); }
  // The raw form DDP's buckets use.
  void all_reduce(std::span<float> values, ReduceOp op = ReduceOp::Sum);

  // Root's values into `tensor` on every rank (contiguous CPU tensor, any dtype; every rank's
  // tensor must have the same sizes and dtype).
  void broadcast(const Tensor& tensor, int root = 0);
  // Every rank's `tensor` (same sizes and dtype everywhere), in rank order.
  std::vector<Tensor> all_gather(const Tensor& tensor);
  // Every rank's bytes, in rank order (lengths may differ): torch.distributed's
  // all_gather_object, for the compiler's own exchanges.
  std::vector<std::string> all_gather_bytes(std::string_view bytes);
  // Returns when every rank has reached it.
  void barrier();

  struct Impl;

private:
  explicit ProcessGroup(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace compiler::distributed
