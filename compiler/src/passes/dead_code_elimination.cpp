// Dead-code elimination (passes/dead_code_elimination.h): one backward sweep, since a node's
// uses all come after it.
#include "passes/dead_code_elimination.h"

#include "compiler/graph/graph_rewrite.h"

namespace compiler::passes {

bool dead_code_elimination(graph::Graph& graph) {
  std::vector<std::size_t> uses = graph::use_counts(graph);
  std::vector<bool> dead(graph.size(), false);
  bool any = false;
  for (std::size_t i = graph.size(); i-- > 0;) {
    const graph::Node& n = graph.node(i);
    if (n.kind != graph::NodeKind::CallOp || uses[i] != 0) {
      continue;
    }
    dead[i] = true;
    any = true;
    graph::for_each_input(n, [&](std::size_t ref) { --uses[ref]; });
  }
  if (any) {
    graph::erase_nodes(graph, dead);
  }
  return any;
}

} // namespace compiler::passes
