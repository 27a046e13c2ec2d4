// Printing of tlparse's Stats line and the table of health counters.
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
  add("ok", ok);
  add("other_rank", other_rank);
  add("fail_glog", fail_glog);
  add("fail_json", fail_json);
  add("fail_payload_md5", fail_payload_md5);
  add("fail_dynamo_guards_json", fail_dynamo_guards_json);
  add("fail_parser", fail_parser);
  add("fail_key_conflict", fail_key_conflict);
  add("fail_json_serialization", fail_json_serialization);
  add("unknown", unknown);
  out += " }";
  return out;
}

const HealthInfo& health_info(HealthId id) {
  static const HealthInfo kInfos[] = {
#define TORCHSCOPE_HEALTH_INFO(name, sev, desc) HealthInfo{#name, Severity::sev, desc},
      TORCHSCOPE_HEALTH_COUNTERS(TORCHSCOPE_HEALTH_INFO)
#undef TORCHSCOPE_HEALTH_INFO
  };
  const auto i = static_cast<size_t>(id);
  assert(i < kHealthCounterCount);
  return kInfos[i];
}

} // namespace tlparse::index
