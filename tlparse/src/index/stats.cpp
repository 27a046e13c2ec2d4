// Printing of tlparse's Stats line and the table of health counters, all from the one list in
// stats.h.
#include "tlparse/index/stats.h"

#include <cassert>

namespace tlparse::index {

std::string Stats::to_tlparse_string() const {
  std::string out = "Stats {";
  bool first = true;
  auto add = [&](const char* name, uint64_t v) {
    if (v == 0) {
      return;
    }
    out += first ? " " : ", ";
    first = false;
    out += name;
    out += ": ";
    out += std::to_string(v);
  };
#define TORCHSCOPE_STATS_PRINT(name, sev, strict, desc) add(#name, name);
  TORCHSCOPE_TLPARSE_STATS(TORCHSCOPE_STATS_PRINT)
#undef TORCHSCOPE_STATS_PRINT
  out += " }";
  return out;
}

uint64_t Stats::strict_failures() const {
  uint64_t sum = 0;
#define TORCHSCOPE_STATS_STRICT(name, sev, strict, desc)                                           \
  if (strict) {                                                                                    \
    sum += name;                                                                                   \
  }
  TORCHSCOPE_TLPARSE_STATS(TORCHSCOPE_STATS_STRICT)
#undef TORCHSCOPE_STATS_STRICT
  return sum;
}

uint64_t* Stats::counter(std::string_view name) {
#define TORCHSCOPE_STATS_FIND(field, sev, strict, desc)                                            \
  if (name == #field) {                                                                            \
    return &field;                                                                                 \
  }
  TORCHSCOPE_TLPARSE_STATS(TORCHSCOPE_STATS_FIND)
#undef TORCHSCOPE_STATS_FIND
  return nullptr;
}

void Stats::copy_to(std::array<uint64_t, kHealthCounterCount>& health) const {
#define TORCHSCOPE_STATS_COPY(name, sev, strict, desc)                                             \
  health[static_cast<size_t>(HealthId::name)] = name;
  TORCHSCOPE_TLPARSE_STATS(TORCHSCOPE_STATS_COPY)
#undef TORCHSCOPE_STATS_COPY
}

const HealthInfo& health_info(HealthId id) {
  static const HealthInfo kInfos[] = {
#define TORCHSCOPE_HEALTH_INFO(name, sev, strict, desc) HealthInfo{#name, Severity::sev, desc},
      TORCHSCOPE_HEALTH_COUNTERS(TORCHSCOPE_HEALTH_INFO)
#undef TORCHSCOPE_HEALTH_INFO
  };
  const auto i = static_cast<size_t>(id);
  assert(i < kHealthCounterCount);
  return kInfos[i];
}

} // namespace tlparse::index
