// max-autotune's search (inductor/runtime/cuda_autotune.h). Choices are kept in a KernelCache
// (cuda/kernel_cache.h) of their own: one file per key, the whole key compared on load.
#include "inductor/runtime/cuda_autotune.h"

#include "compiler/inductor/inductor.h"
#include "cuda/kernel_cache.h"
#include "tracing/event_keys.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

namespace compiler::inductor::cuda_autotune {

namespace {

namespace keys = tracing::keys;
namespace artifacts = tracing::artifacts;

cuda::KernelCache& choice_cache() {
  static cuda::KernelCache cache{std::filesystem::path(cache_dir())};
  return cache;
}

// Microseconds per run: one warm-up, then the median of three timed groups of runs.
double time_candidate(cuda::DeviceContext& ctx, CUstream stream, const Candidate& c) {
  cuda::Event start(ctx, true);
  cuda::Event stop(ctx, true);
  c.run();
  constexpr int kRuns = 8;
  std::vector<double> groups;
  for (int g = 0; g < 3; ++g) {
    start.record(stream);
    for (int r = 0; r < kRuns; ++r) {
      c.run();
    }
    stop.record(stream);
    stop.synchronize();
    groups.push_back(static_cast<double>(stop.elapsed_ms(start)) * 1000.0 / kRuns);
  }
  std::sort(groups.begin(), groups.end());
  return groups[1];
}

void trace(const std::string& kernel, const std::vector<Candidate>& candidates, const Outcome& o,
           const std::optional<tracer::CompileId>& compile_id) {
  std::optional<tracer::CompileScope> scope;
  if (compile_id) {
    scope.emplace(*compile_id);
  }
  tracer::artifact(artifacts::cuda_autotune, tracer::Encoding::Json, [&](std::string& out) {
    tracer::JsonWriter w(out);
    w.begin_object();
    w.member("kernel", kernel);
    w.member("chosen", candidates[o.best].description);
    w.member("from_cache", o.from_cache);
    w.key("choices").begin_array();
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      w.begin_object();
      w.member("choice", candidates[i].description);
      if (i < o.microseconds.size()) {
        w.member("time_us", o.microseconds[i]);
      }
      w.end_object();
    }
    w.end_array();
    w.end_object();
  });
  const auto now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  const auto duration_us = static_cast<std::int64_t>(o.seconds * 1e6);
  tracer::event(keys::compilation_metrics_runtime, [&](tracer::JsonWriter& w) {
    w.member("is_runtime", true);
    w.member("start_time_us", now_us - duration_us);
    w.member("duration_us", duration_us);
    w.member("end_time_us", now_us);
    w.member("autotune_kernel", kernel);
  });
}

} // namespace

std::string cache_dir() {
  return (std::filesystem::path(config().cache_dir) / "autotune").string();
}

Outcome choose(cuda::DeviceContext& ctx, CUstream stream, const std::string& kernel,
               const std::string& key, const std::vector<Candidate>& candidates,
               const std::optional<tracer::CompileId>& compile_id) {
  const auto t0 = std::chrono::steady_clock::now();
  Outcome o;
  if (std::optional<std::string> cached = choice_cache().load(key)) {
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      if (candidates[i].description == *cached) {
        o.best = i;
        o.from_cache = true;
      }
    }
  }
  if (!o.from_cache) {
    for (const Candidate& c : candidates) {
      o.microseconds.push_back(time_candidate(ctx, stream, c));
    }
    o.best = static_cast<std::size_t>(
        std::min_element(o.microseconds.begin(), o.microseconds.end()) - o.microseconds.begin());
    choice_cache().store(key, candidates[o.best].description);
  }
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  trace(kernel, candidates, o, compile_id);
  return o;
}

} // namespace compiler::inductor::cuda_autotune
