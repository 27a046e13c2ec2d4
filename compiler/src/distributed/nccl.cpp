// NCCL opened with dlopen (distributed/nccl.h): the functions we call, declared from NCCL's
// stable C ABI so that no NCCL header is needed to build, one dlsym each.
#include "compiler/distributed/nccl.h"

#include "compiler/core/errors.h"
#include "compiler/cuda/cuda.h"
#include "core/shared_library.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <mutex>

namespace compiler::distributed {

namespace {

// NCCL's C ABI, as far as we use it: results are ints (0 is ncclSuccess), a communicator is an
// opaque pointer, a unique id is 128 bytes passed by value, streams are cudaStream_t (a pointer;
// null is the default stream).
using NcclResult = int;
using NcclComm = void*;
struct NcclUniqueId {
  char internal[128];
};
constexpr int kNcclUint8 = 1;
constexpr int kNcclFloat32 = 7;
constexpr int kNcclSum = 0;
constexpr int kNcclAvg = 4; // from NCCL 2.10
constexpr int kFirstVersionWithAvg = 21000;

struct NcclApi {
  NcclResult (*ncclGetVersion)(int*) = nullptr;
  NcclResult (*ncclGetUniqueId)(NcclUniqueId*) = nullptr;
  NcclResult (*ncclCommInitRank)(NcclComm*, int, NcclUniqueId, int) = nullptr;
  NcclResult (*ncclCommDestroy)(NcclComm) = nullptr;
  NcclResult (*ncclAllReduce)(const void*, void*, std::size_t, int, int, NcclComm, void*) = nullptr;
  NcclResult (*ncclBroadcast)(const void*, void*, std::size_t, int, int, NcclComm, void*) = nullptr;
  const char* (*ncclGetErrorString)(NcclResult) = nullptr;
};

std::mutex g_load_mutex;
NcclApi g_api; // filled by the first successful load
bool g_loaded = false;

std::vector<std::string> default_candidates() {
  std::vector<std::string> out;
  if (const char* env = std::getenv("TORCHSCOPE_NCCL_LIBRARY"); env != nullptr && *env != '\0') {
    out.emplace_back(env);
  }
  out.emplace_back("libnccl.so.2");
  out.emplace_back("libnccl.so");
  return out;
}

const NcclApi& api() {
  const NcclStatus& status = nccl_status();
  if (!status.available) {
    user_error("NCCL: " + status.unavailable_reason);
  }
  return g_api;
}

void check(NcclResult result, const char* call) {
  if (result != 0) {
    const char* text = g_api.ncclGetErrorString != nullptr ? g_api.ncclGetErrorString(result) : "";
    user_error(std::string("NCCL: ") + call + " failed: " + (text != nullptr ? text : "") +
               " (NCCL_DEBUG=INFO says more)");
  }
}

} // namespace

NcclStatus load_nccl(const std::vector<std::string>& candidates) {
  NcclStatus status;
  const core::OpenedLibrary opened = core::open_first_library(candidates);
  void* lib = opened.handle;
  status.library = opened.path;
  if (lib == nullptr) {
    status.unavailable_reason = "NCCL could not be loaded: " + opened.tried +
                                ". Install NCCL, or name the library in TORCHSCOPE_NCCL_LIBRARY";
    return status;
  }
  NcclApi loaded;
  std::string missing;
  auto resolve = [&](auto& slot, const char* name) {
    slot = reinterpret_cast<std::remove_reference_t<decltype(slot)>>(dlsym(lib, name));
    if (slot == nullptr && missing.empty()) {
      missing = name;
    }
  };
  resolve(loaded.ncclGetVersion, "ncclGetVersion");
  resolve(loaded.ncclGetUniqueId, "ncclGetUniqueId");
  resolve(loaded.ncclCommInitRank, "ncclCommInitRank");
  resolve(loaded.ncclCommDestroy, "ncclCommDestroy");
  resolve(loaded.ncclAllReduce, "ncclAllReduce");
  resolve(loaded.ncclBroadcast, "ncclBroadcast");
  resolve(loaded.ncclGetErrorString, "ncclGetErrorString");
  if (!missing.empty()) {
    status.unavailable_reason = status.library + " lacks " + missing + ": it is not a usable NCCL";
    dlclose(lib);
    return status;
  }
  if (loaded.ncclGetVersion(&status.version) != 0) {
    status.unavailable_reason = status.library + ": ncclGetVersion failed";
    dlclose(lib);
    return status;
  }
  status.available = true;
  std::lock_guard lock(g_load_mutex);
  if (!g_loaded) {
    g_api = loaded; // the library stays open for the process
    g_loaded = true;
  }
  return status;
}

const NcclStatus& nccl_status() {
  static const NcclStatus status = load_nccl(default_candidates());
  return status;
}

std::string nccl_unique_id(ProcessGroup& group) {
  std::string id;
  if (group.rank() == 0) {
    // Rank 0 makes it; a failure still takes part in the exchange (an empty id), so that the
    // other ranks fail with it instead of waiting.
    const NcclStatus& status = nccl_status();
    if (status.available) {
      NcclUniqueId raw{};
      if (g_api.ncclGetUniqueId(&raw) == 0) {
        id.assign(raw.internal, sizeof raw.internal);
      }
    }
  }
  std::string from_rank0 = group.all_gather_bytes(id).at(0);
  if (from_rank0.size() != sizeof(NcclUniqueId)) {
    user_error("NCCL: rank 0 could not make the communicator's id (" +
               (nccl_status().available ? std::string("ncclGetUniqueId failed")
                                        : nccl_status().unavailable_reason) +
               ")");
  }
  return from_rank0;
}

struct NcclCommunicator::Impl {
  NcclComm comm = nullptr;
  int device = 0;
  int rank = 0;
  int world_size = 1;
  int version = 0;

  void* device_pointer(const Tensor& t, const char* what) const {
    if (!t.defined() || t.is_fake() || !t.device().is_cuda() || t.device().index() != device ||
        !t.is_contiguous()) {
      user_error(std::string("NCCL: ") + what +
                 " needs a contiguous tensor on cuda:" + std::to_string(device));
    }
    return t.raw_data();
  }
};

NcclCommunicator::NcclCommunicator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

NcclCommunicator::~NcclCommunicator() {
  if (impl_ && impl_->comm != nullptr) {
    g_api.ncclCommDestroy(impl_->comm);
  }
}

std::unique_ptr<NcclCommunicator> NcclCommunicator::create(ProcessGroup& group, int device) {
  // Every rank checks what it needs before the exchange, and the exchange happens regardless,
  // so that one rank's missing GPU fails every rank rather than leaving them waiting.
  std::string problem;
  if (!nccl_status().available) {
    problem = nccl_status().unavailable_reason;
  } else if (!cuda::is_available()) {
    problem = "no CUDA device to communicate from: " + cuda::unavailable_reason();
  } else if (device < 0 || device >= cuda::device_count()) {
    problem = "device " + std::to_string(device) + " does not exist (this machine has " +
              std::to_string(cuda::device_count()) + ")";
  }
  const std::vector<std::string> problems = group.all_gather_bytes(problem);
  for (std::size_t r = 0; r < problems.size(); ++r) {
    if (!problems[r].empty()) {
      user_error("NCCL: rank " + std::to_string(r) +
                 " cannot join the communicator: " + problems[r]);
    }
  }
  const std::string id = nccl_unique_id(group);
  auto impl = std::make_unique<Impl>();
  impl->device = device;
  impl->rank = group.rank();
  impl->world_size = group.world_size();
  impl->version = nccl_status().version;
  NcclUniqueId raw{};
  std::memcpy(raw.internal, id.data(), sizeof raw.internal);
  cuda::DeviceGuard on_device(device);
  check(api().ncclCommInitRank(&impl->comm, impl->world_size, raw, impl->rank), "ncclCommInitRank");
  return std::unique_ptr<NcclCommunicator>(new NcclCommunicator(std::move(impl)));
}

void NcclCommunicator::all_reduce(const Tensor& tensor, ReduceOp op) {
  void* data = impl_->device_pointer(tensor, "all_reduce");
  if (tensor.dtype() != DType::Float32) {
    user_error("NCCL: all_reduce supports float32 tensors here");
  }
  if (op == ReduceOp::Average && impl_->version < kFirstVersionWithAvg) {
    user_error("NCCL: averaging needs NCCL 2.10 or newer (loaded: " +
               std::to_string(impl_->version) + "); sum and divide instead");
  }
  cuda::DeviceGuard on_device(impl_->device);
  cuda::synchronize(impl_->device); // the tensor's producers are done
  check(api().ncclAllReduce(data, data, static_cast<std::size_t>(tensor.numel()), kNcclFloat32,
                            op == ReduceOp::Average ? kNcclAvg : kNcclSum, impl_->comm, nullptr),
        "ncclAllReduce");
  cuda::synchronize(impl_->device);
}

void NcclCommunicator::broadcast(const Tensor& tensor, int root) {
  void* data = impl_->device_pointer(tensor, "broadcast");
  if (root < 0 || root >= impl_->world_size) {
    user_error("NCCL: broadcast root " + std::to_string(root) + " is outside [0, " +
               std::to_string(impl_->world_size) + ")");
  }
  const std::size_t bytes = static_cast<std::size_t>(tensor.numel()) * dtype_size(tensor.dtype());
  cuda::DeviceGuard on_device(impl_->device);
  cuda::synchronize(impl_->device);
  check(api().ncclBroadcast(data, data, bytes, kNcclUint8, root, impl_->comm, nullptr),
        "ncclBroadcast");
  cuda::synchronize(impl_->device);
}

} // namespace compiler::distributed
