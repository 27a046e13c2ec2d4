// SymInt and SymNode: expression building with light canonicalisation (so printed guards read
// like sympy's: "2*s0 + 1"), evaluation, and guard recording on comparisons.
#include "compiler/core/sym_int.h"

#include <algorithm>
#include <cassert>
#include <utility>

namespace compiler {

namespace {

thread_local SymGuardRecorder* t_recorder = nullptr;

using NodePtr = std::shared_ptr<const SymNode>;

std::int64_t apply(SymOp op, std::int64_t a, std::int64_t b) noexcept {
  switch (op) {
  case SymOp::Add:
    return a + b;
  case SymOp::Sub:
    return a - b;
  case SymOp::Mul:
    return a * b;
  case SymOp::FloorDiv:
    return floor_div(a, b);
  case SymOp::Mod:
    return python_mod(a, b);
  case SymOp::Symbol:
  case SymOp::Constant:
    break;
  }
  assert(false && "apply() on a leaf operator");
  return 0;
}

bool is_const(const NodePtr& n, std::int64_t v) {
  return n->is_constant() && n->value() == v;
}

// Binding strength for the printer: sums bind loosest.
int precedence(const SymNode& n) {
  switch (n.op()) {
  case SymOp::Add:
  case SymOp::Sub:
    return 1;
  case SymOp::Mul:
    return 2;
  default:
    return 3;
  }
}

void print(const SymNode& n, std::string& out);

void print_operand(const SymNode& n, int min_precedence, std::string& out) {
  if (precedence(n) < min_precedence) {
    out += '(';
    print(n, out);
    out += ')';
  } else {
    print(n, out);
  }
}

void print(const SymNode& n, std::string& out) {
  switch (n.op()) {
  case SymOp::Symbol:
    out += 's';
    out += std::to_string(n.value());
    return;
  case SymOp::Constant:
    out += std::to_string(n.value());
    return;
  case SymOp::Add:
    // Canonical form puts the constant last: "s0 + 1", "s0 - 1".
    print_operand(*n.lhs(), 1, out);
    if (n.rhs()->is_constant() && n.rhs()->value() < 0) {
      out += " - ";
      out += std::to_string(-n.rhs()->value());
    } else {
      out += " + ";
      print_operand(*n.rhs(), 1, out);
    }
    return;
  case SymOp::Sub:
    print_operand(*n.lhs(), 1, out);
    out += " - ";
    print_operand(*n.rhs(), 2, out);
    return;
  case SymOp::Mul:
    print_operand(*n.lhs(), 2, out);
    out += '*';
    print_operand(*n.rhs(), 3, out);
    return;
  case SymOp::FloorDiv:
    out += '(';
    print_operand(*n.lhs(), 2, out);
    out += "//";
    print_operand(*n.rhs(), 3, out);
    out += ')';
    return;
  case SymOp::Mod:
    out += "Mod(";
    print(*n.lhs(), out);
    out += ", ";
    print(*n.rhs(), out);
    out += ')';
    return;
  }
}

NodePtr make(SymOp op, NodePtr lhs, NodePtr rhs) {
  return std::make_shared<const SymNode>(op, 0, std::move(lhs), std::move(rhs));
}

} // namespace

const char* sym_cmp_name(SymCmp op) noexcept {
  switch (op) {
  case SymCmp::Eq:
    return "==";
  case SymCmp::Ne:
    return "!=";
  case SymCmp::Lt:
    return "<";
  case SymCmp::Le:
    return "<=";
  case SymCmp::Gt:
    return ">";
  case SymCmp::Ge:
    return ">=";
  }
  return "?";
}

SymCmp sym_cmp_negate(SymCmp op) noexcept {
  switch (op) {
  case SymCmp::Eq:
    return SymCmp::Ne;
  case SymCmp::Ne:
    return SymCmp::Eq;
  case SymCmp::Lt:
    return SymCmp::Ge;
  case SymCmp::Le:
    return SymCmp::Gt;
  case SymCmp::Gt:
    return SymCmp::Le;
  case SymCmp::Ge:
    return SymCmp::Lt;
  }
  return op;
}

bool sym_cmp_eval(SymCmp op, std::int64_t lhs, std::int64_t rhs) noexcept {
  switch (op) {
  case SymCmp::Eq:
    return lhs == rhs;
  case SymCmp::Ne:
    return lhs != rhs;
  case SymCmp::Lt:
    return lhs < rhs;
  case SymCmp::Le:
    return lhs <= rhs;
  case SymCmp::Gt:
    return lhs > rhs;
  case SymCmp::Ge:
    return lhs >= rhs;
  }
  return false;
}

std::int64_t floor_div(std::int64_t a, std::int64_t b) noexcept {
  if (b == 0) {
    return 0; // division by zero is the caller's bug; never trap inside a guard
  }
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) {
    --q;
  }
  return q;
}

std::int64_t python_mod(std::int64_t a, std::int64_t b) noexcept {
  if (b == 0) {
    return 0;
  }
  std::int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) {
    r += b;
  }
  return r;
}

NodePtr SymNode::symbol(std::int64_t id) {
  return std::make_shared<const SymNode>(SymOp::Symbol, id, nullptr, nullptr);
}

NodePtr SymNode::constant(std::int64_t value) {
  return std::make_shared<const SymNode>(SymOp::Constant, value, nullptr, nullptr);
}

NodePtr SymNode::binary(SymOp op, NodePtr lhs, NodePtr rhs) {
  assert(lhs && rhs);
  if (lhs->is_constant() && rhs->is_constant()) {
    return constant(apply(op, lhs->value(), rhs->value()));
  }
  switch (op) {
  case SymOp::Add:
    if (is_const(rhs, 0)) {
      return lhs;
    }
    if (is_const(lhs, 0)) {
      return rhs;
    }
    if (lhs->is_constant()) {
      std::swap(lhs, rhs); // constant last
    }
    // (x + c1) + c2 -> x + (c1 + c2)
    if (rhs->is_constant() && lhs->op() == SymOp::Add && lhs->rhs()->is_constant()) {
      return binary(SymOp::Add, lhs->lhs(), constant(lhs->rhs()->value() + rhs->value()));
    }
    break;
  case SymOp::Sub:
    if (is_const(rhs, 0)) {
      return lhs;
    }
    if (rhs->is_constant()) {
      return binary(SymOp::Add, lhs, constant(-rhs->value()));
    }
    break;
  case SymOp::Mul:
    if (is_const(lhs, 0) || is_const(rhs, 0)) {
      return constant(0);
    }
    if (is_const(rhs, 1)) {
      return lhs;
    }
    if (is_const(lhs, 1)) {
      return rhs;
    }
    if (rhs->is_constant()) {
      std::swap(lhs, rhs); // constant first: "2*s0"
    }
    // c1 * (c2 * x) -> (c1*c2) * x
    if (lhs->is_constant() && rhs->op() == SymOp::Mul && rhs->lhs()->is_constant()) {
      return binary(SymOp::Mul, constant(lhs->value() * rhs->lhs()->value()), rhs->rhs());
    }
    break;
  case SymOp::FloorDiv:
    if (is_const(rhs, 1)) {
      return lhs;
    }
    break;
  case SymOp::Mod:
    if (is_const(rhs, 1)) {
      return constant(0);
    }
    break;
  case SymOp::Symbol:
  case SymOp::Constant:
    assert(false && "binary() with a leaf operator");
    break;
  }
  return make(op, std::move(lhs), std::move(rhs));
}

std::int64_t SymNode::evaluate(std::span<const std::int64_t> symbol_values) const {
  switch (op_) {
  case SymOp::Symbol:
    assert(value_ >= 0 && static_cast<std::size_t>(value_) < symbol_values.size());
    if (value_ < 0 || static_cast<std::size_t>(value_) >= symbol_values.size()) {
      return 0;
    }
    return symbol_values[static_cast<std::size_t>(value_)];
  case SymOp::Constant:
    return value_;
  default:
    return apply(op_, lhs_->evaluate(symbol_values), rhs_->evaluate(symbol_values));
  }
}

bool SymNode::has_symbols() const noexcept {
  switch (op_) {
  case SymOp::Symbol:
    return true;
  case SymOp::Constant:
    return false;
  default:
    return lhs_->has_symbols() || rhs_->has_symbols();
  }
}

std::int64_t SymNode::max_symbol() const noexcept {
  switch (op_) {
  case SymOp::Symbol:
    return value_;
  case SymOp::Constant:
    return -1;
  default:
    return std::max(lhs_->max_symbol(), rhs_->max_symbol());
  }
}

std::string SymNode::to_string() const {
  std::string out;
  print(*this, out);
  return out;
}

SymGuardRecorder* active_sym_guard_recorder() noexcept {
  return t_recorder;
}

SymGuardRecorderScope::SymGuardRecorderScope(SymGuardRecorder* recorder) noexcept
    : previous_(t_recorder) {
  t_recorder = recorder;
}

SymGuardRecorderScope::~SymGuardRecorderScope() {
  t_recorder = previous_;
}

SymInt::SymInt(std::int64_t hint, std::shared_ptr<const SymNode> node)
    : hint_(hint), node_(std::move(node)) {
  // A constant expression is just a concrete value.
  if (node_ && !node_->has_symbols()) {
    hint_ = node_->evaluate({});
    node_.reset();
  }
}

std::shared_ptr<const SymNode> SymInt::as_node() const {
  return node_ ? node_ : SymNode::constant(hint_);
}

namespace {
SymInt arith(SymOp op, const SymInt& a, const SymInt& b) {
  std::int64_t hint = apply(op, a.hint(), b.hint());
  if (!a.is_symbolic() && !b.is_symbolic()) {
    return SymInt(hint);
  }
  return SymInt(hint, SymNode::binary(op, a.as_node(), b.as_node()));
}
} // namespace

SymInt operator+(const SymInt& a, const SymInt& b) {
  return arith(SymOp::Add, a, b);
}
SymInt operator-(const SymInt& a, const SymInt& b) {
  return arith(SymOp::Sub, a, b);
}
SymInt operator*(const SymInt& a, const SymInt& b) {
  return arith(SymOp::Mul, a, b);
}
SymInt operator/(const SymInt& a, const SymInt& b) {
  return arith(SymOp::FloorDiv, a, b);
}
SymInt operator%(const SymInt& a, const SymInt& b) {
  return arith(SymOp::Mod, a, b);
}

bool SymInt::compare(SymCmp op, const SymInt& a, const SymInt& b) {
  bool result = sym_cmp_eval(op, a.hint_, b.hint_);
  if ((a.node_ || b.node_) && t_recorder != nullptr) {
    t_recorder->on_compare(op, a, b, result);
  }
  return result;
}

std::int64_t SymInt::guard_int() const {
  if (node_ && t_recorder != nullptr) {
    t_recorder->on_specialize(*this);
  }
  return hint_;
}

std::string SymInt::to_string() const {
  return node_ ? node_->to_string() : std::to_string(hint_);
}

bool SymInt::same_as(const SymInt& other) const {
  if (!node_ && !other.node_) {
    return hint_ == other.hint_;
  }
  if (!node_ || !other.node_) {
    return false;
  }
  return node_ == other.node_ || node_->to_string() == other.node_->to_string();
}

} // namespace compiler
