// Graph IR: node naming, counts, and the FX-style type annotation.
#include "compiler/graph/graph.h"

#include "compiler/ops/custom_ops.h"

#include <algorithm>

namespace compiler::graph {

std::string_view node_kind_name(NodeKind kind) noexcept {
  switch (kind) {
#define TORCHSCOPE_NODE_KIND_NAME(name, text)                                                      \
  case NodeKind::name:                                                                             \
    return text;
    TORCHSCOPE_GRAPH_NODE_KINDS(TORCHSCOPE_NODE_KIND_NAME)
#undef TORCHSCOPE_NODE_KIND_NAME
  }
  return "?";
}

std::size_t Graph::add_node(Node node, std::string_view base) {
  node.name = unique_name(base);
  nodes_.push_back(std::move(node));
  return nodes_.size() - 1;
}

std::string Graph::unique_name(std::string_view base) {
  std::string name(base);
  if (!used_names_.insert(name).second) {
    // FX appends _1, _2, ... to repeated names (the first free one; names are never freed, so
    // the search resumes where it stopped for this base).
    int& i = next_suffix_[name];
    for (i = std::max(i, 1);; ++i) {
      std::string candidate = name + "_" + std::to_string(i);
      if (used_names_.insert(candidate).second) {
        name = std::move(candidate);
        ++i;
        break;
      }
    }
  }
  return name;
}

void Graph::reserve(std::size_t n) {
  nodes_.reserve(n);
  used_names_.reserve(n);
}

std::size_t Graph::op_count() const noexcept {
  return static_cast<std::size_t>(std::count_if(
      nodes_.begin(), nodes_.end(), [](const Node& n) { return n.kind == NodeKind::CallOp; }));
}

std::size_t Graph::input_count() const noexcept {
  return static_cast<std::size_t>(std::count_if(
      nodes_.begin(), nodes_.end(), [](const Node& n) { return n.kind == NodeKind::Placeholder; }));
}

std::size_t Graph::output_index() const noexcept {
  for (std::size_t i = nodes_.size(); i-- > 0;) {
    if (nodes_[i].kind == NodeKind::Output) {
      return i;
    }
  }
  return nodes_.size();
}

TensorMeta tensor_meta(const Tensor& t) {
  TensorMeta m;
  m.is_tensor = true;
  m.dtype = t.dtype();
  m.sizes = t.sym_sizes();
  m.strides = t.strides();
  m.requires_grad = t.requires_grad();
  m.device = t.device();
  return m;
}

std::string meta_annotation(const TensorMeta& meta) {
  if (!meta.is_tensor) {
    return "";
  }
  std::string out(dtype_name(meta.dtype));
  out += '[';
  for (std::size_t i = 0; i < meta.sizes.size(); ++i) {
    if (i > 0) {
      out += ", ";
    }
    out += meta.sizes[i].to_string();
  }
  out += "][";
  // Strides are printed symbolically when the layout is contiguous (so a dynamic [s0, 128]
  // prints [128, 1] and a dynamic [4, s0] prints [s0, 1]); otherwise as their trace-time hints.
  std::vector<std::int64_t> hints;
  for (const SymInt& s : meta.sizes) {
    hints.push_back(s.hint());
  }
  bool contiguous = meta.strides == contiguous_strides(hints);
  SymInt running(1);
  std::vector<std::string> parts(meta.strides.size());
  for (std::size_t i = meta.strides.size(); i-- > 0;) {
    parts[i] = contiguous ? running.to_string() : std::to_string(meta.strides[i]);
    if (contiguous && i < meta.sizes.size()) {
      // Multiply without recording guards: this is printing, not a decision of the program.
      running = SymInt(running.hint() * meta.sizes[i].hint(),
                       meta.sizes[i].is_symbolic() || running.is_symbolic()
                           ? SymNode::binary(SymOp::Mul, meta.sizes[i].as_node(), running.as_node())
                           : nullptr);
    }
  }
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) {
      out += ", ";
    }
    out += parts[i];
  }
  out += ']';
  out += meta.device.str();
  return out;
}

std::string op_target(const Node& node) {
  if (node.kind == NodeKind::CallOp && node.op == OpKind::custom_op && !node.args.empty()) {
    if (const auto* name = std::get_if<std::string>(&node.args[0].constant)) {
      return custom_ops::ops_path(*name);
    }
  }
  return std::string(op_aten_name(node.op));
}

std::size_t first_printed_arg(const Node& node) noexcept {
  return node.kind == NodeKind::CallOp && node.op == OpKind::custom_op ? 1 : 0;
}

} // namespace compiler::graph
