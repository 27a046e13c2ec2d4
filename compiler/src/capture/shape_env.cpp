// ShapeEnv: symbols, value ranges and the guards recorded on symbolic decisions.
#include "compiler/capture/shape_env.h"

#include "tracer/trace.h"
#include "tracing/event_keys.h"
#include "tracing/trace_util.h"

#include <algorithm>
#include <limits>

namespace compiler::capture {

namespace {

namespace keys = tracing::keys;

std::string range_text(std::int64_t lo, std::int64_t hi) {
  std::string out = "[" + std::to_string(lo) + ", ";
  out += hi == std::numeric_limits<std::int64_t>::max() ? "int_oo" : std::to_string(hi);
  out += "]";
  return out;
}

// The symbol id when `n` is a lone symbol, else -1.
std::int64_t lone_symbol(const SymNode& n) {
  return n.op() == SymOp::Symbol ? n.value() : -1;
}

// Renders a node with every symbol replaced by names[id].
void render(const SymNode& n, const std::vector<std::string>& names, std::string& out) {
  if (n.op() == SymOp::Symbol) {
    auto id = static_cast<std::size_t>(n.value());
    out += id < names.size() ? names[id] : "s" + std::to_string(id);
    return;
  }
  if (n.op() == SymOp::Constant) {
    out += std::to_string(n.value());
    return;
  }
  // Rebuild the text by printing the structure with sources in place of symbols; sums and
  // products get parentheses around compound operands so the text stays unambiguous.
  auto operand = [&](const SymNode& c) {
    bool compound = c.op() != SymOp::Symbol && c.op() != SymOp::Constant;
    if (compound) {
      out += '(';
    }
    render(c, names, out);
    if (compound) {
      out += ')';
    }
  };
  switch (n.op()) {
  case SymOp::Add:
    operand(*n.lhs());
    out += " + ";
    operand(*n.rhs());
    return;
  case SymOp::Sub:
    operand(*n.lhs());
    out += " - ";
    operand(*n.rhs());
    return;
  case SymOp::Mul:
    operand(*n.lhs());
    out += '*';
    operand(*n.rhs());
    return;
  case SymOp::FloorDiv:
    operand(*n.lhs());
    out += "//";
    operand(*n.rhs());
    return;
  case SymOp::Mod:
    out += "Mod(";
    render(*n.lhs(), names, out);
    out += ", ";
    render(*n.rhs(), names, out);
    out += ')';
    return;
  default:
    return;
  }
}

std::string relation_text(SymCmp op, const std::string& l, const std::string& r) {
  switch (op) {
  case SymCmp::Eq:
    return "Eq(" + l + ", " + r + ")";
  case SymCmp::Ne:
    return "Ne(" + l + ", " + r + ")";
  default:
    return l + " " + sym_cmp_name(op) + " " + r;
  }
}

} // namespace

std::string SymbolInfo::source_name() const {
  if (source.generator != GeneratorPart::None) {
    return source.generator == GeneratorPart::Seed ? "G['default_generator'].seed"
                                                   : "G['default_generator'].offset";
  }
  return "L['" + source.arg_name + "'].size()[" + std::to_string(source.dim) + "]";
}

std::string SymbolInfo::short_source_name() const {
  if (source.generator != GeneratorPart::None) {
    return source.generator == GeneratorPart::Seed ? "default_generator.seed"
                                                   : "default_generator.offset";
  }
  return source.arg_name + ".size()[" + std::to_string(source.dim) + "]";
}

bool ShapeGuard::evaluate(std::span<const std::int64_t> symbol_values) const {
  return sym_cmp_eval(op, lhs->evaluate(symbol_values), rhs->evaluate(symbol_values));
}

std::string ShapeGuard::to_string() const {
  return relation_text(op, lhs->to_string(), rhs->to_string());
}

std::string ShapeGuard::to_source_string(const std::vector<std::string>& names) const {
  std::string l;
  std::string r;
  render(*lhs, names, l);
  render(*rhs, names, r);
  return relation_text(op, l, r);
}

SymInt ShapeEnv::create_generator_symbol(GeneratorPart part, std::int64_t hint) {
  SymbolSource source;
  source.arg = std::numeric_limits<std::size_t>::max(); // no input: note_first_use never matches
  source.generator = part;
  return create_symbol(hint, std::move(source));
}

SymInt ShapeEnv::create_symbol(std::int64_t hint, SymbolSource source) {
  SymbolInfo info;
  info.id = static_cast<std::int64_t>(symbols_.size());
  info.hint = hint;
  if (source.generator == GeneratorPart::Offset) {
    info.lower = 0; // an offset, not a size: 0 and 1 are values like any other
  } else if (source.generator == GeneratorPart::Seed) {
    info.lower = std::numeric_limits<std::int64_t>::min(); // 64 bits, read as signed
  }
  info.source = std::move(source);
  info.where = where_;
  symbols_.push_back(info);
  const SymbolInfo& s = symbols_.back();
  tracer::event(keys::create_symbol, [&](tracer::JsonWriter& w) {
    w.member("symbol", "s" + std::to_string(s.id));
    w.member("val", std::to_string(hint));
    w.member("vr", range_text(s.lower, s.upper));
    w.member("source", s.source_name());
    w.key("user_stack");
    tracing::write_user_stack(w, s.where);
    w.key("stack");
    tracing::write_user_stack(w, call_site_, s.where);
  });
  return SymInt(hint, SymNode::symbol(info.id));
}

void ShapeEnv::note_first_use(std::size_t arg, const std::source_location& where) {
  for (SymbolInfo& s : symbols_) {
    if (s.source.arg == arg && !s.first_use_noted) {
      s.where = where;
      s.first_use_noted = true;
    }
  }
}

bool ShapeEnv::statically_known(SymCmp op, const SymNode& lhs, const SymNode& rhs) const {
  if (!lhs.has_symbols() && !rhs.has_symbols()) {
    return true;
  }
  if (lhs.to_string() == rhs.to_string()) {
    return true; // x op x is decided by op alone
  }
  const SymNode* sym = &lhs;
  const SymNode* cst = &rhs;
  bool swapped = false;
  if (lone_symbol(lhs) < 0) {
    std::swap(sym, cst);
    swapped = true;
  }
  std::int64_t id = lone_symbol(*sym);
  if (id < 0 || !cst->is_constant() || static_cast<std::size_t>(id) >= symbols_.size()) {
    return false;
  }
  const SymbolInfo& info = symbols_[static_cast<std::size_t>(id)];
  // The comparison is decided when it gives the same answer at both ends of the range (every
  // relation here is monotone in the symbol, except Eq/Ne which need the constant outside).
  std::int64_t c = cst->value();
  auto holds = [&](std::int64_t v) {
    return swapped ? sym_cmp_eval(op, c, v) : sym_cmp_eval(op, v, c);
  };
  if (op == SymCmp::Eq || op == SymCmp::Ne) {
    return c < info.lower || c > info.upper || info.lower == info.upper;
  }
  return holds(info.lower) == holds(info.upper);
}

void ShapeEnv::add_guard(ShapeGuard guard) {
  std::string text = guard.to_string();
  for (const ShapeGuard& g : guards_) {
    if (g.to_string() == text) {
      return;
    }
  }
  // Narrow the range of a lone symbol compared with a constant, so later decisions implied by
  // this one record nothing.
  std::int64_t id = lone_symbol(*guard.lhs);
  if (id >= 0 && guard.rhs->is_constant() && static_cast<std::size_t>(id) < symbols_.size()) {
    SymbolInfo& s = symbols_[static_cast<std::size_t>(id)];
    std::int64_t c = guard.rhs->value();
    switch (guard.op) {
    case SymCmp::Eq:
      s.lower = s.upper = c;
      break;
    case SymCmp::Gt:
      s.lower = std::max(s.lower, c + 1);
      break;
    case SymCmp::Ge:
      s.lower = std::max(s.lower, c);
      break;
    case SymCmp::Lt:
      s.upper = std::min(s.upper, c - 1);
      break;
    case SymCmp::Le:
      s.upper = std::min(s.upper, c);
      break;
    case SymCmp::Ne:
      break;
    }
  }
  guards_.push_back(guard);
  tracer::event(keys::guard_added_fast, [&](tracer::JsonWriter& w) {
    w.member("expr", text);
    w.key("user_stack");
    tracing::write_user_stack(w, guard.where);
    w.key("stack");
    tracing::write_user_stack(w, call_site_, guard.where);
  });
}

void ShapeEnv::on_compare(SymCmp op, const SymInt& lhs, const SymInt& rhs, bool result) {
  SymCmp held = result ? op : sym_cmp_negate(op);
  auto l = lhs.as_node();
  auto r = rhs.as_node();
  if (statically_known(held, *l, *r)) {
    return;
  }
  // Put the symbolic side on the left: "s0 > 16" rather than "16 < s0".
  if (!l->has_symbols()) {
    std::swap(l, r);
    switch (held) {
    case SymCmp::Lt:
      held = SymCmp::Gt;
      break;
    case SymCmp::Le:
      held = SymCmp::Ge;
      break;
    case SymCmp::Gt:
      held = SymCmp::Lt;
      break;
    case SymCmp::Ge:
      held = SymCmp::Le;
      break;
    default:
      break;
    }
  }
  ShapeGuard g;
  g.op = held;
  g.lhs = std::move(l);
  g.rhs = std::move(r);
  g.where = where_;
  add_guard(std::move(g));
}

void ShapeEnv::on_specialize(const SymInt& value) {
  if (!value.is_symbolic()) {
    return;
  }
  auto node = value.node();
  ShapeGuard g;
  g.op = SymCmp::Eq;
  g.lhs = node;
  g.rhs = SymNode::constant(value.hint());
  g.where = where_;
  g.specialization = true;
  if (statically_known(SymCmp::Eq, *g.lhs, *g.rhs)) {
    return;
  }
  std::int64_t id = lone_symbol(*node);
  if (id >= 0 && static_cast<std::size_t>(id) < symbols_.size()) {
    const SymbolInfo& s = symbols_[static_cast<std::size_t>(id)];
    tracer::event(keys::symbolic_shape_specialization, [&](tracer::JsonWriter& w) {
      w.member("symbol", "s" + std::to_string(id));
      w.key("sources").begin_array().value(s.source_name()).end_array();
      w.member("value", std::to_string(value.hint()));
      w.member("reason", "guard_int");
      w.key("stack");
      tracing::write_user_stack(w, where_);
      w.key("user_stack");
      tracing::write_user_stack(w, where_);
    });
  }
  add_guard(std::move(g));
}

std::vector<std::string> ShapeEnv::source_names() const {
  std::vector<std::string> out;
  out.reserve(symbols_.size());
  for (const SymbolInfo& s : symbols_) {
    out.push_back(s.source_name());
  }
  return out;
}

std::vector<std::string> ShapeEnv::short_source_names() const {
  std::vector<std::string> out;
  out.reserve(symbols_.size());
  for (const SymbolInfo& s : symbols_) {
    out.push_back(s.short_source_name());
  }
  return out;
}

} // namespace compiler::capture
