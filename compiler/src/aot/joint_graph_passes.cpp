// The joint-graph pass pipeline.
#include "aot/joint_graph_passes.h"

#include "aot/graph_edit.h"
#include "aot/passes/cse.h"
#include "aot/passes/dce.h"
#include "aot/passes/remove_noop_ops.h"
#include "compiler/graph/aot_graph_printer.h"
#include "tracer/trace.h"

namespace compiler::aot::detail {

namespace {

struct Pass {
  const char* name;
  std::size_t (*run)(const graph::Graph&, std::vector<std::size_t>&);
};

// In order: no-ops first (they hide equal subexpressions), then CSE, then what became dead.
constexpr Pass kPasses[] = {
    {"remove_noop_ops", passes::remove_noop_ops},
    {"cse", passes::cse},
    {"dce", passes::dce},
};

} // namespace

std::vector<PassReport> run_joint_graph_passes(graph::Graph& g, bool dump) {
  tracer::ChromiumSpan all("_recursive_joint_graph_passes");
  std::vector<PassReport> reports;
  std::vector<std::size_t> replace(g.size());
  for (std::size_t i = 0; i < replace.size(); ++i) {
    replace[i] = i;
  }
  std::size_t changed = 0;
  for (const Pass& p : kPasses) {
    PassReport r;
    r.name = p.name;
    {
      tracer::ChromiumSpan span(std::string("pass.joint_graph_passes.") + p.name);
      r.changed = p.run(g, replace);
    }
    changed += r.changed;
    if (dump) {
      graph::AotPrintOptions o;
      o.style = graph::AotPrintOptions::Style::Compact;
      o.read_source_lines = false;
      r.graph_after = graph::print_aot_graph(rebuild(graph::Graph(g), replace), o);
    }
    reports.push_back(std::move(r));
  }
  if (changed > 0) {
    g = rebuild(std::move(g), replace);
  }
  return reports;
}

} // namespace compiler::aot::detail

namespace compiler::aot {

std::vector<PassReport> run_joint_passes(graph::Graph& graph, bool dump) {
  return detail::run_joint_graph_passes(graph, dump);
}

} // namespace compiler::aot
