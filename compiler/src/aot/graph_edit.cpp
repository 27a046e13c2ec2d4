// Graph-editing helpers for the AOT stage.
#include "aot/graph_edit.h"

#include "compiler/core/errors.h"

namespace compiler::aot::detail {

std::vector<std::vector<std::size_t>> users_of(const graph::Graph& g) {
  std::vector<std::vector<std::size_t>> users(g.size());
  for (std::size_t i = 0; i < g.size(); ++i) {
    for_each_input(g.node(i), [&](std::size_t in) {
      if (users[in].empty() || users[in].back() != i) {
        users[in].push_back(i);
      }
    });
  }
  return users;
}

void remap_in_place(graph::Arg& a, std::span<const std::size_t> map) {
  if (a.kind == graph::Arg::Kind::Node) {
    TORCHSCOPE_ASSERT(map[a.node] != kNoNode, "a copied node refers to a node left out");
    a.node = map[a.node];
  } else if (a.kind == graph::Arg::Kind::NodeList) {
    for (std::size_t& i : a.nodes) {
      TORCHSCOPE_ASSERT(map[i] != kNoNode, "a copied node refers to a node left out");
      i = map[i];
    }
  }
}

graph::Arg remap(const graph::Arg& a, std::span<const std::size_t> map) {
  graph::Arg out = a;
  remap_in_place(out, map);
  return out;
}

std::size_t copy_node(graph::Graph& to, const graph::Node& n, std::span<const std::size_t> map) {
  graph::Node copy = n;
  for (graph::Arg& a : copy.args) {
    remap_in_place(a, map);
  }
  std::string name = std::move(copy.name);
  return to.add_node(std::move(copy), name);
}

graph::Graph rebuild(graph::Graph&& g, std::span<const std::size_t> replace) {
  graph::Graph out;
  out.reserve(g.size());
  std::vector<std::size_t> map(g.size(), kNoNode);
  std::string name;
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (replace[i] == i) {
      graph::Node& n = g.nodes()[i];
      for (graph::Arg& a : n.args) {
        remap_in_place(a, map);
      }
      name = std::move(n.name);
      map[i] = out.add_node(std::move(n), name);
    } else if (replace[i] != kNoNode) {
      TORCHSCOPE_ASSERT(replace[i] < i, "a node is replaced by a later one");
      map[i] = map[replace[i]];
    }
  }
  return out;
}

std::size_t value_bytes(const graph::Node& n) {
  if (!n.meta.is_tensor) {
    return 0;
  }
  std::size_t count = 1;
  for (const SymInt& s : n.meta.sizes) {
    count *= static_cast<std::size_t>(std::max<std::int64_t>(s.hint(), 0));
  }
  return count * dtype_size(n.meta.dtype);
}

} // namespace compiler::aot::detail
