// Inductor's compile metrics and counters (inductor/metrics.h).
#include "compiler/inductor/metrics.h"

#include "inductor/counters.h"
#include "inductor/stage_metrics.h"

namespace compiler::inductor {

namespace {

thread_local CompileMetrics t_dummy;

std::int64_t micros(double s) {
  return static_cast<std::int64_t>(s * 1e6);
}

} // namespace

CompileMetrics& current_metrics() noexcept {
  tracing::StageMetrics* scope = tracing::StageMetrics::current();
  if (scope == nullptr) {
    t_dummy = CompileMetrics{};
    return t_dummy;
  }
  return scope->inductor;
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
  return {c.graphs_compiled.get(), c.kernel_launches.get(), c.extern_calls.get(),
          c.fallback_runs.get(),   c.cache_hits.get(),      c.cache_misses.get()};
}

void reset_counters() noexcept {
  detail::AtomicCounters& c = detail::atomic_counters();
  c.graphs_compiled.reset();
  c.kernel_launches.reset();
  c.extern_calls.reset();
  c.fallback_runs.reset();
  c.cache_hits.reset();
  c.cache_misses.reset();
}

} // namespace compiler::inductor
