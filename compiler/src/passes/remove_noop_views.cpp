// Removal of no-op views and copies (passes/remove_noop_views.h).
#include "passes/remove_noop_views.h"

#include "compiler/graph/graph_rewrite.h"

namespace compiler::passes {

namespace {

using graph::Arg;
using graph::Node;

bool same_layout(const graph::TensorMeta& a, const graph::TensorMeta& b) {
  return a.is_tensor && b.is_tensor && a.dtype == b.dtype && graph::same_sizes(a.sizes, b.sizes) &&
         a.strides == b.strides;
}

// Ops whose result may be their input's data unchanged (views, and the copies that are
// no-ops when the layout already matches).
bool is_view_like(OpKind op) {
  return op_category(op) == OpCategory::View || op == OpKind::contiguous || op == OpKind::to_dtype;
}

// A slice that starts past 0 shifts the storage offset, which the metadata does not show; a
// chain through one is never a no-op candidate.
bool may_shift_offset(const Node& n) {
  if (n.op != OpKind::slice || n.args.size() < 3) {
    return false;
  }
  const Arg& start = n.args[2];
  if (start.kind != Arg::Kind::Constant) {
    return true;
  }
  const SymInt* s = std::get_if<SymInt>(&start.constant);
  return s == nullptr || s->hint() != 0;
}

bool is_reshape(OpKind op) {
  return op == OpKind::reshape || op == OpKind::view;
}

} // namespace

bool remove_noop_views(graph::Graph& graph) {
  bool changed = false;
  for (std::size_t i = 0; i < graph.size(); ++i) {
    Node& n = graph.nodes()[i];
    if (n.kind != graph::NodeKind::CallOp || !is_view_like(n.op) || n.args.empty() ||
        n.args[0].kind != Arg::Kind::Node) {
      continue;
    }
    // Walk back through the chain of view-like producers for a tensor with the same layout.
    std::size_t source = n.args[0].node;
    bool found = false;
    for (int depth = 0; depth < 16; ++depth) {
      const Node& s = graph.node(source);
      if (same_layout(s.meta, n.meta)) {
        found = true;
        break;
      }
      // Only views and `contiguous` keep values; a dtype round trip does not.
      if (n.op == OpKind::to_dtype || s.kind != graph::NodeKind::CallOp || !is_view_like(s.op) ||
          s.op == OpKind::to_dtype || may_shift_offset(s) || s.args.empty() ||
          s.args[0].kind != Arg::Kind::Node) {
        break;
      }
      source = s.args[0].node;
    }
    if (found) {
      graph::replace_all_uses(graph, i, source);
      changed = true;
      continue;
    }
    // reshape(view-or-reshape(x)) -> reshape(x); view(...(x)) -> view(x) when x is contiguous
    // (a contiguous tensor takes any view of its size).
    const Node& producer = graph.node(n.args[0].node);
    if (is_reshape(n.op) && producer.kind == graph::NodeKind::CallOp && is_reshape(producer.op) &&
        !producer.args.empty() && producer.args[0].kind == Arg::Kind::Node) {
      const Node& base = graph.node(producer.args[0].node);
      std::vector<std::int64_t> hints;
      for (const SymInt& s : base.meta.sizes) {
        hints.push_back(s.hint());
      }
      const bool contiguous = base.meta.strides == contiguous_strides(hints);
      if (n.op == OpKind::reshape || contiguous) {
        n.args[0].node = producer.args[0].node;
        changed = true;
      }
    }
  }
  return changed;
}

} // namespace compiler::passes
