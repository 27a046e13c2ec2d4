// The GPU code generator (compiler/src/inductor/codegen/cuda/, runtime/cuda_*). Two groups:
//   - without a GPU, wherever NVRTC is: kernels of every family are generated for the host's
//     schedules and compiled by NVRTC to PTX (Config::check_cuda is on for this whole binary,
//     so each kernel every other Inductor test generates is compiled too), the source has the
//     shape docs/COMPILER.md describes, modes parse;
//   - on a GPU (tagged [gpu], skipped, saying so, elsewhere): every family of ops compiled for
//     the GPU against eager on the host, the samples' models, cuBLAS and the generated matmul,
//     reduce-overhead's recordings and replays, max-autotune's choices and their cache.
#include "compiler/capture/compile.h"
#include "compiler/cuda/cuda.h"
#include "compiler/inductor/inductor.h"
#include "compiler/inductor/metrics.h"
#include "compiler/ops/ops.h"
#include "cuda/nvrtc_api.h"
#include "inductor/codegen/cuda/cuda_kernel_compiler.h"
#include "inductor/codegen/kernel_compiler.h"
#include "inductor_compare.h"
#include "inductor_test_data.h"
#include "pointwise_chain.h"
#include "support/test_paths.h"
#include "tracer/trace.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <fcntl.h>
#include <filesystem>
#include <limits>
#include <thread>
#include <unistd.h>

using namespace compiler;
using inductor_test::wave;

namespace {

#define REQUIRE_NVRTC()                                                                            \
  if (cuda::nvrtc_status().api == nullptr) {                                                       \
    TORCHSCOPE_SKIP("NVRTC is not installed: " << cuda::nvrtc_status().unavailable_reason);        \
  }
#define REQUIRE_GPU()                                                                              \
  if (!cuda::is_available()) {                                                                     \
    TORCHSCOPE_SKIP("no usable GPU: " << cuda::unavailable_reason());                              \
  }

// Every test of this binary (the op families, the property test's random programs, the cache
// and sample tests) has its host schedules compiled for the GPU by NVRTC too: a kernel NVRTC
// rejects fails the test that generated it.
const bool g_check_every_schedule = [] {
  inductor::config().check_cuda = true;
  return true;
}();

// RAII: the NVRTC check of host schedules on, whatever the environment says.
struct CheckCuda {
  bool previous = inductor::config().check_cuda;
  CheckCuda() { inductor::config().check_cuda = true; }
  ~CheckCuda() { inductor::config().check_cuda = previous; }
};

// Compiles `f` for the host (so its schedules are checked with NVRTC) and runs it once.
template <class F, class... Args>
std::string checked_source(F f, const Args&... args) {
  if (inductor::kernel_compiler("cpu") == nullptr) {
    return ""; // a build without the host generator (LLVM): nothing to check
  }
  const CheckCuda on;
  const std::int64_t before = inductor::cuda_codegen::checked_modules();
  auto cf = compile(f, {.backend = "inductor"});
  cf(args...);
  CHECK(inductor::cuda_codegen::checked_modules() > before);
  return inductor::cuda_codegen::last_checked_source();
}

Tensor gpu(const Tensor& t) {
  return t.to(Device::cuda(0));
}

// Runs `f` eagerly on the host and compiled on the GPU, and checks the results.
template <class F, class... Args>
void check_gpu(F f, const Args&... args) {
  const Tensor want = f(args...);
  auto cf = compile(f, {.backend = "inductor"});
  inductor::reset_counters();
  const Tensor got = cf(gpu(args)...);
  CHECK(got.device() == Device::cuda(0));
  CHECK_CLOSE(got.to(Device::cpu()), want);
  const inductor::Counters c = inductor::counters();
  CHECK(c.kernel_launches + c.extern_calls > 0);
}

} // namespace

TEST_CASE("cuda codegen: pointwise, reduction and fused kernels compile to PTX with NVRTC",
          "[inductor][cuda]") {
  REQUIRE_NVRTC();
  if (inductor::kernel_compiler("cpu") == nullptr) {
    TORCHSCOPE_SKIP("this build has no host code generator (LLVM) whose schedules to check");
  }
  const Tensor x = wave({9, 33}, 1, 5.0);
  const Tensor w = wave({33}, 2);
  std::string src = checked_source(
      [](const Tensor& a, const Tensor& b) { return relu(add(mul(a, b), sigmoid(a))); }, x, w);
  CHECK(src.find("ts_base += ts_step") != std::string::npos); // grid-stride, unrolled
  CHECK(src.find("#pragma unroll") != std::string::npos);
  src = checked_source([](const Tensor& t) { return softmax(t, -1); }, x);
  // One kernel: a max, then a sum, then the normalised row, each combined across the warp
  // that owns the row (rows of 33: a warp each).
  CHECK(src.find("ts_lane_reduce(acc0, TsMax()") != std::string::npos);
  CHECK(src.find("ts_lane_reduce(acc1, TsSum()") != std::string::npos);
  // A sum over dim 0: a column tile, threads along the contiguous outer index.
  src = checked_source([](const Tensor& t) { return sum(t, {0}); }, x);
  CHECK(src.find("ts_column_reduce(acc0, TsSum()") != std::string::npos);
  CHECK(src.find("__shfl_xor_sync") != std::string::npos);
  src = checked_source([&](const Tensor& t) { return layer_norm(gelu(t), {33}, w, w); }, x);
  CHECK(src.find("erff(") != std::string::npos);
  // Decomposed, it is still one kernel: mean, variance and the normalised row over one row.
  const Tensor bias = wave({33}, 3);
  src = checked_source([&](const Tensor& t) { return layer_norm(t, {33}, w, bias); }, x);
  CHECK(src.find("__global__") == src.rfind("__global__"));
  CHECK(src.find("ts_lane_reduce(acc1, TsSum()") != std::string::npos);
  // A sum over dim 0: a column tile, threads along the contiguous outer index.
  src = checked_source([](const Tensor& t) { return sum(t, {0}); }, x);
  CHECK(src.find("ts_column_reduce(acc0, TsSum()") != std::string::npos);
  src = checked_source([](const Tensor& t) { return argmax(t, 1); }, x);
  CHECK(src.find("ts_block_argmax") != std::string::npos);
  const Tensor idx = Tensor::from_values({3, 0, 8, 3}, {4}, DType::Int64);
  src = checked_source([](const Tensor& t, const Tensor& i) { return embedding(t, i); }, x, idx);
  CHECK(src.find("ts_check_row") != std::string::npos);
  src = checked_source(
      [](const Tensor& t) {
        return to_dtype(mul(to_dtype(t, DType::BFloat16), 2.0), DType::Float16);
      },
      x);
  CHECK(src.find("ts_f32_to_f16") != std::string::npos);
  CHECK(src.find("ts_round_bf16") != std::string::npos);
  src = checked_source([](const Tensor& t) { return sum(to_dtype(t, DType::Int32), {0}); }, x);
  CHECK(src.find("long long acc0") != std::string::npos);
  // A dynamic dim is a kernel argument.
  mark_dynamic(x, 0);
  src = checked_source([](const Tensor& t) { return mul(t, 2.0); }, x);
  CHECK(src.find("const long long s0") != std::string::npos);
}

TEST_CASE("cuda codegen: 32-bit indices, a thread per short row, a long row split across blocks",
          "[inductor][cuda]") {
  REQUIRE_NVRTC();
  if (inductor::kernel_compiler("cpu") == nullptr) {
    TORCHSCOPE_SKIP("this build has no host code generator (LLVM) whose schedules to check");
  }
  // An odd-width broadcast: its index divides in 32 bits.
  const Tensor x = wave({37, 19}, 1);
  const Tensor row = wave({19}, 2);
  const Tensor col = wave({37, 1}, 3);
  auto bcast = [](const Tensor& a, const Tensor& r, const Tensor& c) {
    return sigmoid(mul(add(mul(a, r), c), a));
  };
  std::string src = checked_source(bcast, x, row, col);
  CHECK(src.find("const int x1 = (xindex % (19));") != std::string::npos);
  CHECK(src.find("long long x1") == std::string::npos);
  // sigmoid's pow(t, -1) is a correctly rounded reciprocal.
  CHECK(src.find("powf(") == std::string::npos);
  CHECK(src.find("= __frcp_rn(tmp") != std::string::npos);
  // Rows of 7: a thread each, a sequential loop, no block reduction.
  const Tensor narrow = wave({500, 7}, 4);
  auto soft = [](const Tensor& t) { return softmax(t, -1); };
  src = checked_source(soft, narrow);
  CHECK(src.find("for (int rindex = 0; rindex < 7; ++rindex)") != std::string::npos);
  CHECK(src.find("ts_block_reduce(acc") == std::string::npos);
  // Its exp(x - max) stays in registers: the only store is the result.
  CHECK(src.find("in_out_ptr0[") == std::string::npos);
  // Rows of 129: a warp each, combined by shuffles; argmax too.
  const Tensor mid = wave({300, 129}, 7);
  src = checked_source(soft, mid);
  CHECK(src.find("acc0 = ts_lane_reduce(acc0, TsMax()") != std::string::npos);
  CHECK(src.find("if (ts_lane == 0) out_ptr0[") == std::string::npos); // rows of results only
  auto arg = [](const Tensor& t) { return argmax(t, 1); };
  src = checked_source(arg, mid);
  CHECK(src.find("ts_warp_argmax(acc0, acc_index1);") != std::string::npos);
  // A row of 2^17: 4 blocks, the last folding the partials.
  const Tensor longrow = wave({131072}, 5);
  auto total = [](const Tensor& t) { return add(sum(t), amax(t)); };
  src = checked_source(total, longrow);
  CHECK(src.find("atomicAdd(ts_counters + ts_x, 1u) == 4u - 1u") != std::string::npos);
  CHECK(src.find("unsigned long long* __restrict__ ts_scratch") != std::string::npos);
  if (!cuda::is_available()) {
    return; // the sources compile; running them needs a GPU
  }
  check_gpu(bcast, x, row, col);
  check_gpu(soft, narrow);
  check_gpu([](const Tensor& t) { return layer_norm(t, {7}); }, narrow);
  check_gpu(soft, mid);
  check_gpu(arg, mid);
  check_gpu([](const Tensor& t) { return layer_norm(t, {129}); }, mid);
  check_gpu(total, longrow);
  // Twice more: the counters were reset for the next launch.
  auto cf = compile(total, {.backend = "inductor"});
  const Tensor want = total(longrow);
  for (int i = 0; i < 3; ++i) {
    CHECK_CLOSE(cf(gpu(longrow)).to(Device::cpu()), want);
  }
  const Tensor rows3 = wave({3, 200000}, 6);
  check_gpu([](const Tensor& t) { return mean(t, {1}); }, rows3);
  check_gpu([](const Tensor& t) { return amin(t, {1}, true); }, rows3);
  check_gpu([](const Tensor& t) { return argmax(t); }, longrow); // argmax is not split
}

// pointwise, more: each new loop op in a kernel NVRTC compiles.
TEST_CASE("cuda codegen: the pointwise-more ops compile to PTX with NVRTC", "[inductor][cuda]") {
  REQUIRE_NVRTC();
  if (inductor::kernel_compiler("cpu") == nullptr) {
    TORCHSCOPE_SKIP("this build has no host code generator (LLVM) whose schedules to check");
  }
  const Tensor x = wave({9, 33}, 1, 3.0);
  const Tensor r = wave({33}, 2);
  std::string src = checked_source(
      [](const Tensor& a) {
        const Tensor rounded = add(add(floor(a), ceil(a)), add(round(a), trunc(a)));
        const Tensor curved = add(add(log1p(abs(a)), expm1(a)), add(tan(a), atan(a)));
        const Tensor hyper = add(add(asin(mul(a, 0.1)), acos(mul(a, 0.1))), add(sinh(a), cosh(a)));
        return add(add(rounded, sign(a)), add(curved, hyper));
      },
      x);
  for (const char* f : {"floorf(", "ceilf(", "rintf(", "truncf(", "log1pf(", "expm1f(", "tanf(",
                        "atanf(", "asinf(", "acosf(", "sinhf(", "coshf("}) {
    INFO(f);
    CHECK(src.find(f) != std::string::npos);
  }
  src = checked_source(
      [](const Tensor& a, const Tensor& b) {
        const Tensor masks = to_dtype(stack({logical_xor(a, gt(b, 0.0)), isinf(div(a, 0.0)),
                                             bitwise_not(gt(a, 0.0)), isnan(a)},
                                            0),
                                      DType::Float32);
        const Tensor i = to_dtype(mul(a, 4.0), DType::Int64);
        const Tensor j = to_dtype(mul(b, 4.0), DType::Int32);
        const Tensor bits = bitwise_not(bitwise_xor(bitwise_or(bitwise_and(i, j), j), i));
        return add(add(sum(masks, {0}), to_dtype(add(bits, sign(i)), DType::Float32)),
                   add(clamp(a, b, Tensor()), hardswish(a)));
      },
      x, r);
  CHECK(src.find("isinf(") != std::string::npos);
  CHECK(src.find(" & ") != std::string::npos);
  CHECK(src.find(" ^ ") != std::string::npos);
  CHECK(src.find("~") != std::string::npos);
  CHECK(src.find("ts_minimum(") != std::string::npos);
}

TEST_CASE("cuda codegen: the pointwise-more ops on the GPU equal eager on the host",
          "[inductor][cuda][gpu]") {
  REQUIRE_GPU();
  std::vector<double> v;
  for (int i = -400; i <= 400; ++i) {
    v.push_back(i * 0.0731);
  }
  const double inf = std::numeric_limits<double>::infinity();
  for (double s : {0.0, -0.0, 0.5, 1.5, 2.5, -2.5, 1e-30, 88.5, 89.0, -104.0, 1e4, inf, -inf,
                   std::numeric_limits<double>::quiet_NaN()}) {
    v.push_back(s);
  }
  const Tensor x = Tensor::from_values(v, {static_cast<std::int64_t>(v.size())});
  check_gpu([](const Tensor& t) { return add(add(floor(t), ceil(t)), add(round(t), trunc(t))); },
            x);
  check_gpu([](const Tensor& t) { return sign(t); }, x);
  check_gpu([](const Tensor& t) { return add(log1p(abs(t)), expm1(t)); }, x);
  check_gpu([](const Tensor& t) { return add(tan(tanh(t)), atan(t)); }, x);
  check_gpu([](const Tensor& t) { return add(asin(mul(tanh(t), 0.9)), acos(mul(tanh(t), 0.9))); },
            x);
  check_gpu([](const Tensor& t) { return sinh(t); }, x);
  check_gpu([](const Tensor& t) { return cosh(t); }, x);
  check_gpu([](const Tensor& t) { return add(clamp(t, -0.5, 0.75), minimum(t, 0.25)); }, x);
  check_gpu([](const Tensor& t) { return nan_to_num(t); }, x);
  check_gpu([](const Tensor& t) { return add(leaky_relu(t, 0.2), elu(t)); }, x);
  check_gpu([](const Tensor& t) { return add(softplus(t, 2.0, 3.0), hardswish(t)); }, x);
  check_gpu([](const Tensor& t) { return masked_fill(t, gt(t, 0.3), -7.0); }, x);
  check_gpu(
      [](const Tensor& t) {
        return to_dtype(stack({isnan(t), isinf(t), logical_not(t), logical_xor(t, gt(t, 1.0))}, 0),
                        DType::Float32);
      },
      x);
  const Tensor i = to_dtype(wave({64}, 1, 300.0), DType::Int64);
  const Tensor j = to_dtype(wave({64}, 2, 300.0), DType::Int32);
  check_gpu(
      [](const Tensor& p, const Tensor& q) {
        return bitwise_not(bitwise_xor(bitwise_or(bitwise_and(p, q), q), p));
      },
      i, j);
  check_gpu([](const Tensor& p) { return add(sign(p), clamp(p, -50.0, 50.0)); }, j);
  check_gpu([](const Tensor& p, const Tensor& q) { return bitwise_and(gt(p, 0.0), lt(q, 0.0)); }, i,
            j);
}

TEST_CASE("cuda codegen: rand, dropout, var, logsumexp and the losses compile to PTX with NVRTC",
          "[inductor][cuda]") {
  REQUIRE_NVRTC();
  if (inductor::kernel_compiler("cpu") == nullptr) {
    TORCHSCOPE_SKIP("this build has no host code generator (LLVM) whose schedules to check");
  }
  const Tensor x = wave({9, 33}, 1, 3.0);
  const Tensor t = wave({9, 33}, 2);
  // The explicit (seed, offset) form, and the generator's, whose seed and offset are symbols.
  std::string src = checked_source(
      [](const Tensor& a) {
        return add(dropout(a, 0.25, 7, SymInt(1000)), rand({9, 33}, 3, SymInt(5), DType::BFloat16));
      },
      x);
  CHECK(src.find("ts_rand_uniform(") != std::string::npos);
  src = checked_source([](const Tensor& a) { return dropout(a, 0.5); }, x);
  CHECK(src.find("ts_rand_uniform(") != std::string::npos);
  src = checked_source(
      [](const Tensor& a, const Tensor& b) {
        return add(add(var(a, {1}, 1.0, true), logsumexp(a, {1}, true)),
                   add(mse_loss(a, b), binary_cross_entropy_with_logits(a, sigmoid(b))));
      },
      x, t);
  CHECK(src.find("ts_lane_reduce(") != std::string::npos);
}

TEST_CASE("cuda codegen: dropout on the GPU draws the host's numbers", "[inductor][cuda][gpu]") {
  REQUIRE_GPU();
  const Tensor x = wave({9, 33}, 1, 3.0);
  check_gpu([](const Tensor& a) { return dropout(a, 0.25, 7, SymInt(1000)); }, x);
  auto f = [](const Tensor& a) { return dropout(a, 0.4); };
  auto cf = compile(f, {.backend = "inductor"});
  manual_seed(21);
  const Tensor want = f(x);
  manual_seed(21);
  const Tensor got = cf(gpu(x));
  CHECK(got.to(Device::cpu()).to_vector() == want.to_vector());
}

TEST_CASE("cuda codegen: relu, layer_norm, softmax and addmm + GELU decomposed on the GPU run "
          "as few kernels, no eager kernel",
          "[inductor][cuda][gpu]") {
  REQUIRE_GPU();
  // Each compiled for the GPU: its kernels and GEMMs counted on the second call.
  auto counted = [](auto f, const auto&... args) {
    const Tensor want = f(args...);
    auto cf = compile(f, {.backend = "inductor"});
    cf(gpu(args)...);
    inductor::reset_counters();
    const Tensor got = cf(gpu(args)...);
    CHECK_CLOSE(got.to(Device::cpu()), want);
    return inductor::counters();
  };
  const Tensor x = wave({64, 96}, 1, 3.0);
  const Tensor w = wave({96}, 2);
  // relu decomposes to maximum(x, full([], 0)): the full is a constant in the kernel (it was an
  // eager kernel on the GPU, its device argument unknown to the lowering).
  inductor::Counters c = counted([](const Tensor& t) { return relu(t); }, x);
  CHECK(c.fallback_runs == 0);
  CHECK(c.kernel_launches == 1);
  c = counted([](const Tensor& a, const Tensor& b) { return inductor_test::pointwise_chain(a, b); },
              x, wave({64, 96}, 3));
  CHECK(c.fallback_runs == 0);
  CHECK(c.kernel_launches == 1);
  c = counted([](const Tensor& t, const Tensor& wt) { return layer_norm(t, {96}, wt, wt); }, x, w);
  CHECK(c.fallback_runs == 0);
  CHECK(c.kernel_launches == 1);
  c = counted([](const Tensor& t) { return softmax(t, -1); }, x);
  CHECK(c.kernel_launches == 1);
  // The bias add joins GELU's kernel: one GEMM without a bias, one kernel.
  const Tensor l = wave({48, 96}, 4, 0.1);
  const Tensor bias = wave({48}, 5);
  c = counted([](const Tensor& t, const Tensor& lw,
                 const Tensor& lb) { return gelu(addmm(lb, t, transpose(lw, 0, 1))); },
              x, l, bias);
  CHECK(c.extern_calls == 1);
  CHECK(c.kernel_launches == 1);
  CHECK(c.fallback_runs == 0);
  // Reductions over columns (a bias's gradient): column tiles, sizes not multiples of 32.
  c = counted([](const Tensor& t) { return sum(t, {0}); }, wave({70, 45}, 6));
  CHECK(c.kernel_launches == 1);
  c = counted([](const Tensor& t) { return div(sum(mul(t, t), {0}), 3.0); }, wave({1000, 37}, 7));
  CHECK(c.kernel_launches == 1);
  c = counted([](const Tensor& t) { return amax(t, {0}); }, wave({33, 4096}, 8));
  CHECK(c.kernel_launches == 1);
}

TEST_CASE("cuda codegen: compile() takes PyTorch's modes and names an unknown one",
          "[inductor][cuda]") {
  CHECK(inductor::parse_mode("") == inductor::Mode::Default);
  CHECK(inductor::parse_mode("reduce-overhead") == inductor::Mode::ReduceOverhead);
  CHECK(inductor::parse_mode("max-autotune") == inductor::Mode::MaxAutotune);
  CHECK(inductor::uses_cudagraphs(inductor::Mode::MaxAutotune));
  CHECK_FALSE(inductor::uses_cudagraphs(inductor::Mode::MaxAutotuneNoCudagraphs));
  auto cf = compile([](const Tensor& t) { return mul(t, 2.0); }, {.mode = "fastest"});
  try {
    cf(wave({4}));
    FAIL("an unknown mode was accepted");
  } catch (const UserError& e) {
    CHECK(std::string(e.what()).find("unknown mode 'fastest'") != std::string::npos);
  }
  // On the host a mode changes nothing (as in PyTorch, CUDA graphs are for GPU programs).
  auto host = compile([](const Tensor& t) { return mul(t, 2.0); }, {.mode = "reduce-overhead"});
  CHECK_CLOSE(host(wave({4})), mul(wave({4}), 2.0));
}

TEST_CASE("cuda codegen: every family of ops on the GPU equals eager on the host",
          "[inductor][cuda][gpu]") {
  REQUIRE_GPU();
  auto chain = [](const Tensor& a, const Tensor& b) {
    return inductor_test::pointwise_chain(a, b);
  };
  check_gpu(chain, wave({1000}, 1), wave({1000}, 2));
  check_gpu(chain, wave({37, 19}, 1), wave({19}, 2));
  std::vector<double> v;
  for (int i = -400; i <= 400; ++i) {
    v.push_back(i * 0.0731);
  }
  const double inf = std::numeric_limits<double>::infinity();
  for (double s : {0.0, -0.0, 1e-30, 88.5, 89.0, -104.0, 1e4, -3e5, inf, -inf,
                   std::numeric_limits<double>::quiet_NaN()}) {
    v.push_back(s);
  }
  const Tensor x = Tensor::from_values(v, {static_cast<std::int64_t>(v.size())});
  check_gpu([](const Tensor& t) { return exp(t); }, x);
  check_gpu([](const Tensor& t) { return log(abs(t)); }, x);
  check_gpu([](const Tensor& t) { return tanh(t); }, x);
  check_gpu([](const Tensor& t) { return sigmoid(t); }, x);
  check_gpu([](const Tensor& t) { return gelu(t); }, x);
  check_gpu([](const Tensor& t) { return gelu(t, "tanh"); }, x);
  check_gpu([](const Tensor& t) { return silu(t); }, x);
  check_gpu([](const Tensor& t) { return pow(abs(t), 1.7); }, x);
  const Tensor a = wave({64}, 1, 300.0);
  const Tensor b = wave({64}, 2, 300.0);
  check_gpu([](const Tensor& p, const Tensor& q) { return to_dtype(ge(p, q), DType::Int64); }, a,
            b);
  for (DType d : {DType::Float16, DType::BFloat16, DType::Int32, DType::Int64, DType::Bool}) {
    INFO("dtype " << dtype_name(d));
    check_gpu([d](const Tensor& p) { return to_dtype(mul(to_dtype(p, d), 2.0), DType::Float32); },
              a);
    const Tensor typed = to_dtype(a, d);
    check_gpu([](const Tensor& p, const Tensor& q) { return add(p, q); }, typed, typed);
  }
  check_gpu([](const Tensor& p) { return to_dtype(mul(p, 1e8), DType::Int32); }, a);
  const Tensor r = wave({6, 5, 7}, 1);
  for (std::int64_t d = 0; d < 3; ++d) {
    INFO("dim " << d);
    check_gpu([d](const Tensor& t) { return sum(t, {d}); }, r);
    check_gpu([d](const Tensor& t) { return mean(t, {d}, true); }, r);
    check_gpu([d](const Tensor& t) { return amax(t, {d}); }, r);
    check_gpu([d](const Tensor& t) { return amin(t, {d}, true); }, r);
    check_gpu([d](const Tensor& t) { return argmax(t, d); }, r);
  }
  check_gpu([](const Tensor& t) { return sum(t); }, r);
  check_gpu([](const Tensor& t) { return argmax(t); }, r);
  check_gpu([](const Tensor& t) { return sum(to_dtype(t, DType::Int32)); }, r);
  const Tensor special = Tensor::from_values({1, 5, 5, 2, NAN, 7, 3, 3}, {2, 4});
  check_gpu([](const Tensor& t) { return amax(t, {1}); }, special);
  check_gpu([](const Tensor& t) { return argmax(t, 1); }, special);
  // Long rows: several passes of the block over each row.
  const Tensor big = wave({37, 5000}, 3, 4.0);
  check_gpu([](const Tensor& t) { return softmax(t, -1); }, big);
  check_gpu([](const Tensor& t) { return sum(t, {1}); }, big);
  const Tensor s = wave({9, 33}, 1, 5.0);
  const Tensor w = wave({33}, 2);
  check_gpu([](const Tensor& t) { return softmax(t, 0); }, s);
  check_gpu([](const Tensor& t) { return log_softmax(t, 1); }, s);
  check_gpu([](const Tensor& t, const Tensor& wt) { return layer_norm(t, {33}, wt, wt); }, s, w);
  check_gpu([](const Tensor& t) { return softmax(to_dtype(t, DType::Float16), -1); }, s);
  // Views, cat and factories.
  check_gpu([](const Tensor& t) { return mul(transpose(t, 0, 1), 2.0); }, s);
  check_gpu([](const Tensor& t) { return add(slice(t, 1, 1, 33, 2), 1.0); }, s);
  check_gpu([](const Tensor& t) { return cat({t, neg(t)}, 1); }, s);
  check_gpu(
      [](const Tensor& t) { return mul(t, full(t.sym_sizes(), 1.5, DType::Float32, t.device())); },
      s);
  // Embedding and cross_entropy.
  const Tensor weight = wave({10, 6}, 1);
  const Tensor idx = Tensor::from_values({3, 0, 9, 3, 7, 1}, {2, 3}, DType::Int64);
  check_gpu([](const Tensor& wt, const Tensor& i) { return embedding(wt, i); }, weight, idx);
  const Tensor logits = wave({5, 10}, 2);
  const Tensor target = Tensor::from_values({1, 0, 9, 4, 4}, {5}, DType::Int64);
  check_gpu([](const Tensor& l, const Tensor& t) { return cross_entropy(l, t); }, logits, target);
  // A bad index raises eager's error.
  auto cf = compile([](const Tensor& wt, const Tensor& i) { return embedding(wt, i); });
  const Tensor bad = Tensor::from_values({3, 10}, {2}, DType::Int64);
  CHECK_THROWS_AS(cf(gpu(weight), gpu(bad)), UserError);
}

TEST_CASE("cuda codegen: a reduction over nothing (a 0-dim input) is stored, argmax's 0 included",
          "[inductor][cuda][gpu]") {
  REQUIRE_GPU();
  const Tensor a = Tensor::from_values({-1.61018324}, {});
  const Tensor b = Tensor::from_values({0.0381979384}, {});
  check_gpu([](const Tensor& x, const Tensor& y) { return sum(mul(x, y)); }, a, b);
  check_gpu([](const Tensor& x) { return add(amax(x, {}), to_dtype(argmax(x), DType::Float32)); },
            a);
}

TEST_CASE("cuda codegen: a training forward's bad index is reported once its backward is queued",
          "[inductor][cuda][gpu]") {
  REQUIRE_GPU();
  auto step = compile([](const Tensor& l, const Tensor& t) { return cross_entropy(l, t); });
  Tensor logits = gpu(wave({5, 10}, 2));
  logits.set_requires_grad(true);
  const Tensor bad = gpu(Tensor::from_values({1, 0, 10, 4, 4}, {5}, DType::Int64));
  // The forward returns without waiting for its kernels; its backward's run reads the check.
  const Tensor loss = step(logits, bad);
  CHECK_THROWS_AS(loss.backward(), UserError);
  // Later steps are unaffected: the flag was cleared.
  const Tensor good = gpu(Tensor::from_values({1, 0, 9, 4, 4}, {5}, DType::Int64));
  logits.set_grad(Tensor());
  step(logits, good).backward();
  REQUIRE(logits.grad().defined());
  Tensor want_logits = wave({5, 10}, 2);
  want_logits.set_requires_grad(true);
  cross_entropy(want_logits, Tensor::from_values({1, 0, 9, 4, 4}, {5}, DType::Int64)).backward();
  const std::vector<double> got = logits.grad().to(Device::cpu()).to_vector();
  const std::vector<double> want = want_logits.grad().to_vector();
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    CHECK(std::abs(got[i] - want[i]) <= 1e-5);
  }
}

TEST_CASE("cuda codegen: a training forward's bad index left unread is said on stderr when its "
          "thread ends",
          "[inductor][cuda][gpu]") {
  REQUIRE_GPU();
  auto step = compile([](const Tensor& l, const Tensor& t) { return cross_entropy(l, t); });
  Tensor logits = gpu(wave({5, 10}, 2));
  logits.set_requires_grad(true);
  const Tensor bad = gpu(Tensor::from_values({1, 0, 10, 4, 4}, {5}, DType::Int64));
  // The forward is the thread's last compiled run: no backward reads its check.
  const test_support::TempDir dir("torchscope-deferred-check");
  const std::filesystem::path err_path = dir.path() / "stderr.txt";
  std::fflush(stderr);
  const int saved = ::dup(2);
  REQUIRE(saved >= 0);
  const int file = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  REQUIRE(file >= 0);
  ::dup2(file, 2);
  std::thread([&] { (void)step(logits, bad); }).join();
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(saved);
  ::close(file);
  const std::string said = test_support::read_file(err_path);
  CHECK(said.find("index out of range") != std::string::npos);
  CHECK(said.find("no later compiled call reported it") != std::string::npos);
}

TEST_CASE("cuda codegen: max and average pooling and their backwards compile to PTX with NVRTC",
          "[inductor][cuda]") {
  REQUIRE_NVRTC();
  if (inductor::kernel_compiler("cpu") == nullptr) {
    TORCHSCOPE_SKIP("this build has no host code generator (LLVM) whose schedules to check");
  }
  const Tensor x = wave({2, 3, 9, 8}, 1);
  const std::string forward = checked_source(
      [](const Tensor& t) {
        return add(max_pool2d(relu(t), {3}, {2}, {1}, {1}, true),
                   avg_pool2d(t, {3}, {2}, {1}, true));
      },
      x);
  CHECK(!forward.empty());
  const std::string backward = checked_source(
      [](const Tensor& g, const Tensor& t) {
        return add(max_pool2d_backward(g, t, {3}, {2}, {1}, {1}, true),
                   avg_pool2d_backward(g, t, {3}, {2}, {1}, true, true));
      },
      wave({2, 3, 5, 5}, 2), x);
  CHECK(!backward.empty());
}

TEST_CASE(
    "cuda codegen: a convolution falls back to the host, and pooling and group norm around it "
    "are generated",
    "[inductor][cuda][gpu]") {
  REQUIRE_GPU();
  const Tensor x = wave({2, 3, 9, 8}, 1);
  const Tensor w = wave({4, 3, 3, 3}, 2, 0.3);
  auto f = [](const Tensor& t, const Tensor& k) {
    return group_norm(max_pool2d(relu(conv2d(t, k, Tensor(), {1}, {1})), {2}), 2);
  };
  auto cf = compile(f, {.backend = "inductor"});
  inductor::reset_counters();
  const Tensor got = cf(gpu(x), gpu(w));
  const inductor::Counters c = inductor::counters();
  CHECK(c.fallback_runs == 1); // the convolution, its operands copied to the host and back
  CHECK(c.kernel_launches > 0);
  CHECK_CLOSE(got.to(Device::cpu()), f(x, w));
}

TEST_CASE("cuda codegen: matmul, bmm and addmm through cuBLAS and the generated kernel",
          "[inductor][cuda][gpu]") {
  REQUIRE_GPU();
  const Tensor a = wave({33, 70}, 1);
  const Tensor b = wave({70, 45}, 2);
  const Tensor bias = wave({45}, 3);
  check_gpu([](const Tensor& p, const Tensor& q) { return matmul(p, q); }, a, b);
  check_gpu([](const Tensor& p, const Tensor& q) { return relu(matmul(p, q)); }, a, b);
  check_gpu([](const Tensor& p,
               const Tensor& q) { return matmul(transpose(q, 0, 1), transpose(p, 0, 1)); },
            a, b);
  check_gpu([](const Tensor& c, const Tensor& p, const Tensor& q) { return addmm(c, p, q); }, bias,
            a, b);
  const Tensor ba = wave({3, 17, 20}, 4);
  const Tensor bb = wave({3, 20, 9}, 5);
  check_gpu([](const Tensor& p, const Tensor& q) { return bmm(p, q); }, ba, bb);
  // Strides cuBLAS cannot take (every other column): the generated kernel.
  check_gpu([](const Tensor& p,
               const Tensor& q) { return matmul(slice(p, 1, 0, 70, 2), slice(q, 0, 0, 70, 2)); },
            a, b);
}

TEST_CASE("cuda codegen: the MLP sample's model and dynamic batches on the GPU",
          "[inductor][cuda][gpu]") {
  REQUIRE_GPU();
  const Tensor w1 = wave({128, 64}, 1, 0.1);
  const Tensor b1 = wave({128}, 2, 0.1);
  const Tensor w2 = wave({10, 128}, 3, 0.1);
  const Tensor b2 = wave({10}, 4, 0.1);
  auto mlp = [](const Tensor& x, const Tensor& l1, const Tensor& c1, const Tensor& l2,
                const Tensor& c2) {
    Tensor h = gelu(addmm(c1, x, transpose(l1, 0, 1)));
    h = layer_norm(h, {128});
    return softmax(addmm(c2, h, transpose(l2, 0, 1)), -1);
  };
  auto cf = compile(mlp);
  for (std::int64_t batch : {16, 32, 48}) {
    const Tensor x = wave({batch, 64}, static_cast<double>(batch));
    const Tensor want = mlp(x, w1, b1, w2, b2);
    CHECK_CLOSE(cf(gpu(x), gpu(w1), gpu(b1), gpu(w2), gpu(b2)).to(Device::cpu()), want);
  }
}

TEST_CASE("cuda codegen: reduce-overhead records after warm-up, replays, and re-records on new "
          "shapes, with the reason traced",
          "[inductor][cuda][gpu]") {
  REQUIRE_GPU();
  auto f = [](const Tensor& x, const Tensor& y) {
    Tensor s = softmax(add(x, y), -1);
    return mul(s, sum(x, {0}, true));
  };
  test_support::TempDir dir;
  REQUIRE(tracer::start({.directory = (dir.path() / "trace").string()}));
  auto cf = compile(f, {.dynamic = true, .mode = "reduce-overhead"});
  for (std::int64_t rows : {8, 8, 8, 16, 16, 16, 8}) {
    const Tensor x = wave({rows, 40}, static_cast<double>(rows));
    const Tensor y = wave({rows, 40}, 3);
    INFO("rows " << rows);
    CHECK_CLOSE(cf(gpu(x), gpu(y)).to(Device::cpu()), f(x, y));
  }
  const std::string path = tracer::log_path();
  tracer::stop();
  const std::string log = test_support::read_file(path);
  CHECK(cf.stats().compiles == 1); // one program, two recordings
  for (const char* field :
       {"\"name\": \"cudagraph_record\"", "warm-up done: the second call with these input shapes",
        "new input shapes: f32[16, 40]", "(recorded before: [f32[8, 40]", "\"recordings\": 2",
        "\"name\": \"cuda_kernel_info\"", "\"registers\": ", "\"static_shared_bytes\": "}) {
    INFO(field);
    CHECK(log.find(field) != std::string::npos);
  }
}

TEST_CASE("cuda codegen: max-autotune picks a configuration and matmul, caches them, traces the "
          "search, and gives eager's values",
          "[inductor][cuda][gpu]") {
  REQUIRE_GPU();
  auto f = [](const Tensor& a, const Tensor& b) { return softmax(relu(matmul(a, b)), -1); };
  const Tensor a = wave({64, 96}, 1);
  const Tensor b = wave({96, 80}, 2);
  test_support::TempDir dir;
  const std::string previous = inductor::config().cache_dir;
  inductor::config().cache_dir = (dir.path() / "cache").string();
  REQUIRE(tracer::start({.directory = (dir.path() / "trace").string()}));
  auto g = [](const Tensor& t) { return mul(sin(t), 2.0); }; // a pointwise kernel
  for (const char* mode : {"max-autotune", "max-autotune-no-cudagraphs"}) {
    INFO(mode);
    auto cf = compile(f, {.mode = mode});
    auto cg = compile(g, {.mode = mode});
    for (int call = 0; call < 3; ++call) {
      CHECK_CLOSE(cf(gpu(a), gpu(b)).to(Device::cpu()), f(a, b));
      CHECK_CLOSE(cg(gpu(a)).to(Device::cpu()), g(a));
    }
  }
  const std::string path = tracer::log_path();
  tracer::stop();
  inductor::config().cache_dir = previous;
  const std::string log = test_support::read_file(path);
  // The first search measures every candidate; the second compile finds the choices on disk.
  for (const char* field :
       {"\"name\": \"cuda_autotune\"", "\"kernel\": \"mm 64x96x80", "\"choice\": \"cublas\"",
        "\"choice\": \"generated\"", "\"time_us\": ", "\"from_cache\": false",
        "\"from_cache\": true", "\"choice\": \"block=256 unroll=4\"",
        "\"compilation_metrics_runtime\": {\"is_runtime\": true"}) {
    INFO(field);
    CHECK(log.find(field) != std::string::npos);
  }
}
