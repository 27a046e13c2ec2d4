#include "syntax.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <system_error>

namespace exprc {

namespace {

// Deeper trees are refused rather than risking the stack on a hostile file: the parser, the
// checks, the lowering and the interpreter all recurse over the tree.
constexpr int kMaxDepth = 1000;

class LineParser {
public:
  LineParser(std::string_view line, int line_number) : text_(line), line_(line_number) {}

  bool parse(Program& program) {
    skip_space();
    if (at_end()) {
      return true;
    }
    std::string keyword;
    if (!identifier(keyword)) {
      return false;
    }
    if (keyword == "fn") {
      return function(program);
    }
    if (keyword == "call") {
      return call(program);
    }
    return fail("expected 'fn' or 'call'");
  }

  SyntaxError error() const { return error_; }

private:
  bool at_end() const { return pos_ >= text_.size() || text_[pos_] == '#'; }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) {
      ++pos_;
    }
  }

  SourceLocation here() const { return {line_, static_cast<int>(pos_) + 1}; }

  bool fail(std::string message) {
    error_ = {std::move(message), here()};
    return false;
  }

  bool expect(char c) {
    skip_space();
    if (peek() != c) {
      return fail(std::string("expected '") + c + "'");
    }
    ++pos_;
    return true;
  }

  bool identifier(std::string& out) {
    skip_space();
    const std::size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      ++pos_;
    }
    if (pos_ == start || std::isdigit(static_cast<unsigned char>(text_[start]))) {
      pos_ = start;
      return fail("expected a name");
    }
    out.assign(text_.substr(start, pos_ - start));
    return true;
  }

  bool number(Value& out) {
    skip_space();
    const std::size_t start = pos_;
    if (peek() == '-') {
      ++pos_;
    }
    while (pos_ < text_.size() &&
           (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.')) {
      out.is_float = out.is_float || text_[pos_] == '.';
      ++pos_;
    }
    const auto res = std::from_chars(text_.data() + start, text_.data() + pos_, out.number);
    if (res.ec != std::errc() || res.ptr != text_.data() + pos_ || !std::isfinite(out.number)) {
      pos_ = start;
      return fail("expected a number");
    }
    return true;
  }

  // Reads `item, item, ...)` after an opening parenthesis: none or more items, no trailing comma.
  template <class Item>
  bool list(Item&& item) {
    skip_space();
    if (peek() == ')') {
      ++pos_;
      return true;
    }
    for (;;) {
      if (!item()) {
        return false;
      }
      skip_space();
      if (peek() == ')') {
        ++pos_;
        return true;
      }
      if (peek() != ',') {
        return fail("expected ',' or ')'");
      }
      ++pos_;
    }
  }

  bool end_of_statement() {
    skip_space();
    return at_end() || fail("unexpected text after the statement");
  }

  bool function(Program& program) {
    Function f;
    f.line = line_;
    f.text = std::string(text_);
    const bool signature = identifier(f.name) && expect('(') && list([&] {
                             f.params.emplace_back();
                             return identifier(f.params.back());
                           });
    if (!signature || !expect('=') || !expression(f.body, 0) || !end_of_statement()) {
      return false;
    }
    program.functions.push_back(std::move(f));
    return true;
  }

  bool call(Program& program) {
    Call c;
    c.line = line_;
    c.text = std::string(text_);
    const bool parsed = identifier(c.function) && expect('(') && list([&] {
                          c.args.emplace_back();
                          return number(c.args.back());
                        });
    if (!parsed || !end_of_statement()) {
      return false;
    }
    program.calls.push_back(std::move(c));
    return true;
  }

  // expression := term (('+' | '-') term)*
  bool expression(Expr& out, int depth) { return binary(out, depth, "+-"); }

  // term := unary (('*' | '/') unary)*
  bool binary(Expr& out, int depth, std::string_view ops) {
    const bool additive = ops == "+-";
    if (!(additive ? binary(out, depth, "*/") : unary(out, depth))) {
      return false;
    }
    for (;;) {
      skip_space();
      const char op = peek();
      if (op == '\0' || ops.find(op) == std::string_view::npos) {
        return true;
      }
      Expr node;
      node.kind = Expr::Kind::Binary;
      node.op = op;
      node.at = here();
      ++pos_;
      Expr rhs;
      if (!(additive ? binary(rhs, depth, "*/") : unary(rhs, depth))) {
        return false;
      }
      node.operands.push_back(std::move(out));
      node.operands.push_back(std::move(rhs));
      out = std::move(node);
      // Each operator of a chain (a + b + c ...) deepens the tree by one.
      if (++depth > kMaxDepth) {
        return fail("expression nested too deeply");
      }
    }
  }

  bool unary(Expr& out, int depth) {
    if (depth > kMaxDepth) {
      return fail("expression nested too deeply");
    }
    skip_space();
    out.at = here();
    const char c = peek();
    if (c == '-') {
      ++pos_;
      out.kind = Expr::Kind::Negate;
      out.operands.emplace_back();
      return unary(out.operands.back(), depth + 1);
    }
    if (c == '(') {
      ++pos_;
      return expression(out, depth + 1) && expect(')');
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      out.kind = Expr::Kind::Number;
      return number(out.number);
    }
    if (!identifier(out.name)) {
      return fail("expected an operand");
    }
    skip_space();
    if (peek() != '(') {
      out.kind = Expr::Kind::Name;
      return true;
    }
    ++pos_;
    out.kind = Expr::Kind::Call;
    return list([&] {
      out.operands.emplace_back();
      return expression(out.operands.back(), depth + 1);
    });
  }

  std::string_view text_;
  int line_;
  std::size_t pos_ = 0;
  SyntaxError error_;
};

// The names an expression may use, checked once the whole function is read.
bool check_names(const Expr& e, const Function& f, SyntaxError& error) {
  if (e.kind == Expr::Kind::Name) {
    for (const std::string& p : f.params) {
      if (p == e.name) {
        return true;
      }
    }
    error = {"'" + e.name + "' is not a parameter of " + f.name, e.at};
    return false;
  }
  if (e.kind == Expr::Kind::Call) {
    const std::size_t arity = e.name == "sqrt" ? 1 : e.name == "pow" ? 2 : 0;
    if (arity == 0 || e.operands.size() != arity) {
      error = {"unknown function '" + e.name +
                   "' or wrong number of arguments (sqrt(x) and "
                   "pow(x, n) exist)",
               e.at};
      return false;
    }
  }
  for (const Expr& operand : e.operands) {
    if (!check_names(operand, f, error)) {
      return false;
    }
  }
  return true;
}

Value eval(const Expr& e, const Function& f, const std::vector<Value>& args) {
  switch (e.kind) {
  case Expr::Kind::Number:
    return e.number;
  case Expr::Kind::Name:
    for (std::size_t i = 0; i < f.params.size(); ++i) {
      if (f.params[i] == e.name) {
        return args[i];
      }
    }
    return {};
  case Expr::Kind::Negate: {
    const Value v = eval(e.operands[0], f, args);
    return {-v.number, v.is_float};
  }
  case Expr::Kind::Binary: {
    const Value a = eval(e.operands[0], f, args);
    const Value b = eval(e.operands[1], f, args);
    switch (e.op) {
    case '+':
      return {a.number + b.number, a.is_float || b.is_float};
    case '-':
      return {a.number - b.number, a.is_float || b.is_float};
    case '*':
      return {a.number * b.number, a.is_float || b.is_float};
    default:
      return {a.number / b.number, true};
    }
  }
  case Expr::Kind::Call: {
    const Value x = eval(e.operands[0], f, args);
    if (e.name == "sqrt") {
      return {std::sqrt(x.number), true};
    }
    return {std::pow(x.number, eval(e.operands[1], f, args).number), true};
  }
  }
  return {};
}

} // namespace

std::variant<Program, SyntaxError> parse_program(std::string_view text) {
  Program program;
  int line_number = 0;
  while (!text.empty()) {
    ++line_number;
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    LineParser parser(line, line_number);
    if (!parser.parse(program)) {
      return parser.error();
    }
  }
  for (const Function& f : program.functions) {
    SyntaxError error;
    if (!check_names(f.body, f, error)) {
      return error;
    }
  }
  return program;
}

Value interpret(const Function& f, const std::vector<Value>& args) {
  return eval(f.body, f, args);
}

} // namespace exprc
