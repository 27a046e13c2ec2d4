// Re-inplacing (passes/reinplace.h).
#include "passes/reinplace.h"

#include "compiler/graph/graph_rewrite.h"

namespace compiler::passes {

namespace {

using graph::Arg;
using graph::Node;

// Ops whose result is always a new buffer (never a view of, or the same tensor as, an input).
bool makes_fresh_buffer(const Node& n) {
  if (n.kind != graph::NodeKind::CallOp) {
    return false;
  }
  switch (op_category(n.op)) {
  case OpCategory::Pointwise:
  case OpCategory::Reduction:
  case OpCategory::Linalg:
  case OpCategory::Nn:
  case OpCategory::Indexing:
  case OpCategory::Factory:
    return true;
  case OpCategory::Shape:
    return n.op != OpKind::contiguous; // contiguous returns its input when it already is
  case OpCategory::View:
  case OpCategory::DataDependent:
  case OpCategory::Transfer: // may return its input (already on the device)
  case OpCategory::Extern:   // a user's kernel may return an input
    return false;
  }
  return false;
}

bool dense(const graph::TensorMeta& m) {
  std::vector<std::int64_t> hints;
  for (const SymInt& s : m.sizes) {
    hints.push_back(s.hint());
  }
  return m.strides == contiguous_strides(hints);
}

bool same_shape(const graph::TensorMeta& a, const graph::TensorMeta& b) {
  return a.dtype == b.dtype && a.strides == b.strides && graph::same_sizes(a.sizes, b.sizes);
}

// The last node that reads `buffer`'s storage: its users, and the users of every view of it.
std::size_t last_reader(const graph::Graph& graph,
                        const std::vector<std::vector<std::size_t>>& users, std::size_t buffer) {
  std::size_t last = 0;
  std::vector<std::size_t> work = {buffer};
  while (!work.empty()) {
    const std::size_t b = work.back();
    work.pop_back();
    for (std::size_t u : users[b]) {
      last = std::max(last, u);
      const Node& un = graph.node(u);
      if (un.kind == graph::NodeKind::CallOp && !makes_fresh_buffer(un)) {
        work.push_back(u); // a view (or maybe-alias) of the buffer: its readers read it too
      }
    }
  }
  return last;
}

} // namespace

bool reinplace(graph::Graph& graph) {
  const std::vector<std::vector<std::size_t>> users = graph::users_of(graph);
  const std::size_t output = graph.output_index();
  std::vector<bool> taken(graph.size(), false); // a buffer is overwritten at most once
  bool changed = false;
  for (std::size_t i = 0; i < graph.size(); ++i) {
    Node& n = graph.nodes()[i];
    if (n.kind != graph::NodeKind::CallOp || op_category(n.op) != OpCategory::Pointwise ||
        n.inplace_arg >= 0 || !n.meta.is_tensor || !dense(n.meta)) {
      continue;
    }
    for (std::size_t k = 0; k < n.args.size(); ++k) {
      const Arg& a = n.args[k];
      if (a.kind != Arg::Kind::Node || taken[a.node]) {
        continue;
      }
      const Node& src = graph.node(a.node);
      if (!makes_fresh_buffer(src) || !same_shape(src.meta, n.meta)) {
        continue;
      }
      bool read_by_output = false;
      for (std::size_t u : users[a.node]) {
        read_by_output = read_by_output || u == output;
      }
      if (read_by_output || last_reader(graph, users, a.node) != i) {
        continue;
      }
      n.inplace_arg = static_cast<std::int32_t>(k);
      taken[a.node] = true;
      changed = true;
      break;
    }
  }
  return changed;
}

} // namespace compiler::passes
