// passes: the pattern matcher. A search pattern is a small graph built with PatternBuilder (the
// same graph IR the program is in), not matching code: its placeholders match any tensor
// argument (a node or a constant tensor, the same one wherever a placeholder repeats), its
// scalar wildcards match any constant argument (consistently), and its call nodes match call
// nodes of the same op whose arguments match in turn (both orders for commutative ops). A
// pattern may share nodes (a DAG): a shared pattern node must match one shared graph node.
// Every matched node but the root must be used only inside the match, so a rewrite never
// duplicates work. A Rewrite pairs a pattern with an optional check on the match and a
// replacement that builds the new nodes through a Rewriter.
#pragma once

#include "compiler/graph/graph.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace compiler::passes {

// A node of a pattern under construction (its index in the pattern graph).
struct PatternNode {
  std::size_t index = 0;
};

// One argument of a pattern call: a pattern node, a scalar wildcard, or a fixed constant.
struct PatternArg {
  enum class Kind { Node, Wildcard, Constant } kind = Kind::Constant;
  std::size_t node = 0;
  std::string wildcard;
  Value constant;
  PatternArg(PatternNode n) : kind(Kind::Node), node(n.index) {} // NOLINT: implicit on purpose
  PatternArg(Value v) : constant(std::move(v)) {}                // NOLINT: implicit on purpose
  static PatternArg any(std::string name) {
    PatternArg a{Value{}};
    a.kind = Kind::Wildcard;
    a.wildcard = std::move(name);
    return a;
  }
};

struct Pattern {
  graph::Graph graph;   // placeholders (input_name = the name), calls, an Output of the root
  std::size_t root = 0; // the node whose value the pattern computes
  std::map<std::pair<std::size_t, std::size_t>, std::string> wildcards; // (node, arg) -> name
};

class PatternBuilder {
public:
  PatternNode input(std::string name);
  PatternNode call(OpKind op, std::vector<PatternArg> args);
  Pattern build(PatternNode root);

private:
  Pattern p_;
};

// What a match bound: tensor placeholders to graph arguments, scalar wildcards to constants,
// and the graph nodes the pattern's calls matched (root first).
struct Match {
  std::map<std::string, graph::Arg> inputs;
  std::map<std::string, Value> scalars;
  std::vector<std::size_t> nodes;
  std::size_t root = 0;
};

// Builds replacement nodes just before the matched root, named after their op, placed at the
// root's user line and standing for every matched node (provenance).
class Rewriter {
public:
  Rewriter(graph::Graph& graph, const Match& match);
  // Inserts `op(args)` with `meta` (the root's meta when omitted) and returns an argument that
  // refers to it.
  graph::Arg call(OpKind op, std::vector<graph::Arg> args, const graph::TensorMeta* meta = nullptr);
  // The graph argument a placeholder matched, and a constant as an argument.
  const graph::Arg& input(const std::string& name) const;
  static graph::Arg constant(Value v);

  graph::Graph& graph() { return graph_; }
  std::size_t root() const { return root_; }

private:
  graph::Graph& graph_;
  const Match& match_;
  std::size_t root_;
  std::vector<std::string> from_;
};

struct Rewrite {
  std::string name;
  Pattern pattern;
  // Extra conditions on the match (shapes, dtypes); absent: always.
  std::function<bool(const graph::Graph&, const Match&)> check;
  // Builds the replacement and returns the argument that replaces the root's value.
  std::function<graph::Arg(Rewriter&, const Match&)> replace;
};

// Tries to match `pattern` with its root at graph node `anchor`. `users` is live_users(graph).
bool match_at(const graph::Graph& graph, const Pattern& pattern, std::size_t anchor,
              const std::vector<std::vector<std::size_t>>& users, Match& out);

// users_of(graph) counting only live users (nodes the Output depends on): a node a rewrite or
// CSE left behind does not keep its inputs from matching.
std::vector<std::vector<std::size_t>> live_users(const graph::Graph& graph);

// Applies `rewrites` until none matches, removing the nodes each replaced (with any other dead
// node). Returns the number of rewrites applied.
std::size_t apply_rewrites(graph::Graph& graph, const std::vector<Rewrite>& rewrites);

} // namespace compiler::passes
