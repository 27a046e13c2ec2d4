// reduce-overhead's CUDA graphs (inductor/runtime/cuda_graphs.h).
#include "inductor/runtime/cuda_graphs.h"

#include "compiler/core/errors.h"
#include "compiler/tensor/tensor.h"
#include "cuda/driver_api.h"
#include "cuda/runtime.h"
#include "inductor/ir/index_analysis.h"
#include "inductor/runtime/wrapper.h"
#include "tracer/trace.h"
#include "tracing/event_keys.h"

#include <map>
#include <mutex>
#include <optional>
#include <set>

namespace compiler::inductor {

namespace {

namespace artifacts = tracing::artifacts;

// The elements a tensor's view reaches past its offset.
std::int64_t view_extent(const Tensor& t) {
  std::int64_t extent = 1;
  for (std::size_t d = 0; d < t.sizes().size(); ++d) {
    if (t.sizes()[d] == 0) {
      return 0;
    }
    extent += (t.sizes()[d] - 1) * t.strides()[d];
  }
  return extent;
}

// What a recording depends on: each input's type, sizes, strides and offset, and the symbols.
std::string shape_key(std::span<const Value> inputs, std::span<const std::int64_t> symbols) {
  std::string key;
  for (const Value& v : inputs) {
    if (const Tensor* t = std::get_if<Tensor>(&v)) {
      key += t->type_string() + "@" + std::to_string(t->storage_offset()) + "/";
      for (std::int64_t s : t->strides()) {
        key += std::to_string(s) + ",";
      }
      key += " ";
    } else {
      key += std::string(value_kind_name(v)) + " ";
    }
  }
  key += "symbols:";
  for (std::int64_t s : symbols) {
    key += " " + std::to_string(s);
  }
  return key;
}

struct Recording {
  std::string key;
  std::vector<Value> static_inputs;
  std::vector<std::shared_ptr<Storage>> keep; // every buffer the recorded run allocated
  std::vector<Value> outputs;
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;

  Recording() = default;
  Recording(const Recording&) = delete;
  Recording& operator=(const Recording&) = delete;
  ~Recording() {
    if (exec != nullptr) {
      cuda::driver().cuGraphExecDestroy(exec);
    }
    if (graph != nullptr) {
      cuda::driver().cuGraphDestroy(graph);
    }
  }
};

class CudaGraphRunner final : public backend::CompiledGraph {
public:
  CudaGraphRunner(std::unique_ptr<backend::CompiledGraph> program, std::string blocker)
      : program_(std::move(program)), blocker_(std::move(blocker)) {
    if (const tracer::CompileId* id = tracer::current_compile_id()) {
      compile_id_ = *id;
    }
  }

  std::vector<Value> run(std::span<const Value> inputs,
                         std::span<const std::int64_t> symbols) const override {
    std::optional<Device> device;
    for (const Value& v : inputs) {
      if (const Tensor* t = std::get_if<Tensor>(&v); t != nullptr && t->device().is_cuda()) {
        device = t->device();
        break;
      }
    }
    std::unique_lock<std::mutex> lock(mutex_);
    if (!blocker_.empty() || !device) {
      if (!skip_traced_) {
        skip_traced_ = true;
        trace(artifacts::cudagraph_skip,
              blocker_.empty() ? "no GPU tensor among the inputs" : blocker_, "");
      }
      lock.unlock();
      return program_->run(inputs, symbols);
    }
    cuda::DeviceContext& ctx = cuda::context_of(*device);
    const std::string key = shape_key(inputs, symbols);
    Recording* rec = nullptr;
    for (const std::unique_ptr<Recording>& r : recordings_) {
      rec = r->key == key ? r.get() : rec;
    }
    if (rec == nullptr) {
      if (warmed_up_.insert(key).second) {
        lock.unlock();
        return program_->run(inputs, symbols); // the warm-up run
      }
      rec = record(ctx, inputs, symbols, key);
      if (rec == nullptr) {
        lock.unlock();
        return program_->run(inputs, symbols);
      }
    }
    return replay(ctx, *rec, inputs);
  }

private:
  Recording* record(cuda::DeviceContext& ctx, std::span<const Value> inputs,
                    std::span<const std::int64_t> symbols, const std::string& key) const {
    std::string reason = "warm-up done: the second call with these input shapes";
    if (!recordings_.empty()) {
      reason = "new input shapes: " + key + " (recorded before:";
      for (const std::unique_ptr<Recording>& r : recordings_) {
        reason += " [" + r->key + "]";
      }
      reason += ")";
    }
    auto rec = std::make_unique<Recording>();
    rec->key = key;
    // Static inputs: each tensor input's view over storage of the recording's own.
    for (const Value& v : inputs) {
      const Tensor* t = std::get_if<Tensor>(&v);
      if (t == nullptr || !t->device().is_cuda()) {
        rec->static_inputs.push_back(v);
        continue;
      }
      const std::size_t es = dtype_size(t->dtype());
      const auto bytes = static_cast<std::size_t>(t->storage_offset() + view_extent(*t)) * es;
      auto storage = std::make_shared<Storage>(std::max<std::size_t>(bytes, 1), t->device());
      auto impl = std::make_shared<TensorImpl>(*t->impl());
      impl->storage = storage;
      impl->trace_slot = nullptr;
      rec->static_inputs.emplace_back(Tensor(std::move(impl)));
    }
    copy_inputs(ctx, *rec, inputs, ctx.current_stream());
    TORCHSCOPE_CU(cuStreamSynchronize, ctx.current_stream());
    if (!stream_) {
      stream_ = std::make_unique<cuda::Stream>(ctx);
    }
    const CUstream s = stream_->handle();
    try {
      cuda::StreamGuard guard(*stream_);
      AllocationKeeper keeper(rec->keep);
      TORCHSCOPE_CU(cuStreamBeginCapture, s, CU_STREAM_CAPTURE_MODE_RELAXED);
      try {
        rec->outputs = program_->run(rec->static_inputs, symbols);
      } catch (...) {
        CUgraph broken = nullptr;
        cuda::driver().cuStreamEndCapture(s, &broken);
        if (broken != nullptr) {
          cuda::driver().cuGraphDestroy(broken);
        }
        throw;
      }
      TORCHSCOPE_CU(cuStreamEndCapture, s, &rec->graph);
      TORCHSCOPE_CU(cuGraphInstantiateWithFlags, &rec->exec, rec->graph, 0);
    } catch (const cuda::CudaError& e) {
      blocker_ = std::string("recording failed: ") + e.what();
      skip_traced_ = true;
      trace(artifacts::cudagraph_skip, blocker_, key);
      return nullptr;
    }
    trace(artifacts::cudagraph_record, reason, key);
    recordings_.push_back(std::move(rec));
    return recordings_.back().get();
  }

  static void copy_inputs(cuda::DeviceContext& ctx, const Recording& rec,
                          std::span<const Value> inputs, CUstream stream) {
    ctx.bind();
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const Tensor* t = std::get_if<Tensor>(&inputs[i]);
      if (t == nullptr || !t->device().is_cuda()) {
        continue;
      }
      const Tensor& dst = std::get<Tensor>(rec.static_inputs[i]);
      const std::size_t es = dtype_size(t->dtype());
      const auto offset = static_cast<std::size_t>(t->storage_offset()) * es;
      const auto bytes = static_cast<std::size_t>(view_extent(*t)) * es;
      if (bytes == 0) {
        continue;
      }
      const auto src = reinterpret_cast<CUdeviceptr>(t->impl()->storage->data()) + offset;
      const auto to = reinterpret_cast<CUdeviceptr>(dst.impl()->storage->data()) + offset;
      TORCHSCOPE_CU(cuMemcpyDtoDAsync, to, src, bytes, stream);
    }
  }

  std::vector<Value> replay(cuda::DeviceContext& ctx, const Recording& rec,
                            std::span<const Value> inputs) const {
    const CUstream stream = ctx.current_stream();
    copy_inputs(ctx, rec, inputs, stream);
    TORCHSCOPE_CU(cuGraphLaunch, rec.exec, stream);
    std::vector<Value> out = rec.outputs;
    // Placeholders (and results that are inputs) are the caller's tensors, not the copies.
    for (Value& v : out) {
      const Tensor* t = std::get_if<Tensor>(&v);
      if (t == nullptr || !t->defined()) {
        continue;
      }
      for (std::size_t i = 0; i < inputs.size(); ++i) {
        const Tensor* s = std::get_if<Tensor>(&rec.static_inputs[i]);
        if (s != nullptr && s->impl() == t->impl()) {
          v = inputs[i];
          break;
        }
      }
    }
    return out;
  }

  void trace(std::string_view name, const std::string& reason, const std::string& key) const {
    std::optional<tracer::CompileScope> scope;
    if (compile_id_) {
      scope.emplace(*compile_id_);
    }
    tracer::artifact(name, tracer::Encoding::Json, [&](std::string& out) {
      tracer::JsonWriter w(out);
      w.begin_object();
      w.member("reason", reason);
      if (!key.empty()) {
        w.member("input_shapes", key);
        w.member("recordings", static_cast<std::int64_t>(recordings_.size() + 1));
      }
      w.end_object();
    });
  }

  std::unique_ptr<backend::CompiledGraph> program_;
  std::optional<tracer::CompileId> compile_id_;
  mutable std::mutex mutex_;
  mutable std::string blocker_;
  mutable bool skip_traced_ = false;
  mutable std::set<std::string> warmed_up_;
  mutable std::vector<std::unique_ptr<Recording>> recordings_;
  mutable std::unique_ptr<cuda::Stream> stream_;
};

} // namespace

std::string cudagraph_blocker(const Schedule& s, const LoweredGraph& ir) {
  for (const Step& step : s.steps) {
    if (step.kind == Step::Kind::Fallback) {
      return "a fallback node (" + graph::op_target(ir.buffer(step.buffer).fallback->node) +
             ") runs on the host";
    }
  }
  for (const Buffer& b : ir.buffers) {
    if (!b.is_computed()) {
      continue;
    }
    for (const MemoryAccess& a : analyze(b).reads) {
      if (a.indirect) {
        return "an index read from data (" + b.name + ") is checked on the host after its kernel";
      }
    }
  }
  return "";
}

std::unique_ptr<backend::CompiledGraph>
make_cudagraph_runner(std::unique_ptr<backend::CompiledGraph> program, std::string blocker) {
  return std::make_unique<CudaGraphRunner>(std::move(program), std::move(blocker));
}

} // namespace compiler::inductor
