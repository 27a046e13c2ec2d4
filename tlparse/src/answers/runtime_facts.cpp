// How compiles served their calls (answers/runtime_facts.h).
#include "tlparse/answers/runtime_facts.h"

#include <cstdio>

namespace tlparse::answers {

std::unordered_map<std::string, Served>
served_by_compile(const std::vector<index::RuntimeFacts>& facts) {
  std::unordered_map<std::string, Served> out;
  for (const index::RuntimeFacts& f : facts) {
    if (f.calls && f.mean_run_ms && *f.calls > 0 && *f.mean_run_ms >= 0.0) {
      Served& s = out[f.compile];
      s.calls += *f.calls;
      s.total_ms += *f.mean_run_ms * static_cast<double>(*f.calls);
    }
  }
  return out;
}

std::string served_text(const Served* s) {
  if (s == nullptr || s->calls <= 0) {
    return "no call";
  }
  char mean[32];
  std::snprintf(mean, sizeof mean, "%.3g", s->total_ms / static_cast<double>(s->calls));
  return std::to_string(s->calls) + (s->calls == 1 ? " call, " : " calls, ") + mean +
         (s->calls == 1 ? " ms" : " ms each");
}

} // namespace tlparse::answers
