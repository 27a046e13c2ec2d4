// StageMetrics: a per-thread stack of field lists.
#include "inductor/stage_metrics.h"

namespace compiler::tracing {

namespace {
thread_local StageMetrics* t_current = nullptr;
} // namespace

StageMetrics::StageMetrics() noexcept : previous_(t_current) {
  t_current = this;
}

StageMetrics::~StageMetrics() {
  t_current = previous_;
}

StageMetrics* StageMetrics::current() noexcept {
  return t_current;
}

void StageMetrics::set(std::string_view key, std::int64_t value) {
  for (auto& [k, v] : fields_) {
    if (k == key) {
      v = value;
      return;
    }
  }
  fields_.emplace_back(std::string(key), value);
}

void StageMetrics::add(std::string_view key, std::int64_t value) {
  for (auto& [k, v] : fields_) {
    if (k == key) {
      v += value;
      return;
    }
  }
  fields_.emplace_back(std::string(key), value);
}

void StageMetrics::write(tracer::JsonWriter& w) const {
  for (const auto& [k, v] : fields_) {
    w.member(k, v);
  }
}

} // namespace compiler::tracing
