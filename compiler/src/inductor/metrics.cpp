// Inductor's compile metrics and counters (inductor/metrics.h).
#include "compiler/inductor/metrics.h"

#include "inductor/counters.h"

namespace compiler::inductor {

namespace {

thread_local MetricsScope* t_scope = nullptr;
thread_local CompileMetrics t_dummy;

std::int64_t micros(double s) {
  return static_cast<std::int64_t>(s * 1e6);
}

} // namespace

MetricsScope::MetricsScope() noexcept : previous_(t_scope) {
  t_scope = this;
}

MetricsScope::~MetricsScope() {
  t_scope = previous_;
}

CompileMetrics& current_metrics() noexcept {
  if (t_scope == nullptr) {
    t_dummy = CompileMetrics{};
    return t_dummy;
  }
  return t_scope->metrics_;
}

void write_metrics(tracer::JsonWriter& w, const CompileMetrics& m) {
  w.member("inductor_compile_time_s", m.inductor_compile_s);
  w.member("code_gen_time_s", m.code_gen_s);
  w.member("inductor_cumulative_compile_time_us", micros(m.inductor_compile_s));
  w.member("inductor_code_gen_cumulative_compile_time_us", micros(m.code_gen_s));
  w.member("pre_grad_pass_time_us", micros(m.pre_grad_pass_s));
  w.member("post_grad_pass_time_us", micros(m.post_grad_pass_s));
  w.member("inductor_fx_remote_cache_hit_count", std::int64_t{0});
  w.member("inductor_fx_remote_cache_miss_count", std::int64_t{0});
  w.member("inductor_fx_local_cache_hit_count", m.fx_cache_hits);
  w.member("inductor_fx_local_cache_miss_count", m.fx_cache_misses);
  w.member("ir_count", m.ir_nodes);
  // Beyond PyTorch: what the generated code does and what it left to the eager kernels.
  w.member("inductor_kernel_count", m.kernels);
  w.member("inductor_extern_kernel_count", m.extern_calls);
  w.member("inductor_fallback_node_count", m.fallback_nodes);
}

detail::AtomicCounters& detail::atomic_counters() noexcept {
  static AtomicCounters counters;
  return counters;
}

Counters counters() noexcept {
  const detail::AtomicCounters& c = detail::atomic_counters();
  return {c.graphs_compiled.load(), c.kernel_launches.load(), c.extern_calls.load(),
          c.fallback_runs.load(),   c.cache_hits.load(),      c.cache_misses.load()};
}

void reset_counters() noexcept {
  detail::AtomicCounters& c = detail::atomic_counters();
  c.graphs_compiled = 0;
  c.kernel_launches = 0;
  c.extern_calls = 0;
  c.fallback_runs = 0;
  c.cache_hits = 0;
  c.cache_misses = 0;
}

} // namespace compiler::inductor
