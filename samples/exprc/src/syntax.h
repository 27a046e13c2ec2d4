// exprc's source language and its reader. A program is one statement per line:
//   fn name(param, ...) = expression        defines a function
//   call name(number, ...)                  calls one; a number with a '.' is a float
// Expressions have + - * /, unary -, parentheses, numbers, parameters, sqrt(x) and pow(x, n);
// '#' starts a comment. The reader refuses anything else with the line and column.
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace exprc {

struct SourceLocation {
  int line = 0;
  int column = 0;
};

// A value at run time: every number is a double; `is_float` is its type in the language.
struct Value {
  double number = 0;
  bool is_float = false;
};

struct Expr {
  enum class Kind { Number, Name, Negate, Binary, Call };
  Kind kind = Kind::Number;
  char op = 0;      // Binary: one of + - * /
  Value number;     // Number
  std::string name; // Name (a parameter) or Call (a builtin)
  std::vector<Expr> operands;
  SourceLocation at;
};

struct Function {
  std::string name;
  std::vector<std::string> params;
  Expr body;
  int line = 0;
  std::string text; // the source line, for stacks and messages
};

struct Call {
  std::string function;
  std::vector<Value> args;
  int line = 0;
  std::string text;
};

struct Program {
  std::vector<Function> functions;
  std::vector<Call> calls;
};

struct SyntaxError {
  std::string message;
  SourceLocation at;
};

std::variant<Program, SyntaxError> parse_program(std::string_view text);

// Evaluates `f` on `args` by walking its tree: how calls run when exprc cannot compile them.
Value interpret(const Function& f, const std::vector<Value>& args);

} // namespace exprc
