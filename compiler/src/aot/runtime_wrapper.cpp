// The runtime wrapper: CompiledAot and CompiledFunctionBackward.
#include "aot/runtime_wrapper.h"

#include "compiler/autograd/autograd.h"
#include "compiler/core/errors.h"
#include "compiler/graph/interpreter.h"
#include "compiler/ops/ops.h"
#include "tracing/event_keys.h"

#include <atomic>
#include <chrono>
#include <unordered_set>

namespace compiler::aot::detail {

namespace {

namespace keys = tracing::keys;

SymInt concrete(const SymInt& s, std::span<const std::int64_t> symbols) {
  return s.is_symbolic() ? SymInt(s.node()->evaluate(symbols)) : s;
}

void write_bwd_metrics(const tracer::CompileId& id, std::int64_t start_us,
                       std::int64_t duration_us) {
  tracer::event(keys::bwd_compilation_metrics, [&](tracer::JsonWriter& w) {
    w.member("compile_id", id.compile_id_text());
    for (const char* k : {"frame_key", "co_name", "co_filename", "co_firstlineno", "cache_size",
                          "accumulated_cache_size", "guard_count", "shape_env_guard_count",
                          "graph_op_count", "graph_node_count", "graph_input_count"}) {
      w.key(k).null();
    }
    w.member("start_time", static_cast<double>(start_us) / 1e6);
    w.key("entire_frame_compile_time_s").null().key("backend_compile_time_s").null();
    w.key("fail_type").null().key("fail_reason").null();
    w.key("fail_user_frame_filename").null().key("fail_user_frame_lineno").null();
    w.key("restart_reasons").null().key("stack_trace").null();
    w.key("exception_stack_trace").null().key("graph_node_shapes").null();
    w.key("has_guarded_code").null();
    w.member("config_suppress_errors", false);
    w.member("is_forward", false);
    w.member("start_time_us", start_us);
    w.member("duration_us", duration_us);
    w.key("dynamo_cumulative_compile_time_us").null();
    w.key("aot_autograd_cumulative_compile_time_us").null();
    w.member("backward_cumulative_compile_time_us", duration_us);
    w.member("end_time_us", start_us + duration_us);
    w.member("log_format_version", std::int64_t{3});
    for (const char* k :
         {"aotautograd_remote_cache_hit_count", "aotautograd_remote_cache_miss_count",
          "aotautograd_local_cache_hit_count", "aotautograd_local_cache_miss_count"}) {
      w.member(k, std::int64_t{0});
    }
    w.member("is_runtime", false);
    w.key("recompile_reason").null();
    w.member("num_graph_breaks", std::int64_t{0});
  });
}

// The backward node of one compiled-forward call.
class CompiledFunctionBackward final : public autograd::Node {
public:
  CompiledFunctionBackward(std::shared_ptr<const AotProgram> program,
                           std::vector<autograd::SavedTensor> saved,
                           std::vector<std::int64_t> symbols)
      : program_(std::move(program)), saved_(std::move(saved)), symbols_(std::move(symbols)) {}

  std::string name() const override { return "CompiledFunctionBackward"; }
  std::size_t num_outputs() const override { return program_->num_outputs; }

  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override {
    if (released_) {
      user_error("Trying to backward through the graph a second time: the compiled function's "
                 "saved values were freed by an earlier backward(). Pass retain_graph=true to "
                 "the first backward() if you need to backward through it again.");
    }
    const AotProgram& p = *program_;
    const backend::CompiledGraph& compiled = p.backward->get();
    std::vector<Value> inputs;
    inputs.reserve(saved_.size() + p.tangent_metas.size());
    for (const autograd::SavedTensor& s : saved_) {
      inputs.emplace_back(s.unpack(*this));
    }
    // One tangent per output that requires grad: its gradient, or zeros where none flowed.
    std::vector<Tensor> tangents(p.tangent_metas.size());
    for (std::size_t j = 0; j < p.num_outputs; ++j) {
      const std::size_t k = p.tangent_of_output[j];
      if (k != TracedGraph::kNone && j < grads.size() && grads[j].defined()) {
        tangents[k] = grads[j].is_contiguous() ? grads[j] : contiguous(grads[j]);
      }
    }
    for (std::size_t k = 0; k < tangents.size(); ++k) {
      if (!tangents[k].defined()) {
        const graph::TensorMeta& m = p.tangent_metas[k];
        std::vector<SymInt> sizes;
        for (const SymInt& s : m.sizes) {
          sizes.push_back(concrete(s, symbols_));
        }
        tangents[k] = zeros(sizes, m.dtype);
      }
      inputs.emplace_back(tangents[k]);
    }
    const graph::Graph& g = p.backward->graph;
    const std::vector<Value> values = compiled.run(inputs, symbols_);
    const std::vector<Value> results =
        graph::resolve_args(g, g.node(g.output_index()), values, symbols_);
    std::vector<Tensor> out(next_edges.size());
    for (std::size_t i = 0; i < out.size() && i < results.size(); ++i) {
      if (const Tensor* t = std::get_if<Tensor>(&results[i])) {
        out[i] = *t;
      }
    }
    return out;
  }

  void release_saved() override {
    for (autograd::SavedTensor& s : saved_) {
      s.release();
    }
    released_ = !saved_.empty();
  }

  void collect_saved(std::vector<const autograd::SavedTensor*>& out) const override {
    for (const autograd::SavedTensor& s : saved_) {
      if (s.defined()) {
        out.push_back(&s);
      }
    }
  }

private:
  std::shared_ptr<const AotProgram> program_;
  std::vector<autograd::SavedTensor> saved_;
  std::vector<std::int64_t> symbols_;
  bool released_ = false;
};

class CompiledAot final : public backend::CompiledGraph {
public:
  explicit CompiledAot(std::shared_ptr<AotProgram> program) : program_(std::move(program)) {}

  std::vector<Value> run(std::span<const Value> inputs,
                         std::span<const std::int64_t> symbols) const override {
    const AotProgram& p = *program_;
    // The primals are the inputs themselves unless parameters were lifted (a cache hit's common
    // case costs no copy).
    std::vector<Value> lifted;
    std::span<const Value> primals = inputs;
    if (!p.primals_are_inputs) {
      lifted.reserve(p.primals.size());
      for (const PrimalSource& s : p.primals) {
        lifted.push_back(s.is_constant ? Value(s.constant) : inputs[s.placeholder]);
      }
      primals = lifted;
    }
    std::vector<Value> values = p.forward_compiled->run(primals, symbols);
    const graph::Node& out_node = p.forward.node(p.forward.output_index());
    std::vector<Value> result(p.captured_size);
    for (std::size_t k = 0; k < p.placeholder_nodes.size(); ++k) {
      result[p.placeholder_nodes[k]] = inputs[k];
    }
    if (p.training && autograd::is_grad_enabled()) {
      std::vector<Value> outs = graph::resolve_args(p.forward, out_node, values, symbols);
      attach_backward(primals, outs, symbols);
      for (std::size_t i = 0; i < p.captured_size; ++i) {
        if (p.output_of[i] != TracedGraph::kNone) {
          result[i] = outs[p.output_of[i]];
        }
      }
      return result;
    }
    // Inference: the outputs straight from the graph's values (every output is a node).
    for (std::size_t i = 0; i < p.captured_size; ++i) {
      if (p.output_of[i] != TracedGraph::kNone) {
        const graph::Arg& a = out_node.args[p.output_of[i]];
        TORCHSCOPE_ASSERT(a.kind == graph::Arg::Kind::Node, "a forward output is not a node");
        result[i] = values[a.node];
      }
    }
    return result;
  }

private:
  void attach_backward(std::span<const Value> primals, std::vector<Value>& outs,
                       std::span<const std::int64_t> symbols) const {
    const AotProgram& p = *program_;
    // Results that are an input, or appear twice, get their own identity before they get a
    // history (an input's own history must not change).
    std::unordered_set<const TensorImpl*> taken;
    for (const Value& v : primals) {
      if (const Tensor* t = std::get_if<Tensor>(&v)) {
        taken.insert(t->impl());
      }
    }
    for (std::size_t j = 0; j < p.num_outputs; ++j) {
      if (Tensor* t = std::get_if<Tensor>(&outs[j]); t != nullptr && t->defined()) {
        if (!taken.insert(t->impl()).second) {
          *t = autograd::alias_without_history(*t);
          taken.insert(t->impl());
        }
      }
    }
    std::vector<autograd::SavedTensor> saved;
    saved.reserve(p.num_saved);
    for (std::size_t k = 0; k < p.num_saved; ++k) {
      const Tensor& t = std::get<Tensor>(outs[p.num_outputs + k]);
      // A saved primal is a graph input, the rest are activations; an activation is saved
      // like an op's own output (without history), so the graph holds no cycle.
      saved.emplace_back(t, !p.saved_is_primal[k]);
    }
    auto node = std::make_shared<CompiledFunctionBackward>(
        program_, std::move(saved), std::vector<std::int64_t>(symbols.begin(), symbols.end()));
    node->next_edges.reserve(primals.size());
    for (std::size_t i = 0; i < primals.size(); ++i) {
      const Tensor* t = std::get_if<Tensor>(&primals[i]);
      node->next_edges.push_back(p.primal_requires_grad[i] && t != nullptr
                                     ? autograd::gradient_edge(*t)
                                     : autograd::Edge{});
    }
    for (std::size_t j = 0; j < p.num_outputs; ++j) {
      if (p.output_requires_grad[j]) {
        autograd::set_history(std::get<Tensor>(outs[j]), node, static_cast<std::uint32_t>(j));
      }
    }
  }

  std::shared_ptr<AotProgram> program_;
};

} // namespace

const backend::CompiledGraph& BackwardProgram::get() {
  std::lock_guard lock(mutex);
  if (compiled == nullptr) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto start_us = static_cast<std::int64_t>(tracer::now_us());
    tracer::CompileScope scope(compile_id);
    {
      tracer::ChromiumSpan whole("entire_backward_compile");
      tracer::ChromiumSpan span("compile_fx.<locals>.bw_compiler");
      compiled = compiler(graph, backend::GraphRole::Backward);
    }
    compile_time_us =
        std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0)
            .count();
    write_bwd_metrics(compile_id, start_us, compile_time_us);
  }
  return *compiled;
}

std::unique_ptr<backend::CompiledGraph> make_runtime(std::shared_ptr<AotProgram> program) {
  return std::make_unique<CompiledAot>(std::move(program));
}

} // namespace compiler::aot::detail
