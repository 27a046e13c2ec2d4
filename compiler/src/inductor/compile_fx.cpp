// Inductor's config and modes, its pre-grad passes (inductor/inductor.h), and the steps of
// compile_fx_inner (inductor/compile_fx.h): post-grad passes, lowering, scheduling, code
// generation through the on-disk cache, and the trace artifacts of each step.
#include "inductor/compile_fx.h"

#include "backend/kept_values.h"
#include "compiler/core/errors.h"
#include "compiler/cuda/cuda.h"
#include "compiler/graph/graph_printer.h"
#include "compiler/graph/graph_rewrite.h"
#include "compiler/inductor/inductor.h"
#include "compiler/inductor/metrics.h"
#include "inductor/cache/fx_graph_cache.h"
#include "inductor/codegen/fx_graph_runnable.h"
#include "inductor/codegen/kernel_compiler.h"
#include "inductor/codegen/output_code.h"
#include "inductor/counters.h"
#include "inductor/ir/loop_ir.h"
#include "inductor/lowering/lowering.h"
#include "inductor/provenance.h"
#include "inductor/runtime/wrapper.h"
#include "inductor/scheduler/scheduler.h"
#include "passes/pass_pipeline.h"
#include "tracer/trace.h"
#include "tracing/event_keys.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>

namespace compiler::inductor {

namespace {

namespace keys = tracing::keys;
namespace artifacts = tracing::artifacts;

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void graph_artifact(std::string_view name, const graph::Graph& g) {
  tracer::artifact(name, tracer::Encoding::String,
                   [&](std::string& out) { out += graph::print_graph(g); });
}

std::vector<std::size_t> output_nodes(const graph::Graph& g) {
  std::vector<std::size_t> out;
  const std::size_t o = g.output_index();
  if (o < g.size()) {
    for (const graph::Arg& a : g.node(o).args) {
      if (a.kind == graph::Arg::Kind::Node) {
        out.push_back(a.node);
      }
    }
  }
  return out;
}

// The device a graph computes on: its first tensor's (the host when it has none).
Device graph_device(const graph::Graph& g) {
  for (const graph::Node& n : g.nodes()) {
    if (n.meta.is_tensor) {
      return n.meta.device;
    }
  }
  return Device::cpu();
}

// Why code generation does not take a graph ("" when it does): a scalar input read by an op
// (its value is not a buffer), or tensors on two devices (a copy between them inside the
// graph: each generator's kernels read one device's memory). They run on the interpreter.
std::string bypass_reason(const graph::Graph& g, Device device) {
  for (const graph::Node& n : g.nodes()) {
    if (n.meta.is_tensor && n.meta.device != device) {
      return "tensors on two devices (" + device.str() + " and " + n.meta.device.str() + ")";
    }
    for (const graph::Arg& a : n.args) {
      if (a.kind == graph::Arg::Kind::Constant) {
        if (const Tensor* t = std::get_if<Tensor>(&a.constant);
            t != nullptr && t->device() != device) {
          return "a constant on " + t->device().str() + " in a graph on " + device.str();
        }
      }
    }
    if (n.meta.is_tensor && n.meta.dtype == DType::Float64) {
      return "a float64 tensor (the CPU code generator computes in float32)";
    }
    if (n.kind != graph::NodeKind::CallOp) {
      continue;
    }
    bool scalar = false;
    graph::for_each_input(n, [&](std::size_t ref) {
      scalar = scalar ||
               (g.node(ref).kind == graph::NodeKind::Placeholder && !g.node(ref).meta.is_tensor);
    });
    if (scalar) {
      return "a scalar graph input is read by an op";
    }
  }
  return "";
}

bool env_flag(const char* name, bool fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') {
    return fallback;
  }
  return std::strcmp(v, "0") != 0 && std::strcmp(v, "false") != 0 && std::strcmp(v, "False") != 0;
}

std::string compile_id_text() {
  const tracer::CompileId* id = tracer::current_compile_id();
  if (id == nullptr || !id->frame_id || !id->frame_compile_id) {
    return "";
  }
  return id->compile_id_text();
}

std::int64_t epoch_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// fx_graph_cache_{hit,miss,bypass}, with PyTorch's fields (one line of JSON, as it writes them).
void cache_artifact(std::string_view name, const std::string& status, const CacheKey* key,
                    std::string_view state, const char* time_field, std::int64_t time_ns,
                    const std::string& bypass_reason = "") {
  tracer::artifact(name, tracer::Encoding::Json, [&](std::string& out) {
    tracer::JsonWriter w(out);
    w.begin_object();
    if (!bypass_reason.empty()) {
      w.member("cache_bypass_reason", bypass_reason);
    } else {
      w.member("cache_status_detailed", status);
    }
    if (key != nullptr) {
      w.member("key", key->hash);
      w.key("components").begin_array();
      for (const std::string& c : key->components) {
        w.value(c);
      }
      w.end_array();
    }
    w.member("cache_event_time", epoch_ns());
    w.member("cache_state", state);
    if (time_field != nullptr) {
      w.member(time_field, time_ns);
    }
    const std::string id = compile_id_text();
    if (!id.empty()) {
      w.member("compile_id", id);
    }
    w.end_object();
  });
}

} // namespace

Config& config() {
  static Config c = [] {
    Config d;
    d.fx_graph_cache = env_flag("TORCHINDUCTOR_FX_GRAPH_CACHE", true);
    d.cache_dir = FxGraphCache::default_dir().string();
    d.provenance_tracking = env_flag("TORCHSCOPE_INDUCTOR_PROVENANCE", false);
    d.check_cuda = env_flag("TORCHSCOPE_INDUCTOR_CHECK_CUDA", false);
    return d;
  }();
  return c;
}

namespace {
thread_local Mode t_mode = Mode::Default;
} // namespace

Mode parse_mode(std::string_view name) {
  if (name.empty() || name == "default") {
    return Mode::Default;
  }
  if (name == "reduce-overhead") {
    return Mode::ReduceOverhead;
  }
  if (name == "max-autotune") {
    return Mode::MaxAutotune;
  }
  if (name == "max-autotune-no-cudagraphs") {
    return Mode::MaxAutotuneNoCudagraphs;
  }
  user_error("compile(): unknown mode '" + std::string(name) +
             "' (expected \"default\", \"reduce-overhead\", \"max-autotune\" or "
             "\"max-autotune-no-cudagraphs\")");
}

bool uses_cudagraphs(Mode m) noexcept {
  return m == Mode::ReduceOverhead || m == Mode::MaxAutotune;
}
bool uses_autotune(Mode m) noexcept {
  return m == Mode::MaxAutotune || m == Mode::MaxAutotuneNoCudagraphs;
}

ModeScope::ModeScope(Mode mode) : previous_(t_mode) {
  t_mode = mode;
}
ModeScope::~ModeScope() {
  t_mode = previous_;
}
Mode current_mode() noexcept {
  return t_mode;
}

void pre_grad_passes(graph::Graph& graph) {
  tracer::ChromiumSpan span("_recursive_pre_grad_passes");
  graph_artifact(artifacts::before_pre_grad_graph, graph);
  const passes::PipelineResult r =
      passes::run_pipeline(passes::Stage::PreGrad, passes::pre_grad_pipeline(), graph);
  current_metrics().pre_grad_pass_s += r.seconds;
  graph_artifact(artifacts::after_pre_grad_graph, graph);
}

// One compile_fx_inner call's state, its members named as the steps use them.
struct GraphCompile::State {
  State(const graph::Graph& graph, GraphRole role);

  void post_grad_passes();
  std::unique_ptr<backend::CompiledGraph> interpret();
  void lower();
  void schedule();
  void output_code();
  void compile_kernels();
  std::unique_ptr<backend::CompiledGraph> wrap();
  // The output code: for the trace, for the cache (beside a new entry), and on request.
  const std::string& code();
  // Hands back `compiled` with one value per node of the graph as it arrived.
  std::unique_ptr<backend::CompiledGraph> finish(std::unique_ptr<backend::CompiledGraph> compiled);

  const graph::Graph& graph;
  GraphRole role;
  Clock::time_point t0;
  tracer::ChromiumSpan span;
  CompileMetrics& metrics;
  std::string aot_id;
  Device device;
  KernelCompiler* compiler;
  std::string bypass;
  bool codegen;
  const Config& cfg;
  Mode mode;
  cuda::DeviceGuard device_guard;
  std::unique_ptr<CompileScope> device_scope;
  // The cache, keyed by the graph as it arrives.
  FxGraphCache cache;
  std::optional<CacheKey> key;
  std::string cache_bypass; // why the cache is not used, when the cache is on
  FxGraphCache::Lookup found;
  bool hit = false;
  graph::Graph g; // the graph code generation takes
  LoweringStats stats;
  std::shared_ptr<LoweredGraph> ir;
  std::shared_ptr<Schedule> sched;
  const char* dump = std::getenv("TORCHSCOPE_OUTPUT_CODE");
  std::string code_text;
  std::unique_ptr<LoadedKernels> kernels;
};

GraphCompile::State::State(const graph::Graph& graph_in, GraphRole role_in)
    : graph(graph_in), role(role_in), t0(Clock::now()), span("compile_fx_inner"),
      metrics(current_metrics()), aot_id("0_" + std::string(backend::graph_role_name(role))),
      device(graph_device(graph)), compiler(kernel_compiler(device.is_cpu() ? "cpu" : "cuda")),
      bypass(compiler == nullptr
                 ? (device.is_cpu() ? "no code generator for the host in this build (LLVM)"
                                    : "no GPU code generator in this build (the CUDA Toolkit)")
                 : bypass_reason(graph, device)),
      codegen(bypass.empty()), cfg(config()), mode(current_mode()), device_guard(device),
      device_scope(compiler != nullptr ? compiler->compile_scope(mode) : nullptr),
      cache(cfg.cache_dir) {
  // A user post-grad pass changes the code made from the graph: its uuid joins the key, and
  // one without a uuid keeps this compile out of the cache (PyTorch bypasses it likewise).
  const std::optional<std::string> custom = passes::custom_pass_cache_key(passes::Stage::PostGrad);
  if (!custom && cfg.fx_graph_cache) {
    cache_bypass = "a custom post_grad pass has no uuid (compiler/passes/custom_passes.h)";
  }
  // A user op's kernel is not part of the key: its graphs are not cached.
  for (const graph::Node& n : graph.nodes()) {
    if (n.kind == graph::NodeKind::CallOp && n.op == OpKind::custom_op && cfg.fx_graph_cache) {
      cache_bypass = "the graph calls the custom op " + graph::op_target(n);
      break;
    }
  }
  if (codegen && cfg.fx_graph_cache && cache_bypass.empty()) {
    const std::string target = custom->empty()
                                   ? compiler->target_description()
                                   : compiler->target_description() + "; custom passes " + *custom;
    key = cache_key(graph, aot_id, target, tracer::enabled());
    found = cache.lookup(*key);
    cache.report(*key, found);
  }
  hit = found.status == FxGraphCache::Status::Hit;

  tracer::artifact(artifacts::fx_graph_runnable, tracer::Encoding::String,
                   [&](std::string& out) { out += fx_graph_runnable(graph); });
  // The graph to compile returns its node results only: a backward graph returns None (a
  // constant) for inputs without a gradient, which its caller reads from `graph` itself.
  g = graph;
  if (const std::size_t o = g.output_index(); o < g.size()) {
    std::erase_if(g.nodes()[o].args,
                  [](const graph::Arg& a) { return a.kind != graph::Arg::Kind::Node; });
  }
  if (!hit) {
    graph_artifact(artifacts::before_post_grad_graph, g);
  }
}

void GraphCompile::State::post_grad_passes() {
  {
    tracer::ChromiumSpan passes_span("_recursive_post_grad_passes");
    const passes::PipelineResult r =
        passes::run_pipeline(passes::Stage::PostGrad, passes::post_grad_pipeline(), g, !hit);
    metrics.post_grad_pass_s += r.seconds;
  }
  if (hit) {
    // PyTorch logs the cached entry's post-grad graph as an event of its own.
    tracer::event_with_payload(keys::inductor_post_grad_graph, tracer::no_metadata,
                               [&](std::string& out) { out += graph::print_graph(g); });
  } else {
    graph_artifact(artifacts::inductor_post_grad_graph, g);
  }
}

std::unique_ptr<backend::CompiledGraph> GraphCompile::State::interpret() {
  metrics.fallback_nodes += static_cast<std::int64_t>(g.op_count());
  cache_artifact(artifacts::fx_graph_cache_bypass, "", nullptr, "bypass", nullptr, 0, bypass);
  ++metrics.fx_cache_bypasses;
  return finish(backend::interpret_graph(g));
}

void GraphCompile::State::lower() {
  tracer::ChromiumSpan lower_span("GraphLowering.run");
  ir = std::make_shared<LoweredGraph>(lower_graph(g, stats));
}

void GraphCompile::State::schedule() {
  {
    tracer::ChromiumSpan sched_span("Scheduler.__init__");
    sched = std::make_shared<Schedule>(inductor::schedule(*ir, g));
  }
  compiler->name_kernels(*sched);
  if (!device.is_cuda() && cfg.check_cuda) {
    // CI's check of the GPU generator: every kernel compiled for the host also compiles with
    // NVRTC (docs/COMPILER.md, "GPU code generation"); a build without one has nothing to ask.
    if (KernelCompiler* gpu = kernel_compiler("cuda")) {
      const std::string failed = gpu->check_compiles(*sched, *ir);
      TORCHSCOPE_ASSERT(failed.empty(), failed.c_str());
    }
  }
}

const std::string& GraphCompile::State::code() {
  if (code_text.empty()) {
    code_text = inductor::output_code({.graph = g,
                                       .ir = *ir,
                                       .schedule = *sched,
                                       .compiler = *compiler,
                                       .aot_id = aot_id,
                                       .kernel_path = key ? cache.entry_path(*key).string() : ""});
  }
  return code_text;
}

void GraphCompile::State::output_code() {
  if (dump != nullptr && *dump == '1') {
    std::fprintf(stderr, "%s\n", code().c_str()); // TORCH_LOGS=output_code, ours
  }
  const std::string code_path = key ? cache.output_code_path(*key).string() : "";
  tracer::event_with_payload(
      keys::inductor_output_code,
      [&](tracer::JsonWriter& w) {
        w.member("filename", code_path).member("file_path", code_path);
      },
      [&](std::string& out) { out += code(); });
}

void GraphCompile::State::compile_kernels() {
  std::string llvm_ir;
  std::int64_t codegen_ns = 0;
  if (hit) {
    tracer::ChromiumSpan load_span("PyCodeCache.load_by_key_path");
    kernels = compiler->load(found.entry->object, *sched, *ir);
    if (kernels) {
      llvm_ir = found.entry->ir;
      codegen_ns = found.entry->codegen_ns;
    } else {
      found.status = FxGraphCache::Status::Stale;
      found.detail = "its machine code does not hold this graph's kernels";
      cache.report(*key, found);
    }
  }
  const bool served = static_cast<bool>(kernels);
  if (!served) {
    tracer::ChromiumSpan gen_span("code_gen");
    const Clock::time_point c0 = Clock::now();
    CompiledCode compiled_code = compiler->compile(*sched, *ir);
    codegen_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - c0).count();
    metrics.code_gen_s += static_cast<double>(codegen_ns) * 1e-9;
    kernels = std::move(compiled_code.kernels);
    llvm_ir = std::move(compiled_code.ir);
    if (key) {
      std::vector<std::string> names;
      for (const KernelPlan& k : sched->kernels) {
        names.push_back(k.name);
      }
      cache.store(*key, {key->text, std::move(compiled_code.object), llvm_ir, names, codegen_ns},
                  code());
    }
  }
  if (dump != nullptr && *dump == '2') {
    std::fprintf(stderr, "%s\n", llvm_ir.c_str());
  }
  tracer::artifact(device.is_cpu() ? artifacts::inductor_llvm_ir : artifacts::inductor_cuda_source,
                   tracer::Encoding::String, [&](std::string& out) { out += llvm_ir; });
  if (cfg.provenance_tracking) {
    write_provenance(g, *ir, *sched);
  }
  if (served) {
    cache_artifact(artifacts::fx_graph_cache_hit, "hit", &*key, "hit", "time_saved_ns", codegen_ns);
    ++metrics.fx_cache_hits;
    bump(detail::atomic_counters().cache_hits);
  } else if (key) {
    const std::string status =
        found.status == FxGraphCache::Status::Miss
            ? "full_miss"
            : (found.status == FxGraphCache::Status::Corrupt ? "corrupt: " + found.detail
                                                             : "stale: " + found.detail);
    cache_artifact(artifacts::fx_graph_cache_miss, status, &*key, "miss", "time_taken_ns",
                   codegen_ns);
    ++metrics.fx_cache_misses;
    bump(detail::atomic_counters().cache_misses);
  } else {
    cache_artifact(artifacts::fx_graph_cache_bypass, "", nullptr, "bypass", nullptr, 0,
                   cache_bypass.empty() ? "the cache is off (TORCHINDUCTOR_FX_GRAPH_CACHE=0)"
                                        : cache_bypass);
    ++metrics.fx_cache_bypasses;
  }
  metrics.kernels += static_cast<std::int64_t>(sched->kernels.size());
  metrics.extern_calls += static_cast<std::int64_t>(stats.extern_calls);
  metrics.fallback_nodes += static_cast<std::int64_t>(stats.fallback_nodes.size());
  metrics.ir_nodes += static_cast<std::int64_t>(ir->buffers.size());
  bump(detail::atomic_counters().graphs_compiled);
}

std::unique_ptr<backend::CompiledGraph> GraphCompile::State::wrap() {
  // A GPU training forward's index checks wait for the next compiled run (its backward).
  std::unique_ptr<backend::CompiledGraph> compiled = make_generated_graph(
      g, ir, sched, std::move(kernels), device.is_cuda() && role == GraphRole::Forward);
  return finish(compiler->wrap_program(std::move(compiled), *sched, *ir, mode));
}

std::unique_ptr<backend::CompiledGraph>
GraphCompile::State::finish(std::unique_ptr<backend::CompiledGraph> compiled) {
  metrics.inductor_compile_s += seconds_since(t0);
  return backend::restore_indices(std::move(compiled), graph, g, output_nodes(graph));
}

GraphCompile::GraphCompile(const graph::Graph& graph, GraphRole role)
    : state_(std::make_unique<State>(graph, role)) {}
GraphCompile::~GraphCompile() = default;

void GraphCompile::post_grad_passes() {
  state_->post_grad_passes();
}
bool GraphCompile::generates_code() const noexcept {
  return state_->codegen;
}
std::unique_ptr<backend::CompiledGraph> GraphCompile::interpret() {
  return state_->interpret();
}
void GraphCompile::lower() {
  state_->lower();
}
void GraphCompile::schedule() {
  state_->schedule();
}
void GraphCompile::output_code() {
  state_->output_code();
}
void GraphCompile::compile_kernels() {
  state_->compile_kernels();
}
std::unique_ptr<backend::CompiledGraph> GraphCompile::wrap() {
  return state_->wrap();
}

} // namespace compiler::inductor
