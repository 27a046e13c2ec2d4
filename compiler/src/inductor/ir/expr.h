// inductor/ir: Expr, the integer index expressions of the loop IR: sums of products of loop
// variables (x0, r0, ...), size symbols (s0, ...), floor divisions and modulos, with integer
// coefficients. An Expr is kept in one canonical form (sorted terms, like terms combined), so
// equal expressions compare equal and hash alike, and the simplifications views need happen as
// expressions are built:
//   floordiv(q*d + r, d) = q and mod(q*d + r, d) = r   when 0 <= r < d is provable,
//   d*floordiv(e, d) + mod(e, d) = e                    (also through floordiv(e, p)),
//   floordiv(floordiv(e, a), b) = floordiv(e, a*b).
// So a flatten followed by an unflatten, or the contiguous index of a reshaped buffer, folds
// back to plain affine expressions, and generated loops do no per-element division.
//
// Every index the IR computes is non-negative (loop variables from 0, positive strides, clamped
// or masked reads), so floor division and C division agree; the printer writes C's / and %.
// The simplifications keep that true of every dividend: multiples split off a floordiv or mod
// only when what is left is non-negative too (a slice's negative offset keeps them inside).
#pragma once

#include "compiler/core/sym_int.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace compiler::inductor {

struct ExprNode;

// A loop variable: prefix 'x' (the iteration space of a kernel or a buffer) or 'r' (a
// reduction's), and a number.
struct VarId {
  char prefix = 'x';
  std::int32_t index = 0;
  friend bool operator==(const VarId&, const VarId&) = default;
  friend auto operator<=>(const VarId&, const VarId&) = default;
};

class Expr {
public:
  Expr() = default;         // 0
  Expr(std::int64_t value); // NOLINT: a constant converts implicitly
  Expr(int value) : Expr(static_cast<std::int64_t>(value)) {} // NOLINT
  // A loop variable ranging over [0, extent).
  static Expr var(VarId id, const Expr& extent);
  static Expr var(char prefix, std::int32_t index, const Expr& extent) {
    return var(VarId{prefix, index}, extent);
  }
  // The size symbol s<id>.
  static Expr symbol(std::int64_t id);
  // A SymInt (concrete or an expression over size symbols).
  static Expr from_sym(const SymInt& s);

  friend Expr operator+(const Expr& a, const Expr& b);
  friend Expr operator-(const Expr& a, const Expr& b);
  friend Expr operator*(const Expr& a, const Expr& b);
  Expr operator-() const;
  // Floor division and modulo by a positive divisor.
  static Expr floordiv(const Expr& a, const Expr& d);
  static Expr mod(const Expr& a, const Expr& d);

  bool is_zero() const noexcept { return node_ == nullptr; }
  bool is_constant() const noexcept;
  // The value of a constant expression (0 for any other).
  std::int64_t constant_value() const noexcept;
  // The variable when the expression is exactly one variable.
  std::optional<VarId> as_var() const noexcept;

  friend bool operator==(const Expr& a, const Expr& b) noexcept;
  friend bool operator<(const Expr& a, const Expr& b) noexcept; // a total order
  std::size_t hash() const noexcept;

  // C-like text: "16*x1 + x0 + 3", "(x0 / 16)", "(x0 % 16)", "s0".
  std::string str() const;

  // Whether variable v appears anywhere (also inside a division).
  bool depends_on(VarId v) const;
  // Whether any variable with this prefix appears.
  bool depends_on_prefix(char prefix) const;
  // Every variable that appears, sorted.
  std::vector<VarId> vars() const;
  // Every size symbol that appears.
  std::vector<std::int64_t> symbols() const;
  // The coefficient of v when the expression is affine in v (v appears only as a factor of
  // terms that have no other variable and no division involving v); nullopt otherwise.
  std::optional<Expr> stride(VarId v) const;
  // Whether a floor division or modulo involves variable v.
  bool divides_var(VarId v) const;

  // Replaces variables by expressions.
  Expr substitute(const std::map<VarId, Expr>& values) const;
  // The value with symbols from `symbols` (s<i> = symbols[i]) and variables from `vars`.
  std::int64_t evaluate(std::span<const std::int64_t> symbols,
                        const std::map<VarId, std::int64_t>& vars = {}) const;

  // Structure, for code generators that emit expressions themselves.
  struct Atom;
  struct Term {
    std::int64_t coeff = 0;
    std::vector<std::shared_ptr<const Atom>> factors; // sorted; empty for the constant term
  };
  const std::vector<Term>& terms() const noexcept;

  // Internal: wraps a canonical node.
  explicit Expr(std::shared_ptr<const ExprNode> node) : node_(std::move(node)) {}

private:
  std::shared_ptr<const ExprNode> node_;
};

// One factor of a term.
struct Expr::Atom {
  enum class Kind : std::uint8_t { Var, Symbol, FloorDiv, Mod } kind = Kind::Var;
  VarId var;               // Var
  std::int64_t symbol = 0; // Symbol
  Expr a;                  // FloorDiv / Mod: the dividend; Var: the extent
  Expr b;                  // FloorDiv / Mod: the divisor
};

struct ExprNode {
  std::vector<Expr::Term> terms; // sorted, non-zero coefficients
};

// The product of `sizes`.
Expr product(std::span<const Expr> sizes);
// Contiguous (row-major) strides for `sizes`.
std::vector<Expr> contiguous_strides(std::span<const Expr> sizes);
// sum(index[i] * strides[i]).
Expr dot(std::span<const Expr> index, std::span<const Expr> strides);
// The multi-index of linear position `linear` in row-major `sizes`.
std::vector<Expr> delinearize(const Expr& linear, std::span<const Expr> sizes);

struct ExprHash {
  std::size_t operator()(const Expr& e) const noexcept { return e.hash(); }
};

} // namespace compiler::inductor
