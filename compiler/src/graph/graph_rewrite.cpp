// Graph editing utilities shared by the passes (graph/graph_rewrite.h).
#include "compiler/graph/graph_rewrite.h"

#include "compiler/core/errors.h"

#include <algorithm>
#include <bit>
#include <functional>
#include <type_traits>

namespace compiler::graph {

std::vector<std::vector<std::size_t>> users_of(const Graph& graph) {
  std::vector<std::vector<std::size_t>> users(graph.size());
  for (std::size_t i = 0; i < graph.size(); ++i) {
    for_each_input(graph.node(i), [&](std::size_t ref) { users[ref].push_back(i); });
  }
  return users;
}

std::vector<std::vector<std::size_t>> distinct_users_of(const Graph& graph) {
  std::vector<std::vector<std::size_t>> users(graph.size());
  for (std::size_t i = 0; i < graph.size(); ++i) {
    // A node's uses are visited together, so a repeated user is the last one listed.
    for_each_input(graph.node(i), [&](std::size_t ref) {
      if (users[ref].empty() || users[ref].back() != i) {
        users[ref].push_back(i);
      }
    });
  }
  return users;
}

std::vector<std::size_t> use_counts(const Graph& graph) {
  std::vector<std::size_t> counts(graph.size(), 0);
  for (const Node& n : graph.nodes()) {
    for_each_input(n, [&](std::size_t ref) { ++counts[ref]; });
  }
  return counts;
}

void replace_all_uses(Graph& graph, std::size_t from, std::size_t to) {
  for (Node& n : graph.nodes()) {
    for_each_input(n, [&](std::size_t& ref) {
      if (ref == from) {
        ref = to;
      }
    });
  }
}

SweepReplacer::SweepReplacer(std::size_t size) : to_(size) {
  for (std::size_t i = 0; i < size; ++i) {
    to_[i] = i;
  }
}

void SweepReplacer::visit(Node& node) const {
  for_each_input(node, [&](std::size_t& ref) { ref = to_[ref]; });
}

void SweepReplacer::replace(std::size_t from, std::size_t to) {
  TORCHSCOPE_ASSERT(to < from && to_[to] == to, "a node's uses move to an earlier, kept node");
  to_[from] = to;
}

std::size_t insert_node(Graph& graph, std::size_t pos, Node node, std::string_view base) {
  TORCHSCOPE_ASSERT(pos <= graph.size(), "insert position past the end of the graph");
  node.name = graph.unique_name(base);
  std::vector<Node>& nodes = graph.nodes();
  for (Node& n : nodes) {
    for_each_input(n, [&](std::size_t& ref) {
      if (ref >= pos) {
        ++ref;
      }
    });
  }
  for_each_input(node, [&](std::size_t ref) {
    TORCHSCOPE_ASSERT(ref < pos, "an inserted node may only use nodes before it");
  });
  nodes.insert(nodes.begin() + static_cast<std::ptrdiff_t>(pos), std::move(node));
  return pos;
}

std::vector<std::size_t> erase_nodes(Graph& graph, const std::vector<bool>& erase) {
  std::vector<Node>& nodes = graph.nodes();
  TORCHSCOPE_ASSERT(erase.size() == nodes.size(), "one erase flag per node");
  std::vector<std::size_t> remap(nodes.size(), kErased);
  std::size_t next = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (!erase[i]) {
      remap[i] = next++;
    }
  }
  std::vector<Node> kept;
  kept.reserve(next);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (erase[i]) {
      continue;
    }
    Node n = std::move(nodes[i]);
    for_each_input(n, [&](std::size_t& ref) {
      TORCHSCOPE_ASSERT(remap[ref] != kErased, "a kept node uses an erased one");
      ref = remap[ref];
    });
    kept.push_back(std::move(n));
  }
  nodes = std::move(kept);
  return remap;
}

namespace {

void remap_in_place(Arg& arg, std::span<const std::size_t> map) {
  auto mapped = [&](std::size_t ref) {
    TORCHSCOPE_ASSERT(map[ref] != kErased, "a copied node refers to a node left out");
    return map[ref];
  };
  if (arg.kind == Arg::Kind::Node) {
    arg.node = mapped(arg.node);
  } else if (arg.kind == Arg::Kind::NodeList) {
    for (std::size_t& ref : arg.nodes) {
      ref = mapped(ref);
    }
  }
}

} // namespace

Arg remap(const Arg& arg, std::span<const std::size_t> map) {
  Arg out = arg;
  remap_in_place(out, map);
  return out;
}

std::size_t copy_node(Graph& to, const Node& node, std::span<const std::size_t> map) {
  Node copy = node;
  for (Arg& a : copy.args) {
    remap_in_place(a, map);
  }
  std::string name = std::move(copy.name);
  return to.add_node(std::move(copy), name);
}

bool is_topologically_sorted(const Graph& graph) {
  for (std::size_t i = 0; i < graph.size(); ++i) {
    const Node& n = graph.node(i);
    bool ok = true;
    for_each_input(n, [&](std::size_t ref) { ok = ok && ref < i; });
    if (!ok || (n.kind == NodeKind::Output && i + 1 != graph.size())) {
      return false;
    }
  }
  return true;
}

namespace {

bool same_value(const Value& a, const Value& b) {
  if (a.index() != b.index()) {
    return false;
  }
  return std::visit(
      [&](const auto& x) -> bool {
        using T = std::decay_t<decltype(x)>;
        const T& y = std::get<T>(b);
        if constexpr (std::is_same_v<T, std::monostate>) {
          return true;
        } else if constexpr (std::is_same_v<T, Tensor>) {
          return x.is_same(y);
        } else if constexpr (std::is_same_v<T, SymInt>) {
          return x.same_as(y);
        } else if constexpr (std::is_same_v<T, double>) {
          return std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(y);
        } else if constexpr (std::is_same_v<T, std::vector<SymInt>>) {
          return same_sizes(x, y);
        } else if constexpr (std::is_same_v<T, std::vector<Tensor>>) {
          return std::equal(x.begin(), x.end(), y.begin(), y.end(),
                            [](const Tensor& p, const Tensor& q) { return p.is_same(q); });
        } else {
          return x == y;
        }
      },
      a);
}

std::size_t combine(std::size_t seed, std::size_t v) {
  return seed ^ (v + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

std::size_t sym_hash(const SymInt& s) {
  return s.is_symbolic() ? std::hash<std::string>{}(s.to_string())
                         : std::hash<std::int64_t>{}(s.hint());
}

std::size_t value_hash(const Value& v) {
  std::size_t h = v.index();
  std::visit(
      [&](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, Tensor>) {
          h = combine(h, std::hash<const void*>{}(x.impl()));
        } else if constexpr (std::is_same_v<T, SymInt>) {
          h = combine(h, sym_hash(x));
        } else if constexpr (std::is_same_v<T, double>) {
          h = combine(h, std::hash<std::uint64_t>{}(std::bit_cast<std::uint64_t>(x)));
        } else if constexpr (std::is_same_v<T, bool>) {
          h = combine(h, x ? 1 : 2);
        } else if constexpr (std::is_same_v<T, std::vector<SymInt>>) {
          for (const SymInt& s : x) {
            h = combine(h, sym_hash(s));
          }
        } else if constexpr (std::is_same_v<T, std::vector<std::int64_t>>) {
          for (std::int64_t i : x) {
            h = combine(h, std::hash<std::int64_t>{}(i));
          }
        } else if constexpr (std::is_same_v<T, std::string>) {
          h = combine(h, std::hash<std::string>{}(x));
        } else if constexpr (std::is_same_v<T, DType>) {
          h = combine(h, static_cast<std::size_t>(x));
        } else if constexpr (std::is_same_v<T, std::vector<Tensor>>) {
          for (const Tensor& t : x) {
            h = combine(h, std::hash<const void*>{}(t.impl()));
          }
        }
      },
      v);
  return h;
}

} // namespace

bool same_sizes(const std::vector<SymInt>& a, const std::vector<SymInt>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const SymInt& p, const SymInt& q) { return p.same_as(q); });
}

bool same_arg(const Arg& a, const Arg& b) {
  if (a.kind != b.kind) {
    return false;
  }
  switch (a.kind) {
  case Arg::Kind::Node:
    return a.node == b.node;
  case Arg::Kind::NodeList:
    return a.nodes == b.nodes;
  case Arg::Kind::Symbolic:
    return a.sym.same_as(b.sym);
  case Arg::Kind::SymList:
    return same_sizes(a.syms, b.syms);
  case Arg::Kind::Constant:
    return same_value(a.constant, b.constant);
  }
  return false;
}

std::size_t arg_hash(const Arg& a) {
  std::size_t h = static_cast<std::size_t>(a.kind);
  switch (a.kind) {
  case Arg::Kind::Node:
    return combine(h, a.node);
  case Arg::Kind::NodeList:
    for (std::size_t n : a.nodes) {
      h = combine(h, n);
    }
    return h;
  case Arg::Kind::Symbolic:
    return combine(h, sym_hash(a.sym));
  case Arg::Kind::SymList:
    for (const SymInt& s : a.syms) {
      h = combine(h, sym_hash(s));
    }
    return h;
  case Arg::Kind::Constant:
    return combine(h, value_hash(a.constant));
  }
  return h;
}

std::size_t value_bytes(const Node& node) {
  if (!node.meta.is_tensor) {
    return 0;
  }
  std::size_t count = 1;
  for (const SymInt& s : node.meta.sizes) {
    count *= static_cast<std::size_t>(std::max<std::int64_t>(s.hint(), 0));
  }
  return count * dtype_size(node.meta.dtype);
}

std::vector<std::string> provenance_of(const Node& node) {
  if (node.from_nodes.empty()) {
    return {node.name};
  }
  return node.from_nodes;
}

} // namespace compiler::graph
