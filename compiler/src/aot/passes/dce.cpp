// dce: see the header. One backward sweep marks what the Output node needs.
#include "aot/passes/dce.h"

#include "aot/graph_edit.h"

namespace compiler::aot::passes {

std::size_t dce(const graph::Graph& g, std::vector<std::size_t>& replace) {
  std::vector<bool> live(g.size(), false);
  for (std::size_t i = g.size(); i-- > 0;) {
    const graph::Node& n = g.node(i);
    if (n.kind != graph::NodeKind::CallOp) {
      live[i] = true;
    }
    if (live[i] && replace[i] == i) {
      detail::for_each_input(n, [&](std::size_t in) { live[replace[in]] = true; });
    }
  }
  std::size_t removed = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (!live[i] && replace[i] == i) {
      replace[i] = detail::kNoNode;
      ++removed;
    }
  }
  return removed;
}

} // namespace compiler::aot::passes
