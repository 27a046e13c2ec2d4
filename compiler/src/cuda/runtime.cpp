// Devices (made on first use, never destroyed), the thread's current streams, streams and
// events.
#include "cuda/runtime.h"

#include "compiler/core/errors.h"

#include <atomic>
#include <cstdio>
#include <vector>

namespace compiler::cuda {

namespace {

// A query's answer: finished (true), still running (false), or a failure (CudaError).
bool completed(CUresult result, const char* call) {
  if (result == CUDA_ERROR_NOT_READY) {
    return false;
  }
  check(result, call);
  return true;
}

// The caching allocator's view of a device: the driver's allocation and event calls.
class DriverAllocatorBackend final : public AllocatorBackend {
public:
  explicit DriverAllocatorBackend(const DeviceContext& ctx) : ctx_(ctx) {}

  void* allocate(std::size_t nbytes) override {
    ctx_.bind();
    CUdeviceptr ptr = 0;
    const CUresult r = driver().cuMemAlloc(&ptr, nbytes);
    if (r == CUDA_ERROR_OUT_OF_MEMORY) {
      return nullptr;
    }
    check(r, "cuMemAlloc");
    return reinterpret_cast<void*>(ptr);
  }
  void free(void* ptr) override {
    ctx_.bind();
    TORCHSCOPE_CU(cuMemFree, reinterpret_cast<CUdeviceptr>(ptr));
  }
  EventId record_event(StreamId stream) override {
    ctx_.bind();
    CUevent e = nullptr;
    TORCHSCOPE_CU(cuEventCreate, &e, CU_EVENT_DISABLE_TIMING);
    TORCHSCOPE_CU(cuEventRecord, e, reinterpret_cast<CUstream>(stream));
    return reinterpret_cast<EventId>(e);
  }
  bool event_done(EventId event) override {
    return completed(driver().cuEventQuery(reinterpret_cast<CUevent>(event)), "cuEventQuery");
  }
  void destroy_event(EventId event) override {
    TORCHSCOPE_CU(cuEventDestroy, reinterpret_cast<CUevent>(event));
  }
  void synchronize() override { ctx_.synchronize(); }

private:
  const DeviceContext& ctx_;
};

// The devices made so far, by index: made once each, never destroyed (see runtime.h).
struct Registry {
  explicit Registry(std::size_t n) : once(n), contexts(n) {}
  std::vector<std::once_flag> once;
  std::vector<std::atomic<DeviceContext*>> contexts;
};

Registry& registry() {
  static Registry* r = new Registry(static_cast<std::size_t>(driver_status().device_count));
  return *r;
}

// Streams a StreamGuard made current, by device index (null: the device's default stream).
thread_local std::vector<CUstream> t_current_streams;

int attribute(CUdevice device, CUdevice_attribute which) {
  int value = 0;
  TORCHSCOPE_CU(cuDeviceGetAttribute, &value, which, device);
  return value;
}

// An informational attribute: 0 when this driver does not report it (some are deprecated).
int optional_attribute(CUdevice device, CUdevice_attribute which) {
  int value = 0;
  return driver().cuDeviceGetAttribute(&value, which, device) == CUDA_SUCCESS ? value : 0;
}

} // namespace

DeviceContext::DeviceContext(int index) : index_(index) {
  TORCHSCOPE_CU(cuDeviceGet, &device_, index);
  TORCHSCOPE_CU(cuDevicePrimaryCtxRetain, &context_, device_);
  bind();
  char name[256] = {};
  TORCHSCOPE_CU(cuDeviceGetName, name, static_cast<int>(sizeof name - 1), device_);
  properties_.name = name;
  properties_.major = attribute(device_, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  properties_.minor = attribute(device_, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  properties_.multiprocessors = attribute(device_, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  TORCHSCOPE_CU(cuDeviceTotalMem, &properties_.total_memory, device_);
  properties_.l2_cache_bytes = optional_attribute(device_, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  properties_.shared_memory_per_block =
      attribute(device_, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  properties_.shared_memory_per_block_optin =
      attribute(device_, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  properties_.max_threads_per_block = attribute(device_, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  properties_.warp_size = attribute(device_, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  properties_.memory_bus_width_bits =
      optional_attribute(device_, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  properties_.memory_clock_khz = optional_attribute(device_, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  properties_.driver_version = driver_status().version;
  TORCHSCOPE_CU(cuStreamCreate, &default_stream_, CU_STREAM_NON_BLOCKING);
  allocator_backend_ = std::make_unique<DriverAllocatorBackend>(*this);
  allocator_ = std::make_unique<CachingAllocator>(*allocator_backend_);
}

void DeviceContext::bind() const {
  CUcontext current = nullptr;
  TORCHSCOPE_CU(cuCtxGetCurrent, &current);
  if (current != context_) {
    TORCHSCOPE_CU(cuCtxSetCurrent, context_);
  }
}

CUstream DeviceContext::current_stream() const noexcept {
  const auto i = static_cast<std::size_t>(index_);
  if (i < t_current_streams.size() && t_current_streams[i] != nullptr) {
    return t_current_streams[i];
  }
  return default_stream_;
}

StagingBuffers& DeviceContext::staging() {
  std::call_once(staging_once_, [&] {
    bind();
    for (int i = 0; i < 2; ++i) {
      TORCHSCOPE_CU(cuMemHostAlloc, &staging_.buffers[i], StagingBuffers::kChunkBytes, 0u);
      staging_.done[i] = std::make_unique<Event>(*this);
    }
  });
  return staging_;
}

void DeviceContext::synchronize() const {
  bind();
  TORCHSCOPE_CU(cuCtxSynchronize);
}

DeviceContext& device_context(int index) {
  const DriverStatus& status = driver_status();
  if (status.api == nullptr) {
    user_error("cannot use cuda:" + std::to_string(index) + ": " + status.unavailable_reason);
  }
  if (index < 0 || index >= status.device_count) {
    user_error("cuda:" + std::to_string(index) + " does not exist: this machine has " +
               std::to_string(status.device_count) + " CUDA device" +
               (status.device_count == 1 ? "" : "s"));
  }
  const auto i = static_cast<std::size_t>(index);
  Registry& r = registry();
  std::call_once(r.once[i], [&] { r.contexts[i].store(new DeviceContext(index)); });
  return *r.contexts[i].load();
}

DeviceContext* existing_context(int index) noexcept {
  const DriverStatus& status = driver_status();
  if (status.api == nullptr || index < 0 || index >= status.device_count) {
    return nullptr;
  }
  return registry().contexts[static_cast<std::size_t>(index)].load();
}

DeviceContext& current_context() {
  return device_context(current_device());
}

DeviceContext& context_of(Device device) {
  TORCHSCOPE_ASSERT(device.is_cuda(), "context_of a host device");
  return device_context(device.has_index() ? device.index() : current_device());
}

Stream::Stream(DeviceContext& ctx, bool non_blocking) : ctx_(ctx) {
  ctx_.bind();
  TORCHSCOPE_CU(cuStreamCreate, &stream_,
                non_blocking ? static_cast<unsigned>(CU_STREAM_NON_BLOCKING) : 0u);
}

Stream::~Stream() {
  // Finish the stream's work first: blocks it freed go back to a pool keyed by its handle,
  // which a later stream may be given.
  if (driver().cuStreamSynchronize(stream_) != CUDA_SUCCESS ||
      driver().cuStreamDestroy(stream_) != CUDA_SUCCESS) {
    std::fputs("torchscope: cuStreamDestroy failed\n", stderr);
  }
}

void Stream::synchronize() const {
  TORCHSCOPE_CU(cuStreamSynchronize, stream_);
}

bool Stream::query() const {
  return completed(driver().cuStreamQuery(stream_), "cuStreamQuery");
}

void Stream::wait(const Event& event) const {
  TORCHSCOPE_CU(cuStreamWaitEvent, stream_, event.handle(), 0u);
}

StreamGuard::StreamGuard(const Stream& stream) : device_(stream.context().index()) {
  const auto i = static_cast<std::size_t>(device_);
  if (t_current_streams.size() <= i) {
    t_current_streams.resize(i + 1, nullptr);
  }
  previous_ = t_current_streams[i];
  t_current_streams[i] = stream.handle();
}

StreamGuard::~StreamGuard() {
  t_current_streams[static_cast<std::size_t>(device_)] = previous_;
}

Event::Event(DeviceContext& ctx, bool timing) : ctx_(ctx) {
  ctx_.bind();
  TORCHSCOPE_CU(cuEventCreate, &event_,
                timing ? 0u : static_cast<unsigned>(CU_EVENT_DISABLE_TIMING));
}

Event::~Event() {
  if (driver().cuEventDestroy(event_) != CUDA_SUCCESS) {
    std::fputs("torchscope: cuEventDestroy failed\n", stderr);
  }
}

void Event::record(CUstream stream) {
  ctx_.bind();
  TORCHSCOPE_CU(cuEventRecord, event_, stream);
}

void Event::synchronize() const {
  TORCHSCOPE_CU(cuEventSynchronize, event_);
}

bool Event::query() const {
  return completed(driver().cuEventQuery(event_), "cuEventQuery");
}

float Event::elapsed_ms(const Event& start) const {
  float ms = 0.0f;
  TORCHSCOPE_CU(cuEventElapsedTime, &ms, start.event_, event_);
  return ms;
}

} // namespace compiler::cuda
