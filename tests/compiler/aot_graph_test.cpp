// The AOT stage's graphs: traced joint and inference graphs hold only primitive ops (composites
// decomposed, forward and backward), the partitioned forward and backward graphs too, the joint
// passes merge the recomputation a derivative formula shares with its decomposition, and the
// printouts read like PyTorch's.
#include "aot_graph_builder.h"
#include "compiler/aot/aot.h"
#include "compiler/autograd/grad_mode.h"
#include "compiler/graph/aot_graph_printer.h"
#include "passes/pass_pipeline.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

using namespace compiler;
using aot_test::Builder;
using Ints = std::vector<std::int64_t>;

namespace {

graph::Graph block_graph(bool requires_grad) {
  Builder b;
  const auto x = b.input({4, 8}, requires_grad);
  const auto w = b.input({8, 8}, requires_grad);
  const auto lw = b.input({8}, requires_grad);
  auto h = b.call(OpKind::matmul, {x, w});
  h = b.call(OpKind::gelu, {h, Value(std::string("tanh"))});
  h = b.call(OpKind::layer_norm, {h, Value(Ints{8}), lw, Value(std::monostate{}), Value(1e-5)});
  h = b.call(OpKind::softmax, {h, Value(SymInt(-1))});
  h = b.call(OpKind::transpose, {h, Value(SymInt(0)), Value(SymInt(1))});
  b.output({b.call(OpKind::mean, {h, Value(Ints{}), Value(false)})});
  return b.g;
}

void check_prims_only(const graph::Graph& g) {
  std::size_t calls = 0;
  for (const graph::Node& n : g.nodes()) {
    if (n.kind == graph::NodeKind::CallOp) {
      INFO(n.name << " = " << op_aten_name(n.op));
      CHECK(is_prim(n.op));
      ++calls;
    }
  }
  CHECK(calls > 0);
}

} // namespace

TEST_CASE("joint, forward, backward and inference graphs hold only primitive ops",
          "[compiler][aot]") {
  autograd::GradModeGuard grad(true);
  aot::TracedGraph joint = aot::trace_joint(block_graph(true));
  REQUIRE(joint.is_joint);
  check_prims_only(joint.graph);
  passes::run_joint_graph_passes(joint.graph);
  const aot::Partition p = aot::min_cut_partition(joint);
  check_prims_only(p.forward);
  check_prims_only(p.backward);
  const aot::TracedGraph inference = aot::trace_inference(block_graph(false));
  CHECK_FALSE(inference.is_joint);
  check_prims_only(inference.graph);
  // Without decomposition the composites stay (the test of the flag itself).
  const aot::TracedGraph aten = aot::trace_inference(block_graph(false), {.decompose = false});
  bool composite = false;
  for (const graph::Node& n : aten.graph.nodes()) {
    composite = composite || (n.kind == graph::NodeKind::CallOp && !is_prim(n.op));
  }
  CHECK(composite);
}

TEST_CASE("joint passes merge the statistics layer_norm's derivative recomputes",
          "[compiler][aot]") {
  autograd::GradModeGuard grad(true);
  aot::TracedGraph joint = aot::trace_joint(block_graph(true));
  auto count = [](const graph::Graph& g, OpKind op) {
    std::size_t n = 0;
    for (const graph::Node& node : g.nodes()) {
      n += node.kind == graph::NodeKind::CallOp && node.op == op ? 1 : 0;
    }
    return n;
  };
  const std::size_t rsqrt_before = count(joint.graph, OpKind::rsqrt);
  const passes::PipelineResult r = passes::run_joint_graph_passes(joint.graph);
  CHECK(std::find(r.changed.begin(), r.changed.end(), "cse") != r.changed.end());
  CHECK(rsqrt_before == 2); // the forward's and the derivative's
  CHECK(count(joint.graph, OpKind::rsqrt) == 1);
}

TEST_CASE("AOT printouts use PyTorch's overload names and free values after their last use",
          "[compiler][aot]") {
  autograd::GradModeGuard grad(true);
  const aot::TracedGraph inference = aot::trace_inference(block_graph(false));
  graph::AotPrintOptions o;
  o.read_source_lines = false;
  o.class_name = "<lambda>";
  o.input_descriptors = {"PlainAOTInput(idx=0)", "PlainAOTInput(idx=1)", "PlainAOTInput(idx=2)"};
  const std::string text = graph::print_aot_graph(inference.graph, o);
  INFO(text);
  CHECK(text.find("class <lambda>(torch.nn.Module):\n    def forward(\n        self,\n") == 0);
  CHECK(text.find("arg0_1: \"f32[4, 8][8, 1]cpu\",  # PlainAOTInput(idx=0)") != std::string::npos);
  CHECK(text.find("torch.ops.aten.mm.default(arg0_1, arg1_1);  arg0_1 = arg1_1 = None") !=
        std::string::npos);
  CHECK(text.find("torch.ops.aten.mul.Tensor(") != std::string::npos);
  CHECK(text.find("torch.ops.aten.sum.dim_IntList(") != std::string::npos);
  CHECK(text.find("torch.ops.aten.amax.default(") != std::string::npos);
  CHECK(text.find("0.044715") != std::string::npos); // floats print as Python's repr
  CHECK(graph::python_float_repr(1.0) == "1.0");
  CHECK(graph::python_float_repr(0.7071067811865476) == "0.7071067811865476");
}

TEST_CASE("a device transfer's gradient goes back to the device its input came from",
          "[compiler][aot]") {
  // Traced on fake tensors, so no GPU is needed: x moves to cuda:0, relu runs there, the result
  // comes back. The backward copies the host tangent to the GPU and the gradient back.
  autograd::GradModeGuard grad(true);
  Builder b;
  const auto x = b.input({4, 8}, true);
  const auto on_gpu = b.call(OpKind::to, {x, Value(Device::cuda(0))});
  const auto r = b.call(OpKind::relu, {on_gpu});
  b.output({b.call(OpKind::to, {r, Value(Device::cpu())})});
  aot::TracedGraph joint = aot::trace_joint(b.g);
  REQUIRE(joint.is_joint);
  std::size_t transfers = 0;
  for (const graph::Node& n : joint.graph.nodes()) {
    if (n.kind != graph::NodeKind::CallOp) {
      continue;
    }
    INFO(n.name << " = " << op_aten_name(n.op));
    for (const graph::Arg& a : n.args) {
      if (a.kind == graph::Arg::Kind::Node && n.op != OpKind::to) {
        // Every other op reads values on its own device (no implicit host/GPU mixing).
        CHECK(joint.graph.node(a.node).meta.device == n.meta.device);
      }
    }
    transfers += n.op == OpKind::to ? 1 : 0;
  }
  CHECK(transfers == 4); // two forward, two backward
  const graph::Node& out = joint.graph.nodes().back();
  REQUIRE(out.args.size() == 2); // the forward output, then x's gradient
  CHECK(joint.graph.node(out.args[0].node).meta.device == Device::cpu());
  CHECK(joint.graph.node(out.args[1].node).meta.device == Device::cpu());
  graph::AotPrintOptions o;
  o.read_source_lines = false;
  const std::string text = graph::print_aot_graph(joint.graph, o);
  INFO(text);
  CHECK(text.find("_to_copy: \"f32[4, 8][8, 1]cuda:0\" = torch.ops.aten._to_copy.default("
                  "primals_1, device = device(type='cuda', index=0))") != std::string::npos);
  passes::run_joint_graph_passes(joint.graph);
  const aot::Partition p = aot::min_cut_partition(joint);
  CHECK(p.forward.nodes().back().args.size() >= 1);
  CHECK(p.backward.nodes().back().args.size() == 1);
}

TEST_CASE("AOT printouts name the pointwise-more prims with PyTorch's overloads",
          "[compiler][aot]") {
  Builder b;
  const auto x = b.input({4, 8}, false);
  const auto i = b.call(OpKind::to_dtype, {x, Value(DType::Int64)});
  const auto bits = b.call(OpKind::bitwise_xor, {b.call(OpKind::bitwise_and, {i, i}), i});
  const auto mask = b.call(OpKind::logical_not, {b.call(OpKind::isnan, {x})});
  const auto y = b.call(OpKind::minimum, {b.call(OpKind::round, {x}), x});
  b.output(
      {b.call(OpKind::where, {mask, y, b.call(OpKind::to_dtype, {bits, Value(DType::Float32)})})});
  const aot::TracedGraph inference = aot::trace_inference(b.g);
  graph::AotPrintOptions o;
  o.read_source_lines = false;
  const std::string text = graph::print_aot_graph(inference.graph, o);
  INFO(text);
  CHECK(text.find("torch.ops.aten.bitwise_and.Tensor(") != std::string::npos);
  CHECK(text.find("torch.ops.aten.bitwise_xor.Tensor(") != std::string::npos);
  CHECK(text.find("torch.ops.aten.isnan.default(") != std::string::npos);
  CHECK(text.find("torch.ops.aten.logical_not.default(") != std::string::npos);
  CHECK(text.find("torch.ops.aten.round.default(") != std::string::npos);
  CHECK(text.find("torch.ops.aten.minimum.default(") != std::string::npos);
}
