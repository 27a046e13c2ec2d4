#include "graph.h"

#include <cmath>

namespace exprc {

namespace {

const char* op_name(Op op) {
  switch (op) {
  case Op::Input:
    return "input";
  case Op::Constant:
    return "constant";
  case Op::Add:
    return "add";
  case Op::Sub:
    return "sub";
  case Op::Mul:
    return "mul";
  case Op::Div:
    return "div";
  case Op::Negate:
    return "neg";
  case Op::Sqrt:
    return "sqrt";
  }
  return "?";
}

class Lowering {
public:
  Lowering(const Function& f, Graph& g) : f_(f), g_(g) {}

  // Appends the nodes computing `e`; returns the index of its value, or -1 with error_ set.
  int lower(const Expr& e) {
    switch (e.kind) {
    case Expr::Kind::Number:
      return add({.op = Op::Constant,
                  .type = e.number.is_float ? Type::Float : Type::Int,
                  .value = e.number.number});
    case Expr::Kind::Name:
      for (std::size_t i = 0; i < f_.params.size(); ++i) {
        if (f_.params[i] == e.name) {
          return static_cast<int>(i); // inputs are the first nodes
        }
      }
      return fail("NameError", "unknown name '" + e.name + "'", e.at);
    case Expr::Kind::Negate: {
      const int x = lower(e.operands[0]);
      return x < 0 ? -1 : add({.op = Op::Negate, .type = type_of(x), .lhs = x});
    }
    case Expr::Kind::Binary: {
      const int a = lower(e.operands[0]);
      const int b = a < 0 ? -1 : lower(e.operands[1]);
      if (b < 0) {
        return -1;
      }
      const Op op = e.op == '+' ? Op::Add : e.op == '-' ? Op::Sub : e.op == '*' ? Op::Mul : Op::Div;
      const bool is_float = op == Op::Div || type_of(a) == Type::Float || type_of(b) == Type::Float;
      return add({.op = op, .type = is_float ? Type::Float : Type::Int, .lhs = a, .rhs = b});
    }
    case Expr::Kind::Call:
      if (e.name == "sqrt") {
        const int x = lower(e.operands[0]);
        return x < 0 ? -1 : add({.op = Op::Sqrt, .type = Type::Float, .lhs = x});
      }
      return fail("NotImplementedError",
                  "exprc cannot compile " + e.name + "() yet; the call runs in the interpreter",
                  e.at);
    }
    return -1;
  }

  LoweringError error() const { return error_; }

private:
  int add(const Node& n) {
    g_.nodes.push_back(n);
    return static_cast<int>(g_.nodes.size()) - 1;
  }
  Type type_of(int i) const { return g_.nodes[static_cast<std::size_t>(i)].type; }
  int fail(std::string type, std::string message, SourceLocation at) {
    error_ = {std::move(type), std::move(message), at};
    return -1;
  }

  const Function& f_;
  Graph& g_;
  LoweringError error_;
};

} // namespace

const char* type_name(Type t) {
  return t == Type::Float ? "float" : "int";
}

std::variant<Graph, LoweringError> lower(const Function& f, const std::vector<Type>& types) {
  Graph g;
  g.name = f.name;
  g.params = f.params;
  g.param_types = types;
  for (std::size_t i = 0; i < f.params.size(); ++i) {
    g.nodes.push_back({.op = Op::Input, .type = types[i], .input = static_cast<int>(i)});
  }
  Lowering lowering(f, g);
  g.result = lowering.lower(f.body);
  if (g.result < 0) {
    return lowering.error();
  }
  return g;
}

std::string print(const Graph& g) {
  std::string out = "graph " + g.name + "(";
  for (std::size_t i = 0; i < g.params.size(); ++i) {
    out += i ? ", " : "";
    out += g.params[i] + ": " + type_name(g.param_types[i]);
  }
  out += "):\n";
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    out.append("    %").append(std::to_string(i)).append(" = ").append(op_name(n.op));
    if (n.op == Op::Input) {
      out.append(" ").append(g.params[static_cast<std::size_t>(n.input)]);
    } else if (n.op == Op::Constant) {
      out.append(" ").append(n.type == Type::Int ? std::to_string(static_cast<long long>(n.value))
                                                 : std::to_string(n.value));
    }
    for (int operand : {n.lhs, n.rhs}) {
      if (operand >= 0) {
        out.append(operand == n.lhs ? " %" : ", %").append(std::to_string(operand));
      }
    }
    out.append(" : ").append(type_name(n.type)).append("\n");
  }
  out += "    return %" + std::to_string(g.result);
  return out;
}

int op_count(const Graph& g) {
  int n = 0;
  for (const Node& node : g.nodes) {
    n += node.op != Op::Input && node.op != Op::Constant;
  }
  return n;
}

Value run(const Graph& g, const std::vector<Value>& args) {
  std::vector<double> v(g.nodes.size());
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    const double a = n.lhs >= 0 ? v[static_cast<std::size_t>(n.lhs)] : 0;
    const double b = n.rhs >= 0 ? v[static_cast<std::size_t>(n.rhs)] : 0;
    switch (n.op) {
    case Op::Input:
      v[i] = args[static_cast<std::size_t>(n.input)].number;
      break;
    case Op::Constant:
      v[i] = n.value;
      break;
    case Op::Add:
      v[i] = a + b;
      break;
    case Op::Sub:
      v[i] = a - b;
      break;
    case Op::Mul:
      v[i] = a * b;
      break;
    case Op::Div:
      v[i] = a / b;
      break;
    case Op::Negate:
      v[i] = -a;
      break;
    case Op::Sqrt:
      v[i] = std::sqrt(a);
      break;
    }
  }
  const Node& result = g.nodes[static_cast<std::size_t>(g.result)];
  return {v[static_cast<std::size_t>(g.result)], result.type == Type::Float};
}

} // namespace exprc
