// compiler/cuda: the GPU runtime as a user of the compiler sees it: whether CUDA can be used
// here (and, if not, why), the devices and their properties, the thread's current device
// (DeviceGuard), synchronisation, and the caching allocator's statistics (torch.cuda's
// memory_stats / empty_cache).
//
// Tensors reach the GPU through ops (`x.to("cuda")`, `zeros(sizes, dtype, "cuda")`); this header
// is for everything around them. It exists in every build: one configured without the CUDA
// Toolkit (-DTORCHSCOPE_WITH_CUDA=OFF) reports that as the reason CUDA is unavailable, and a
// machine without a driver or a GPU reports that. Nothing here starts the driver before a
// function that needs it is called.
#pragma once

#include "compiler/tensor/device.h"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace compiler::cuda {

// A CUDA driver or NVRTC call that failed for a reason that is neither the caller's mistake
// (those are UserErrors: no device, out of memory) nor a bug of ours (asserted): a lost device,
// a driver fault. what() reads "cuMemcpyDtoHAsync failed: CUDA_ERROR_ILLEGAL_ADDRESS (an
// illegal memory access was encountered)".
class CudaError : public std::runtime_error {
public:
  CudaError(std::string call, int code, std::string name, std::string description);
  // The API call ("cuModuleLoadDataEx"), its result code and the code's name
  // ("CUDA_ERROR_INVALID_PTX", "NVRTC_ERROR_COMPILATION").
  const std::string& call() const noexcept { return call_; }
  int code() const noexcept { return code_; }
  const std::string& name() const noexcept { return name_; }

private:
  std::string call_;
  int code_;
  std::string name_;
};

// True when CUDA tensors can be made: this build has the backend, the driver (libcuda.so.1)
// loads and starts, and it sees at least one device.
bool is_available();
// Why CUDA cannot be used, in one sentence ("" when it can), for example "no CUDA device: the
// driver found none (cuInit: CUDA_ERROR_NO_DEVICE)".
std::string unavailable_reason();
// The number of devices (0 when CUDA is unavailable).
int device_count();

struct DeviceProperties {
  std::string name;                      // "NVIDIA H100 80GB HBM3"
  int major = 0;                         // compute capability, 9 for Hopper
  int minor = 0;                         //
  int multiprocessors = 0;               //
  std::size_t total_memory = 0;          // bytes
  int l2_cache_bytes = 0;                //
  int shared_memory_per_block = 0;       // bytes without opting in
  int shared_memory_per_block_optin = 0; // bytes a kernel may opt in to
  int max_threads_per_block = 0;         //
  int warp_size = 0;                     //
  int memory_bus_width_bits = 0;         //
  int memory_clock_khz = 0;              //
  int driver_version = 0;                // CUDA version the driver supports: 13000 for 13.0
};
// UserError when CUDA is unavailable or there is no device `index`.
DeviceProperties device_properties(int index);

// The current CUDA device of this thread: 0 unless a DeviceGuard says otherwise. "cuda"
// (without an index) means this device.
int current_device() noexcept;

// RAII: makes `index` the current CUDA device of this thread until destroyed, then restores the
// previous one (c10::cuda::CUDAGuard's role). The index is checked when the device is first
// used, so a guard can be set up while tracing on a machine without a GPU.
class DeviceGuard {
public:
  explicit DeviceGuard(int index);
  // A CUDA device: its index (or, for "cuda", the current one). The host: no change.
  explicit DeviceGuard(Device device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

private:
  int previous_;
};

// Waits until every piece of work queued on `device` (-1: the current device) has finished.
// A no-op when CUDA is unavailable.
void synchronize(int device = -1);

// The caching allocator's counters for one device (torch.cuda.memory_stats's main figures).
struct MemoryStats {
  std::size_t allocated_bytes = 0;      // held by live tensors (whole size classes)
  std::size_t requested_bytes = 0;      // what those tensors asked for
  std::size_t reserved_bytes = 0;       // taken from the driver: allocated + cached
  std::size_t peak_allocated_bytes = 0; // since the start or reset_peak_memory_stats()
  std::size_t peak_reserved_bytes = 0;  //
  std::uint64_t allocations = 0;        // requests served
  std::uint64_t frees = 0;              // blocks given back by tensors
  std::uint64_t cache_hits = 0;         // requests served from cached blocks
  std::uint64_t driver_allocations = 0; // requests that went to the driver (cache misses)
  std::uint64_t driver_frees = 0;       // blocks returned to the driver (empty_cache, OOM)
  std::uint64_t oom_retries = 0;        // driver OOMs retried after emptying the cache
};
// All zeros when CUDA is unavailable or the device was never used.
MemoryStats memory_stats(int device = -1);
void reset_peak_memory_stats(int device = -1);
// Returns every cached (unused) block of `device` to the driver (torch.cuda.empty_cache).
void empty_cache(int device = -1);

} // namespace compiler::cuda
