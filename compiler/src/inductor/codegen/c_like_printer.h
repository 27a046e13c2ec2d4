// inductor/codegen: the one printer of kernels as C-like source. The CPU's readable C++
// (codegen/cpu/c_printer.h, for inductor_output_code) and the GPU's CUDA C++
// (codegen/cuda/cuda_source.h, compiled by NVRTC) print the same kernel plans; what they share
// is printed here, once: the kernel's buffer arguments and their names, lines and blocks, values
// as temporaries (each expression defined once per scope), values a kernel stored read back from
// registers, the infix operators, and the walk over a stage's nodes with its reductions'
// accumulators. A dialect is a subclass: it names types, literals and intrinsics, and prints
// what is its own (loads and stores through its memory, casts, how an accumulator is updated);
// where its loops and threads go is decided by its own plan (codegen/cpu/cpu_loop_plan.h, the
// kernel shapes of cuda_source.h) and printed by its own file.
#pragma once

#include "inductor/scheduler/kernel_plan.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace compiler::inductor {

// How a dialect lays out its blocks.
struct CLikeLayout {
  int indent = 4;                // spaces per level
  bool brace_on_own_line = true; // "for (...)" then "{" (as Inductor prints C++), or "for (...) {"
};

// A float's shortest round-tripping decimal ("%.9g"), with ".0" where it would read as an
// integer; the dialect adds its suffix.
std::string decimal_text(double v);

class CLikePrinter : public OpsHandler {
public:
  CLikePrinter(const KernelPlan& k, const LoweredGraph& ir, CLikeLayout layout);

  void line(const std::string& s);
  // A block: `header`, then lines one level in until close(). Values defined and stored inside
  // it are forgotten at close().
  void open(const std::string& header);
  void close();
  const std::string& text() const noexcept { return lines_; }

  // A value as an expression of the dialect (a temporary's name or a literal).
  std::string expr(LoopValue v) const { return exprs_.at(static_cast<std::size_t>(v.id)); }
  // A variable the printer declared itself (an accumulator) as a value.
  LoopValue named(const std::string& name, DType d) { return literal_value(name, d); }
  // The parameter name of a kernel argument: in_ptr0.., out_ptr0.., in_out_ptr0.. by role.
  const std::string& arg_name(BufferId b) const { return names_.at(b); }

  // The buffer parameters, each followed by ", ": "const float* in_ptr0, float* out_ptr0, ".
  // `qualifier` says what stands after a parameter's '*' (" __restrict__", or nothing).
  std::string buffer_params(const std::function<std::string(BufferId)>& qualifier) const;

  LoopValue constant(double v, DType dtype) final;

  // A reduction's accumulator: the variable of its value, and of its index (argmax).
  struct Accumulator {
    const FusedNode* node = nullptr;
    std::string value;
    std::string index;
  };
  // The nodes of a stage without a loop of its own, once per outer index.
  void straight_line(const LoopStage& st);
  // An accumulator for each reduction of looping stage `st`, declared here.
  std::vector<Accumulator> declare_accumulators(const LoopStage& st);
  // One element of looping stage `st` (inside its loop): every node's body, each reduction's
  // value folded into its accumulator.
  void accumulate(const LoopStage& st, const std::vector<Accumulator>& accs);
  // Each reduction's result stored, and available to the stages after it.
  void store_accumulators(const std::vector<Accumulator>& accs);

protected:
  // ---- the dialect

  // The element type of a buffer's pointer (storage dtype).
  virtual std::string storage_type(DType storage) const = 0;
  // The type a temporary of compute dtype `d` is declared with ("auto", "const float").
  virtual std::string temporary_type(DType d) const = 0;
  // A constant of compute dtype `d`.
  virtual std::string literal(double v, DType d) const = 0;
  // An op that is no C operator (a math function, NaN-propagating max), on operand texts `a` of
  // compute dtype `operand`.
  virtual std::string intrinsic(LoopOp op, const std::vector<std::string>& a,
                                DType operand) const = 0;
  // Declares the accumulator of reduction `b` (its initial value, its type and name).
  virtual Accumulator declare_accumulator(const Buffer& b) = 0;
  // Folds `v`, node `n`'s value at this element, into `a`.
  virtual void update_accumulator(const Accumulator& a, const Buffer& b, const FusedNode& n,
                                  LoopValue v) = 0;

  // ---- what every dialect prints the same way

  // `op` on operand texts `a`: a C operator where there is one, else the dialect's intrinsic.
  std::string operation(LoopOp op, const std::vector<std::string>& a, DType operand) const;
  // `acc` combined with `x` by reduction `t` (sum, max or min), as the op that does it prints.
  std::string combined(ReductionType t, const std::string& acc, const std::string& x,
                       DType d) const;
  // A value for expression `e`: the temporary an enclosing scope already holds for it, or a new
  // one.
  LoopValue define(const std::string& e, DType d);
  LoopValue literal_value(const std::string& text, DType d);
  // The value this kernel stored at element `index` of `buffer` in an enclosing scope.
  std::optional<LoopValue> forwarded(BufferId buffer, const Expr& index) const;
  void remember(BufferId buffer, const Expr& index, LoopValue v);
  // Every reader reads it where it is computed: never written to memory.
  bool kept_in_registers(BufferId buffer) const;
  bool is_arg(BufferId buffer) const { return names_.count(buffer) != 0; }
  // "in_ptr0[x0 + 16*x1]".
  std::string element(BufferId buffer, const Expr& index) const;
  // Where the next line will go and at which depth, for lines inserted there later.
  std::size_t text_size() const noexcept { return lines_.size(); }
  int depth() const noexcept { return indent_; }
  // Inserts `s` as a line at `pos` (at depth `depth`); `pos` moves past it.
  void insert_line(std::size_t& pos, int depth, const std::string& s);

  const KernelPlan& k_;
  const LoweredGraph& ir_;
  // The conditions of the masked() bodies being printed, innermost last.
  std::vector<std::string> masks_;

private:
  CLikeLayout layout_;
  std::map<BufferId, std::string> names_;
  std::map<BufferId, bool> stored_;
  std::string lines_;
  int indent_ = 0;
  std::vector<std::string> exprs_;
  std::vector<std::map<std::string, LoopValue>> cse_{1};
  std::vector<std::vector<std::pair<std::pair<BufferId, Expr>, LoopValue>>> scopes_{1};
  int tmps_ = 0;
};

} // namespace compiler::inductor
