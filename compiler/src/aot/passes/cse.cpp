// cse: see the header. Nodes are keyed by a string of their op and their arguments (node
// references by index after earlier merges, constants by value, tensor constants by identity).
#include "aot/passes/cse.h"

#include "aot/graph_edit.h"

#include <cstdio>
#include <unordered_map>

namespace compiler::aot::passes {

namespace {

void append_value(std::string& key, const Value& v) {
  if (const Tensor* t = std::get_if<Tensor>(&v)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "T%p", static_cast<const void*>(t->impl()));
    key += buf;
  } else if (const auto* list = std::get_if<std::vector<Tensor>>(&v)) {
    for (const Tensor& e : *list) {
      append_value(key, e);
    }
  } else if (const double* d = std::get_if<double>(&v)) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "D%a", *d); // exact: 0.1 and 0.1000000001 differ
    key += buf;
  } else {
    key += std::string(value_kind_name(v)) + ":" + value_to_string(v);
  }
}

void append_arg(std::string& key, const graph::Arg& a, const std::vector<std::size_t>& replace) {
  switch (a.kind) {
  case graph::Arg::Kind::Node:
    key += "n" + std::to_string(replace[a.node]);
    break;
  case graph::Arg::Kind::NodeList:
    key += "[";
    for (std::size_t i : a.nodes) {
      key += "n" + std::to_string(replace[i]) + ",";
    }
    key += "]";
    break;
  case graph::Arg::Kind::Symbolic:
    key += "s" + a.sym.to_string();
    break;
  case graph::Arg::Kind::SymList:
    key += "S";
    for (const SymInt& s : a.syms) {
      key += s.to_string() + ",";
    }
    break;
  case graph::Arg::Kind::Constant:
    append_value(key, a.constant);
    break;
  }
  key += '|';
}

} // namespace

std::size_t cse(graph::Graph& g) {
  std::vector<std::size_t> replace(g.size());
  std::unordered_map<std::string, std::size_t> seen;
  std::size_t merged = 0;
  std::string key;
  for (std::size_t i = 0; i < g.size(); ++i) {
    replace[i] = i;
    const graph::Node& n = g.node(i);
    if (n.kind != graph::NodeKind::CallOp || n.op == OpKind::randn) {
      continue;
    }
    key = std::to_string(static_cast<int>(n.op)) + "(";
    for (const graph::Arg& a : n.args) {
      append_arg(key, a, replace);
    }
    auto [it, fresh] = seen.try_emplace(key, i);
    if (!fresh) {
      replace[i] = it->second;
      ++merged;
    }
  }
  if (merged > 0) {
    g = detail::rebuild(g, replace);
  }
  return merged;
}

} // namespace compiler::aot::passes
