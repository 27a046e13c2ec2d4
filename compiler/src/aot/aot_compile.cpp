// aot_compile(): the AOT stage's pipeline and its trace events, in PyTorch's order
// (docs/COMPILER.md lists them), and the in-memory AOTAutograd cache.
#include "aot/runtime_wrapper.h"
#include "compiler/aot/aot.h"
#include "compiler/autograd/grad_mode.h"
#include "compiler/core/errors.h"
#include "compiler/graph/aot_graph_printer.h"
#include "compiler/graph/graph_printer.h"
#include "inductor/stage_metrics.h"
#include "passes/pass_pipeline.h"
#include "tracing/counter.h"
#include "tracing/event_keys.h"

#include <chrono>
#include <cstdio>
#include <deque>
#include <map>
#include <mutex>

namespace compiler::aot {

namespace {

namespace keys = tracing::keys;
namespace artifacts = tracing::artifacts;
using Clock = std::chrono::steady_clock;
using graph::AotPrintOptions;

tracing::Counter g_joint;
tracing::Counter g_inference;
tracing::Counter g_hits;

std::int64_t micros_since(Clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0).count();
}

// ---------------------------------------------------------------- descriptors and printouts

std::string plain_input(std::size_t i) {
  return "PlainAOTInput(idx=" + std::to_string(i) + ")";
}
std::string plain_output(std::size_t j) {
  return "PlainAOTOutput(idx=" + std::to_string(j) + ")";
}
std::string grad_output(std::size_t i) {
  return "GradAOTOutput(grad_of=" + plain_input(i) + ")";
}

// The output each tangent is the gradient of.
std::vector<std::size_t> output_of_tangent(const TracedGraph& t) {
  std::vector<std::size_t> out(t.num_tangents, 0);
  for (std::size_t j = 0; j < t.tangent_of_output.size(); ++j) {
    if (t.tangent_of_output[j] != TracedGraph::kNone) {
      out[t.tangent_of_output[j]] = j;
    }
  }
  return out;
}

std::string tangent_input(const std::vector<std::size_t>& of_tangent, std::size_t k) {
  return "TangentAOTInput(output=" + plain_output(of_tangent[k]) + ")";
}

std::vector<std::string> grad_descriptors(const TracedGraph& t, const graph::Graph& g,
                                          std::size_t first_grad) {
  std::vector<std::string> out;
  const graph::Node& o = g.node(g.output_index());
  for (std::size_t i = 0; i < t.primals.size(); ++i) {
    const bool some =
        first_grad + i < o.args.size() && o.args[first_grad + i].kind != graph::Arg::Kind::Constant;
    out.push_back(some ? grad_output(i) : "None");
  }
  return out;
}

std::string print_joint(const TracedGraph& t) {
  AotPrintOptions o;
  o.style = AotPrintOptions::Style::Joint;
  o.class_name = "inner_f";
  const std::vector<std::size_t> of_tangent = output_of_tangent(t);
  for (std::size_t i = 0; i < t.primals.size(); ++i) {
    o.input_descriptors.push_back(plain_input(i));
  }
  for (std::size_t k = 0; k < t.num_tangents; ++k) {
    o.input_descriptors.push_back(tangent_input(of_tangent, k));
  }
  for (std::size_t j = 0; j < t.num_outputs; ++j) {
    o.output_descriptors.push_back(plain_output(j));
  }
  for (std::string& d : grad_descriptors(t, t.graph, t.num_outputs)) {
    o.output_descriptors.push_back(std::move(d));
  }
  return graph::print_aot_graph(t.graph, o);
}

// The copy-back of mutated inputs (graph.h, InputMutation) as the AOT graphs print it: {the
// primal's position, the forward output holding its final value}. Written-to constants (module
// buffers) are not primals here, so only mutated graph inputs are listed.
std::vector<std::pair<std::size_t, std::size_t>> input_copies(const graph::Graph& captured,
                                                              const TracedGraph& t) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  const std::size_t out_node = captured.output_index();
  for (const graph::InputMutation& m : captured.input_mutations) {
    if (m.placeholder < 0 || out_node >= captured.size()) {
      continue;
    }
    const graph::Arg& a = captured.node(out_node).args[m.output];
    if (a.kind != graph::Arg::Kind::Node || t.output_of[a.node] == TracedGraph::kNone) {
      continue;
    }
    for (std::size_t i = 0; i < t.primals.size(); ++i) {
      if (!t.primals[i].is_constant &&
          t.primals[i].placeholder == static_cast<std::size_t>(m.placeholder)) {
        out.emplace_back(i, t.output_of[a.node]);
      }
    }
  }
  return out;
}

std::string print_forward(const TracedGraph& t, const Partition& p,
                          std::vector<std::pair<std::size_t, std::size_t>> copies) {
  AotPrintOptions o;
  o.input_copies = std::move(copies);
  for (std::size_t i = 0; i < t.primals.size(); ++i) {
    o.input_descriptors.push_back(plain_input(i));
  }
  for (std::size_t j = 0; j < t.num_outputs; ++j) {
    o.output_descriptors.push_back(plain_output(j));
  }
  for (std::size_t k = 0; k < p.saved.size(); ++k) {
    o.output_descriptors.push_back("SavedForBackwardsAOTOutput(idx=" + std::to_string(k) + ")");
  }
  return graph::print_aot_graph(p.forward, o);
}

std::string print_backward(const TracedGraph& t, const Partition& p) {
  AotPrintOptions o;
  // Saved primals keep their input's descriptor; primal i is the joint graph's placeholder i.
  std::vector<std::size_t> primal_of(t.graph.size(), TracedGraph::kNone);
  std::size_t placeholder = 0;
  for (std::size_t i = 0; i < t.graph.size(); ++i) {
    if (t.graph.node(i).kind == graph::NodeKind::Placeholder) {
      primal_of[i] = placeholder++;
    }
  }
  for (std::size_t k = 0; k < p.saved.size(); ++k) {
    o.input_descriptors.push_back(k < p.num_saved_primals ? plain_input(primal_of[p.saved[k]])
                                                          : std::string());
  }
  const std::vector<std::size_t> of_tangent = output_of_tangent(t);
  for (std::size_t k = 0; k < t.num_tangents; ++k) {
    o.input_descriptors.push_back(tangent_input(of_tangent, k));
  }
  o.output_descriptors = grad_descriptors(t, p.backward, 0);
  return graph::print_aot_graph(p.backward, o);
}

std::string print_inference(const TracedGraph& t, AotPrintOptions::Style style,
                            std::vector<std::pair<std::size_t, std::size_t>> copies) {
  AotPrintOptions o;
  o.input_copies = std::move(copies);
  o.style = style;
  o.class_name = "<lambda>";
  if (style == AotPrintOptions::Style::Descriptors) {
    for (std::size_t i = 0; i < t.primals.size(); ++i) {
      o.input_descriptors.push_back(plain_input(i));
    }
    for (std::size_t j = 0; j < t.num_outputs; ++j) {
      o.output_descriptors.push_back(plain_output(j));
    }
  }
  return graph::print_aot_graph(t.graph, o);
}

// The aot_forward_graph_fw_metadata payload: PyTorch's ViewAndMutationMeta, for what this
// stage knows: the inputs the graph writes back (`copies`, input_copies() above) mutate data; no
// output aliases an input in our functional graphs.
std::string fw_metadata(const TracedGraph& t, bool training,
                        const std::vector<std::pair<std::size_t, std::size_t>>& copies) {
  std::string out = "ViewAndMutationMeta(input_info=[";
  const std::string pad(40, ' ');
  for (std::size_t i = 0; i < t.primals.size(); ++i) {
    out += i ? ",\n                               " : "";
    bool mutated = false;
    for (const auto& c : copies) {
      mutated = mutated || c.first == i;
    }
    out += "InputAliasInfo(is_leaf=True,\n" + pad + "mutates_data=" + (mutated ? "True" : "False") +
           ",\n" + pad + "mutates_metadata=False,\n" + pad + "requires_grad=" +
           (t.primal_requires_grad.size() > i && t.primal_requires_grad[i] ? "True" : "False") +
           ",\n" + pad + "keep_input_mutations=True)";
  }
  out += "],\n                    output_info=[";
  for (std::size_t j = 0; j < t.num_outputs; ++j) {
    out += j ? ",\n                                 " : "";
    out += "OutputAliasInfo(output_type=<OutputType.non_alias: 1>,\n" + pad + "  base_idx=None,\n" +
           pad + "  requires_grad=" +
           (t.output_requires_grad.size() > j && t.output_requires_grad[j] ? "True" : "False") +
           ")";
  }
  out += "],\n                    num_intermediate_bases=0,\n                    "
         "keep_input_mutations=True,\n                    traced_tangents=[";
  const graph::Graph& g = t.graph;
  bool first = true;
  std::size_t placeholder = 0;
  for (const graph::Node& n : g.nodes()) {
    if (n.kind == graph::NodeKind::Placeholder && placeholder++ >= t.primals.size()) {
      out += first ? "" : ", ";
      first = false;
      out += "FakeTensor(..., device='cpu', size=(";
      for (std::size_t d = 0; d < n.meta.sizes.size(); ++d) {
        out += (d ? ", " : "") + n.meta.sizes[d].to_string();
      }
      out += n.meta.sizes.size() == 1 ? ",))" : "))";
    }
  }
  out += "],\n                    is_train=";
  out += training ? "True" : "False";
  out += ",\n                    num_symints_saved_for_bw=0,\n                    "
         "static_input_indices=[";
  first = true;
  for (std::size_t i = 0; i < t.primals.size(); ++i) {
    if (t.primals[i].is_constant) {
      out += (first ? "" : ", ") + std::to_string(i);
      first = false;
    }
  }
  out += "])";
  return out;
}

// The torch._functorch.config payload: this stage's settings, in PyTorch's key names where
// the setting is PyTorch's.
std::string config_payload(const AotOptions& o) {
  std::string out;
  tracer::JsonWriter w(out, tracer::JsonWriter::Layout::Indent0);
  w.begin_object();
  w.member("cse", true);
  w.member("enable_autograd_cache", o.cache);
  w.member("decompose_to_prims", o.decompose);
  w.member("ban_recompute_used_far_apart", o.partition.ban_recompute_used_far_apart);
  w.member("ban_recompute_long_fusible_chains", o.partition.ban_recompute_long_fusible_chains);
  w.member("ban_recompute_materialized_backward", o.partition.ban_recompute_materialized_backward);
  w.member("ban_recompute_not_in_allowlist", o.partition.ban_recompute_not_in_allowlist);
  w.member("ban_recompute_reductions", o.partition.ban_recompute_reductions);
  w.member("max_dist_from_bw", o.partition.max_dist_from_bw);
  w.member("recompute_views", false);
  w.member("partitioner_heuristic_weights", o.partition.heuristic_weights);
  w.member("treat_parameters_as_free_to_save", o.partition.treat_parameters_as_free_to_save);
  w.end_object();
  return out;
}

// ---------------------------------------------------------------- the cache

// What a compile traced: reusable by a later compile of the same graph.
struct Traced {
  TracedGraph traced;  // the joint graph (after passes) or the inference graph (after passes)
  Partition partition; // training only
  bool training = false;
  std::string fw_metadata;
  std::string forward_text; // aot_forward_graph or aot_inference_graph
  std::string backward_text;
  std::vector<std::pair<std::size_t, std::size_t>> input_copies; // printed copy-backs
};

class Cache {
public:
  std::shared_ptr<const Traced> find(const std::string& key) {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(key);
    return it == entries_.end() ? nullptr : it->second;
  }
  void put(const std::string& key, std::shared_ptr<const Traced> t) {
    std::lock_guard lock(mutex_);
    if (entries_.emplace(key, std::move(t)).second) {
      order_.push_back(key);
      if (order_.size() > kCapacity) {
        entries_.erase(order_.front());
        order_.pop_front();
      }
    }
  }

private:
  // Entries keep their graphs' constant tensors (parameters) alive: the cache stays small.
  static constexpr std::size_t kCapacity = 64;
  std::mutex mutex_;
  std::map<std::string, std::shared_ptr<const Traced>> entries_;
  std::deque<std::string> order_;
};

Cache& cache() {
  static Cache c;
  return c;
}

// Everything a traced result depends on: the captured graph (its printout has every op,
// argument, size and dtype), the identity and requires_grad of each tensor constant (the
// graphs refer to those very tensors), grad mode and the options.
std::string cache_key(const graph::Graph& captured, const AotOptions& o, bool joint) {
  std::string key = graph::print_graph(captured, false);
  char buf[64];
  for (const graph::Node& n : captured.nodes()) {
    key += n.meta.requires_grad ? 'r' : '-';
    for (const graph::Arg& a : n.args) {
      if (const Tensor* t = std::get_if<Tensor>(&a.constant); t != nullptr && t->defined()) {
        std::snprintf(buf, sizeof buf, "%p%c", static_cast<const void*>(t->impl()),
                      t->requires_grad() ? 'r' : '-');
        key += buf;
      }
    }
  }
  key += joint ? "|joint" : "|inference";
  key += o.keep == backend::Keep::AllNodes ? "|all" : "|outputs";
  key += o.decompose ? "|decomposed" : "|aten";
  key += config_payload(o);
  // A user joint-graph pass registered or removed since changes what tracing would produce.
  key += "|custom passes " + std::to_string(passes::custom_pass_generation());
  return key;
}

std::string short_hash(const std::string& key) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "a%016zx", std::hash<std::string>{}(key));
  return buf;
}

// The current compile's id; `-/-` outside any compile.
std::string compile_id_text() {
  const tracer::CompileId* id = tracer::current_compile_id();
  return (id != nullptr ? *id : tracer::CompileId{}).compile_id_text();
}

void cache_artifact(std::string_view name, const std::string& key, bool hit) {
  tracer::chromium_event(hit ? "autograd_cache_hit" : "autograd_cache_miss", "i");
  tracer::artifact(name, tracer::Encoding::Json, [&](tracer::JsonWriter& w) {
    w.begin_object();
    w.member("key", short_hash(key));
    w.member("cache_state", hit ? "hit" : "miss");
    if (!hit) {
      w.member("cache_status_detailed", "full_miss");
    }
    w.key("components").begin_array();
    w.value("graph: the captured graph's printout, its tensor constants and requires_grad");
    w.value("config: torch._functorch.config");
    w.end_array();
    w.member("compile_id", compile_id_text());
    w.end_object();
  });
}

// ---------------------------------------------------------------- the pipeline

std::shared_ptr<Traced> trace_training(const graph::Graph& captured, const AotOptions& o,
                                       const TraceOptions& to, std::int64_t& pass_us) {
  auto t = std::make_shared<Traced>();
  { tracer::ChromiumSpan span("aot_collect_metadata"); }
  {
    tracer::ChromiumSpan span("aot_trace_joint_graph");
    t->traced = trace_joint(captured, to);
  }
  if (!t->traced.is_joint) {
    return nullptr; // no output depends on what requires grad: an inference graph
  }
  tracer::event_with_payload(keys::aot_joint_graph, tracer::no_metadata,
                             [&](std::string& out) { out += print_joint(t->traced); });
  const Clock::time_point p0 = Clock::now();
  passes::run_joint_graph_passes(t->traced.graph);
  pass_us = micros_since(p0);
  {
    tracer::ChromiumSpan span("min_cut_rematerialization_partition");
    t->partition = min_cut_partition(t->traced, o.partition);
  }
  tracer::artifact(artifacts::min_cut_information, tracer::Encoding::Json,
                   [&](std::string& out) { out += min_cut_information(t->traced, t->partition); });
  t->training = true;
  t->input_copies = input_copies(captured, t->traced);
  t->fw_metadata = fw_metadata(t->traced, true, t->input_copies);
  t->forward_text = print_forward(t->traced, t->partition, t->input_copies);
  t->backward_text = print_backward(t->traced, t->partition);
  tracer::artifact(artifacts::torch__functorch_config, tracer::Encoding::String,
                   [&](std::string& out) { out += config_payload(o); });
  tracer::artifact(artifacts::aot_forward_graph_fw_metadata, tracer::Encoding::String,
                   [&](std::string& out) { out += t->fw_metadata; });
  tracer::event_with_payload(keys::aot_forward_graph, tracer::no_metadata,
                             [&](std::string& out) { out += t->forward_text; });
  tracer::event_with_payload(keys::aot_backward_graph, tracer::no_metadata,
                             [&](std::string& out) { out += t->backward_text; });
  return t;
}

std::shared_ptr<Traced> trace_inference_graph(const graph::Graph& captured, const AotOptions& o,
                                              const TraceOptions& to) {
  auto t = std::make_shared<Traced>();
  {
    tracer::ChromiumSpan span("aot_collect_metadata");
    t->traced = trace_inference(captured, to);
  }
  t->input_copies = input_copies(captured, t->traced);
  t->fw_metadata = fw_metadata(t->traced, false, t->input_copies);
  tracer::artifact(artifacts::aot_forward_graph_fw_metadata, tracer::Encoding::String,
                   [&](std::string& out) { out += t->fw_metadata; });
  tracer::event_with_payload(keys::aot_inference_graph, tracer::no_metadata, [&](std::string& out) {
    out += print_inference(t->traced, AotPrintOptions::Style::Descriptors, t->input_copies);
  });
  tracer::artifact(artifacts::torch__functorch_config, tracer::Encoding::String,
                   [&](std::string& out) { out += config_payload(o); });
  return t;
}

// PyTorch runs the joint-graph passes on an inference graph as it starts compiling it.
std::int64_t run_inference_passes(Traced& t) {
  tracer::artifact(artifacts::before_joint_graph, tracer::Encoding::String, [&](std::string& out) {
    out += print_inference(t.traced, AotPrintOptions::Style::Compact, t.input_copies);
  });
  const Clock::time_point p0 = Clock::now();
  passes::run_joint_graph_passes(t.traced.graph);
  const std::int64_t us = micros_since(p0);
  tracer::artifact(artifacts::after_joint_graph, tracer::Encoding::String, [&](std::string& out) {
    out += print_inference(t.traced, AotPrintOptions::Style::Compact, t.input_copies);
  });
  t.forward_text = print_inference(t.traced, AotPrintOptions::Style::Descriptors, t.input_copies);
  return us;
}

std::shared_ptr<detail::AotProgram> program_of(const graph::Graph& captured, const Traced& t,
                                               const backend::GraphCompiler& compiler) {
  auto p = std::make_shared<detail::AotProgram>();
  const TracedGraph& tg = t.traced;
  p->captured_size = captured.size();
  for (std::size_t i = 0; i < captured.size(); ++i) {
    if (captured.node(i).kind == graph::NodeKind::Placeholder) {
      p->placeholder_nodes.push_back(i);
    }
  }
  p->primals = tg.primals;
  p->primals_are_inputs = true;
  for (std::size_t i = 0; i < tg.primals.size(); ++i) {
    p->primals_are_inputs =
        p->primals_are_inputs && !tg.primals[i].is_constant && tg.primals[i].placeholder == i;
  }
  p->primal_requires_grad = tg.primal_requires_grad;
  p->num_outputs = tg.num_outputs;
  p->output_of = tg.output_of;
  p->output_requires_grad = tg.output_requires_grad;
  p->tangent_of_output = tg.tangent_of_output;
  p->training = t.training;
  if (!t.training) {
    p->forward = tg.graph;
    p->forward_compiled = compiler(p->forward, backend::GraphRole::Inference);
    return p;
  }
  const Partition& part = t.partition;
  p->forward = part.forward;
  p->num_saved = part.saved.size();
  for (std::size_t k = 0; k < part.saved.size(); ++k) {
    p->saved_is_primal.push_back(k < part.num_saved_primals);
  }
  std::size_t placeholder = 0;
  for (const graph::Node& n : tg.graph.nodes()) {
    if (n.kind == graph::NodeKind::Placeholder && placeholder++ >= tg.primals.size()) {
      p->tangent_metas.push_back(n.meta);
    }
  }
  p->backward = std::make_shared<detail::BackwardProgram>();
  p->backward->graph = part.backward;
  p->backward->compiler = compiler;
  if (const tracer::CompileId* id = tracer::current_compile_id()) {
    p->backward->compile_id = *id;
  }
  p->forward_compiled = compiler(p->forward, backend::GraphRole::Forward);
  return p;
}

} // namespace

std::unique_ptr<backend::CompiledGraph> interpret(const graph::Graph& graph, backend::GraphRole) {
  return backend::interpret_graph(graph);
}

backend::CustomBackend aot_autograd(AotAutogradOptions options) {
  auto shared = std::make_shared<const AotAutogradOptions>(std::move(options));
  return [shared](const graph::Graph& graph) -> backend::GraphFunction {
    const backend::GraphCompiler compiler =
        [shared](const graph::Graph& g,
                 backend::GraphRole role) -> std::unique_ptr<backend::CompiledGraph> {
      const UserGraphCompiler& user = role == backend::GraphRole::Backward && shared->bw_compiler
                                          ? shared->bw_compiler
                                          : shared->fw_compiler;
      if (!user) {
        return interpret(g, role);
      }
      const std::string who =
          "aot_autograd: the " + std::string(backend::graph_role_name(role)) + " compiler";
      return backend::compiled_from_function(g, user(g, role), who);
    };
    AotOptions o;
    o.decompose = shared->decompose;
    o.partition = shared->partition;
    std::shared_ptr<const backend::CompiledGraph> compiled = aot_compile(graph, o, compiler);
    return backend::function_from_compiled(std::move(compiled), graph);
  };
}

AotStats aot_stats() noexcept {
  AotStats s;
  s.joint_compiles = g_joint.get();
  s.inference_compiles = g_inference.get();
  s.cache_hits = g_hits.get();
  return s;
}

namespace {

// Counts the decisions tracing makes on symbolic sizes and passes them on to the recorder that
// was active (capture's shape environment, which turns them into guards). A traced graph that
// made any holds only for the sizes that decide the same way, so it is not reused from the
// cache by graphs that print the same.
class DecisionCounter final : public SymGuardRecorder {
public:
  DecisionCounter() : outer_(active_sym_guard_recorder()) {}
  void on_compare(SymCmp op, const SymInt& lhs, const SymInt& rhs, bool result) override {
    ++decisions;
    if (outer_ != nullptr) {
      outer_->on_compare(op, lhs, rhs, result);
    }
  }
  void on_specialize(const SymInt& value) override {
    ++decisions;
    if (outer_ != nullptr) {
      outer_->on_specialize(value);
    }
  }
  void on_size_read(const std::source_location& where) override {
    if (outer_ != nullptr) {
      outer_->on_size_read(where);
    }
  }
  std::int64_t decisions = 0;

private:
  SymGuardRecorder* outer_;
};

} // namespace

std::unique_ptr<backend::CompiledGraph> aot_compile(const graph::Graph& captured,
                                                    const AotOptions& options,
                                                    const backend::GraphCompiler& compiler) {
  const Clock::time_point t0 = Clock::now();
  const bool joint = needs_joint(captured);
  const TraceOptions to{.decompose = options.decompose,
                        .all_nodes_are_outputs = options.keep == backend::Keep::AllNodes};
  const std::string key = cache_key(captured, options, joint);
  std::shared_ptr<const Traced> traced = options.cache ? cache().find(key) : nullptr;
  const bool hit = traced != nullptr;
  std::int64_t pass_us = 0;
  std::shared_ptr<detail::AotProgram> program;
  if (hit) {
    g_hits.bump();
    tracer::artifact(artifacts::aot_forward_graph_fw_metadata, tracer::Encoding::String,
                     [&](std::string& out) { out += traced->fw_metadata; });
    if (traced->training) {
      tracer::event_with_payload(keys::aot_forward_graph, tracer::no_metadata,
                                 [&](std::string& out) { out += traced->forward_text; });
      tracer::event_with_payload(keys::aot_backward_graph, tracer::no_metadata,
                                 [&](std::string& out) { out += traced->backward_text; });
    } else {
      tracer::event_with_payload(keys::aot_inference_graph, tracer::no_metadata,
                                 [&](std::string& out) { out += traced->forward_text; });
    }
    {
      tracer::ChromiumSpan span("AOTAutogradCache.inductor_load");
      program = program_of(captured, *traced, compiler);
    }
    cache_artifact(artifacts::aotautograd_cache_hit, key, true);
  } else {
    cache_artifact(artifacts::aotautograd_cache_miss, key, false);
    tracer::ChromiumSpan span("create_aot_dispatcher_function");
    std::shared_ptr<Traced> fresh;
    DecisionCounter decisions;
    {
      SymGuardRecorderScope recording(&decisions);
      if (joint) {
        fresh = trace_training(captured, options, to, pass_us);
      }
      if (fresh == nullptr) {
        fresh = trace_inference_graph(captured, options, to);
      }
    }
    (fresh->training ? g_joint : g_inference).bump();
    tracer::ChromiumSpan compile_span("compile_fx.<locals>.fw_compiler_base");
    if (!fresh->training) {
      pass_us = run_inference_passes(*fresh);
    }
    if (options.cache && decisions.decisions == 0) {
      cache().put(key, fresh);
    }
    program = program_of(captured, *fresh, compiler);
    traced = std::move(fresh);
  }
  if (tracing::StageMetrics* m = tracing::StageMetrics::current()) {
    m->add("aot_autograd_cumulative_compile_time_us", micros_since(t0));
    m->add("joint_graph_pass_time_us", pass_us);
    m->add("aotautograd_local_cache_hit_count", hit ? 1 : 0);
    m->add("aotautograd_local_cache_miss_count", hit ? 0 : 1);
    m->add("aotautograd_remote_cache_hit_count", 0);
    m->add("aotautograd_remote_cache_miss_count", 0);
    std::int64_t numel = 0;
    std::int64_t bytes = 0;
    std::int64_t count = 0;
    for (const PrimalSource& s : traced->traced.primals) {
      if (s.is_constant) {
        ++count;
        numel += s.constant.numel();
        bytes += s.constant.numel() * static_cast<std::int64_t>(dtype_size(s.constant.dtype()));
      }
    }
    m->add("param_numel", numel);
    m->add("param_bytes", bytes);
    m->add("param_count", count);
  }
  return detail::make_runtime(std::move(program));
}

} // namespace compiler::aot
