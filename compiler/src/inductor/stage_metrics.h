// Internal: the one per-compile metrics scope, holding the compilation_metrics fields that
// belong to the stages after capture. The capture engine opens a StageMetrics for each compile;
// a stage that runs inside it adds its fields: the AOT stage by name
// (aot_autograd_cumulative_compile_time_us, aotautograd_local_cache_miss_count, ...), Inductor
// into its typed part (inductor::current_metrics()). The engine writes both into that compile's
// compilation_metrics event. Named fields keep the order they were first set in. It lives beside
// Inductor's metrics because it holds them (and current_metrics() reads it): the stages above
// include it, nothing below needs it.
#pragma once

#include "compiler/inductor/metrics.h"
#include "tracer/json_writer.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace compiler::tracing {

class StageMetrics {
public:
  // Becomes the current set of this thread until destroyed.
  StageMetrics() noexcept;
  ~StageMetrics();
  StageMetrics(const StageMetrics&) = delete;
  StageMetrics& operator=(const StageMetrics&) = delete;

  // The innermost open set on this thread, or nullptr outside any compile.
  static StageMetrics* current() noexcept;

  void set(std::string_view key, std::int64_t value);
  void add(std::string_view key, std::int64_t value);
  // Writes every field as a member of the open JSON object.
  void write(tracer::JsonWriter& w) const;
  bool empty() const noexcept { return fields_.empty(); }

  // What Inductor's compiles in this scope reported; written where PyTorch writes them.
  inductor::CompileMetrics inductor;

private:
  std::vector<std::pair<std::string, std::int64_t>> fields_;
  StageMetrics* previous_;
};

} // namespace compiler::tracing
