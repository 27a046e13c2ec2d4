#include "codegen.h"

#include <cstdio>

namespace exprc {

namespace {

const char* c_type(Type t) {
  return t == Type::Float ? "double" : "long";
}

std::string variable(int node) {
  return std::string("v").append(std::to_string(node));
}

std::string literal(const Node& n) {
  char buf[64];
  if (n.type == Type::Int) {
    std::snprintf(buf, sizeof buf, "%lldL", static_cast<long long>(n.value));
  } else {
    std::snprintf(buf, sizeof buf, "%.17g", n.value);
  }
  return buf;
}

} // namespace

std::string generate_c(const Graph& g) {
  const Node& result = g.nodes[static_cast<std::size_t>(g.result)];
  std::string out = "// exprc: " + g.name + " specialised for (";
  for (std::size_t i = 0; i < g.param_types.size(); ++i) {
    out += i ? ", " : "";
    out += type_name(g.param_types[i]);
  }
  out += ")\n#include <math.h>\n\n";
  out += std::string(c_type(result.type)) + " " + g.name + "(";
  for (std::size_t i = 0; i < g.params.size(); ++i) {
    out += i ? ", " : "";
    out += c_type(g.param_types[i]);
    out += " " + g.params[i];
  }
  out += ") {\n";
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    const std::string a = n.lhs >= 0 ? variable(n.lhs) : std::string();
    const std::string b = n.rhs >= 0 ? variable(n.rhs) : std::string();
    std::string value;
    switch (n.op) {
    case Op::Input:
      value = g.params[static_cast<std::size_t>(n.input)];
      break;
    case Op::Constant:
      value = literal(n);
      break;
    case Op::Add:
      value = a + " + " + b;
      break;
    case Op::Sub:
      value = a + " - " + b;
      break;
    case Op::Mul:
      value = a + " * " + b;
      break;
    case Op::Div:
      value = "(double)" + a + " / (double)" + b;
      break;
    case Op::Negate:
      value = "-" + a;
      break;
    case Op::Sqrt:
      value = "sqrt((double)" + a + ")";
      break;
    }
    out.append("  ").append(c_type(n.type)).append(" ").append(variable(static_cast<int>(i)));
    out.append(" = ").append(value).append(";\n");
  }
  out += "  return v" + std::to_string(g.result) + ";\n}\n";
  return out;
}

} // namespace exprc
