// sample_tracer_demo: what a compiler built on tracer/ writes, without the compiler.
//
// It plays the log of a small compile session the way Dynamo + Inductor would write it: frame 0
// compiles, recompiles when the batch size changes (with recompile reasons, a dynamic symbol and
// its guards) and breaks its graph at a data-dependent branch, which starts frame 1 (the resume
// frame). Each compile carries its graph, guards, generated code, metrics and chromium timings.
//
//   TORCH_TRACE=/tmp/trace ./sample_tracer_demo && tlparse /tmp/trace
#include "tracer/trace.h"

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace {

constexpr const char* kUserFile = "samples/user_model.py";

struct CompileSpec {
  int frame;
  int compile;
  int attempt_with_break; // -1: no graph break; otherwise the restart's attempt number
  std::string batch;      // "8" or "s0" (dynamic)
  std::string recompile_reason;
};

std::string graph_text(const std::string& b) {
  return "class GraphModule(torch.nn.Module):\n"
         "    def forward(self, L_x_: \"f32[" +
         b +
         ", 128][128, 1]cpu\", L_w_: \"f32[128, 64][64, 1]cpu\"):\n"
         "        l_x_ = L_x_\n"
         "        l_w_ = L_w_\n"
         "        # File: samples/user_model.py:12 in forward, code: y = x @ w\n"
         "        y: \"f32[" +
         b +
         ", 64][64, 1]cpu\" = l_x_ @ l_w_;  l_x_ = l_w_ = None\n"
         "        # File: samples/user_model.py:13 in forward, code: z = torch.relu(y) + 1\n"
         "        relu: \"f32[" +
         b +
         ", 64][64, 1]cpu\" = torch.relu(y);  y = None\n"
         "        z: \"f32[" +
         b +
         ", 64][64, 1]cpu\" = relu + 1;  relu = None\n"
         "        return (z,)";
}

std::string guards_text(const std::string& b) {
  std::string size_guard = b == "s0" ? "2 <= L['x'].size()[0]" : "L['x'].size()[0] == " + b;
  return "TREE_GUARD_MANAGER:\n"
         "+- RootGuardManager\n"
         "| +- LAMBDA_GUARD: torch._functorch.aot_autograd.utils.top_saved_tensors_hooks ids == "
         "None\n"
         "| +- GuardManager: source=L['x'], accessed_by=FrameLocalsGuardAccessor(key='x', "
         "framelocals_idx=0)\n"
         "| | +- TENSOR_MATCH: check_tensor(L['x'], Tensor, DispatchKeySet(CPU), torch.float32, "
         "device=None, requires_grad=False, size=[" +
         (b == "s0" ? std::string("None") : b) +
         ", 128], stride=[128, 1])\n"
         "| | +- NO_HASATTR: hasattr(L['x'], '_dynamo_dynamic_indices') == False\n"
         "| +- GuardManager: source=L['w'], accessed_by=FrameLocalsGuardAccessor(key='w', "
         "framelocals_idx=1)\n"
         "| | +- TENSOR_MATCH: check_tensor(L['w'], Tensor, DispatchKeySet(CPU), torch.float32, "
         "device=None, requires_grad=False, size=[128, 64], stride=[64, 1])\n"
         "+- LAMBDA_GUARD: " +
         size_guard;
}

std::string kernel_text(const std::string& b) {
  return "// Generated kernel for graph with batch " + b +
         "\n"
         "#include <cmath>\n"
         "extern \"C\" void kernel_relu_add_0(const float* in_ptr0, float* out_ptr0, long ks0) {\n"
         "    for (long x0 = 0; x0 < 64 * ks0; x0 += 1) {\n"
         "        auto tmp0 = in_ptr0[x0];\n"
         "        auto tmp1 = tmp0 > 0.0f ? tmp0 : 0.0f;\n"
         "        out_ptr0[x0] = tmp1 + 1.0f;\n"
         "    }\n"
         "}\n";
}

void user_stack(tracer::JsonWriter& w, int line) {
  const tracer::StackFrame frames[] = {
      {kUserFile, 30, "<module>", "out = compiled(model, x)"},
      {kUserFile, line, "forward", line == 12 ? "y = x @ w" : "if z.sum() > 0:"}};
  tracer::write_stack(w, frames);
}

void compile_one(const CompileSpec& spec) {
  tracer::CompileScope scope(
      {.frame_id = spec.frame, .frame_compile_id = spec.compile, .attempt = 0});
  tracer::ChromiumSpan dynamo("dynamo");
  const double start = tracer::now_us() / 1e6;
  if (!spec.recompile_reason.empty()) {
    tracer::artifact("recompile_reasons", tracer::Encoding::Json,
                     [&](std::string& out) { out += spec.recompile_reason; });
  }
  tracer::event("dynamo_start", [&](tracer::JsonWriter& w) {
    w.key("stack");
    user_stack(w, spec.frame == 0 ? 12 : 14);
  });
  {
    tracer::ChromiumSpan tracing("bytecode_tracing");
    tracer::event("describe_storage", [](tracer::JsonWriter& w) {
      w.member("id", 0).member("describer_id", 0).member("size", 4096);
    });
    tracer::event("describe_tensor", [&](tracer::JsonWriter& w) {
      w.member("id", 0)
          .member("ndim", 2)
          .member("dtype", "torch.float32")
          .member("device", "device(type='cpu')");
      w.key("size").begin_array().value(spec.batch == "s0" ? 16 : 8).value(128).end_array();
      w.member("is_leaf", true);
      w.key("stride").begin_array().value(128).value(1).end_array();
      w.member("storage", 0).member("describer_id", 0);
    });
    tracer::event("describe_source", [](tracer::JsonWriter& w) {
      w.member("describer_id", 0).member("id", 0).member("source", "L['x']");
    });
    if (spec.batch == "s0") {
      tracer::event("create_symbol", [&](tracer::JsonWriter& w) {
        w.member("symbol", "s0")
            .member("val", "16")
            .member("vr", "[2, int_oo]")
            .member("source", "L['x'].size()[0]");
        w.key("user_stack");
        user_stack(w, 12);
        w.key("stack").begin_array().end_array();
      });
      tracer::event("guard_added_fast", [&](tracer::JsonWriter& w) {
        w.member("expr", "128*s0 <= 2147483647");
        w.key("user_stack").begin_array().end_array();
        w.key("stack").begin_array().end_array();
      });
    }
    tracing.add_end_arg("get_fake_value_time_s", 0.0012);
  }
  // A graph break restarts the analysis: what follows belongs to the next attempt, as in
  // PyTorch, where the restarted compile logs its graph and metrics as [f/c_1].
  std::optional<tracer::CompileScope> restarted;
  if (spec.attempt_with_break >= 0) {
    tracer::artifact("dynamo_graph_break_reason", tracer::Encoding::String, [](std::string& out) {
      out += "Data-dependent branching\n  Explanation: the branch depends on a tensor's value\n"
             "  User code: samples/user_model.py:14 in forward\n    if z.sum() > 0:";
    });
    restarted.emplace(tracer::CompileId{.frame_id = spec.frame,
                                        .frame_compile_id = spec.compile,
                                        .attempt = spec.attempt_with_break + 1});
  }
  tracer::event_with_payload(
      "dynamo_output_graph",
      [&](tracer::JsonWriter& w) {
        w.key("sizes").begin_object();
        w.key("l_x_")
            .begin_array()
            .value(spec.batch == "s0" ? std::string("s0") : spec.batch)
            .value(128)
            .end_array();
        w.end_object();
      },
      [&](std::string& out) { out += graph_text(spec.batch); });
  {
    tracer::ChromiumSpan backend("backend_compile");
    tracer::artifact("before_post_grad_graph", tracer::Encoding::String,
                     [&](std::string& out) { out += graph_text(spec.batch); });
    tracer::event_with_payload("inductor_post_grad_graph", tracer::no_metadata,
                               [&](std::string& out) { out += graph_text(spec.batch); });
    tracer::artifact("fx_graph_cache_miss", tracer::Encoding::Json, [&](tracer::JsonWriter& w) {
      w.begin_object()
          .member("key", "f" + std::to_string(spec.frame * 10 + spec.compile))
          .member("cache_state", "miss")
          .end_object();
    });
    tracer::event_with_payload(
        "inductor_output_code",
        [&](tracer::JsonWriter& w) {
          w.member("filename",
                   "/tmp/torchscope_cache/kernel_" + std::to_string(spec.compile) + ".cpp");
        },
        [&](std::string& out) { out += kernel_text(spec.batch); });
  }
  tracer::event_with_payload("dynamo_cpp_guards_str", tracer::no_metadata,
                             [&](std::string& out) { out += guards_text(spec.batch); });
  tracer::event("compilation_metrics", [&](tracer::JsonWriter& w) {
    w.member("compile_id",
             tracer::CompileId{.frame_id = spec.frame, .frame_compile_id = spec.compile}
                 .compile_id_text())
        .member("co_name", "forward")
        .member("co_filename", kUserFile)
        .member("co_firstlineno", 11)
        .member("cache_size", spec.compile)
        .member("accumulated_cache_size", spec.compile)
        .member("guard_count", 7)
        .member("shape_env_guard_count", spec.batch == "s0" ? 1 : 0)
        .member("graph_op_count", 3)
        .member("graph_node_count", 6)
        .member("graph_input_count", 2)
        .member("start_time", start)
        .member("entire_frame_compile_time_s", 0.0421)
        .member("backend_compile_time_s", 0.0307)
        .member("inductor_compile_time_s", 0.0251)
        .member("code_gen_time_s", 0.0113);
    w.key("fail_type").null().key("fail_reason").null();
    w.key("restart_reasons").begin_array();
    if (spec.attempt_with_break >= 0) {
      w.value("Graph break: data-dependent branching at samples/user_model.py:14");
    }
    w.end_array();
    w.member("dynamo_time_before_restart_s", spec.attempt_with_break >= 0 ? 0.004 : 0.0);
  });
}

} // namespace

int main() {
  if (!tracer::enabled()) {
    std::fprintf(stderr, "sample_tracer_demo: set TORCH_TRACE=<folder> to write a trace\n");
  }
  const std::vector<CompileSpec> session = {
      {0, 0, 0, "8", ""},
      {1, 0, -1, "8", ""},
      {0, 1, -1, "s0", "0/0: tensor 'x' size mismatch at index 0. expected 8, actual 16"},
      {1, 1, -1, "s0", "1/0: tensor 'x' size mismatch at index 0. expected 8, actual 16"},
  };
  for (const CompileSpec& spec : session) {
    compile_one(spec);
  }
  // A runtime event outside any compile: it carries a `stack` instead of a compile id.
  tracer::chromium_event("CachingAutotuner.benchmark_all_configs", "i");
  tracer::artifact("torchscope_demo_summary", tracer::Encoding::Json, [&](tracer::JsonWriter& w) {
    w.begin_object().member("frames", 2).member("compiles", session.size()).end_object();
  });
  const std::string path = tracer::log_path();
  std::printf("%s\n", path.empty() ? "(tracing off)" : path.c_str());
  return 0;
}
