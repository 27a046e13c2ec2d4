// The AOT-style graph printer.
#include "compiler/graph/aot_graph_printer.h"

#include "compiler/graph/graph_printer.h"
#include "tracing/trace_util.h"

#include <charconv>
#include <cmath>

namespace compiler::graph {

namespace {

// PyTorch prints float constants as Python's repr; everything else as the Dynamo printer does.
std::string arg_text(const Graph& g, const Arg& a) {
  if (const double* d = std::get_if<double>(&a.constant); d && a.kind == Arg::Kind::Constant) {
    return python_float_repr(*d);
  }
  return print_arg(g, a);
}

bool scalar_second(const Node& n) {
  return n.args.size() > 1 && n.args[1].kind != Arg::Kind::Node;
}

// Where each node's value is last read (the Output node counts as a reader that keeps it).
std::vector<std::size_t> last_uses(const Graph& g) {
  std::vector<std::size_t> last(g.size(), g.size());
  auto note = [&](std::size_t value, std::size_t user) { last[value] = user; };
  for (std::size_t i = 0; i < g.size(); ++i) {
    for (const Arg& a : g.node(i).args) {
      if (a.kind == Arg::Kind::Node) {
        note(a.node, i);
      } else if (a.kind == Arg::Kind::NodeList) {
        for (std::size_t v : a.nodes) {
          note(v, i);
        }
      }
    }
  }
  return last;
}

std::string annotation(const Node& n) {
  return n.meta.is_tensor ? ": \"" + meta_annotation(n.meta) + "\"" : std::string();
}

} // namespace

std::string python_float_repr(double v) {
  if (std::isnan(v)) {
    return "nan";
  }
  if (std::isinf(v)) {
    return v > 0 ? "inf" : "-inf";
  }
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, end);
  if (s.find_first_of(".en") == std::string::npos) {
    s += ".0"; // Python writes 1.0, not 1
  }
  return s;
}

// The op as AOT graphs name it: a device transfer is a copy there (Tensor.to decomposes to
// aten._to_copy, its device a keyword argument).
std::string aot_op_name(const Node& n) {
  return n.op == OpKind::to ? "aten._to_copy" : op_target(n);
}

std::string_view op_overload(const Node& n) {
  switch (n.op) {
  case OpKind::add:
  case OpKind::sub:
  case OpKind::mul:
  case OpKind::div:
    return "Tensor";
  case OpKind::pow:
    return scalar_second(n) ? "Tensor_Scalar" : "Tensor_Tensor";
  case OpKind::eq:
  case OpKind::ne:
  case OpKind::lt:
  case OpKind::le:
  case OpKind::gt:
  case OpKind::ge:
    return scalar_second(n) ? "Scalar" : "Tensor";
  case OpKind::where:
    return "self";
  // pointwise, more: the bitwise ops on two tensors (the rest of the block is "default")
  case OpKind::bitwise_and:
  case OpKind::bitwise_or:
  case OpKind::bitwise_xor:
    return "Tensor";
  case OpKind::sum: {
    const auto* dims =
        n.args.size() > 1 ? std::get_if<std::vector<std::int64_t>>(&n.args[1].constant) : nullptr;
    return dims != nullptr && !dims->empty() ? "dim_IntList" : "default";
  }
  case OpKind::mean:
    return "dim";
  case OpKind::slice:
    return "Tensor";
  case OpKind::squeeze:
    return "dim";
  default:
    return "default";
  }
}

std::string print_aot_graph(const Graph& g, const AotPrintOptions& o) {
  using Style = AotPrintOptions::Style;
  const std::string ind = "        ";
  std::string out = "class " + o.class_name + "(torch.nn.Module):\n";
  std::vector<const Node*> inputs;
  for (const Node& n : g.nodes()) {
    if (n.kind == NodeKind::Placeholder) {
      inputs.push_back(&n);
    }
  }
  auto input_desc = [&](std::size_t i) {
    return i < o.input_descriptors.size() && !o.input_descriptors[i].empty()
               ? "  # " + o.input_descriptors[i]
               : std::string();
  };
  if (o.style == Style::Compact) {
    out += "    def forward(self";
    for (const Node* n : inputs) {
      out += ", " + n->name + annotation(*n);
    }
    out += "):\n";
  } else if (o.style == Style::Joint) {
    out += "    def forward(\n        self,\n        primals,\n        tangents,\n    ):\n";
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      out += ind + inputs[i]->name + annotation(*inputs[i]) + input_desc(i) + "\n";
    }
    out += ind;
    for (const Node* n : inputs) {
      out += n->name + ", ";
    }
    out += "= fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)\n";
  } else {
    out += "    def forward(\n        self,\n";
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      out += ind + inputs[i]->name + annotation(*inputs[i]) + "," + input_desc(i) + "\n";
    }
    out += "    ):\n";
  }

  const std::vector<std::size_t> last = last_uses(g);
  // Placeholders written back at the end (input_copies) stay alive until their copy_.
  std::vector<std::size_t> placeholders;
  for (std::size_t k = 0; k < g.size(); ++k) {
    if (g.node(k).kind == NodeKind::Placeholder) {
      placeholders.push_back(k);
    }
  }
  std::vector<bool> copied_back(g.size(), false);
  for (const auto& [input, output] : o.input_copies) {
    if (input < placeholders.size()) {
      copied_back[placeholders[input]] = true;
    }
  }
  const char* last_file = nullptr;
  std::uint_least32_t last_line = 0;
  bool first_statement = true;
  bool said_no_stack = false;
  for (std::size_t i = 0; i < g.size(); ++i) {
    const Node& n = g.node(i);
    if (n.kind == NodeKind::CallOp) {
      const bool has_file = n.where.file_name()[0] != '\0';
      if (has_file && (n.where.file_name() != last_file || n.where.line() != last_line)) {
        last_file = n.where.file_name();
        last_line = n.where.line();
        out += first_statement ? "" : "\n";
        out += ind + "# File: " + std::string(n.where.file_name()) + ":" +
               std::to_string(n.where.line()) + " in " +
               std::string(tracing::short_function_name(n.where.function_name()));
        if (o.read_source_lines) {
          const std::string_view code = tracing::source_line(n.where);
          if (!code.empty()) {
            out += ", code: " + std::string(code);
          }
        }
        out += "\n";
        said_no_stack = false;
      } else if (!has_file && !said_no_stack && last_file == nullptr) {
        out += ind + "# No stacktrace found for following nodes\n";
        said_no_stack = true;
      }
      first_statement = false;
      out += ind + n.name + annotation(n) + " = torch.ops." + aot_op_name(n) + "." +
             std::string(op_overload(n)) + "(";
      std::string freed;
      for (std::size_t k = first_printed_arg(n); k < n.args.size(); ++k) {
        const Arg& a = n.args[k];
        out += k > first_printed_arg(n) ? ", " : "";
        out += n.op == OpKind::to && k == 1 ? "device = " + arg_text(g, a) : arg_text(g, a);
        auto free_if_last = [&](std::size_t v) {
          const std::string& name = g.node(v).name;
          if (last[v] == i && !copied_back[v] &&
              freed.find(" " + name + " =") == std::string::npos) {
            freed += " " + name + " =";
          }
        };
        if (a.kind == Arg::Kind::Node) {
          free_if_last(a.node);
        } else if (a.kind == Arg::Kind::NodeList) {
          for (std::size_t v : a.nodes) {
            free_if_last(v);
          }
        }
      }
      out += ")";
      if (!freed.empty()) {
        out += "; " + freed + " None";
      }
      out += "\n";
    } else if (n.kind == NodeKind::Output) {
      // The copy-back of mutated inputs, as PyTorch ends an AOT graph with aten.copy_.
      for (std::size_t c = 0; c < o.input_copies.size(); ++c) {
        const auto [input, output] = o.input_copies[c];
        if (input >= placeholders.size() || output >= n.args.size()) {
          continue;
        }
        const Node& target = g.node(placeholders[input]);
        const std::string name = c == 0 ? "copy_" : "copy__" + std::to_string(c);
        out += ind + name + annotation(target) + " = torch.ops.aten.copy_.default(" + target.name +
               ", " + arg_text(g, n.args[output]) + ");  " + target.name + " = " + name +
               " = None\n";
      }
      auto output_desc = [&](std::size_t k) {
        return k < o.output_descriptors.size() && !o.output_descriptors[k].empty()
                   ? "  # " + o.output_descriptors[k]
                   : std::string();
      };
      if (o.style == Style::Compact) {
        out += ind + "return (";
        for (std::size_t k = 0; k < n.args.size(); ++k) {
          out += (k ? ", " : "") + arg_text(g, n.args[k]);
        }
        out += n.args.size() == 1 ? ",)\n" : ")\n";
      } else {
        out += ind + (o.style == Style::Joint ? "return pytree.tree_unflatten([\n" : "return (\n");
        for (std::size_t k = 0; k < n.args.size(); ++k) {
          out += ind + "    " + arg_text(g, n.args[k]) + "," + output_desc(k) + "\n";
        }
        out += ind + (o.style == Style::Joint ? "], self._out_spec)\n" : ")\n");
      }
    }
  }
  return out;
}

} // namespace compiler::graph
