// compiler/capture: ShapeEnv, the symbolic-shape state of one trace (PyTorch's ShapeEnv).
//
// It creates size symbols (s0, s1, ...) for dynamic input dimensions, each with the input
// dimension it stands for (its source), its hint and its value range, and it records every
// decision the traced C++ made on a symbolic value: `if (x.size(0) > 16)` records the guard
// `s0 > 16`, and guard_int() specialises a symbol to its hint. Decisions that the value ranges
// already settle (s0 != 1 when s0 >= 2) record nothing, as PyTorch's static evaluation does.
// The recorded guards become part of the compiled entry's guard set.
#pragma once

#include "compiler/core/sym_int.h"

#include <cstdint>
#include <limits>
#include <memory>
#include <source_location>
#include <string>
#include <vector>

namespace compiler::capture {

// Which part of the process's random generator a symbol reads (None: an input's size).
enum class GeneratorPart : std::uint8_t { None, Seed, Offset };

// Where a symbol's value comes from at run time: dimension `dim` of the tensor argument `arg`,
// or (`generator`) the process's random generator's seed or its offset when the call starts,
// which the frame's dropout and rand draws use (PyTorch passes its Philox seed and offset into
// compiled graphs the same way), so a new offset per call, or a new seed, needs no recompile.
struct SymbolSource {
  std::size_t arg = 0;
  std::int64_t dim = 0;
  std::string arg_name; // "x"
  GeneratorPart generator = GeneratorPart::None;
};

struct SymbolInfo {
  std::int64_t id = 0;
  std::int64_t hint = 0;
  std::int64_t lower = 2; // 0 and 1 are specialised, so a size symbol starts at 2
  std::int64_t upper = std::numeric_limits<std::int64_t>::max();
  SymbolSource source;
  std::source_location where; // the user's first use of the input
  bool first_use_noted = false;

  // "L['x'].size()[0]"
  std::string source_name() const;
  // "x.size()[0]", as recompile reasons name it.
  std::string short_source_name() const;
};

// One recorded decision: lhs `op` rhs held on the hints.
struct ShapeGuard {
  SymCmp op = SymCmp::Eq;
  std::shared_ptr<const SymNode> lhs;
  std::shared_ptr<const SymNode> rhs;
  std::source_location where;  // the user's op that was being traced
  bool specialization = false; // from guard_int(): the symbol was fixed to its hint

  bool evaluate(std::span<const std::int64_t> symbol_values) const;
  // Sympy-like text over symbols: "s0 > 16", "Eq(s0, s1)", "Ne(s0, 8)".
  std::string to_string() const;
  // The same guard over sources, via `names[id]`: "L['x'].size()[0] > 16".
  std::string to_source_string(const std::vector<std::string>& names) const;
};

class ShapeEnv final : public SymGuardRecorder {
public:
  ShapeEnv() = default;

  // A new symbol for `source` with value `hint` (>= 2). Writes a create_symbol event.
  SymInt create_symbol(std::int64_t hint, SymbolSource source);
  // A symbol of the random generator: its seed (any 64 bits) or its offset at the call's start
  // (any value >= 0).
  SymInt create_generator_symbol(GeneratorPart part, std::int64_t hint);

  // The user op whose tracing is in progress: guards and symbols are attributed to it.
  void set_user_location(const std::source_location& where) noexcept { where_ = where; }
  const std::source_location& user_location() const noexcept { return where_; }
  // Where the user called the compiled function: the outer frame of the events' "stack".
  void set_call_site(const std::source_location& where) noexcept { call_site_ = where; }

  // The first op that used tensor input `arg`: its symbols are attributed to that line (as
  // PyTorch shows a size guard at the user line that first used the size).
  void note_first_use(std::size_t arg, const std::source_location& where);

  void on_compare(SymCmp op, const SymInt& lhs, const SymInt& rhs, bool result) override;
  void on_specialize(const SymInt& value) override;
  // Outside an op's own computation, a size read moves the user location to the reading line.
  void on_size_read(const std::source_location& where) override {
    if (!in_op_) {
      where_ = where;
    }
  }
  // Set while an op's metadata is computed: size reads inside the op are not the user's.
  void set_in_op(bool in_op) noexcept { in_op_ = in_op; }

  const std::vector<SymbolInfo>& symbols() const noexcept { return symbols_; }
  const std::vector<ShapeGuard>& guards() const noexcept { return guards_; }
  // Source names of every symbol, indexed by id.
  std::vector<std::string> source_names() const;
  std::vector<std::string> short_source_names() const;

private:
  // True when the value ranges alone decide `lhs op rhs` (so no guard is needed).
  bool statically_known(SymCmp op, const SymNode& lhs, const SymNode& rhs) const;
  void add_guard(ShapeGuard guard);

  std::vector<SymbolInfo> symbols_;
  std::vector<ShapeGuard> guards_;
  std::source_location where_;
  std::source_location call_site_;
  bool in_op_ = false;
};

} // namespace compiler::capture
