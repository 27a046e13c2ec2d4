// cse: see the header. Nodes are keyed by their op and their arguments (node references after
// earlier merges, constants by value, tensor constants by identity).
#include "aot/passes/cse.h"

#include "aot/graph_edit.h"

#include <unordered_map>

namespace compiler::aot::passes {

namespace {

// Keys are raw bytes: a tag per argument kind, then its words. Exact (a double by its bits,
// a tensor constant by its identity) and cheap to build.
template <class T>
void put(std::string& key, const T& v) {
  key.append(reinterpret_cast<const char*>(&v), sizeof v);
}

void append_value(std::string& key, const Value& v) {
  put(key, static_cast<char>('a' + v.index()));
  if (const Tensor* t = std::get_if<Tensor>(&v)) {
    put(key, static_cast<const void*>(t->impl()));
  } else if (const auto* list = std::get_if<std::vector<Tensor>>(&v)) {
    put(key, list->size());
    for (const Tensor& e : *list) {
      put(key, static_cast<const void*>(e.impl()));
    }
  } else if (const double* d = std::get_if<double>(&v)) {
    put(key, *d);
  } else if (const bool* b = std::get_if<bool>(&v)) {
    put(key, *b);
  } else if (const SymInt* s = std::get_if<SymInt>(&v); s != nullptr && !s->is_symbolic()) {
    put(key, s->hint());
  } else if (const auto* ints = std::get_if<std::vector<std::int64_t>>(&v)) {
    put(key, ints->size());
    key.append(reinterpret_cast<const char*>(ints->data()), ints->size() * sizeof(std::int64_t));
  } else if (const DType* dtype = std::get_if<DType>(&v)) {
    put(key, *dtype);
  } else if (!std::holds_alternative<std::monostate>(v)) {
    const std::string text = value_to_string(v); // symbolic sizes, strings
    put(key, text.size());
    key += text;
  }
}

void append_arg(std::string& key, const graph::Arg& a, const std::vector<std::size_t>& replace) {
  put(key, static_cast<char>('A' + static_cast<int>(a.kind)));
  switch (a.kind) {
  case graph::Arg::Kind::Node:
    put(key, replace[a.node]);
    break;
  case graph::Arg::Kind::NodeList:
    put(key, a.nodes.size());
    for (std::size_t i : a.nodes) {
      put(key, replace[i]);
    }
    break;
  case graph::Arg::Kind::Symbolic:
    append_value(key, a.sym);
    break;
  case graph::Arg::Kind::SymList:
    append_value(key, a.syms);
    break;
  case graph::Arg::Kind::Constant:
    append_value(key, a.constant);
    break;
  }
}

} // namespace

std::size_t cse(const graph::Graph& g, std::vector<std::size_t>& replace) {
  std::unordered_map<std::string, std::size_t> seen;
  seen.reserve(g.size());
  std::size_t merged = 0;
  std::string key;
  for (std::size_t i = 0; i < g.size(); ++i) {
    const graph::Node& n = g.node(i);
    if (replace[i] != i || n.kind != graph::NodeKind::CallOp || n.op == OpKind::randn) {
      continue;
    }
    key.clear();
    put(key, n.op);
    for (const graph::Arg& a : n.args) {
      append_arg(key, a, replace);
    }
    auto [it, fresh] = seen.try_emplace(key, i);
    if (!fresh) {
      replace[i] = it->second;
      ++merged;
    }
  }
  return merged;
}

} // namespace compiler::aot::passes
