// compiler/distributed: NCCL, for collectives on CUDA tensors, opened at run time with dlopen (as
// the CUDA runtime opens the driver and NVRTC, compiler/src/cuda/): a build needs neither NCCL's
// headers nor its library, and a program that never asks for NCCL runs without it.
//
//   auto comm = distributed::NcclCommunicator::create(*pg, local_rank); // rank 0's id, via Gloo
//   comm->all_reduce(cuda_grad);                                         // in place, summed
//
// Looked for as TORCHSCOPE_NCCL_LIBRARY (an environment variable naming the file), then
// libnccl.so.2 and libnccl.so through the loader's path. Status: loading, the version and the
// communicator's unique id (made on rank 0, sent to every rank over the Gloo group, as PyTorch's
// ProcessGroupNCCL sends it through its store) are tested here; the communicator and its
// collectives need a GPU and are compiled but untested on this machine (docs/COMPILER.md).
#pragma once

#include "compiler/distributed/process_group.h"
#include "compiler/tensor/tensor.h"

#include <memory>
#include <string>
#include <vector>

namespace compiler::distributed {

struct NcclStatus {
  bool available = false;
  int version = 0;                // ncclGetVersion: 22809 for 2.28.9
  std::string library;            // the file that was loaded
  std::string unavailable_reason; // "" when available
};

// Loads NCCL on first use, from the default candidates. Never throws.
const NcclStatus& nccl_status();
// Loads NCCL from the first of `candidates` that opens (for tests and tools). Never throws; a
// successful load stays loaded for the process.
NcclStatus load_nccl(const std::vector<std::string>& candidates);

// NCCL's communicator id (ncclUniqueId's 128 bytes): made by rank 0 and sent to every rank of
// `group`. Every rank must call it. UserError when NCCL cannot be loaded on rank 0.
std::string nccl_unique_id(ProcessGroup& group);

// One rank's NCCL communicator over the ranks of a Gloo group.
class NcclCommunicator {
public:
  // Joins the communicator of every rank of `group` on CUDA device `device` (usually the rank's
  // LOCAL_RANK). UserError, on every rank, when NCCL or the device is unavailable.
  static std::unique_ptr<NcclCommunicator> create(ProcessGroup& group, int device);
  ~NcclCommunicator();
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;

  // Sums (or averages) a contiguous float32 tensor on this communicator's device over every
  // rank, in place; returns when it is done.
  void all_reduce(const Tensor& tensor, ReduceOp op = ReduceOp::Sum);
  // Root's values into `tensor` (contiguous, on this communicator's device) on every rank.
  void broadcast(const Tensor& tensor, int root = 0);

  struct Impl;

private:
  explicit NcclCommunicator(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace compiler::distributed
