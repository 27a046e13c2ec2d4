// The pattern matcher (passes/pattern_matcher.h).
#include "passes/pattern_matcher.h"

#include "compiler/core/errors.h"
#include "compiler/graph/graph_rewrite.h"
#include "passes/dead_code_elimination.h"

#include <algorithm>

namespace compiler::passes {

using graph::Arg;
using graph::Node;

// ---------------------------------------------------------------- building patterns

PatternNode PatternBuilder::input(std::string name) {
  Node n;
  n.kind = graph::NodeKind::Placeholder;
  n.input_name = name;
  n.meta.is_tensor = true;
  return {p_.graph.add_node(std::move(n), name)};
}

PatternNode PatternBuilder::call(OpKind op, std::vector<PatternArg> args) {
  Node n;
  n.kind = graph::NodeKind::CallOp;
  n.op = op;
  n.meta.is_tensor = true;
  const std::size_t index = p_.graph.size();
  for (std::size_t k = 0; k < args.size(); ++k) {
    Arg a;
    switch (args[k].kind) {
    case PatternArg::Kind::Node:
      a.kind = Arg::Kind::Node;
      a.node = args[k].node;
      break;
    case PatternArg::Kind::Wildcard:
      a.kind = Arg::Kind::Constant;
      p_.wildcards[{index, k}] = args[k].wildcard;
      break;
    case PatternArg::Kind::Constant:
      a.kind = Arg::Kind::Constant;
      a.constant = std::move(args[k].constant);
      break;
    }
    n.args.push_back(std::move(a));
  }
  return {p_.graph.add_node(std::move(n), op_name(op))};
}

Pattern PatternBuilder::build(PatternNode root) {
  Node out;
  out.kind = graph::NodeKind::Output;
  Arg a;
  a.kind = Arg::Kind::Node;
  a.node = root.index;
  out.args.push_back(a);
  p_.graph.add_node(std::move(out), "output");
  p_.root = root.index;
  return std::move(p_);
}

// ---------------------------------------------------------------- matching

namespace {

bool commutative(OpKind op) {
  return op == OpKind::add || op == OpKind::mul || op == OpKind::eq || op == OpKind::ne;
}

bool is_tensor_arg(const Arg& a) {
  return a.kind == Arg::Kind::Node ||
         (a.kind == Arg::Kind::Constant && std::holds_alternative<Tensor>(a.constant));
}

class Matcher {
public:
  Matcher(const graph::Graph& g, const Pattern& p)
      : g_(g), p_(p), map_(p.graph.size(), graph::kErased) {}

  // Matches pattern node `pn` against the graph argument `ga`.
  bool match(std::size_t pn, const Arg& ga) {
    const Node& pnode = p_.graph.node(pn);
    if (pnode.kind == graph::NodeKind::Placeholder) {
      if (!is_tensor_arg(ga)) {
        return false;
      }
      auto [it, inserted] = m_.inputs.emplace(pnode.input_name, ga);
      return inserted || graph::same_arg(it->second, ga);
    }
    if (ga.kind != Arg::Kind::Node) {
      return false;
    }
    if (map_[pn] != graph::kErased) {
      return map_[pn] == ga.node; // a shared pattern node matches one shared graph node
    }
    const Node& gnode = g_.node(ga.node);
    if (gnode.kind != graph::NodeKind::CallOp || gnode.op != pnode.op ||
        gnode.args.size() != pnode.args.size()) {
      return false;
    }
    if (commutative(pnode.op) && pnode.args.size() == 2) {
      const std::vector<std::size_t> saved_map = map_;
      const Match saved_match = m_;
      if (match_args(pn, ga.node, false)) {
        return true;
      }
      map_ = saved_map;
      m_ = saved_match;
      return match_args(pn, ga.node, true);
    }
    return match_args(pn, ga.node, false);
  }

  Match& result() { return m_; }
  const std::vector<std::size_t>& mapping() const { return map_; }

private:
  bool match_args(std::size_t pn, std::size_t gn, bool swapped) {
    const Node& pnode = p_.graph.node(pn);
    const Node& gnode = g_.node(gn);
    for (std::size_t k = 0; k < pnode.args.size(); ++k) {
      const std::size_t gk = swapped ? 1 - k : k;
      const Arg& pa = pnode.args[k];
      const Arg& ga = gnode.args[gk];
      if (pa.kind == Arg::Kind::Node) {
        if (!match(pa.node, ga)) {
          return false;
        }
        continue;
      }
      auto wild = p_.wildcards.find({pn, k});
      if (wild != p_.wildcards.end()) {
        if (ga.kind != Arg::Kind::Constant || std::holds_alternative<Tensor>(ga.constant)) {
          return false;
        }
        auto [it, inserted] = m_.scalars.emplace(wild->second, ga.constant);
        if (!inserted) {
          Arg bound;
          bound.constant = it->second;
          if (!graph::same_arg(bound, ga)) {
            return false;
          }
        }
        continue;
      }
      if (!graph::same_arg(pa, ga)) {
        return false;
      }
    }
    map_[pn] = gn;
    return true;
  }

  const graph::Graph& g_; // NOLINT: the matcher lives inside match_at only
  const Pattern& p_;
  std::vector<std::size_t> map_; // pattern node -> graph node
  Match m_;
};

} // namespace

std::vector<std::vector<std::size_t>> live_users(const graph::Graph& graph) {
  std::vector<bool> live(graph.size(), false);
  for (std::size_t i = graph.size(); i-- > 0;) {
    const Node& n = graph.node(i);
    if (n.kind == graph::NodeKind::Output) {
      live[i] = true;
    }
    if (live[i]) {
      graph::for_each_input(n, [&](std::size_t ref) { live[ref] = true; });
    }
  }
  std::vector<std::vector<std::size_t>> users(graph.size());
  for (std::size_t i = 0; i < graph.size(); ++i) {
    if (live[i]) {
      graph::for_each_input(graph.node(i), [&](std::size_t ref) { users[ref].push_back(i); });
    }
  }
  return users;
}

bool match_at(const graph::Graph& graph, const Pattern& pattern, std::size_t anchor,
              const std::vector<std::vector<std::size_t>>& users, Match& out) {
  Matcher m(graph, pattern);
  Arg root;
  root.kind = Arg::Kind::Node;
  root.node = anchor;
  if (!m.match(pattern.root, root)) {
    return false;
  }
  Match& result = m.result();
  result.root = anchor;
  result.nodes = {anchor};
  for (std::size_t pn = 0; pn < pattern.graph.size(); ++pn) {
    const std::size_t gn = m.mapping()[pn];
    if (gn != graph::kErased && gn != anchor) {
      result.nodes.push_back(gn);
    }
  }
  // Every matched node but the root must be used only inside the match.
  for (std::size_t k = 1; k < result.nodes.size(); ++k) {
    for (std::size_t u : users[result.nodes[k]]) {
      if (std::find(result.nodes.begin(), result.nodes.end(), u) == result.nodes.end()) {
        return false;
      }
    }
  }
  out = std::move(result);
  return true;
}

// ---------------------------------------------------------------- rewriting

Rewriter::Rewriter(graph::Graph& graph, const Match& match)
    : graph_(graph), match_(match), root_(match.root) {
  for (std::size_t n : match.nodes) {
    for (std::string& f : graph::provenance_of(graph.node(n))) {
      if (std::find(from_.begin(), from_.end(), f) == from_.end()) {
        from_.push_back(std::move(f));
      }
    }
  }
}

Arg Rewriter::call(OpKind op, std::vector<Arg> args, const graph::TensorMeta* meta) {
  const Node& root = graph_.node(root_);
  Node n;
  n.kind = graph::NodeKind::CallOp;
  n.op = op;
  n.args = std::move(args);
  n.meta = meta != nullptr ? *meta : root.meta;
  n.where = root.where;
  n.op_index = root.op_index;
  n.from_nodes = from_;
  const std::size_t index = graph::insert_node(graph_, root_, std::move(n), op_name(op));
  ++root_;
  Arg a;
  a.kind = Arg::Kind::Node;
  a.node = index;
  return a;
}

const Arg& Rewriter::input(const std::string& name) const {
  auto it = match_.inputs.find(name);
  TORCHSCOPE_ASSERT(it != match_.inputs.end(), "a rewrite asked for an input its pattern lacks");
  return it->second;
}

Arg Rewriter::constant(Value v) {
  Arg a;
  a.kind = Arg::Kind::Constant;
  a.constant = std::move(v);
  return a;
}

std::size_t apply_rewrites(graph::Graph& graph, const std::vector<Rewrite>& rewrites) {
  std::size_t applied = 0;
  // Each rewrite removes at least one live node, so the loop ends; the bound guards bugs.
  for (std::size_t round = 0; round < 4 * graph.size() + 16; ++round) {
    bool rewrote = false;
    const std::vector<std::vector<std::size_t>> users = live_users(graph);
    for (std::size_t i = 0; i < graph.size() && !rewrote; ++i) {
      if (graph.node(i).kind != graph::NodeKind::CallOp || users[i].empty()) {
        continue;
      }
      for (const Rewrite& rw : rewrites) {
        Match m;
        if (!match_at(graph, rw.pattern, i, users, m) || (rw.check && !rw.check(graph, m))) {
          continue;
        }
        Rewriter r(graph, m);
        const Arg replacement = rw.replace(r, m);
        const std::size_t root = r.root();
        TORCHSCOPE_ASSERT(replacement.kind == Arg::Kind::Node,
                          "a replacement must be a node (graph outputs refer to nodes)");
        graph::replace_all_uses(graph, root, replacement.node);
        // The matched nodes are dead now (the others were used only inside the match); dead
        // code other passes left goes with them.
        dead_code_elimination(graph);
        ++applied;
        rewrote = true;
        break;
      }
    }
    if (!rewrote) {
      break;
    }
  }
  return applied;
}

} // namespace compiler::passes
