// exprc's code generator: the graph as a C function, one statement per node. exprc runs the
// graph itself (graph.h's run); the C text is its build product, shown in the trace as the
// output code.
#pragma once

#include "graph.h"

#include <string>

namespace exprc {

std::string generate_c(const Graph& g);

} // namespace exprc
