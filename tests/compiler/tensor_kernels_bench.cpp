// bench_tensor_kernels: throughput of the eager reference kernels (elementwise with and
// without broadcasting, a reduction, softmax, matmul, a 3x3 conv2d forward and backward), so
// claims about their speed come with numbers. Prints one line per scenario: the best of several
// runs. `bench_tensor_kernels conv2d` runs the conv2d lines only; scripts/bench-conv2d.sh runs
// them beside PyTorch 1.13 eager on the same shape and prints the ratio.
#include "compiler/autograd/autograd.h"
#include "compiler/ops/ops.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string_view>

using namespace compiler;

namespace {

// Best wall time of `reps` runs of fn, in seconds.
double best_seconds(int reps, const std::function<void()>& fn) {
  double best = 1e30;
  for (int i = 0; i < reps; ++i) {
    const auto start = std::chrono::steady_clock::now();
    fn();
    const auto end = std::chrono::steady_clock::now();
    best = std::min(best, std::chrono::duration<double>(end - start).count());
  }
  return best;
}

void report_bandwidth(const char* name, double seconds, double bytes) {
  std::printf("%-44s %9.3f ms  %7.2f GB/s\n", name, seconds * 1e3, bytes / seconds / 1e9);
}

// conv2d 3x3, padding 1, batch 32, 64 -> 64 channels, 56x56 (a ResNet stage): forward, and
// forward + backward of sum(y) into the input, weight and bias.
void bench_conv2d() {
  const Tensor x = randn({32, 64, 56, 56}, 11);
  const Tensor w = mul(randn({64, 64, 3, 3}, 12), 0.05);
  const Tensor b = randn({64}, 13);
  const double flops = 2.0 * 32 * 64 * 56 * 56 * 64 * 9;
  const double forward = best_seconds(3, [&] { (void)conv2d(x, w, b, {1}, {1}); });
  std::printf("%-44s %9.3f ms  %7.2f GFLOP/s\n", "conv2d 3x3 [32,64,56,56] forward", forward * 1e3,
              flops / forward / 1e9);
  Tensor xg = x.detach();
  Tensor wg = w.detach();
  Tensor bg = b.detach();
  xg.set_requires_grad(true);
  wg.set_requires_grad(true);
  bg.set_requires_grad(true);
  const double both = best_seconds(3, [&] { sum(conv2d(xg, wg, bg, {1}, {1})).backward(); });
  std::printf("%-44s %9.3f ms  %7.2f GFLOP/s\n", "conv2d 3x3 [32,64,56,56] forward+backward",
              both * 1e3, 3 * flops / both / 1e9);
}

} // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string_view(argv[1]) == "conv2d") {
    bench_conv2d();
    return 0;
  }
  const std::int64_t n = 1 << 22; // 4M elements, 16 MiB per f32 tensor
  const Tensor a = randn({n}, 1);
  const Tensor b = randn({n}, 2);
  const double f32_bytes = 4.0 * static_cast<double>(n);

  report_bandwidth("add f32 [4M] + [4M]", best_seconds(5, [&] { (void)add(a, b); }), 3 * f32_bytes);
  report_bandwidth("mul f32 [4M] * scalar", best_seconds(5, [&] { (void)mul(a, 2.0); }),
                   2 * f32_bytes);
  report_bandwidth("exp f32 [4M]", best_seconds(5, [&] { (void)exp(a); }), 2 * f32_bytes);
  const Tensor m = a.view({2048, 2048});
  const Tensor row = randn({2048}, 3);
  report_bandwidth("add f32 [2048,2048] + [2048] (broadcast)",
                   best_seconds(5, [&] { (void)add(m, row); }), 2 * f32_bytes);
  report_bandwidth("add f32 transposed [2048,2048] + [2048,2048]",
                   best_seconds(3, [&] { (void)add(m.transpose(0, 1), m); }), 3 * f32_bytes);
  const Tensor h = to_dtype(a, DType::Float16);
  report_bandwidth("add f16 [4M] + [4M]", best_seconds(3, [&] { (void)add(h, h); }),
                   3 * 2.0 * static_cast<double>(n));
  report_bandwidth("sum f32 [2048,2048] over dim 1", best_seconds(5, [&] { (void)sum(m, {1}); }),
                   f32_bytes);
  report_bandwidth("softmax f32 [2048,2048] dim -1", best_seconds(3, [&] { (void)softmax(m, -1); }),
                   2 * f32_bytes);

  for (std::int64_t size : {128, 256, 512}) {
    const Tensor x = randn({size, size}, 4);
    const Tensor y = randn({size, size}, 5);
    const double seconds = best_seconds(3, [&] { (void)matmul(x, y); });
    const double flops = 2.0 * static_cast<double>(size * size * size);
    char name[128];
    std::snprintf(name, sizeof name, "matmul f32 [%lld,%lld] @ [%lld,%lld]",
                  static_cast<long long>(size), static_cast<long long>(size),
                  static_cast<long long>(size), static_cast<long long>(size));
    std::printf("%-44s %9.3f ms  %7.2f GFLOP/s\n", name, seconds * 1e3, flops / seconds / 1e9);
  }
  bench_conv2d();
  return 0;
}
