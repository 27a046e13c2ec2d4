// Index expressions in canonical sum-of-products form (inductor/ir/expr.h).
#include "inductor/ir/expr.h"

#include "compiler/core/errors.h"

#include <algorithm>

namespace compiler::inductor {

namespace {

using Atom = Expr::Atom;
using AtomPtr = std::shared_ptr<const Atom>;
using Term = Expr::Term;

const std::vector<Term>& no_terms() {
  static const std::vector<Term> empty;
  return empty;
}

int cmp(std::int64_t a, std::int64_t b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}

int compare_expr(const Expr& a, const Expr& b);

int compare_atom(const Atom& a, const Atom& b) {
  if (a.kind != b.kind) {
    return cmp(static_cast<int>(a.kind), static_cast<int>(b.kind));
  }
  switch (a.kind) {
  case Atom::Kind::Var:
    if (a.var.prefix != b.var.prefix) {
      return cmp(a.var.prefix, b.var.prefix);
    }
    return cmp(a.var.index, b.var.index);
  case Atom::Kind::Symbol:
    return cmp(a.symbol, b.symbol);
  case Atom::Kind::FloorDiv:
  case Atom::Kind::Mod:
    if (int c = compare_expr(a.a, b.a); c != 0) {
      return c;
    }
    return compare_expr(a.b, b.b);
  }
  return 0;
}

int compare_factors(const std::vector<AtomPtr>& a, const std::vector<AtomPtr>& b) {
  if (a.size() != b.size()) {
    return cmp(static_cast<std::int64_t>(a.size()), static_cast<std::int64_t>(b.size()));
  }
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (int c = compare_atom(*a[i], *b[i]); c != 0) {
      return c;
    }
  }
  return 0;
}

int compare_expr(const Expr& a, const Expr& b) {
  const std::vector<Term>& ta = a.terms();
  const std::vector<Term>& tb = b.terms();
  if (ta.size() != tb.size()) {
    return cmp(static_cast<std::int64_t>(ta.size()), static_cast<std::int64_t>(tb.size()));
  }
  for (std::size_t i = 0; i < ta.size(); ++i) {
    if (int c = compare_factors(ta[i].factors, tb[i].factors); c != 0) {
      return c;
    }
    if (ta[i].coeff != tb[i].coeff) {
      return cmp(ta[i].coeff, tb[i].coeff);
    }
  }
  return 0;
}

Expr from_terms(std::vector<Term> terms);

// The term's coefficient and factors other than factor `skip`, as an expression.
Expr term_without(const Term& t, std::size_t skip) {
  Term rest{t.coeff, {}};
  for (std::size_t i = 0; i < t.factors.size(); ++i) {
    if (i != skip) {
      rest.factors.push_back(t.factors[i]);
    }
  }
  return from_terms({rest});
}

Expr atom_expr(AtomPtr a) {
  return from_terms({Term{1, {std::move(a)}}});
}

// d*floordiv(e, p*d) + mod(floordiv(e, p), d) = floordiv(e, p), p = 1 included (then
// d*floordiv(e, d) + mod(e, d) = e), with any common factor on both terms. Returns true and
// rewrites `terms` when it applied once.
bool recombine_once(std::vector<Term>& terms) {
  for (std::size_t j = 0; j < terms.size(); ++j) {
    for (std::size_t jf = 0; jf < terms[j].factors.size(); ++jf) {
      const Atom& m = *terms[j].factors[jf];
      if (m.kind != Atom::Kind::Mod) {
        continue;
      }
      // m = mod(f, D), f = floordiv(e, P) or f = e (P = 1).
      const Expr& f = m.a;
      const Expr& d = m.b;
      Expr e = f;
      Expr p = 1;
      if (f.terms().size() == 1 && f.terms()[0].coeff == 1 && f.terms()[0].factors.size() == 1 &&
          f.terms()[0].factors[0]->kind == Atom::Kind::FloorDiv) {
        e = f.terms()[0].factors[0]->a;
        p = f.terms()[0].factors[0]->b;
      }
      const Expr divisor = p * d;
      const Expr rest_j = term_without(terms[j], jf);
      const Expr want = rest_j * d;
      for (std::size_t i = 0; i < terms.size(); ++i) {
        if (i == j) {
          continue;
        }
        for (std::size_t if_ = 0; if_ < terms[i].factors.size(); ++if_) {
          const Atom& q = *terms[i].factors[if_];
          if (q.kind != Atom::Kind::FloorDiv || !(q.a == e) || !(q.b == divisor)) {
            continue;
          }
          if (!(term_without(terms[i], if_) == want)) {
            continue;
          }
          const Expr replacement = rest_j * f;
          std::vector<Term> next;
          for (std::size_t k = 0; k < terms.size(); ++k) {
            if (k != i && k != j) {
              next.push_back(terms[k]);
            }
          }
          for (const Term& t : replacement.terms()) {
            next.push_back(t);
          }
          terms = std::move(next);
          return true;
        }
      }
    }
  }
  return false;
}

// Sorts, combines like terms, drops zeros, then recombines divisions.
Expr from_terms(std::vector<Term> terms) {
  for (;;) {
    for (Term& t : terms) {
      std::sort(t.factors.begin(), t.factors.end(),
                [](const AtomPtr& a, const AtomPtr& b) { return compare_atom(*a, *b) < 0; });
    }
    std::sort(terms.begin(), terms.end(), [](const Term& a, const Term& b) {
      return compare_factors(a.factors, b.factors) < 0;
    });
    std::vector<Term> merged;
    for (Term& t : terms) {
      if (!merged.empty() && compare_factors(merged.back().factors, t.factors) == 0) {
        merged.back().coeff += t.coeff;
      } else {
        merged.push_back(std::move(t));
      }
    }
    std::erase_if(merged, [](const Term& t) { return t.coeff == 0; });
    terms = std::move(merged);
    bool has_mod = false;
    for (const Term& t : terms) {
      for (const AtomPtr& a : t.factors) {
        has_mod = has_mod || a->kind == Atom::Kind::Mod;
      }
    }
    if (!has_mod || !recombine_once(terms)) {
      break;
    }
  }
  if (terms.empty()) {
    return Expr();
  }
  auto node = std::make_shared<ExprNode>();
  node->terms = std::move(terms);
  return Expr(std::shared_ptr<const ExprNode>(std::move(node)));
}

bool atom_nonneg(const Atom& a);

// Every term has a positive coefficient over non-negative factors.
bool nonneg(const Expr& e) {
  for (const Term& t : e.terms()) {
    if (t.coeff < 0) {
      return false;
    }
    for (const AtomPtr& a : t.factors) {
      if (!atom_nonneg(*a)) {
        return false;
      }
    }
  }
  return true;
}

bool atom_nonneg(const Atom& a) {
  switch (a.kind) {
  case Atom::Kind::Var:
  case Atom::Kind::Symbol:
  case Atom::Kind::Mod:
    return true;
  case Atom::Kind::FloorDiv:
    return nonneg(a.a);
  }
  return false;
}

std::optional<Expr> upper_bound(const Expr& e);

std::optional<Expr> atom_upper_bound(const Atom& a) {
  switch (a.kind) {
  case Atom::Kind::Var:
    return a.a - 1;
  case Atom::Kind::Symbol:
    return atom_expr(std::make_shared<Atom>(a));
  case Atom::Kind::Mod:
    return a.b - 1;
  case Atom::Kind::FloorDiv: {
    std::optional<Expr> u = upper_bound(a.a);
    if (!u) {
      return std::nullopt;
    }
    return a.b.is_constant() ? Expr::floordiv(*u, a.b) : *u;
  }
  }
  return std::nullopt;
}

// An expression no smaller than `e` for every value of its variables, when `e` is
// non-negative with non-negative terms.
std::optional<Expr> upper_bound(const Expr& e) {
  if (!nonneg(e)) {
    return std::nullopt;
  }
  Expr total;
  for (const Term& t : e.terms()) {
    Expr product = t.coeff;
    for (const AtomPtr& a : t.factors) {
      std::optional<Expr> u = atom_upper_bound(*a);
      if (!u) {
        return std::nullopt;
      }
      product = product * *u;
    }
    total = total + product;
  }
  return total;
}

// e >= 0 for every value of the size symbols (each at least 1): every non-constant term is a
// positive multiple of symbols only, and the constant term does not outweigh them at 1.
bool provably_nonneg_over_symbols(const Expr& e) {
  std::int64_t at_one = 0;
  for (const Term& t : e.terms()) {
    if (t.factors.empty()) {
      at_one += t.coeff;
      continue;
    }
    if (t.coeff < 0) {
      return false;
    }
    for (const AtomPtr& a : t.factors) {
      if (a->kind != Atom::Kind::Symbol) {
        return false;
      }
    }
    at_one += t.coeff;
  }
  return at_one >= 0;
}

// 0 <= r < d for every value of r's variables.
bool provably_in_range(const Expr& r, const Expr& d) {
  if (!nonneg(r)) {
    return false;
  }
  std::optional<Expr> u = upper_bound(r);
  return u && provably_nonneg_over_symbols(d - 1 - *u);
}

// Splits `a` into q*d + rest where every term of q*d is an exact multiple of d (a constant or
// a single-term divisor such as 16*s0).
void split_multiples(const Expr& a, const Expr& d, Expr& quotient, Expr& rest) {
  quotient = Expr();
  rest = Expr();
  const std::vector<Term>& dt = d.terms();
  const bool simple = dt.size() == 1 && dt[0].coeff > 0;
  for (const Term& t : a.terms()) {
    bool divides = false;
    Term q = t;
    if (simple && t.coeff % dt[0].coeff == 0) {
      // Remove d's factors (a sub-multiset of t's) from t.
      std::vector<AtomPtr> left = t.factors;
      divides = true;
      for (const AtomPtr& f : dt[0].factors) {
        auto it = std::find_if(left.begin(), left.end(),
                               [&](const AtomPtr& x) { return compare_atom(*x, *f) == 0; });
        if (it == left.end()) {
          divides = false;
          break;
        }
        left.erase(it);
      }
      q.coeff = t.coeff / dt[0].coeff;
      q.factors = std::move(left);
    }
    if (divides) {
      quotient = quotient + from_terms({q});
    } else {
      rest = rest + from_terms({t});
    }
  }
}

std::size_t combine_hash(std::size_t seed, std::size_t v) {
  return seed ^ (v + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

std::size_t atom_hash(const Atom& a) {
  std::size_t h = static_cast<std::size_t>(a.kind) + 1;
  switch (a.kind) {
  case Atom::Kind::Var:
    return combine_hash(h, static_cast<std::size_t>(a.var.prefix) * 131 +
                               static_cast<std::size_t>(a.var.index));
  case Atom::Kind::Symbol:
    return combine_hash(h, static_cast<std::size_t>(a.symbol));
  case Atom::Kind::FloorDiv:
  case Atom::Kind::Mod:
    return combine_hash(combine_hash(h, a.a.hash()), a.b.hash());
  }
  return h;
}

std::string atom_str(const Atom& a) {
  switch (a.kind) {
  case Atom::Kind::Var:
    return std::string(1, a.var.prefix) + std::to_string(a.var.index);
  case Atom::Kind::Symbol:
    return "s" + std::to_string(a.symbol);
  case Atom::Kind::FloorDiv:
    return "(" + a.a.str() + " / " + a.b.str() + ")";
  case Atom::Kind::Mod:
    return "(" + a.a.str() + " % " + a.b.str() + ")";
  }
  return "?";
}

void collect(const Expr& e, std::vector<VarId>* vars, std::vector<std::int64_t>* syms) {
  for (const Term& t : e.terms()) {
    for (const AtomPtr& a : t.factors) {
      switch (a->kind) {
      case Atom::Kind::Var:
        if (vars != nullptr && std::find(vars->begin(), vars->end(), a->var) == vars->end()) {
          vars->push_back(a->var);
        }
        break;
      case Atom::Kind::Symbol:
        if (syms != nullptr && std::find(syms->begin(), syms->end(), a->symbol) == syms->end()) {
          syms->push_back(a->symbol);
        }
        break;
      case Atom::Kind::FloorDiv:
      case Atom::Kind::Mod:
        collect(a->a, vars, syms);
        collect(a->b, vars, syms);
        break;
      }
    }
  }
}

} // namespace

// ---------------------------------------------------------------- construction

Expr::Expr(std::int64_t value) {
  if (value != 0) {
    *this = from_terms({Term{value, {}}});
  }
}

Expr Expr::var(VarId id, const Expr& extent) {
  auto a = std::make_shared<Atom>();
  a->kind = Atom::Kind::Var;
  a->var = id;
  a->a = extent;
  return atom_expr(std::move(a));
}

Expr Expr::symbol(std::int64_t id) {
  auto a = std::make_shared<Atom>();
  a->kind = Atom::Kind::Symbol;
  a->symbol = id;
  return atom_expr(std::move(a));
}

Expr Expr::from_sym(const SymInt& s) {
  if (!s.is_symbolic()) {
    return Expr(s.hint());
  }
  std::function<Expr(const SymNode&)> conv = [&](const SymNode& n) -> Expr {
    switch (n.op()) {
    case SymOp::Symbol:
      return symbol(n.value());
    case SymOp::Constant:
      return Expr(n.value());
    case SymOp::Add:
      return conv(*n.lhs()) + conv(*n.rhs());
    case SymOp::Sub:
      return conv(*n.lhs()) - conv(*n.rhs());
    case SymOp::Mul:
      return conv(*n.lhs()) * conv(*n.rhs());
    case SymOp::FloorDiv:
      return floordiv(conv(*n.lhs()), conv(*n.rhs()));
    case SymOp::Mod:
      return mod(conv(*n.lhs()), conv(*n.rhs()));
    }
    return Expr();
  };
  return conv(*s.node());
}

Expr operator+(const Expr& a, const Expr& b) {
  if (a.is_zero()) {
    return b;
  }
  if (b.is_zero()) {
    return a;
  }
  std::vector<Term> terms = a.terms();
  terms.insert(terms.end(), b.terms().begin(), b.terms().end());
  return from_terms(std::move(terms));
}

Expr Expr::operator-() const {
  std::vector<Term> terms = this->terms();
  for (Term& t : terms) {
    t.coeff = -t.coeff;
  }
  return from_terms(std::move(terms));
}

Expr operator-(const Expr& a, const Expr& b) {
  return a + (-b);
}

Expr operator*(const Expr& a, const Expr& b) {
  if (a.is_zero() || b.is_zero()) {
    return Expr();
  }
  std::vector<Term> terms;
  for (const Term& x : a.terms()) {
    for (const Term& y : b.terms()) {
      Term t{x.coeff * y.coeff, x.factors};
      t.factors.insert(t.factors.end(), y.factors.begin(), y.factors.end());
      terms.push_back(std::move(t));
    }
  }
  return from_terms(std::move(terms));
}

namespace {

// Index arithmetic divides only by sizes and products of sizes (unflattening a linear position,
// merging loops), so a zero divisor means a space with a size-0 dim: it has no elements, no
// index of it is ever evaluated, and any value serves. (A [1, 0] tensor's contiguous index
// divides by the product of the sizes right of each dim.)
Expr empty_space_index() {
  return Expr();
}

} // namespace

Expr Expr::floordiv(const Expr& a, const Expr& d) {
  if (d.is_zero()) {
    return empty_space_index();
  }
  if (d.is_constant() && d.constant_value() == 1) {
    return a;
  }
  if (a.is_constant() && d.is_constant()) {
    return Expr(floor_div(a.constant_value(), d.constant_value()));
  }
  if (a == d) {
    return Expr(1);
  }
  Expr quotient;
  Expr rest;
  split_multiples(a, d, quotient, rest);
  if (rest.is_zero() || provably_in_range(rest, d)) {
    return quotient;
  }
  // floordiv(floordiv(e, c), d) = floordiv(e, c*d).
  if (rest.terms().size() == 1 && rest.terms()[0].coeff == 1 &&
      rest.terms()[0].factors.size() == 1 &&
      rest.terms()[0].factors[0]->kind == Atom::Kind::FloorDiv) {
    const Atom& inner = *rest.terms()[0].factors[0];
    return quotient + floordiv(inner.a, inner.b * d);
  }
  auto atom = std::make_shared<Atom>();
  atom->kind = Atom::Kind::FloorDiv;
  atom->b = d;
  if (!nonneg(rest)) {
    // Generated code divides as C does (truncating), exact only for a non-negative dividend.
    // The whole index is one (the header's invariant), but the rest left after the multiples
    // can go below 0 (a slice's offset: the flattened roll's 7*x1 + x2 - 145 for x0 = 6), so
    // the multiples stay inside.
    atom->a = a;
    return atom_expr(std::move(atom));
  }
  atom->a = rest;
  return quotient + atom_expr(std::move(atom));
}

Expr Expr::mod(const Expr& a, const Expr& d) {
  if (d.is_zero()) {
    return empty_space_index();
  }
  if (d.is_constant() && d.constant_value() == 1) {
    return Expr();
  }
  if (a.is_constant() && d.is_constant()) {
    return Expr(python_mod(a.constant_value(), d.constant_value()));
  }
  Expr quotient;
  Expr rest;
  split_multiples(a, d, quotient, rest);
  if (rest.is_zero()) {
    return Expr();
  }
  if (provably_in_range(rest, d)) {
    return rest;
  }
  // mod(mod(e, c), d) = mod(e, d) when d divides c.
  if (rest.terms().size() == 1 && rest.terms()[0].coeff == 1 &&
      rest.terms()[0].factors.size() == 1 && rest.terms()[0].factors[0]->kind == Atom::Kind::Mod &&
      d.is_constant() && rest.terms()[0].factors[0]->b.is_constant() &&
      rest.terms()[0].factors[0]->b.constant_value() % d.constant_value() == 0) {
    return mod(rest.terms()[0].factors[0]->a, d);
  }
  auto atom = std::make_shared<Atom>();
  atom->kind = Atom::Kind::Mod;
  atom->a = nonneg(rest) ? rest : a; // as floordiv: C's % is exact on a non-negative dividend
  atom->b = d;
  return atom_expr(std::move(atom));
}

// ---------------------------------------------------------------- inspection

const std::vector<Expr::Term>& Expr::terms() const noexcept {
  return node_ ? node_->terms : no_terms();
}

bool Expr::is_constant() const noexcept {
  return node_ == nullptr || (node_->terms.size() == 1 && node_->terms[0].factors.empty());
}

std::int64_t Expr::constant_value() const noexcept {
  return is_constant() && node_ != nullptr ? node_->terms[0].coeff : 0;
}

std::optional<VarId> Expr::as_var() const noexcept {
  if (node_ == nullptr || node_->terms.size() != 1) {
    return std::nullopt;
  }
  const Term& t = node_->terms[0];
  if (t.coeff != 1 || t.factors.size() != 1 || t.factors[0]->kind != Atom::Kind::Var) {
    return std::nullopt;
  }
  return t.factors[0]->var;
}

bool operator==(const Expr& a, const Expr& b) noexcept {
  return a.node_ == b.node_ || compare_expr(a, b) == 0;
}

bool operator<(const Expr& a, const Expr& b) noexcept {
  return compare_expr(a, b) < 0;
}

std::size_t Expr::hash() const noexcept {
  std::size_t h = 17;
  for (const Term& t : terms()) {
    h = combine_hash(h, static_cast<std::size_t>(t.coeff));
    for (const AtomPtr& a : t.factors) {
      h = combine_hash(h, atom_hash(*a));
    }
  }
  return h;
}

std::string Expr::str() const {
  if (node_ == nullptr) {
    return "0";
  }
  std::string out;
  std::int64_t constant = 0;
  for (const Term& t : node_->terms) {
    if (t.factors.empty()) {
      constant = t.coeff;
      continue;
    }
    std::string factors;
    for (const AtomPtr& a : t.factors) {
      factors += (factors.empty() ? "" : "*") + atom_str(*a);
    }
    if (out.empty()) {
      out += t.coeff == 1 ? "" : (t.coeff == -1 ? "-" : std::to_string(t.coeff) + "*");
    } else if (t.coeff < 0) {
      out += " - " + (t.coeff == -1 ? std::string() : std::to_string(-t.coeff) + "*");
    } else {
      out += " + " + (t.coeff == 1 ? std::string() : std::to_string(t.coeff) + "*");
    }
    out += factors;
  }
  if (constant != 0 || out.empty()) {
    if (out.empty()) {
      out = std::to_string(constant);
    } else {
      out += constant < 0 ? " - " + std::to_string(-constant) : " + " + std::to_string(constant);
    }
  }
  return out;
}

bool Expr::depends_on(VarId v) const {
  std::vector<VarId> vs = vars();
  return std::find(vs.begin(), vs.end(), v) != vs.end();
}

bool Expr::depends_on_prefix(char prefix) const {
  for (const VarId& v : vars()) {
    if (v.prefix == prefix) {
      return true;
    }
  }
  return false;
}

std::vector<VarId> Expr::vars() const {
  std::vector<VarId> out;
  collect(*this, &out, nullptr);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::int64_t> Expr::symbols() const {
  std::vector<std::int64_t> out;
  collect(*this, nullptr, &out);
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<Expr> Expr::stride(VarId v) const {
  Expr total;
  for (const Term& t : terms()) {
    int count = 0;
    Term rest{t.coeff, {}};
    for (const AtomPtr& a : t.factors) {
      if (a->kind == Atom::Kind::Var && a->var == v) {
        ++count;
        continue;
      }
      if ((a->kind == Atom::Kind::FloorDiv || a->kind == Atom::Kind::Mod) &&
          (a->a.depends_on(v) || a->b.depends_on(v))) {
        return std::nullopt;
      }
      rest.factors.push_back(a);
    }
    if (count > 1) {
      return std::nullopt;
    }
    if (count == 1) {
      for (const AtomPtr& a : rest.factors) {
        if (a->kind != Atom::Kind::Symbol) {
          return std::nullopt; // the stride would vary with another variable
        }
      }
      total = total + from_terms({rest});
    }
  }
  return total;
}

bool Expr::divides_var(VarId v) const {
  for (const Term& t : terms()) {
    for (const AtomPtr& a : t.factors) {
      if ((a->kind == Atom::Kind::FloorDiv || a->kind == Atom::Kind::Mod) &&
          (a->a.depends_on(v) || a->b.depends_on(v))) {
        return true;
      }
    }
  }
  return false;
}

Expr Expr::substitute(const std::map<VarId, Expr>& values) const {
  Expr out;
  for (const Term& t : terms()) {
    Expr product = t.coeff;
    for (const AtomPtr& a : t.factors) {
      switch (a->kind) {
      case Atom::Kind::Var: {
        auto it = values.find(a->var);
        product = product * (it != values.end() ? it->second : atom_expr(a));
        break;
      }
      case Atom::Kind::Symbol:
        product = product * atom_expr(a);
        break;
      case Atom::Kind::FloorDiv:
        product = product * floordiv(a->a.substitute(values), a->b.substitute(values));
        break;
      case Atom::Kind::Mod:
        product = product * mod(a->a.substitute(values), a->b.substitute(values));
        break;
      }
    }
    out = out + product;
  }
  return out;
}

std::int64_t Expr::evaluate(std::span<const std::int64_t> symbols,
                            const std::map<VarId, std::int64_t>& vars) const {
  std::int64_t total = 0;
  for (const Term& t : terms()) {
    std::int64_t product = t.coeff;
    for (const AtomPtr& a : t.factors) {
      switch (a->kind) {
      case Atom::Kind::Var: {
        auto it = vars.find(a->var);
        TORCHSCOPE_ASSERT(it != vars.end(), "evaluating an index with an unbound variable");
        product *= it->second;
        break;
      }
      case Atom::Kind::Symbol:
        TORCHSCOPE_ASSERT(a->symbol >= 0 && static_cast<std::size_t>(a->symbol) < symbols.size(),
                          "evaluating an index with an unknown size symbol");
        product *= symbols[static_cast<std::size_t>(a->symbol)];
        break;
      case Atom::Kind::FloorDiv:
        product *= floor_div(a->a.evaluate(symbols, vars), a->b.evaluate(symbols, vars));
        break;
      case Atom::Kind::Mod:
        product *= python_mod(a->a.evaluate(symbols, vars), a->b.evaluate(symbols, vars));
        break;
      }
    }
    total += product;
  }
  return total;
}

// ---------------------------------------------------------------- helpers

Expr product(std::span<const Expr> sizes) {
  Expr p = 1;
  for (const Expr& s : sizes) {
    p = p * s;
  }
  return p;
}

std::vector<Expr> contiguous_strides(std::span<const Expr> sizes) {
  std::vector<Expr> strides(sizes.size());
  Expr running = 1;
  for (std::size_t i = sizes.size(); i-- > 0;) {
    strides[i] = running;
    running = running * sizes[i];
  }
  return strides;
}

Expr dot(std::span<const Expr> index, std::span<const Expr> strides) {
  TORCHSCOPE_ASSERT(index.size() == strides.size(), "index and strides differ in rank");
  Expr total;
  for (std::size_t i = 0; i < index.size(); ++i) {
    total = total + index[i] * strides[i];
  }
  return total;
}

std::vector<Expr> delinearize(const Expr& linear, std::span<const Expr> sizes) {
  std::vector<Expr> index(sizes.size());
  Expr divisor = 1;
  for (std::size_t i = sizes.size(); i-- > 0;) {
    const Expr q = Expr::floordiv(linear, divisor);
    index[i] = i == 0 ? q : Expr::mod(q, sizes[i]);
    divisor = divisor * sizes[i];
  }
  return index;
}

} // namespace compiler::inductor
