// exprc's graph: a function lowered to a list of typed nodes in evaluation order, each naming
// its operands by index. Passes rewrite it (passes.h), codegen prints it as C (codegen.h), and
// `run` evaluates it: what a compiled call executes.
#pragma once

#include "syntax.h"

#include <string>
#include <variant>
#include <vector>

namespace exprc {

enum class Type { Int, Float };
enum class Op { Input, Constant, Add, Sub, Mul, Div, Negate, Sqrt };

struct Node {
  Op op = Op::Constant;
  Type type = Type::Int;
  int lhs = -1; // operand indices, -1 when unused
  int rhs = -1;
  double value = 0; // Constant
  int input = -1;   // Input: the parameter's position
};

struct Graph {
  std::string name;
  std::vector<std::string> params;
  std::vector<Type> param_types;
  std::vector<Node> nodes;
  int result = -1;
};

struct LoweringError {
  std::string type; // the error's kind, as PyTorch names exceptions in compilation metrics
  std::string message;
  SourceLocation at;
};

// Lowers `f` specialised on the types of its arguments.
std::variant<Graph, LoweringError> lower(const Function& f, const std::vector<Type>& types);

// One line per node, `%3 = mul %1, %2 : float`, then `return %n`.
std::string print(const Graph& g);

// Nodes that compute something (neither inputs nor constants).
int op_count(const Graph& g);

Value run(const Graph& g, const std::vector<Value>& args);

const char* type_name(Type t);

} // namespace exprc
