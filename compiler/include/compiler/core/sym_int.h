// compiler/core: SymInt, an integer that is either concrete or a symbolic expression over size
// symbols (s0, s1, ...) with a concrete hint, as PyTorch's SymInt is under dynamic shapes.
//
// Outside tracing every SymInt is concrete and everything here is plain integer arithmetic.
// While capture traces a function with dynamic sizes, tensors carry symbolic sizes; arithmetic
// on them builds expressions (s0*128) and comparisons answer from the hints but RECORD A GUARD
// through the thread's active SymGuardRecorder (the capture ShapeEnv), because C++ control flow
// that branched on the answer is only valid for inputs that give the same answer.
#pragma once

#include <cstdint>
#include <memory>
#include <source_location>
#include <span>
#include <string>

namespace compiler {

// The operators of a symbolic expression. Listed once; the printer and evaluator follow it.
enum class SymOp : std::uint8_t { Symbol, Constant, Add, Sub, Mul, FloorDiv, Mod };

// The comparison a guard records.
enum class SymCmp : std::uint8_t { Eq, Ne, Lt, Le, Gt, Ge };

// Prints "==", "!=", "<", "<=", ">", ">=".
const char* sym_cmp_name(SymCmp op) noexcept;
// The comparison that holds exactly when `op` does not (Lt -> Ge).
SymCmp sym_cmp_negate(SymCmp op) noexcept;
bool sym_cmp_eval(SymCmp op, std::int64_t lhs, std::int64_t rhs) noexcept;

// An immutable expression node. Shared between SymInts; never mutated after construction, so
// sharing across threads is safe.
class SymNode {
public:
  static std::shared_ptr<const SymNode> symbol(std::int64_t id);
  static std::shared_ptr<const SymNode> constant(std::int64_t value);
  // Builds lhs `op` rhs, folding constants and the identities x+0, x*1, x*0, x//1.
  static std::shared_ptr<const SymNode> binary(SymOp op, std::shared_ptr<const SymNode> lhs,
                                               std::shared_ptr<const SymNode> rhs);

  SymOp op() const noexcept { return op_; }
  // The symbol's id (Symbol) or the constant (Constant); 0 otherwise.
  std::int64_t value() const noexcept { return value_; }
  const std::shared_ptr<const SymNode>& lhs() const noexcept { return lhs_; }
  const std::shared_ptr<const SymNode>& rhs() const noexcept { return rhs_; }
  bool is_constant() const noexcept { return op_ == SymOp::Constant; }

  // Evaluates with `symbol_values[i]` as the value of s<i>. Symbols out of range read 0 (a bug
  // in the caller, asserted in debug builds).
  std::int64_t evaluate(std::span<const std::int64_t> symbol_values) const;
  // True when the expression mentions any symbol.
  bool has_symbols() const noexcept;
  // Largest symbol id mentioned, or -1.
  std::int64_t max_symbol() const noexcept;
  // Sympy-like text: "s0", "2*s0 + 1", "(s0//2)", "Mod(s0, 4)".
  std::string to_string() const;

  SymNode(SymOp op, std::int64_t value, std::shared_ptr<const SymNode> lhs,
          std::shared_ptr<const SymNode> rhs)
      : op_(op), value_(value), lhs_(std::move(lhs)), rhs_(std::move(rhs)) {}

private:
  SymOp op_;
  std::int64_t value_;
  std::shared_ptr<const SymNode> lhs_;
  std::shared_ptr<const SymNode> rhs_;
};

class SymInt;

// Receives the decisions made on symbolic values while tracing. The capture ShapeEnv implements
// it and installs itself for the duration of a trace (SymGuardRecorderScope).
class SymGuardRecorder {
public:
  virtual ~SymGuardRecorder() = default;
  // `lhs op rhs` evaluated to `result` on the hints; at least one side is symbolic.
  virtual void on_compare(SymCmp op, const SymInt& lhs, const SymInt& rhs, bool result) = 0;
  // The value was used as a plain integer (guard_int): it must equal its hint.
  virtual void on_specialize(const SymInt& value) = 0;
  // User code at `where` read a symbolic size (Tensor::size): the decisions that follow are
  // attributed to that line, as Dynamo attributes guards to the instruction being traced.
  virtual void on_size_read(const std::source_location& where) { (void)where; }
};

// The thread's active recorder, or nullptr.
SymGuardRecorder* active_sym_guard_recorder() noexcept;

// RAII: installs `recorder` on this thread; restores the previous one on destruction.
class SymGuardRecorderScope {
public:
  explicit SymGuardRecorderScope(SymGuardRecorder* recorder) noexcept;
  ~SymGuardRecorderScope();
  SymGuardRecorderScope(const SymGuardRecorderScope&) = delete;
  SymGuardRecorderScope& operator=(const SymGuardRecorderScope&) = delete;

private:
  SymGuardRecorder* previous_;
};

class SymInt {
public:
  SymInt(std::int64_t v = 0) noexcept : hint_(v) {} // NOLINT: implicit by design (static size)
  SymInt(std::int64_t hint, std::shared_ptr<const SymNode> node);

  bool is_symbolic() const noexcept { return node_ != nullptr; }
  // The concrete value seen while tracing (or the value).
  std::int64_t hint() const noexcept { return hint_; }
  const std::shared_ptr<const SymNode>& node() const noexcept { return node_; }
  // The expression of this value, a Constant node when concrete.
  std::shared_ptr<const SymNode> as_node() const;

  friend SymInt operator+(const SymInt& a, const SymInt& b);
  friend SymInt operator-(const SymInt& a, const SymInt& b);
  friend SymInt operator*(const SymInt& a, const SymInt& b);
  // Floor division and modulo, as Python's // and % (and sympy's FloorDiv / Mod) define them.
  friend SymInt operator/(const SymInt& a, const SymInt& b);
  friend SymInt operator%(const SymInt& a, const SymInt& b);
  SymInt& operator+=(const SymInt& b) { return *this = *this + b; }
  SymInt& operator-=(const SymInt& b) { return *this = *this - b; }
  SymInt& operator*=(const SymInt& b) { return *this = *this * b; }

  friend bool operator==(const SymInt& a, const SymInt& b) { return compare(SymCmp::Eq, a, b); }
  friend bool operator!=(const SymInt& a, const SymInt& b) { return compare(SymCmp::Ne, a, b); }
  friend bool operator<(const SymInt& a, const SymInt& b) { return compare(SymCmp::Lt, a, b); }
  friend bool operator<=(const SymInt& a, const SymInt& b) { return compare(SymCmp::Le, a, b); }
  friend bool operator>(const SymInt& a, const SymInt& b) { return compare(SymCmp::Gt, a, b); }
  friend bool operator>=(const SymInt& a, const SymInt& b) { return compare(SymCmp::Ge, a, b); }

  // Specialises: records the guard `expr == hint` (when symbolic) and returns the hint.
  std::int64_t guard_int() const;
  // "s0", "2*s0 + 1", or "8".
  std::string to_string() const;
  // True when both are the same expression (or the same constant) WITHOUT recording a guard;
  // for structural checks such as caching, never for control flow of the traced program.
  bool same_as(const SymInt& other) const;

private:
  static bool compare(SymCmp op, const SymInt& a, const SymInt& b);

  std::int64_t hint_;
  std::shared_ptr<const SymNode> node_;
};

// Python floor division and modulo on plain integers (rounding towards negative infinity).
std::int64_t floor_div(std::int64_t a, std::int64_t b) noexcept;
std::int64_t python_mod(std::int64_t a, std::int64_t b) noexcept;

} // namespace compiler
