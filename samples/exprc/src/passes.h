// exprc's passes, in the order the pipeline runs them. Each rewrites the graph in place and says
// whether it changed anything; the driver traces the graph after each one (docs/TRACER.md).
#pragma once

#include "graph.h"

#include <span>

namespace exprc {

struct Pass {
  const char* name;
  bool (*run)(Graph& g);
};

std::span<const Pass> pipeline();

} // namespace exprc
