// The GPU code generator (codegen/cuda/cuda_kernel_compiler.h): source from cuda_source.h,
// NVRTC and the driver from src/cuda/, matmuls from cuda_matmul.h.
#include "inductor/codegen/cuda/cuda_kernel_compiler.h"

#include "compiler/core/errors.h"
#include "compiler/inductor/inductor.h"
#include "compiler/tensor/tensor.h"
#include "cuda/module.h"
#include "cuda/nvrtc_api.h"
#include "cuda/nvrtc_compiler.h"
#include "inductor/codegen/cuda/cuda_matmul.h"
#include "inductor/codegen/cuda/cuda_source.h"
#include "inductor/runtime/cuda_autotune.h"
#include "inductor/runtime/cuda_graphs.h"
#include "tensor/device_memory.h"
#include "tracer/trace.h"
#include "tracing/event_keys.h"

#include <array>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>

namespace compiler::inductor {

namespace cuda_codegen {

namespace {

thread_local bool t_autotune = false;
std::atomic<std::int64_t> g_checked{0};
std::mutex g_checked_mutex;
std::string g_last_checked;

constexpr std::int64_t kMaxGrid = 0x7fffffff;

struct ArgInfo {
  ArgRole role = ArgRole::In;
  Expr extent; // elements of storage the kernel may touch
  DType dtype = DType::Float32;
};

// One kernel of a loaded module, with the configuration it launches with.
struct KernelState {
  KernelSource source; // as compiled into the module (default configuration)
  // max-autotune: the source of each candidate's code (code_key): per unroll, and per block
  // too for a persistent row.
  std::map<std::pair<int, int>, std::string> variants;
  std::vector<ArgInfo> args;
  const cuda::Kernel* kernel = nullptr;
  LaunchConfig config;
  std::unique_ptr<cuda::Kernel> owned; // the module's kernel
  std::vector<std::pair<std::unique_ptr<cuda::Module>, std::unique_ptr<cuda::Kernel>>> tuned;
  std::once_flag tune_once;
  // A split reduction's partials and per-row counters (KernelSource::parts), kept for the
  // kernel's life: the counters are zero between launches (the last block resets its row's).
  std::shared_ptr<Storage> split_scratch;
  std::shared_ptr<Storage> split_counters;
};

// Which generated code a configuration runs: a persistent row's block and unroll are both part
// of its code; other kernels differ only by their unroll.
std::pair<int, int> code_key(const KernelSource& src, const LaunchConfig& c) {
  return {src.persistent ? c.block : 0, c.unroll};
}

// max-autotune's candidates for a persistent row of `r` elements: blocks of 64 to 1024 threads
// (no more than the row) and 1 to 8 elements per round, at most 32 elements per thread.
std::vector<LaunchConfig> persistent_configs(std::int64_t r) {
  std::vector<LaunchConfig> out;
  for (int b = 64; b <= 1024; b *= 2) {
    for (int u : {1, 2, 4, 8}) {
      const std::int64_t per_thread = (r + b - 1) / b;
      const std::int64_t rounds = (r + static_cast<std::int64_t>(b) * u - 1) / (b * u);
      if ((b <= r || b == 64) && rounds * u <= 32 && per_thread >= u) {
        out.push_back({b, u});
      }
    }
  }
  return out;
}

struct Dims {
  bool empty = true;
  cuda::Dim3 grid;
  cuda::Dim3 block;
};

// The longest row of a reduction kernel's looping stages.
std::int64_t row_length(const KernelSource& src, std::span<const std::int64_t> symbols) {
  std::int64_t r = 1;
  for (const Expr& e : src.rnumels) {
    r = std::max(r, e.evaluate(symbols));
  }
  return r;
}

Dims launch_dims(const KernelSource& src, const LaunchConfig& c,
                 std::span<const std::int64_t> symbols) {
  Dims d;
  const std::int64_t n = src.xnumel.evaluate(symbols);
  if (n <= 0) {
    return d;
  }
  d.empty = false;
  if (src.shape == KernelShape::Pointwise) {
    const std::int64_t per = static_cast<std::int64_t>(c.block) * c.unroll;
    d.grid.x = static_cast<unsigned>(std::min((n + per - 1) / per, kMaxGrid));
    d.block.x = static_cast<unsigned>(c.block);
    return d;
  }
  if (src.warp_rows) {
    const std::int64_t rows = c.block / 32;
    d.grid.x = static_cast<unsigned>(std::min((n + rows - 1) / rows, kMaxGrid));
    d.block.x = static_cast<unsigned>(c.block);
    return d;
  }
  if (src.thread_rows) {
    d.grid.x = static_cast<unsigned>(std::min((n + c.block - 1) / c.block, kMaxGrid));
    d.block.x = static_cast<unsigned>(c.block);
    return d;
  }
  if (src.column) {
    const std::int64_t tile = c.block;
    d.grid.x = static_cast<unsigned>(std::min((n + tile - 1) / tile, kMaxGrid));
    d.block.x = static_cast<unsigned>(tile);
    d.block.y = kColumnRows;
    return d;
  }
  const std::int64_t r = row_length(src, symbols) / std::max(1, src.parts);
  int threads = c.block;
  if (threads == 0) {
    threads = 32;
    while (threads * 2 * c.unroll < r && threads < 1024) {
      threads *= 2;
    }
  }
  // A split reduction's grid is exact: one block per row and part (split_parts() bounds it).
  d.grid.x = static_cast<unsigned>(src.parts > 0 ? n * src.parts : std::min(n, kMaxGrid));
  d.block.x = static_cast<unsigned>(threads);
  return d;
}

std::string grid_text(const KernelSource& src, const LaunchConfig& c) {
  if (src.shape == KernelShape::Pointwise) {
    return "ceil((" + src.xnumel.str() + ") / " + std::to_string(c.block * c.unroll) + ")";
  }
  if (src.warp_rows) {
    return "ceil((" + src.xnumel.str() + ") / " + std::to_string(c.block / 32) + ")";
  }
  if (src.column || src.thread_rows) {
    return "ceil((" + src.xnumel.str() + ") / " + std::to_string(c.block) + ")";
  }
  if (src.parts > 0) {
    return "(" + src.xnumel.str() + ") * " + std::to_string(src.parts);
  }
  return src.xnumel.str();
}

cuda::CompileResult compile_module(const std::string& source, const std::string& name,
                                   const cuda::NvrtcOptions& options) {
  cuda::CompileResult r = cuda::compile_cuda(source, name, options);
  if (!r.ok) {
    const std::string why =
        "generated CUDA does not compile (a code generator bug): " + r.failure_message(name);
    TORCHSCOPE_ASSERT(r.ok, why.c_str());
  }
  return r;
}

std::vector<KernelSource> generate_all(const Schedule& s, const LoweredGraph& ir) {
  std::vector<KernelSource> out;
  for (std::size_t k = 0; k < s.kernels.size(); ++k) {
    out.push_back(generate_kernel(s, k, ir, default_config(kernel_shape(s.kernels[k]))));
  }
  return out;
}

// Reads of the kernels' error flag left for later (launch_check_later): the flag is copied into a
// slot of pinned host memory behind the kernel, then cleared, both in stream order, and an event
// is recorded after them; the check waits for that event alone, not for the work queued since (a
// training step's backward, queued before its forward's check is read). When every slot is
// waiting, the caller reads the flag at once instead.
class DeferredFlags : public std::enable_shared_from_this<DeferredFlags> {
public:
  static constexpr int kSlots = 8;

  explicit DeferredFlags(cuda::DeviceContext& ctx) : ctx_(ctx) {
    ctx_.bind();
    void* host = nullptr;
    TORCHSCOPE_CU(cuMemHostAlloc, &host, sizeof(int) * kSlots, 0u);
    host_ = static_cast<int*>(host);
    for (std::unique_ptr<cuda::Event>& e : events_) {
      e = std::make_unique<cuda::Event>(ctx_);
    }
  }
  ~DeferredFlags() {
    for (std::unique_ptr<cuda::Event>& e : events_) {
      e.reset();
    }
    if (cuda::driver().cuMemFreeHost(host_) != CUDA_SUCCESS) {
      std::fputs("torchscope: cuMemFreeHost failed\n", stderr);
    }
  }
  DeferredFlags(const DeferredFlags&) = delete;
  DeferredFlags& operator=(const DeferredFlags&) = delete;

  // Queues the read of `flag` (one int on the device) on `stream`: the check, or an empty one
  // when no slot is free.
  std::function<bool()> queue(void* flag, CUstream stream) {
    std::lock_guard<std::mutex> lock(mutex_);
    int slot = 0;
    while (slot < kSlots && busy_[static_cast<std::size_t>(slot)]) {
      ++slot;
    }
    if (slot == kSlots) {
      return {};
    }
    busy_[static_cast<std::size_t>(slot)] = true;
    ctx_.bind();
    TORCHSCOPE_CU(cuMemcpyDtoHAsync, host_ + slot, reinterpret_cast<CUdeviceptr>(flag), sizeof(int),
                  stream);
    TORCHSCOPE_CU(cuMemsetD32Async, reinterpret_cast<CUdeviceptr>(flag), 0u, 1, stream);
    events_[static_cast<std::size_t>(slot)]->record(stream);
    return [self = shared_from_this(), slot] { return self->wait(slot); };
  }

private:
  // Whether the kernel behind `slot` raised the flag, once the device has copied it; frees it.
  bool wait(int slot) {
    events_[static_cast<std::size_t>(slot)]->synchronize();
    std::lock_guard<std::mutex> lock(mutex_);
    const bool raised = reinterpret_cast<volatile int*>(host_)[slot] != 0;
    busy_[static_cast<std::size_t>(slot)] = false;
    return raised;
  }

  cuda::DeviceContext& ctx_;
  int* host_ = nullptr;
  std::array<std::unique_ptr<cuda::Event>, kSlots> events_;
  std::array<bool, kSlots> busy_{};
  std::mutex mutex_;
};

class CudaKernels final : public LoadedKernels {
public:
  CudaKernels(cuda::DeviceContext& ctx, std::string_view image, const Schedule& s,
              const LoweredGraph& ir, bool autotune)
      : ctx_(ctx), autotune_(autotune), device_name_(ctx.properties().name) {
    module_ = std::make_unique<cuda::Module>(ctx, image);
    if (const tracer::CompileId* id = tracer::current_compile_id()) {
      compile_id_ = *id;
    }
    status_ = std::make_shared<Storage>(sizeof(int), ctx.device());
    device_memory::zero(ctx.device(), status_->data(), sizeof(int));
    deferred_ = std::make_shared<DeferredFlags>(ctx);
    for (std::size_t k = 0; k < s.kernels.size(); ++k) {
      auto st = std::make_unique<KernelState>();
      st->source = generate_kernel(s, k, ir, default_config(kernel_shape(s.kernels[k])));
      st->config = st->source.config;
      st->owned = std::make_unique<cuda::Kernel>(module_->kernel(st->source.name));
      st->kernel = st->owned.get();
      for (const KernelArg& a : s.kernels[k].args) {
        const Layout& l = ir.buffer(a.buffer).layout;
        st->args.push_back({a.role, l.storage_extent(), l.dtype});
      }
      if (autotune && st->source.shape == KernelShape::Pointwise) {
        for (int unroll : {1, 2, 4, 8}) {
          st->variants[{0, unroll}] = generate_kernel(s, k, ir, {st->config.block, unroll}).text;
        }
      } else if (autotune && st->source.persistent && !st->source.warp_rows) {
        for (const LaunchConfig& c : persistent_configs(row_length(st->source, {}))) {
          st->variants[code_key(st->source, c)] = generate_kernel(s, k, ir, c).text;
        }
      }
      if (st->source.parts > 0) {
        const auto rows = static_cast<std::size_t>(st->source.xnumel.constant_value());
        st->split_scratch = std::make_shared<Storage>(
            rows * static_cast<std::size_t>(st->source.parts * st->source.accumulators) * 8,
            ctx.device());
        st->split_counters = std::make_shared<Storage>(rows * sizeof(unsigned), ctx.device());
        device_memory::zero(ctx.device(), st->split_counters->data(), rows * sizeof(unsigned));
      }
      trace_info(*st);
      states_.push_back(std::move(st));
    }
  }

  bool launch(std::size_t k, void* const* args,
              std::span<const std::int64_t> symbols) const override {
    const KernelState& st = start(k, args, symbols);
    return !st.source.checks_indices || read_flag();
  }

  std::function<bool()> launch_check_later(std::size_t k, void* const* args,
                                           std::span<const std::int64_t> symbols) const override {
    const KernelState& st = start(k, args, symbols);
    if (!st.source.checks_indices) {
      return {};
    }
    if (std::function<bool()> check = deferred_->queue(status_->data(), ctx_.current_stream())) {
      return check;
    }
    const bool raised = !read_flag(); // every slot is waiting: read it now
    return [raised] { return raised; };
  }

  Device device() const override { return ctx_.device(); }

  void gemm(BufferId, std::int64_t m, std::int64_t n, std::int64_t k, MatrixView a, MatrixView b,
            float* c, std::int64_t ldc, const MatrixView* bias) const override {
    MatmulImpl impl = default_matmul(m, n, k, a, b);
    const CUstream stream = ctx_.current_stream();
    if (autotune_ && impl == MatmulImpl::Cublas) {
      impl = tuned_matmul(stream, m, n, k, a, b, bias);
    }
    matmul(ctx_, stream, impl, m, n, k, a, b, c, ldc, bias);
  }

private:
  void run(const KernelState& st, const cuda::Kernel& kernel, const LaunchConfig& c,
           void* const* args, std::span<const std::int64_t> symbols, CUstream stream) const {
    const Dims d = launch_dims(st.source, c, symbols);
    if (d.empty) {
      return;
    }
    std::vector<long long> syms(symbols.begin(), symbols.end());
    std::vector<void*> params;
    params.reserve(st.args.size() + 1 + syms.size());
    for (std::size_t i = 0; i < st.args.size(); ++i) {
      params.push_back(const_cast<void*>(static_cast<const void*>(args + i)));
    }
    void* status = status_->data();
    params.push_back(&status);
    for (long long& v : syms) {
      params.push_back(&v);
    }
    void* scratch = st.split_scratch ? st.split_scratch->data() : nullptr;
    void* counters = st.split_counters ? st.split_counters->data() : nullptr;
    if (st.source.parts > 0) {
      params.push_back(&scratch);
      params.push_back(&counters);
    }
    kernel.launch(d.grid, d.block, 0, stream, params.data());
  }

  // Kernel `k` tuned (max-autotune's first call) and queued.
  KernelState& start(std::size_t k, void* const* args,
                     std::span<const std::int64_t> symbols) const {
    KernelState& st = *states_.at(k);
    // A column tile's shape is fixed, and so is a thread-per-row kernel's (its block only
    // spreads rows).
    if (autotune_ && !st.source.column && !st.source.thread_rows && !st.source.warp_rows &&
        st.source.parts == 0) {
      std::call_once(st.tune_once, [&] { tune(st, args, symbols); });
    }
    run(st, *st.kernel, st.config, args, symbols, ctx_.current_stream());
    return st;
  }

  // Whether no kernel raised the error flag (an embedding or a gather read a row out of range):
  // read back, waiting for the device, then cleared.
  bool read_flag() const {
    std::lock_guard<std::mutex> lock(mutex_);
    int flag = 0;
    device_memory::copy(Device::cpu(), &flag, ctx_.device(), status_->data(), sizeof(int));
    if (flag != 0) {
      device_memory::zero(ctx_.device(), status_->data(), sizeof(int));
    }
    return flag == 0;
  }

  // max-autotune of one kernel on this call's arguments; outputs go to scratch copies.
  void tune(KernelState& st, void* const* args, std::span<const std::int64_t> symbols) const {
    const CUstream stream = ctx_.current_stream();
    std::vector<std::shared_ptr<Storage>> scratch;
    std::vector<void*> targs(args, args + st.args.size());
    for (std::size_t i = 0; i < st.args.size(); ++i) {
      const ArgInfo& a = st.args[i];
      if (a.role == ArgRole::In) {
        continue;
      }
      const auto bytes =
          static_cast<std::size_t>(std::max<std::int64_t>(1, a.extent.evaluate(symbols))) *
          dtype_size(a.dtype);
      scratch.push_back(std::make_shared<Storage>(bytes, ctx_.device()));
      if (a.role == ArgRole::InOut) {
        device_memory::copy(ctx_.device(), scratch.back()->data(), ctx_.device(), args[i], bytes);
      }
      targs[i] = scratch.back()->data();
    }
    std::vector<LaunchConfig> configs;
    if (st.source.shape == KernelShape::Pointwise) {
      configs = {{128, 4}, {256, 1}, {256, 2}, {256, 4}, {256, 8}, {512, 4}, {1024, 2}};
    } else if (st.source.persistent) {
      configs = persistent_configs(row_length(st.source, symbols));
    } else {
      const std::int64_t r = row_length(st.source, symbols);
      for (int b = 32; b <= 1024; b *= 2) {
        if (b == 32 || b / 2 < r) {
          configs.push_back({b, st.source.config.unroll});
        }
      }
    }
    // Kernels for each code a candidate needs (the module's own serves the default).
    std::map<std::pair<int, int>, const cuda::Kernel*> by_code;
    by_code[code_key(st.source, st.source.config)] = st.owned.get();
    const cuda::NvrtcOptions options = cuda::options_for(ctx_.properties());
    for (const LaunchConfig& c : configs) {
      if (by_code.count(code_key(st.source, c)) != 0) {
        continue;
      }
      KernelSource variant = st.source;
      variant.text = st.variants.at(code_key(st.source, c));
      const cuda::CompileResult r =
          compile_module(module_source({variant}), st.source.name + ".cu", options);
      auto module = std::make_unique<cuda::Module>(ctx_, r.image);
      auto kernel = std::make_unique<cuda::Kernel>(module->kernel(st.source.name));
      by_code[code_key(st.source, c)] = kernel.get();
      st.tuned.emplace_back(std::move(module), std::move(kernel));
    }
    std::vector<cuda_autotune::Candidate> candidates;
    for (const LaunchConfig& c : configs) {
      const cuda::Kernel* kernel = by_code.at(code_key(st.source, c));
      const std::string desc =
          st.source.shape == KernelShape::Pointwise || st.source.persistent
              ? "block=" + std::to_string(c.block) + " unroll=" + std::to_string(c.unroll)
              : "block=" + std::to_string(c.block) + " warps=" + std::to_string(c.block / 32);
      candidates.push_back(
          {desc, [&, kernel, c] { run(st, *kernel, c, targs.data(), symbols, stream); }});
    }
    std::string key = "kernel\n" + device_name_ + "\n";
    for (std::int64_t v : symbols) {
      key += std::to_string(v) + ",";
    }
    key += "\n" + st.source.text;
    const cuda_autotune::Outcome o =
        cuda_autotune::choose(ctx_, stream, st.source.name, key, candidates, compile_id_);
    st.config = configs[o.best];
    st.kernel = by_code.at(code_key(st.source, st.config));
  }

  MatmulImpl tuned_matmul(CUstream stream, std::int64_t m, std::int64_t n, std::int64_t k,
                          MatrixView a, MatrixView b, const MatrixView* bias) const {
    const std::string shape = std::to_string(m) + "x" + std::to_string(k) + "x" +
                              std::to_string(n) + " a(" + std::to_string(a.row_stride) + "," +
                              std::to_string(a.col_stride) + ") b(" + std::to_string(b.row_stride) +
                              "," + std::to_string(b.col_stride) + ")" +
                              (bias != nullptr ? " bias" : "");
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = matmul_choices_.find(shape);
    if (found != matmul_choices_.end()) {
      return found->second;
    }
    auto out =
        std::make_shared<Storage>(static_cast<std::size_t>(m * n) * sizeof(float), ctx_.device());
    auto* c = static_cast<float*>(out->data());
    std::vector<cuda_autotune::Candidate> candidates;
    std::vector<MatmulImpl> impls = {MatmulImpl::Cublas, MatmulImpl::Generated};
    if (cublaslt_available()) {
      impls.insert(impls.begin() + 1, MatmulImpl::CublasLt);
    }
    for (MatmulImpl impl : impls) {
      candidates.push_back({std::string(matmul_impl_name(impl)),
                            [=, this] { matmul(ctx_, stream, impl, m, n, k, a, b, c, n, bias); }});
    }
    const cuda_autotune::Outcome o =
        cuda_autotune::choose(ctx_, stream, "mm " + shape, "matmul\n" + device_name_ + "\n" + shape,
                              candidates, compile_id_);
    const MatmulImpl impl = impls.at(o.best);
    matmul_choices_[shape] = impl;
    return impl;
  }

  // The cuda_kernel_info artifact of a loaded kernel.
  void trace_info(const KernelState& st) const {
    const cuda::KernelInfo& info = st.kernel->info();
    tracer::artifact(
        tracing::artifacts::cuda_kernel_info, tracer::Encoding::Json, [&](std::string& out) {
          tracer::JsonWriter w(out);
          w.begin_object();
          w.member("kernel_name", st.source.name);
          w.member("kind", st.source.shape == KernelShape::Pointwise ? "pointwise" : "reduction");
          w.member("grid", grid_text(st.source, st.config));
          w.member("block", st.source.column ? std::to_string(st.config.block) + " x " +
                                                   std::to_string(kColumnRows)
                            : st.config.block != 0
                                ? std::to_string(st.config.block)
                                : "the row's length / " + std::to_string(2 * st.config.unroll) +
                                      " rounded up to a power of two, 32 to 1024");
          w.member("elements_per_thread", static_cast<std::int64_t>(st.config.unroll));
          w.member("registers", static_cast<std::int64_t>(info.registers));
          w.member("static_shared_bytes", static_cast<std::int64_t>(info.static_shared_bytes));
          w.member("local_bytes", static_cast<std::int64_t>(info.local_bytes));
          w.member("max_threads_per_block", static_cast<std::int64_t>(info.max_threads_per_block));
          w.member("binary_version", static_cast<std::int64_t>(info.binary_version));
          w.member("device", device_name_);
          w.end_object();
        });
  }

  cuda::DeviceContext& ctx_;
  bool autotune_;
  std::string device_name_;
  std::unique_ptr<cuda::Module> module_;
  std::vector<std::unique_ptr<KernelState>> states_;
  std::shared_ptr<Storage> status_;         // the kernels' error flag (one int on the device)
  std::shared_ptr<DeferredFlags> deferred_; // its reads left for later
  std::optional<tracer::CompileId> compile_id_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, MatmulImpl> matmul_choices_;
};

class CudaKernelCompiler final : public KernelCompiler {
public:
  std::string_view device() const noexcept override { return "cuda"; }

  std::string target_description() const override {
    cuda::DeviceContext& ctx = cuda::current_context();
    const cuda::NvrtcOptions o = cuda::options_for(ctx.properties());
    const cuda::NvrtcStatus& nv = cuda::nvrtc_status();
    return "cuda " + ctx.properties().name + " " +
           (o.kind == cuda::BinaryKind::Cubin ? "sm_" : "compute_") + std::to_string(o.arch.major) +
           std::to_string(o.arch.minor) + " nvrtc-" + std::to_string(nv.major) + "." +
           std::to_string(nv.minor);
  }

  std::string kernel_source(const Schedule& s, std::size_t k,
                            const LoweredGraph& ir) const override {
    return generate_kernel(s, k, ir, default_config(kernel_shape(s.kernels.at(k)))).text;
  }

  CompiledCode compile(const Schedule& s, const LoweredGraph& ir) override {
    cuda::DeviceContext& ctx = cuda::current_context();
    const std::string source = module_source(generate_all(s, ir));
    cuda::CompileResult r =
        compile_module(source, "inductor_kernels.cu", cuda::options_for(ctx.properties()));
    CompiledCode out;
    out.kernels = std::make_unique<CudaKernels>(ctx, r.image, s, ir, t_autotune);
    out.object = std::move(r.image);
    out.ir = source;
    return out;
  }

  std::unique_ptr<LoadedKernels> load(std::string_view object, const Schedule& s,
                                      const LoweredGraph& ir) override {
    try {
      return std::make_unique<CudaKernels>(cuda::current_context(), object, s, ir, t_autotune);
    } catch (const cuda::CudaError&) {
      return nullptr; // an image this driver cannot load: compiled again
    } catch (const UserError&) {
      return nullptr; // an image without this schedule's kernels
    }
  }

  std::string check_compiles(const Schedule& s, const LoweredGraph& ir) override {
    if (cuda::nvrtc_status().api == nullptr) {
      return "";
    }
    cuda::NvrtcOptions o;
    o.arch = cuda::GpuArch{9, 0};
    o.kind = cuda::BinaryKind::Ptx;
    std::string source = module_source(generate_all(s, ir));
    // A cache of its own beside the compile cache, so checks never mix with real kernels.
    static cuda::KernelCache cache(std::filesystem::path(config().cache_dir) / "cuda-check");
    const cuda::CompileResult r = cuda::compile_cuda(source, "inductor_kernels.cu", o, &cache);
    ++g_checked;
    {
      std::lock_guard<std::mutex> lock(g_checked_mutex);
      g_last_checked = std::move(source);
    }
    return r.ok ? "" : r.failure_message("inductor_kernels.cu");
  }

  std::unique_ptr<CompileScope> compile_scope(Mode mode) const override {
    return std::make_unique<AutotuneCompileScope>(uses_autotune(mode));
  }

  void name_kernels(Schedule& s) const override { name_kernels_for_cuda(s); }

  std::unique_ptr<backend::CompiledGraph>
  wrap_program(std::unique_ptr<backend::CompiledGraph> program, const Schedule& s,
               const LoweredGraph& ir, Mode mode) const override {
    if (!uses_cudagraphs(mode)) {
      return program;
    }
    return make_cudagraph_runner(std::move(program), cudagraph_blocker(s, ir));
  }

private:
  class AutotuneCompileScope final : public CompileScope {
  public:
    explicit AutotuneCompileScope(bool on) : scope_(on) {}

  private:
    AutotuneScope scope_;
  };
};

} // namespace

void name_kernels_for_cuda(Schedule& s) {
  for (KernelPlan& k : s.kernels) {
    std::string base = k.name;
    if (base.rfind("cpp_", 0) == 0) {
      base = base.substr(4);
    }
    k.name =
        std::string(kernel_shape(k) == KernelShape::Pointwise ? "cuda_poi_" : "cuda_red_") + base;
  }
}

std::int64_t checked_modules() noexcept {
  return g_checked.load();
}
std::string last_checked_source() {
  std::lock_guard<std::mutex> lock(g_checked_mutex);
  return g_last_checked;
}

AutotuneScope::AutotuneScope(bool on) : previous_(t_autotune) {
  t_autotune = on;
}
AutotuneScope::~AutotuneScope() {
  t_autotune = previous_;
}

} // namespace cuda_codegen

std::unique_ptr<KernelCompiler> make_cuda_kernel_compiler() {
  return std::make_unique<cuda_codegen::CudaKernelCompiler>();
}

} // namespace compiler::inductor
