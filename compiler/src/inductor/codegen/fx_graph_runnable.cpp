// The fx_graph_runnable program (inductor/codegen/fx_graph_runnable.h).
#include "inductor/codegen/fx_graph_runnable.h"

#include <cstdio>
#include <map>

namespace compiler::inductor {

namespace {

std::string int_list(const std::vector<std::int64_t>& v) {
  std::string out = "{";
  for (std::size_t i = 0; i < v.size(); ++i) {
    out += (i ? ", " : "") + std::to_string(v[i]);
  }
  return out + "}";
}

std::string hints(const std::vector<SymInt>& v) {
  std::vector<std::int64_t> h;
  for (const SymInt& s : v) {
    h.push_back(s.hint());
  }
  return int_list(h);
}

std::string dtype_literal(DType d) {
  switch (d) {
  case DType::Float32:
    return "DType::Float32";
  case DType::Float64:
    return "DType::Float64";
  case DType::Float16:
    return "DType::Float16";
  case DType::BFloat16:
    return "DType::BFloat16";
  case DType::Int32:
    return "DType::Int32";
  case DType::Int64:
    return "DType::Int64";
  case DType::Bool:
    return "DType::Bool";
  }
  return "DType::Float32";
}

// A random tensor of a node's (or constant's) metadata, at trace-time sizes.
std::string random_tensor(const std::string& sizes, DType d, int seed) {
  std::string t =
      "randn(to_sym_sizes(std::vector<std::int64_t>" + sizes + "), " + std::to_string(seed) + ")";
  return d == DType::Float32 ? t : "to_dtype(" + t + ", " + dtype_literal(d) + ")";
}

class Writer {
public:
  explicit Writer(const graph::Graph& g) : g_(g) {}

  std::string run() {
    std::string body;
    for (std::size_t i = 0; i < g_.size(); ++i) {
      const graph::Node& n = g_.node(i);
      if (n.kind == graph::NodeKind::Placeholder) {
        if (n.meta.is_tensor) {
          body += "  const Tensor " + n.name + " = " +
                  random_tensor(hints(n.meta.sizes), n.meta.dtype, seed_++) + "; // " +
                  n.input_name + "\n";
        } else {
          body += "  // " + n.name + " (" + n.input_name + "): a scalar input, not reproduced\n";
        }
      } else if (n.kind == graph::NodeKind::CallOp) {
        std::string args;
        for (const graph::Arg& a : n.args) {
          args += (args.empty() ? "" : ", ") + arg(a);
        }
        body += "  const Value " + n.name + " = run_eager(*op_from_name(\"" +
                std::string(op_aten_name(n.op)) + "\"), std::vector<Value>{" + args + "});\n";
      } else {
        std::string outs;
        for (const graph::Arg& a : n.args) {
          if (a.kind == graph::Arg::Kind::Node) {
            outs += (outs.empty() ? "" : ", ") + g_.node(a.node).name;
          }
        }
        body += "  // results: " + outs + "\n";
      }
    }
    std::string out =
        "// fx_graph_runnable: this graph as a program over torchscope's eager kernels.\n"
        "// Inputs and constants are random tensors of the traced metadata (sizes at their\n"
        "// trace-time values); build against torchscope_compiler.\n"
        "#include \"compiler/ops/ops.h\"\n\n#include <vector>\n\nusing namespace compiler;\n\n"
        "int main() {\n";
    out += constants_ + body + "  return 0;\n}\n";
    return out;
  }

private:
  std::string node_value(std::size_t n) {
    const graph::Node& node = g_.node(n);
    return node.kind == graph::NodeKind::Placeholder ? node.name
                                                     : "std::get<Tensor>(" + node.name + ")";
  }

  std::string constant_tensor(const Tensor& t) {
    auto it = constant_names_.find(t.impl());
    if (it != constant_names_.end()) {
      return it->second;
    }
    const std::string name = "const" + std::to_string(constant_names_.size());
    constants_ += "  const Tensor " + name + " = " +
                  random_tensor(int_list(t.sizes()), t.dtype(), seed_++) +
                  "; // a constant of the graph (a weight): its values are not in the log\n";
    constant_names_.emplace(t.impl(), name);
    return name;
  }

  std::string value(const Value& v) {
    if (const Tensor* t = std::get_if<Tensor>(&v)) {
      return "Value(" + constant_tensor(*t) + ")";
    }
    if (const SymInt* s = std::get_if<SymInt>(&v)) {
      return "Value(SymInt(" + std::to_string(s->hint()) + "))";
    }
    if (const double* d = std::get_if<double>(&v)) {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%.17g", *d);
      return std::string("Value(") + buf + ")";
    }
    if (const bool* b = std::get_if<bool>(&v)) {
      return *b ? "Value(true)" : "Value(false)";
    }
    if (const auto* l = std::get_if<std::vector<SymInt>>(&v)) {
      return "Value(to_sym_sizes(std::vector<std::int64_t>" + hints(*l) + "))";
    }
    if (const auto* l = std::get_if<std::vector<std::int64_t>>(&v)) {
      return "Value(std::vector<std::int64_t>" + int_list(*l) + ")";
    }
    if (const auto* s = std::get_if<std::string>(&v)) {
      return "Value(std::string(\"" + *s + "\"))";
    }
    if (const DType* d = std::get_if<DType>(&v)) {
      return "Value(" + dtype_literal(*d) + ")";
    }
    if (const auto* l = std::get_if<std::vector<Tensor>>(&v)) {
      std::string out = "Value(std::vector<Tensor>{";
      for (std::size_t i = 0; i < l->size(); ++i) {
        out += (i ? ", " : "") + constant_tensor((*l)[i]);
      }
      return out + "})";
    }
    return "Value()";
  }

  std::string arg(const graph::Arg& a) {
    switch (a.kind) {
    case graph::Arg::Kind::Node:
      return "Value(" + node_value(a.node) + ")";
    case graph::Arg::Kind::NodeList: {
      std::string out = "Value(std::vector<Tensor>{";
      for (std::size_t i = 0; i < a.nodes.size(); ++i) {
        out += (i ? ", " : "") + node_value(a.nodes[i]);
      }
      return out + "})";
    }
    case graph::Arg::Kind::Symbolic:
      return "Value(SymInt(" + std::to_string(a.sym.hint()) + "))";
    case graph::Arg::Kind::SymList:
      return "Value(to_sym_sizes(std::vector<std::int64_t>" + hints(a.syms) + "))";
    case graph::Arg::Kind::Constant:
      return value(a.constant);
    }
    return "Value()";
  }

  const graph::Graph& g_;
  std::string constants_;
  std::map<const void*, std::string> constant_names_;
  int seed_ = 0;
};

} // namespace

std::string fx_graph_runnable(const graph::Graph& graph) {
  return Writer(graph).run();
}

} // namespace compiler::inductor
