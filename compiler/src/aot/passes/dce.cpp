// dce: see the header. One backward sweep marks what the Output node needs.
#include "aot/passes/dce.h"

#include "aot/graph_edit.h"

namespace compiler::aot::passes {

std::size_t dce(graph::Graph& g) {
  std::vector<bool> live(g.size(), false);
  for (std::size_t i = g.size(); i-- > 0;) {
    const graph::Node& n = g.node(i);
    if (n.kind != graph::NodeKind::CallOp) {
      live[i] = true;
    }
    if (live[i]) {
      detail::for_each_input(n, [&](std::size_t in) { live[in] = true; });
    }
  }
  std::vector<std::size_t> replace(g.size());
  std::size_t removed = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    replace[i] = live[i] ? i : detail::kNoNode;
    removed += live[i] ? 0 : 1;
  }
  if (removed > 0) {
    g = detail::rebuild(g, replace);
  }
  return removed;
}

} // namespace compiler::aot::passes
