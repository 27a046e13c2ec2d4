// Devices without a GPU: Device parsing and printing, how ops decide their result's device
// (meta functions on fake CUDA tensors, mixed devices, factories and to()), the eager CPU-only
// rule, graph annotations, device guards and their failure texts, and that a machine (or
// build) without CUDA says why when a CUDA tensor is asked for. These run everywhere; the same
// behaviour on a real GPU is checked by cuda_runtime_test.cpp.
#include "compiler/capture/compile.h"
#include "compiler/capture/guards.h"
#include "compiler/core/errors.h"
#include "compiler/cuda/cuda.h"
#include "compiler/graph/graph.h"
#include "compiler/ops/ops.h"
#include "device_test_util.h"

#include <catch2/catch.hpp>
#include <string>

using namespace compiler;
using device_test::contains;
using device_test::user_error_of;

namespace {

Tensor fake_on(Device device, std::vector<SymInt> sizes = {SymInt(8), SymInt(128)}) {
  return Tensor::fake(std::move(sizes), DType::Float32, {}, 0, device);
}

Tensor meta(OpKind op, std::vector<Value> args) {
  return value_tensor(run_meta(op, args));
}

Value eager(OpKind op, std::vector<Value> args) {
  return run_eager(op, args);
}

} // namespace

TEST_CASE("devices parse and print as torch.device does", "[compiler][device]") {
  CHECK(Device("cpu").is_cpu());
  CHECK(Device("cpu").str() == "cpu");
  CHECK(Device("cpu").repr() == "device(type='cpu')");
  CHECK(Device("cuda").is_cuda());
  CHECK_FALSE(Device("cuda").has_index());
  CHECK(Device("cuda").str() == "cuda");
  CHECK(Device("cuda:1").index() == 1);
  CHECK(Device("cuda:1").str() == "cuda:1");
  CHECK(Device("cuda:0").repr() == "device(type='cuda', index=0)");
  CHECK(Device("cpu:0") == Device::cpu());
  CHECK(Device::cuda(2) == Device("cuda:2"));
  CHECK(Device::cuda(0) != Device::cpu());
  for (const char* bad :
       {"", "gpu", "cuda:", "cuda:-1", "cuda:x", "cuda:1x", "cpu:1", "CUDA", "cuda:99999999999"}) {
    INFO(bad);
    CHECK(contains(user_error_of([&] { (void)Device(bad); }), "invalid device string"));
  }
  CHECK(Tensor::empty({2}).device() == "cpu");
}

TEST_CASE(
    "the device cuda with no index resolves to the thread's current device, set by DeviceGuard",
    "[compiler][device]") {
  CHECK(cuda::current_device() == 0);
  CHECK(fake_on("cuda").device() == "cuda:0");
  {
    cuda::DeviceGuard guard(3);
    CHECK(cuda::current_device() == 3);
    CHECK(fake_on("cuda").device() == "cuda:3");
    CHECK(fake_on("cuda:1").device() == "cuda:1");
    {
      cuda::DeviceGuard inner(Device("cuda:5"));
      CHECK(cuda::current_device() == 5);
    }
    CHECK(cuda::current_device() == 3);
  }
  CHECK(cuda::current_device() == 0);
  CHECK(contains(user_error_of([] { cuda::DeviceGuard g(-1); }), "invalid CUDA device index"));
}

TEST_CASE("meta functions keep the device their inputs share", "[compiler][device]") {
  const Tensor x = fake_on("cuda:0");
  const Tensor row = fake_on("cuda:0", {SymInt(128)});
  CHECK(meta(OpKind::add, {x, row}).device() == "cuda:0");
  CHECK(meta(OpKind::sin, {x}).device() == "cuda:0");
  CHECK(meta(OpKind::sum, {x, std::vector<std::int64_t>{1}, false}).device() == "cuda:0");
  CHECK(meta(OpKind::softmax, {x, SymInt(-1)}).device() == "cuda:0");
  CHECK(meta(OpKind::matmul, {x, fake_on("cuda:0", {SymInt(128), SymInt(4)})}).device() ==
        "cuda:0");
  CHECK(meta(OpKind::transpose, {x, SymInt(0), SymInt(1)}).device() == "cuda:0");
  CHECK(meta(OpKind::cat, {std::vector<Tensor>{x, x}, SymInt(0)}).device() == "cuda:0");
  CHECK(meta(OpKind::add, {fake_on("cpu"), fake_on("cpu")}).device() == "cpu");
}

TEST_CASE("tensors on two devices in one op are a UserError naming both", "[compiler][device]") {
  const std::string message = user_error_of([] {
    (void)meta(OpKind::add, {fake_on("cuda:0"), fake_on("cpu")});
  });
  CHECK(contains(message, "aten.add: expected all tensors to be on the same device"));
  CHECK(contains(message, "cuda:0 and cpu"));
  CHECK(contains(user_error_of([] {
                   (void)meta(
                       OpKind::cat,
                       {std::vector<Tensor>{fake_on("cuda:0"), fake_on("cuda:1")}, SymInt(0)});
                 }),
                 "cuda:0 and cuda:1"));
}

TEST_CASE("to() and factories with a device give tensors on that device", "[compiler][device]") {
  const Tensor x = fake_on("cpu");
  const Tensor on_gpu = meta(OpKind::to, {x, Device::cuda(0)});
  CHECK(on_gpu.device() == "cuda:0");
  CHECK(on_gpu.is_fake());
  CHECK(on_gpu.strides() == std::vector<std::int64_t>{128, 1});
  const Tensor back = meta(OpKind::to, {on_gpu, Device::cpu()});
  CHECK(back.device() == "cpu");
  const Tensor same = meta(OpKind::to, {on_gpu, Device::cuda(0)});
  CHECK(same.device() == "cuda:0");
  const std::vector<SymInt> sizes = {SymInt(4), SymInt(2)};
  CHECK(meta(OpKind::zeros, {sizes, DType::Float16, Device::cuda(1)}).device() == "cuda:1");
  CHECK(meta(OpKind::full, {sizes, 2.0, DType::Float32, Device::cuda(0)}).device() == "cuda:0");
  CHECK(meta(OpKind::randn, {sizes, SymInt(3), DType::Float32, Device::cuda(0)}).device() ==
        "cuda:0");
  CHECK(meta(OpKind::arange, {SymInt(5), DType::Int64, Device::cuda(0)}).device() == "cuda:0");
  CHECK(meta(OpKind::arange, {0.0, 1.0, 0.25, DType::Float32, Device::cuda(0)}).sizes() ==
        std::vector<std::int64_t>{4});
  CHECK(meta(OpKind::ones, {sizes, DType::Int32}).device() == "cpu");
}

TEST_CASE("eager kernels refuse GPU tensors with the op and the fix", "[compiler][device]") {
  const std::string message = user_error_of([] {
    (void)eager(OpKind::mul, {fake_on("cuda:0"), 2.0});
  });
  CHECK(contains(message, "aten.mul: eager kernels run on the CPU only"));
  CHECK(contains(message, "on cuda:0"));
  CHECK(contains(message, "compiler::compile"));
  CHECK(contains(message, ".to(\"cpu\")"));
}

TEST_CASE("a host to() is the tensor itself, and a host factory reads as before",
          "[compiler][device]") {
  const Tensor x = Tensor::from_values({1, 2, 3}, {3});
  CHECK(x.to("cpu").is_same(x));
  CHECK(to(x, Device::cpu()).is_same(x));
  const Tensor z = zeros({SymInt(2)}, DType::Float32, "cpu");
  CHECK(z.device() == "cpu");
  CHECK(z.to_vector() == std::vector<double>{0, 0});
  CHECK(full({SymInt(2)}, 1.5, DType::Float32, "cpu").to_vector() == std::vector<double>{1.5, 1.5});
  CHECK(arange(SymInt(3), DType::Int64, "cpu").to_vector() == std::vector<double>{0, 1, 2});
}

TEST_CASE("graph annotations print the device as PyTorch's do", "[compiler][device]") {
  graph::TensorMeta m;
  m.is_tensor = true;
  m.sizes = {SymInt(8), SymInt(128)};
  m.strides = {128, 1};
  CHECK(graph::meta_annotation(m) == "f32[8, 128][128, 1]cpu");
  m.device = Device::cuda(0);
  CHECK(graph::meta_annotation(m) == "f32[8, 128][128, 1]cuda:0");
  CHECK(value_to_string(Value(Device::cuda(1))) == "device(type='cuda', index=1)");
  CHECK(value_kind_name(Value(Device::cpu())) == "device");
}

TEST_CASE("TENSOR_MATCH guards the device with PyTorch's failure texts", "[compiler][device]") {
  TensorImpl traced;
  traced.dtype = DType::Float32;
  traced.sizes = {8, 128};
  traced.strides = {128, 1};
  traced.device = Device::cuda(0);
  capture::GuardSet guards;
  guards.add_tensor_input(0, "x", traced, {}, {});

  TensorImpl same = traced;
  TensorImpl on_host = traced;
  on_host.device = Device::cpu();
  TensorImpl other_gpu = traced;
  other_gpu.device = Device::cuda(1);
  TensorImpl other_gpu_and_dtype = other_gpu;
  other_gpu_and_dtype.dtype = DType::Float16;
  auto input = [](const TensorImpl& t) {
    capture::GuardInput g;
    g.kind = capture::GuardInput::Kind::Tensor;
    g.tensor = &t;
    return g;
  };
  const capture::GuardInput pass[] = {input(same)};
  CHECK(guards.check(pass));
  const capture::GuardInput host[] = {input(on_host)};
  CHECK_FALSE(guards.check(host));
  CHECK(guards.failure_reason(host).value() ==
        "tensor 'x' dispatch key set mismatch. expected DispatchKeySet(CUDA, BackendSelect, "
        "ADInplaceOrView, AutogradCUDA), actual DispatchKeySet(CPU, BackendSelect, "
        "ADInplaceOrView, AutogradCPU)");
  const capture::GuardInput gpu1[] = {input(other_gpu)};
  CHECK_FALSE(guards.check(gpu1));
  CHECK(guards.failure_reason(gpu1).value() ==
        "tensor 'x' Tensor device index mismatch. Expected device index to be 0, actual 1");
  // The dtype is compared before the device index, as PyTorch does.
  const capture::GuardInput both[] = {input(other_gpu_and_dtype)};
  CHECK(guards.failure_reason(both).value() ==
        "tensor 'x' dtype mismatch. expected Float, actual Half");
  const std::string tree = guards.to_tree_string();
  CHECK(contains(tree, "TENSOR_MATCH: check_tensor(L['x'], Tensor, DispatchKeySet(CUDA, "
                       "BackendSelect, ADInplaceOrView, AutogradCUDA), torch.float32, device=0, "
                       "requires_grad=False, size=[8, 128], stride=[128, 1])"));
}

TEST_CASE("a capture that moves data to the GPU records cuda:0 in its graph",
          "[compiler][device]") {
  auto f = [](const Tensor& x) { return relu(add(x.to("cuda"), 1.0)); };
  auto cf = compile(f, {.name = "f", .arg_names = {"x"}});
  const Tensor x = Tensor::from_values({-1, 2, -3, 4}, {2, 2});
  if (cuda::is_available()) {
    // Traced and compiled; running the graph needs the GPU code generator, which the
    // interpreter is not: its eager kernels refuse GPU tensors (checked in the GPU tests).
    CHECK_THROWS_AS(cf(x), UserError);
  } else {
    const std::string message = user_error_of([&] { (void)cf(x); });
    CHECK(contains(message, cuda::unavailable_reason()));
  }
  REQUIRE_FALSE(cf.records().empty());
  const std::string& g = cf.records()[0].graph;
  CHECK(contains(g, "L_x_: \"f32[2, 2][2, 1]cpu\""));
  CHECK(contains(g, "to: \"f32[2, 2][2, 1]cuda:0\" = torch.ops.aten.to(l_x_, "
                    "device(type='cuda', index=0))"));
  CHECK(contains(g, "relu: \"f32[2, 2][2, 1]cuda:0\""));
}

TEST_CASE("without a usable GPU, asking for a CUDA tensor says why", "[compiler][device]") {
  if (cuda::is_available()) {
    WARN("SKIPPED: this machine has a GPU (" << cuda::device_count() << " device(s))");
    return;
  }
  const std::string reason = cuda::unavailable_reason();
  CHECK_FALSE(reason.empty());
  CHECK(cuda::device_count() == 0);
  const std::string message =
      user_error_of([] { (void)Tensor::empty({4}, DType::Float32, "cuda"); });
  CHECK(contains(message, reason));
  CHECK(
      contains(user_error_of([] { (void)zeros({SymInt(2)}, DType::Float32, "cuda:0"); }), reason));
  CHECK(contains(user_error_of([] { (void)Tensor::from_values({1}, {1}).to("cuda"); }), reason));
  CHECK(cuda::memory_stats().allocations == 0);
  cuda::synchronize(); // a no-op, not an error
  cuda::empty_cache();
#if !TORCHSCOPE_HAS_CUDA
  CHECK(contains(reason, "-DTORCHSCOPE_WITH_CUDA=OFF"));
#endif
}
