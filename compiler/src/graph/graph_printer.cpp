// FX-style printing of the capture graph (dynamo_output_graph).
#include "compiler/graph/graph_printer.h"

#include "tracer/json_writer.h"
#include "tracing/trace_util.h"

#include <string>
#include <vector>

namespace compiler::graph {

namespace {

std::string placeholder_param(const Node& n) {
  // FX names the parameter after the source with its case flipped: l_x_ <- L_x_.
  std::string p = n.name;
  if (!p.empty() && p[0] == 'l') {
    p[0] = 'L';
  }
  return p;
}

std::string arg_text(const Graph& g, const Arg& a) {
  switch (a.kind) {
  case Arg::Kind::Node:
    return g.node(a.node).name;
  case Arg::Kind::NodeList: {
    std::string out = "[";
    for (std::size_t i = 0; i < a.nodes.size(); ++i) {
      out += (i ? ", " : "") + g.node(a.nodes[i]).name;
    }
    return out + "]";
  }
  case Arg::Kind::Symbolic:
    return a.sym.to_string();
  case Arg::Kind::SymList: {
    std::string out = "[";
    for (std::size_t i = 0; i < a.syms.size(); ++i) {
      out += (i ? ", " : "") + a.syms[i].to_string();
    }
    return out + "]";
  }
  case Arg::Kind::Constant:
    return value_to_string(a.constant);
  }
  return "?";
}

void collect_symbols(const SymNode& n, std::vector<std::int64_t>& out) {
  if (n.op() == SymOp::Symbol) {
    for (std::int64_t s : out) {
      if (s == n.value()) {
        return;
      }
    }
    out.push_back(n.value());
    return;
  }
  if (n.lhs()) {
    collect_symbols(*n.lhs(), out);
  }
  if (n.rhs()) {
    collect_symbols(*n.rhs(), out);
  }
}

} // namespace

std::string print_arg(const Graph& graph, const Arg& arg) {
  return arg_text(graph, arg);
}

std::string print_graph(const Graph& graph, bool read_source_lines) {
  std::string out = "class GraphModule(torch.nn.Module):\n    def forward(self";
  // Symbols appear as SymInt parameters first, as Dynamo lifts them.
  std::vector<std::int64_t> symbols;
  for (const Node& n : graph.nodes()) {
    if (n.kind == NodeKind::Placeholder) {
      for (const SymInt& s : n.meta.sizes) {
        if (s.is_symbolic()) {
          collect_symbols(*s.node(), symbols);
        }
      }
    }
  }
  for (std::int64_t s : symbols) {
    out += ", s" + std::to_string(s) + ": \"Sym(s" + std::to_string(s) + ")\"";
  }
  for (const Node& n : graph.nodes()) {
    if (n.kind == NodeKind::Placeholder) {
      out += ", " + placeholder_param(n);
      if (n.meta.is_tensor) {
        out += ": \"" + meta_annotation(n.meta) + "\"";
      }
    }
  }
  out += "):\n";
  for (const Node& n : graph.nodes()) {
    if (n.kind == NodeKind::Placeholder) {
      out += "        " + n.name + " = " + placeholder_param(n) + "\n";
    }
  }
  const char* last_file = nullptr;
  std::uint_least32_t last_line = 0;
  for (const Node& n : graph.nodes()) {
    if (n.kind == NodeKind::CallOp) {
      if (n.where.file_name() != last_file || n.where.line() != last_line) {
        last_file = n.where.file_name();
        last_line = n.where.line();
        out += "\n        # File: ";
        out += n.where.file_name();
        out += ":" + std::to_string(n.where.line()) + " in " +
               std::string(tracing::short_function_name(n.where.function_name()));
        if (read_source_lines) {
          const std::string_view code = tracing::source_line(n.where);
          if (!code.empty()) {
            out += ", code: ";
            out += code;
          }
        }
        out += "\n";
      }
      out += "        " + n.name;
      if (n.meta.is_tensor) {
        out += ": \"" + meta_annotation(n.meta) + "\"";
      }
      out += " = torch.ops." + op_target(n);
      if (n.inplace_arg >= 0) {
        out += '_'; // re-inplaced: writes its result over that argument (aten's in-place name)
      }
      out += "(";
      for (std::size_t i = first_printed_arg(n); i < n.args.size(); ++i) {
        out += (i > first_printed_arg(n) ? ", " : "") + arg_text(graph, n.args[i]);
      }
      out += ")\n";
    } else if (n.kind == NodeKind::Output) {
      out += "        return (";
      for (std::size_t i = 0; i < n.args.size(); ++i) {
        out += (i ? ", " : "") + arg_text(graph, n.args[i]);
      }
      out += n.args.size() == 1 ? ",)\n" : ")\n";
    }
  }
  return out;
}

void write_graph_sizes(tracer::JsonWriter& w, const Graph& graph) {
  for (const Node& n : graph.nodes()) {
    if (n.kind == NodeKind::Output || !n.meta.is_tensor) {
      continue;
    }
    w.key(n.name).begin_array();
    for (const SymInt& s : n.meta.sizes) {
      if (s.is_symbolic()) {
        w.value(s.to_string());
      } else {
        w.value(s.hint());
      }
    }
    w.end_array();
  }
}

std::string graph_node_shapes(const Graph& graph) {
  std::string out = "{";
  bool first = true;
  for (const Node& n : graph.nodes()) {
    if (n.kind == NodeKind::Output || !n.meta.is_tensor) {
      continue;
    }
    out += first ? "'" : ", '";
    first = false;
    out += n.name + "': [";
    for (std::size_t i = 0; i < n.meta.sizes.size(); ++i) {
      out += i ? ", " : "";
      // A Python dict literal as Dynamo logs it: symbolic sizes are quoted strings.
      out += n.meta.sizes[i].is_symbolic() ? "'" + n.meta.sizes[i].to_string() + "'"
                                           : std::to_string(n.meta.sizes[i].hint());
    }
    out += "]";
  }
  return out + "}";
}

} // namespace compiler::graph
