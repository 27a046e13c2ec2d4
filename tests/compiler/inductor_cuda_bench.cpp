// bench_cuda_codegen: the GPU code generator's figures (issue 13), on the GPU machine:
//   - the yardstick: a device-to-device copy of 1 GiB (bytes read + written per second);
//   - generated kernels against it: the 8-op pointwise chain over two 16M-float inputs,
//     softmax over 4096 x 4096, layer_norm over 8192 x 1024 (bandwidth counting each input read
//     once and each output written once);
//   - an MLP forward step (Linear 1024->4096, GELU, LayerNorm, Linear 4096->1024, softmax; batch
//     4096) per call;
//   - the same MLP's training step per call: the forward to a cross-entropy loss, and backward()
//     through the AOT stage's compiled backward graph, both graphs generated for the GPU; its
//     loss and gradients are first checked against the CPU's eager autograd at batch 256;
//   - reduce-overhead: the per-call overhead of a 20-kernel graph on small tensors (softmax over
//     alternating dims: 20 reductions that cannot fuse), plain launches against CUDA graph
//     replays: the host's time per call on an idle device (what reduce-overhead removes), and
//     the wall time per call back to back (which the device's time bounds from below).
// Each figure is the median of several timed groups (CUDA events around back-to-back calls).
// --only=GROUP runs one group of figures (after the copy), to run under a profiler (ncu).
// Lines starting "RESULT" are for scripts/bench-cuda-codegen.sh, which prints PyTorch 2.11's
// torch.compile figures for the same ops and sizes beside them.
#include "compiler/autograd/autograd.h"
#include "compiler/capture/compile.h"
#include "compiler/cuda/cuda.h"
#include "compiler/inductor/metrics.h"
#include "compiler/ops/ops.h"
#include "cuda/runtime.h"
#include "inductor_test_data.h"
#include "pointwise_chain.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <string>
#include <vector>

using namespace compiler;

namespace {

// Median microseconds per call of `fn` (GPU time of `per_group` back-to-back calls, 7 groups).
double gpu_us(const std::function<void()>& fn, int per_group) {
  cuda::DeviceContext& ctx = cuda::current_context();
  cuda::Event start(ctx, true);
  cuda::Event stop(ctx, true);
  fn(); // warm-up (compiles, autotunes, records)
  fn();
  ctx.synchronize();
  std::vector<double> groups;
  for (int g = 0; g < 7; ++g) {
    start.record(ctx.current_stream());
    for (int i = 0; i < per_group; ++i) {
      fn();
    }
    stop.record(ctx.current_stream());
    stop.synchronize();
    groups.push_back(static_cast<double>(stop.elapsed_ms(start)) * 1000.0 / per_group);
  }
  std::sort(groups.begin(), groups.end());
  return groups[3];
}

struct CallTimes {
  double host_us = 0.0; // the caller's time per call (queueing the work), the device idle
  double wall_us = 0.0; // per call until the device has finished, back to back
};

// Per-call times of `fn`, medians of 9 groups: the host's cost of a call (`per_group` calls
// queued on an idle device, few enough that the launch queue never fills) and the wall time of
// a call run back to back (`per_group` calls, then a synchronisation).
CallTimes call_us(const std::function<void()>& fn, int per_group) {
  cuda::DeviceContext& ctx = cuda::current_context();
  for (int i = 0; i < 3; ++i) {
    fn();
  }
  ctx.synchronize();
  std::vector<double> host;
  std::vector<double> wall;
  for (int g = 0; g < 9; ++g) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < per_group; ++i) {
      fn();
    }
    const auto t1 = std::chrono::steady_clock::now();
    ctx.synchronize();
    const auto t2 = std::chrono::steady_clock::now();
    host.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / per_group);
    wall.push_back(std::chrono::duration<double, std::micro>(t2 - t0).count() / per_group);
  }
  std::sort(host.begin(), host.end());
  std::sort(wall.begin(), wall.end());
  return {host[4], wall[4]};
}

Tensor gpu_wave(std::vector<std::int64_t> sizes, double seed, double amplitude = 1.0) {
  return inductor_test::wave(std::move(sizes), seed, amplitude).to(Device::cuda(0));
}

void result(const char* key, double value) {
  std::printf("RESULT %s %.3f\n", key, value);
}

// The tuned figures' mode: launch configurations and matmuls measured, no CUDA graphs.
constexpr const char* kTuned = "max-autotune-no-cudagraphs";

// The MLP of the forward and training figures: Linear 1024->4096, GELU, LayerNorm,
// Linear 4096->1024 (the logits).
Tensor mlp_logits(const Tensor& t, const Tensor& l1, const Tensor& c1, const Tensor& l2,
                  const Tensor& c2) {
  Tensor h = gelu(addmm(c1, t, transpose(l1, 0, 1)));
  h = layer_norm(h, {4096});
  return addmm(c2, h, transpose(l2, 0, 1));
}

// The training step's inputs for a batch: the input (no grad), the four parameters (leaves
// that require grad) and integer class targets.
struct TrainingInputs {
  Tensor x, w1, b1, w2, b2, target;
  std::vector<Tensor> params() const { return {w1, b1, w2, b2}; }
};

TrainingInputs training_inputs(std::int64_t batch, Device device) {
  auto leaf = [&](std::vector<std::int64_t> sizes, double seed, double amplitude) {
    Tensor t = inductor_test::wave(std::move(sizes), seed, amplitude).to(device);
    t.set_requires_grad(true);
    return t;
  };
  std::vector<double> classes(static_cast<std::size_t>(batch));
  for (std::size_t i = 0; i < classes.size(); ++i) {
    classes[i] = static_cast<double>((i * 37 + 11) % 1024);
  }
  return {inductor_test::wave({batch, 1024}, 7).to(device),
          leaf({4096, 1024}, 8, 0.03),
          leaf({4096}, 9, 1.0),
          leaf({1024, 4096}, 10, 0.03),
          leaf({1024}, 11, 1.0),
          Tensor::from_values(classes, {batch}, DType::Int64).to(device)};
}

// The largest |got - want| over the largest |want| (0 when both are zero).
double scaled_error(const Tensor& got, const Tensor& want) {
  const std::vector<double> g = got.to(Device::cpu()).to_vector();
  const std::vector<double> w = want.to(Device::cpu()).to_vector();
  if (g.size() != w.size()) {
    return INFINITY;
  }
  double err = 0.0;
  double scale = 0.0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    err = std::max(err, std::abs(g[i] - w[i]));
    scale = std::max(scale, std::abs(w[i]));
  }
  return scale > 0.0 ? err / scale : err;
}

// The groups of figures --only names.
bool is_group(const std::string& name) {
  for (const char* g : {"pointwise", "softmax", "layer_norm", "mlp", "mlp_parts", "train_step",
                        "reduce_overhead", "sweep"}) {
    if (name == g) {
      return true;
    }
  }
  return false;
}

// The sweep's pointwise chain (issue 31): a dozen ops over `x`, a row vector `r` and a column
// vector `c` broadcast against it. scripts/bench_cuda_codegen_torch.py spells the same chain.
Tensor chain12(const Tensor& x, const Tensor& r, const Tensor& c) {
  Tensor t = mul(x, r);
  t = add(t, c);
  t = sub(t, mul(x, 0.5));
  t = relu(t);
  t = abs(sub(t, r));
  t = where(gt(t, 0.5), t, c);
  t = mul(t, x);
  t = sigmoid(t);
  return add(t, mul(r, c));
}

// A host tensor of `sizes` in `dtype`, moved to the GPU (eager kernels run on the host).
Tensor gpu_wave_as(std::vector<std::int64_t> sizes, double seed, DType dtype) {
  return to_dtype(inductor_test::wave(std::move(sizes), seed), dtype).to(Device::cuda(0));
}

} // namespace

int main(int argc, char** argv) {
  bool quick = false;
  std::string only; // one figure's group alone (for a profiler): "" runs all
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--quick") {
      quick = true;
    } else if (arg.rfind("--only=", 0) == 0 && is_group(arg.substr(7))) {
      only = arg.substr(7);
    } else {
      std::printf("usage: bench_cuda_codegen [--quick] [--only=GROUP]\n"
                  "Prints the GPU code generator's bandwidth, MLP and reduce-overhead figures.\n"
                  "  --quick        fewer timed calls per group\n"
                  "  --only=GROUP   one group of figures (after the copy), to run under a\n"
                  "                 profiler: pointwise, softmax, layer_norm, mlp, mlp_parts,\n"
                  "                 train_step, reduce_overhead, sweep\n");
      return arg == "--help" ? 0 : 2;
    }
  }
  auto run_group = [&](const char* group) { return only.empty() || only == group; };
  if (!cuda::is_available()) {
    std::printf("no usable GPU: %s\n", cuda::unavailable_reason().c_str());
    return 0;
  }
  cuda::DeviceContext& ctx = cuda::context_of(Device::cuda(0));
  std::printf("device: %s\n", ctx.properties().name.c_str());
  const int reps = quick ? 3 : 20;
  bool failed = false; // a figure's check failed: the others still print, the exit status is 1

  // The yardstick: a device-to-device copy of 1 GiB.
  const std::size_t copy_bytes = std::size_t{1} << 30;
  Storage src(copy_bytes, Device::cuda(0));
  Storage dst(copy_bytes, Device::cuda(0));
  const double copy_us = gpu_us(
      [&] {
        TORCHSCOPE_CU(cuMemcpyDtoDAsync, reinterpret_cast<CUdeviceptr>(dst.data()),
                      reinterpret_cast<CUdeviceptr>(src.data()), copy_bytes, ctx.current_stream());
      },
      reps);
  const double copy_gbps = 2.0 * static_cast<double>(copy_bytes) / (copy_us * 1e3);
  std::printf("%-44s %9.1f GB/s\n", "device-to-device copy, 1 GiB", copy_gbps);
  result("copy_gbps", copy_gbps);

  auto bandwidth = [&](const char* name, const char* key, double bytes, double us) {
    const double gbps = bytes / (us * 1e3);
    std::printf("%-44s %9.1f us %9.1f GB/s %6.1f%% of the copy\n", name, us, gbps,
                100.0 * gbps / copy_gbps);
    result((std::string(key) + "_us").c_str(), us);
    result((std::string(key) + "_pct_of_copy").c_str(), 100.0 * gbps / copy_gbps);
  };

  // Each op compiled twice: as is, and with max-autotune (launch configurations and matmuls
  // measured; no CUDA graphs, so the figure times the kernels).
  if (run_group("pointwise")) {
    auto chain = [](const Tensor& a, const Tensor& b) {
      return inductor_test::pointwise_chain(a, b);
    };
    const std::int64_t n = std::int64_t{16} << 20;
    const Tensor a = gpu_wave({n}, 1);
    const Tensor b = gpu_wave({n}, 2);
    auto cf = compile(chain, {.name = "pointwise_chain"});
    auto tuned = compile(chain, {.name = "pointwise_chain_tuned", .mode = kTuned});
    bandwidth("pointwise chain (8 ops, 2 x 16M floats)", "pointwise", 3.0 * n * 4,
              gpu_us([&] { cf(a, b); }, reps));
    bandwidth("  max-autotune", "pointwise_tuned", 3.0 * n * 4, gpu_us([&] { tuned(a, b); }, reps));
  }
  if (run_group("softmax")) {
    const Tensor x = gpu_wave({4096, 4096}, 3);
    auto f = [](const Tensor& t) { return softmax(t, -1); };
    auto cf = compile(f, {.name = "softmax"});
    auto tuned = compile(f, {.name = "softmax_tuned", .mode = kTuned});
    const double bytes = 2.0 * 4096 * 4096 * 4;
    bandwidth("softmax 4096 x 4096", "softmax", bytes, gpu_us([&] { cf(x); }, reps));
    bandwidth("  max-autotune", "softmax_tuned", bytes, gpu_us([&] { tuned(x); }, reps));
  }
  if (run_group("layer_norm")) {
    const Tensor x = gpu_wave({8192, 1024}, 4);
    const Tensor w = gpu_wave({1024}, 5);
    const Tensor b = gpu_wave({1024}, 6);
    auto f = [](const Tensor& t, const Tensor& wt, const Tensor& bs) {
      return layer_norm(t, {1024}, wt, bs);
    };
    auto cf = compile(f, {.name = "layer_norm"});
    auto tuned = compile(f, {.name = "layer_norm_tuned", .mode = kTuned});
    const double bytes = 2.0 * 8192 * 1024 * 4;
    bandwidth("layer_norm 8192 x 1024", "layer_norm", bytes, gpu_us([&] { cf(x, w, b); }, reps));
    bandwidth("  max-autotune", "layer_norm_tuned", bytes, gpu_us([&] { tuned(x, w, b); }, reps));
  }
  if (run_group("mlp")) {
    const Tensor x = gpu_wave({4096, 1024}, 7);
    const Tensor w1 = gpu_wave({4096, 1024}, 8, 0.03);
    const Tensor b1 = gpu_wave({4096}, 9);
    const Tensor w2 = gpu_wave({1024, 4096}, 10, 0.03);
    const Tensor b2 = gpu_wave({1024}, 11);
    auto mlp = [](const Tensor& t, const Tensor& l1, const Tensor& c1, const Tensor& l2,
                  const Tensor& c2) { return softmax(mlp_logits(t, l1, c1, l2, c2), -1); };
    auto cf = compile(mlp, {.name = "mlp"});
    auto tuned = compile(mlp, {.name = "mlp_tuned", .mode = kTuned});
    const double us = gpu_us([&] { cf(x, w1, b1, w2, b2); }, quick ? 2 : 10);
    const double tuned_us = gpu_us([&] { tuned(x, w1, b1, w2, b2); }, quick ? 2 : 10);
    std::printf("%-44s %9.1f us\n", "MLP forward (4096 x 1024 -> 4096 -> 1024)", us);
    std::printf("%-44s %9.1f us\n", "  max-autotune", tuned_us);
    result("mlp_forward_us", us);
    result("mlp_forward_tuned_us", tuned_us);
  }
  if (run_group("mlp_parts")) {
    // The MLP forward's parts, each compiled alone (as is): where its time goes, beside
    // PyTorch's same parts.
    const Tensor x = gpu_wave({4096, 1024}, 7);
    const Tensor w1 = gpu_wave({4096, 1024}, 8, 0.03);
    const Tensor b1 = gpu_wave({4096}, 9);
    const Tensor h = gpu_wave({4096, 4096}, 13);
    const Tensor w2 = gpu_wave({1024, 4096}, 10, 0.03);
    const Tensor b2 = gpu_wave({1024}, 11);
    const Tensor logits = gpu_wave({4096, 1024}, 14);
    auto mm1 = compile([](const Tensor& t, const Tensor& l) { return mm(t, transpose(l, 0, 1)); },
                       {.name = "mlp_part_mm"});
    auto linear_gelu =
        compile([](const Tensor& t, const Tensor& l,
                   const Tensor& c) { return gelu(addmm(c, t, transpose(l, 0, 1))); },
                {.name = "mlp_part_linear_gelu"});
    auto norm = compile([](const Tensor& t) { return layer_norm(t, {4096}); },
                        {.name = "mlp_part_layer_norm"});
    auto linear2 = compile([](const Tensor& t, const Tensor& l,
                              const Tensor& c) { return addmm(c, t, transpose(l, 0, 1)); },
                           {.name = "mlp_part_linear2"});
    auto soft =
        compile([](const Tensor& t) { return softmax(t, -1); }, {.name = "mlp_part_softmax"});
    // The backward's bias gradient: a sum over the batch (columns).
    auto column_sum =
        compile([](const Tensor& t) { return sum(t, {0}); }, {.name = "mlp_part_column_sum"});
    const int per = quick ? 2 : 10;
    const std::pair<const char*, std::function<void()>> parts[] = {
        {"mm_4096x1024x4096", [&] { mm1(x, w1); }},
        {"linear_gelu", [&] { linear_gelu(x, w1, b1); }},
        {"layer_norm_4096x4096", [&] { norm(h); }},
        {"linear2", [&] { linear2(h, w2, b2); }},
        {"softmax_4096x1024", [&] { soft(logits); }},
        {"column_sum_4096x4096", [&] { column_sum(h); }},
    };
    for (const auto& [key, fn] : parts) {
      const double us = gpu_us(fn, per);
      std::printf("  MLP part %-34s %9.1f us\n", key, us);
      result((std::string("mlp_part_") + key + "_us").c_str(), us);
    }
  }
  if (run_group("train_step")) {
    // The training step: the loss's forward graph and, at backward(), the AOT stage's backward
    // graph, both compiled for the GPU. First checked against the CPU's eager autograd at a
    // batch the host computes quickly: the loss and each gradient within 1e-4 of the largest
    // CPU value (fp32 with the same inputs; sums differ only in their order).
    auto step = [](const Tensor& t, const Tensor& l1, const Tensor& c1, const Tensor& l2,
                   const Tensor& c2, const Tensor& target) {
      return cross_entropy(mlp_logits(t, l1, c1, l2, c2), target);
    };
    constexpr double kTolerance = 1e-4;
    // The check compiles a function of its own: the timed one sees one shape only (a second
    // shape would recompile it with dynamic sizes).
    auto checked = compile(step, {.name = "mlp_train_step_check"});
    auto cf = compile(step, {.name = "mlp_train_step"});
    try {
      const TrainingInputs cpu = training_inputs(256, Device::cpu());
      const TrainingInputs gpu = training_inputs(256, Device::cuda(0));
      const Tensor want = step(cpu.x, cpu.w1, cpu.b1, cpu.w2, cpu.b2, cpu.target);
      want.backward();
      inductor::reset_counters();
      const Tensor got = checked(gpu.x, gpu.w1, gpu.b1, gpu.w2, gpu.b2, gpu.target);
      got.backward();
      const inductor::Counters c = inductor::counters();
      double worst = scaled_error(got, want);
      const char* names[] = {"w1", "b1", "w2", "b2"};
      std::printf("training step check, batch 256, GPU against CPU eager: loss %.6f vs %.6f",
                  got.to(Device::cpu()).to_vector()[0], want.to_vector()[0]);
      for (std::size_t i = 0; i < 4; ++i) {
        const double e = scaled_error(gpu.params()[i].grad(), cpu.params()[i].grad());
        std::printf(", grad %s %.1e", names[i], e);
        worst = std::max(worst, e);
      }
      std::printf(" (scaled errors; tolerance %.0e)\n", kTolerance);
      std::printf(
          "  graphs generated %lld, kernels %lld, GEMMs %lld, nodes on eager kernels %lld\n",
          static_cast<long long>(c.graphs_compiled), static_cast<long long>(c.kernel_launches),
          static_cast<long long>(c.extern_calls), static_cast<long long>(c.fallback_runs));
      result("mlp_train_check_scaled_error", worst);
      result("mlp_train_graphs_compiled", static_cast<double>(c.graphs_compiled));
      result("mlp_train_fallback_runs", static_cast<double>(c.fallback_runs));
      if (!(worst <= kTolerance)) {
        std::printf("FAILED: the GPU's training step differs from the CPU's beyond %.0e\n",
                    kTolerance);
        failed = true;
      }
    } catch (const std::exception& e) {
      std::printf("FAILED: the training step on the GPU: %s\n", e.what());
      failed = true;
    }
    const TrainingInputs in = training_inputs(4096, Device::cuda(0));
    const std::vector<Tensor> params = in.params();
    auto one_step = [&] {
      for (const Tensor& p : params) {
        p.set_grad(Tensor()); // as zero_grad(set_to_none=True)
      }
      cf(in.x, in.w1, in.b1, in.w2, in.b2, in.target).backward();
    };
    try {
      const double us = gpu_us(one_step, quick ? 2 : 10);
      std::printf("%-44s %9.1f us\n", "MLP training step (fwd + loss + bwd, 4096)", us);
      result("mlp_train_step_us", us);
    } catch (const std::exception& e) {
      std::printf("FAILED: the timed training step on the GPU: %s\n", e.what());
      failed = true;
    }
  }
  if (run_group("reduce_overhead")) {
    // 20 kernels: softmax over alternating dims, two kernels each (a reduction over columns
    // cannot fuse with one over rows).
    auto twenty = [](const Tensor& x) {
      Tensor y = x;
      for (int i = 0; i < 5; ++i) {
        y = softmax(y, 0);
        y = softmax(y, 1);
      }
      return y;
    };
    const Tensor x = gpu_wave({32, 32}, 12);
    auto plain = compile(twenty, {.name = "twenty_kernels"});
    auto graphs = compile(twenty, {.name = "twenty_kernels_graphs", .mode = "reduce-overhead"});
    plain(x);
    inductor::reset_counters();
    plain(x);
    const std::int64_t launches = inductor::counters().kernel_launches;
    const int calls = 16; // 320 launches: the queue never fills
    const CallTimes p = call_us([&] { plain(x); }, calls);
    const CallTimes g = call_us([&] { graphs(x); }, calls);
    std::printf("%-44s %9lld\n", "kernels per call of the 20-kernel graph",
                static_cast<long long>(launches));
    std::printf("%-44s %9.1f us host, %7.1f us wall\n", "per call, plain launches", p.host_us,
                p.wall_us);
    std::printf("%-44s %9.1f us host, %7.1f us wall\n", "per call, reduce-overhead (CUDA graph)",
                g.host_us, g.wall_us);
    std::printf("%-44s %9.1fx host, %6.1fx wall\n", "reduce-overhead's gain", p.host_us / g.host_us,
                p.wall_us / g.wall_us);
    result("twenty_kernels_launches", static_cast<double>(launches));
    result("twenty_plain_us", p.host_us);
    result("twenty_graph_us", g.host_us);
    result("twenty_plain_wall_us", p.wall_us);
    result("twenty_graph_wall_us", g.wall_us);
  }
  if (run_group("sweep")) {
    // Shapes a user brings (issue 31): broadcasts in 1-3 dims at odd and prime widths,
    // transposed and sliced inputs, reductions over each side, softmax and layer_norm from
    // width 7 to 65,537, mixed precisions. Each row is one compiled function; bytes count each
    // input read once and the output written once. A row that fails prints n/a; the others go on.
    struct Row {
      std::string key;
      std::function<void()> setup; // compiles and makes inputs; sets `call` and `bytes`
    };
    std::function<void()> call;
    double bytes = 0.0;
    auto f32 = [](std::vector<std::int64_t> s, double seed) {
      return gpu_wave(std::move(s), seed);
    };
    auto chain_row = [&](std::vector<std::int64_t> xs, std::vector<std::int64_t> rs,
                         std::vector<std::int64_t> cs, const char* name) {
      return [&call, &bytes, &f32, xs, rs, cs, name] {
        const Tensor x = f32(xs, 1);
        const Tensor r = f32(rs, 2);
        const Tensor c = f32(cs, 3);
        auto f = (compile(chain12, {.name = name}));
        call = [f, x, r, c] { f(x, r, c); };
        bytes = 2.0 * static_cast<double>(x.numel()) * 4;
      };
    };
    std::vector<Row> rows = {
        {"sweep_bcast1d_odd", chain_row({33554467}, {1}, {1}, "sweep_bcast1d_odd")},
        {"sweep_bcast2d_odd", chain_row({8191, 4097}, {4097}, {8191, 1}, "sweep_bcast2d_odd")},
        {"sweep_bcast2d_prime", chain_row({4093, 8191}, {8191}, {4093, 1}, "sweep_bcast2d_prime")},
        {"sweep_bcast2d_w7", chain_row({4793491, 7}, {7}, {4793491, 1}, "sweep_bcast2d_w7")},
        {"sweep_bcast3d_odd", chain_row({127, 511, 517}, {517}, {127, 1, 1}, "sweep_bcast3d_odd")},
        {"sweep_transposed",
         [&] {
           const Tensor a = f32({5793, 5793}, 4);
           const Tensor b = f32({5793, 5793}, 5);
           auto f = (compile(
               [](const Tensor& p, const Tensor& q) {
                 return inductor_test::pointwise_chain(transpose(p, 0, 1), q);
               },
               {.name = "sweep_transposed"}));
           call = [f, a, b] { f(a, b); };
           bytes = 3.0 * static_cast<double>(a.numel()) * 4;
         }},
        {"sweep_sliced",
         [&] {
           const Tensor a = f32({8192, 4099}, 6);
           auto f = (compile(
               [](const Tensor& p) { return relu(add(mul(slice(p, 1, 1, 4098), 2.0), 1.0)); },
               {.name = "sweep_sliced"}));
           call = [f, a] { f(a); };
           bytes = 2.0 * 8192 * 4097 * 4;
         }},
        {"sweep_sum_inner",
         [&] {
           const Tensor a = f32({8192, 4097}, 7);
           auto f =
               (compile([](const Tensor& p) { return sum(p, {1}); }, {.name = "sweep_sum_inner"}));
           call = [f, a] { f(a); };
           bytes = static_cast<double>(a.numel()) * 4;
         }},
        {"sweep_sum_outer",
         [&] {
           const Tensor a = f32({8192, 4097}, 8);
           auto f =
               (compile([](const Tensor& p) { return sum(p, {0}); }, {.name = "sweep_sum_outer"}));
           call = [f, a] { f(a); };
           bytes = static_cast<double>(a.numel()) * 4;
         }},
        {"sweep_sum_all",
         [&] {
           const Tensor a = f32({33554467}, 9);
           auto f = (compile([](const Tensor& p) { return sum(p); }, {.name = "sweep_sum_all"}));
           call = [f, a] { f(a); };
           bytes = static_cast<double>(a.numel()) * 4;
         }},
        {"sweep_mixed_f16_f32",
         [&] {
           const Tensor a = gpu_wave_as({8191, 4097}, 10, DType::Float16);
           const Tensor r = f32({4097}, 11);
           auto f =
               (compile([](const Tensor& p, const Tensor& q) { return relu(add(mul(p, q), q)); },
                        {.name = "sweep_mixed_f16_f32"}));
           call = [f, a, r] { f(a, r); };
           bytes = static_cast<double>(a.numel()) * (2 + 4);
         }},
        {"sweep_softmax_bf16_w4097",
         [&] {
           const Tensor a = gpu_wave_as({8192, 4097}, 12, DType::BFloat16);
           auto f = (compile([](const Tensor& p) { return softmax(p, -1); },
                             {.name = "sweep_softmax_bf16"}));
           call = [f, a] { f(a); };
           bytes = 2.0 * static_cast<double>(a.numel()) * 2;
         }},
    };
    for (std::int64_t w : {7, 129, 1000, 4097, 65537}) {
      const std::int64_t n = (std::int64_t{32} << 20) / w;
      const std::string sk = "sweep_softmax_w" + std::to_string(w);
      const std::string lk = "sweep_layer_norm_w" + std::to_string(w);
      rows.push_back({sk, [&, n, w, sk] {
                        const Tensor a = f32({n, w}, 13);
                        auto f =
                            (compile([](const Tensor& p) { return softmax(p, -1); }, {.name = sk}));
                        call = [f, a] { f(a); };
                        bytes = 2.0 * static_cast<double>(a.numel()) * 4;
                      }});
      rows.push_back({lk, [&, n, w, lk] {
                        const Tensor a = f32({n, w}, 14);
                        const Tensor g = f32({w}, 15);
                        const Tensor b = f32({w}, 16);
                        auto f = (compile([w](const Tensor& p, const Tensor& q,
                                              const Tensor& r) { return layer_norm(p, {w}, q, r); },
                                          {.name = lk}));
                        call = [f, a, g, b] { f(a, g, b); };
                        bytes = 2.0 * static_cast<double>(a.numel()) * 4;
                      }});
    }
    for (const Row& row : rows) {
      try {
        call = nullptr;
        row.setup();
        bandwidth(row.key.c_str(), row.key.c_str(), bytes, gpu_us(call, reps));
      } catch (const std::exception& e) {
        std::printf("%-44s n/a: %s\n", row.key.c_str(), e.what());
      }
      call = nullptr; // frees the inputs before the next row
    }
  }
  return failed ? 1 : 0;
}
