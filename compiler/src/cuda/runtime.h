// Internal: the CUDA runtime's devices, streams and events.
//
// A DeviceContext is made the first time a device is used and lives until the process ends
// (it is never destroyed: tearing contexts down during static destruction races the driver's
// own teardown). It holds the device's primary context, a non-blocking default stream (work of
// ours never serialises with other libraries' legacy-stream work, and CUDA graph capture needs
// a real stream), the caching allocator and the pinned buffers host copies stage through.
//
// Every function that calls the driver first binds the device's context to the calling thread
// (bind(): a no-op when it is already current), so callers never manage contexts.
#pragma once

#include "compiler/cuda/cuda.h"
#include "cuda/caching_allocator.h"
#include "cuda/driver_api.h"

#include <cstddef>
#include <memory>
#include <mutex>

namespace compiler::cuda {

class Event;

// Two pinned host buffers that host<->device copies stage through (cuda/copy_engine.h), each
// with the event that says when the device has finished with it.
struct StagingBuffers {
  static constexpr std::size_t kChunkBytes = std::size_t{8} << 20;
  std::mutex mutex; // one staged copy at a time per device
  void* buffers[2] = {nullptr, nullptr};
  std::unique_ptr<Event> done[2];
};

class DeviceContext {
public:
  DeviceContext(const DeviceContext&) = delete;
  DeviceContext& operator=(const DeviceContext&) = delete;

  int index() const noexcept { return index_; }
  Device device() const noexcept { return Device::cuda(static_cast<std::int16_t>(index_)); }
  CUcontext context() const noexcept { return context_; }
  const DeviceProperties& properties() const noexcept { return properties_; }

  // Makes this device's context current on the calling thread.
  void bind() const;

  // Where work on this device goes: the stream a StreamGuard names, else the default stream.
  CUstream current_stream() const noexcept;
  CUstream default_stream() const noexcept { return default_stream_; }

  CachingAllocator& allocator() noexcept { return *allocator_; }
  // The staging buffers, allocated on first use.
  StagingBuffers& staging();

  // Waits for every stream of the device.
  void synchronize() const;

private:
  friend DeviceContext& device_context(int index);
  explicit DeviceContext(int index);

  int index_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUstream default_stream_ = nullptr;
  DeviceProperties properties_;
  std::unique_ptr<AllocatorBackend> allocator_backend_;
  std::unique_ptr<CachingAllocator> allocator_;
  std::once_flag staging_once_;
  StagingBuffers staging_;
};

// Device `index`, set up on first use. UserError when CUDA is unavailable or there is no such
// device.
DeviceContext& device_context(int index);
// Device `index` if it has been set up, else null (never sets one up).
DeviceContext* existing_context(int index) noexcept;
// The calling thread's current device (compiler/cuda/cuda.h's DeviceGuard).
DeviceContext& current_context();
// The context of a CUDA Device (its index resolved).
DeviceContext& context_of(Device device);

// A CUDA stream, destroyed (after its work has finished) with the object.
class Stream {
public:
  explicit Stream(DeviceContext& ctx, bool non_blocking = true);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  CUstream handle() const noexcept { return stream_; }
  DeviceContext& context() const noexcept { return ctx_; }
  void synchronize() const;
  // True when every piece of work queued so far has finished.
  bool query() const;
  // Later work on this stream waits for `event`.
  void wait(const Event& event) const;

private:
  DeviceContext& ctx_;
  CUstream stream_ = nullptr;
};

// RAII: makes `stream` the current stream of its device on this thread.
class StreamGuard {
public:
  explicit StreamGuard(const Stream& stream);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

private:
  int device_;
  CUstream previous_;
};

// A CUDA event, destroyed with the object.
class Event {
public:
  // `timing`: the event records a time stamp (elapsed_ms); others are cheaper.
  explicit Event(DeviceContext& ctx, bool timing = false);
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  CUevent handle() const noexcept { return event_; }
  void record(CUstream stream);
  void synchronize() const;
  bool query() const;
  // Milliseconds from `start` to this event (both timing events, both completed).
  float elapsed_ms(const Event& start) const;

private:
  DeviceContext& ctx_;
  CUevent event_ = nullptr;
};

} // namespace compiler::cuda
