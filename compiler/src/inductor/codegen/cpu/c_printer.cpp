// Readable kernel source (codegen/cpu/c_printer.h): the C++ dialect of the C-like printer and
// the CPU's loops.
#include "inductor/codegen/cpu/c_printer.h"

#include "inductor/codegen/c_like_printer.h"
#include "inductor/ir/index_analysis.h"

#include <cmath>

namespace compiler::inductor::cpu {

namespace {

std::string c_type(DType d) {
  switch (d) {
  case DType::Float32:
    return "float";
  case DType::Float64:
    return "double";
  case DType::Float16:
    return "half";
  case DType::BFloat16:
    return "bfloat16";
  case DType::Int32:
    return "int32_t";
  case DType::Int64:
    return "int64_t";
  case DType::Bool:
    return "bool";
  }
  return "?";
}

std::string init_text(ReductionType t, DType d) {
  const bool fp = d == DType::Float32;
  switch (t) {
  case ReductionType::sum:
    return fp ? "0.0f" : "0L";
  case ReductionType::max:
  case ReductionType::argmax:
    return fp ? "-INFINITY" : "INT64_MIN";
  case ReductionType::min:
    return fp ? "INFINITY" : "INT64_MAX";
  }
  return "0";
}

class CppPrinter final : public CLikePrinter {
public:
  CppPrinter(const KernelPlan& k, const LoweredGraph& ir)
      : CLikePrinter(k, ir, {.indent = 4, .brace_on_own_line = true}) {}

  std::string signature() const {
    return "extern \"C\" void " + k_.name + "(" +
           buffer_params([](BufferId) { return std::string(); }) +
           "const int64_t* ks, int64_t x0_begin, int64_t x0_end)";
  }

  LoopValue load(BufferId buffer, const Expr& index) override {
    if (std::optional<LoopValue> f = forwarded(buffer, index)) {
      return *f;
    }
    std::string read =
        is_arg(buffer) ? element(buffer, index) : ir_.buffer(buffer).name + "[" + index.str() + "]";
    if (!masks_.empty()) {
      read = "(" + masks_.back() + " ? " + read + " : 0)";
    }
    return define(read, compute_dtype(ir_.buffer(buffer).layout.dtype));
  }

  LoopValue masked(LoopValue mask, const std::function<LoopValue()>& body, double other) override {
    masks_.push_back(expr(mask));
    const LoopValue v = body();
    masks_.pop_back();
    return define(expr(mask) + " ? " + expr(v) + " : " + literal(other, v.dtype), v.dtype);
  }

  LoopValue load_indirect(BufferId buffer, LoopValue row, const Expr& rows, const Expr& row_stride,
                          const Expr& offset) override {
    line("TORCHSCOPE_CHECK_INDEX(" + expr(row) + ", " + rows.str() + ");");
    return define(arg_name(buffer) + "[" + offset.str() + " + " + expr(row) + "*(" +
                      row_stride.str() + ")]",
                  compute_dtype(ir_.buffer(buffer).layout.dtype));
  }

  void store(BufferId buffer, const Expr& index, LoopValue v) override {
    remember(buffer, index, v);
    if (kept_in_registers(buffer)) {
      return;
    }
    line(element(buffer, index) + " = " + expr(v) + ";");
  }

  LoopValue index_expr(const Expr& e, DType dtype) override {
    const DType d = compute_dtype(dtype);
    return define(d == DType::Int64 ? e.str() : "static_cast<" + c_type(d) + ">(" + e.str() + ")",
                  d);
  }

  LoopValue cast(LoopValue v, DType dtype) override {
    const DType to = compute_dtype(dtype);
    if (v.dtype == to && to == dtype) {
      return v;
    }
    if (dtype == DType::Float16 || dtype == DType::BFloat16) {
      return define("round_to_" + c_type(dtype) + "(" + expr(v) + ")", to);
    }
    return define("static_cast<" + c_type(dtype) + ">(" + expr(v) + ")", to);
  }

  // Operands print as they are: the source is for reading, the types are LLVM's concern.
  LoopValue apply(LoopOp op, std::span<const LoopValue> args) override {
    std::vector<std::string> a;
    DType operand = args.empty() ? DType::Float32 : args.back().dtype;
    for (const LoopValue& v : args) {
      a.push_back(expr(v));
      operand = v.dtype == DType::Float32 ? DType::Float32 : operand;
    }
    return define(operation(op, a, operand), loop_op_result(op, operand));
  }

private:
  std::string storage_type(DType storage) const override { return c_type(storage); }
  std::string temporary_type(DType) const override { return "auto"; }

  std::string literal(double v, DType d) const override {
    if (d == DType::Bool) {
      return v != 0.0 ? "true" : "false";
    }
    if (d == DType::Int64 || d == DType::Int32) {
      return std::to_string(static_cast<std::int64_t>(v)) + "L";
    }
    if (std::isinf(v)) {
      return v > 0 ? "INFINITY" : "-INFINITY";
    }
    if (std::isnan(v)) {
      return "NAN";
    }
    return decimal_text(v) + "f";
  }

  std::string intrinsic(LoopOp op, const std::vector<std::string>& a, DType) const override {
    switch (op) {
    case LoopOp::relu:
      return "max_propagate_nan(" + a[0] + ", 0)";
    case LoopOp::maximum:
      return "max_propagate_nan(" + a[0] + ", " + a[1] + ")";
    case LoopOp::minimum:
      return "min_propagate_nan(" + a[0] + ", " + a[1] + ")";
    default: {
      std::string e = std::string(loop_op_name(op)) + "(";
      for (std::size_t i = 0; i < a.size(); ++i) {
        e += (i ? ", " : "") + a[i];
      }
      return e + ")";
    }
    }
  }

  Accumulator declare_accumulator(const Buffer& b) override {
    Accumulator a;
    a.value = "tmp_acc" + std::to_string(accs_++);
    line(c_type(b.accumulate) + " " + a.value + " = " + init_text(b.reduction, b.accumulate) + ";");
    if (b.reduction == ReductionType::argmax) {
      a.index = a.value + "_index";
      line("int64_t " + a.index + " = 0;");
    }
    return a;
  }

  void update_accumulator(const Accumulator& a, const Buffer& b, const FusedNode& n,
                          LoopValue v) override {
    const std::string x = expr(v);
    if (b.reduction != ReductionType::argmax) {
      line(a.value + " = " + combined(b.reduction, a.value, x, v.dtype) + ";");
      return;
    }
    const Expr linear = dot(n.rindex, contiguous_strides(b.reduction_ranges));
    line("if (greater_or_nan(" + x + ", " + a.value + ")) { " + a.value + " = " + x + "; " +
         a.index + " = " + linear.str() + "; }");
  }

  int accs_ = 0;
};

std::string loop_header(const VarId& v, const std::string& begin, const std::string& end) {
  const std::string n = std::string(1, v.prefix) + std::to_string(v.index);
  return "for (int64_t " + n + " = " + begin + "; " + n + " < " + end + "; " + n + " += 1)";
}

// Loops over `sizes` (variables prefix0..), the first over this call's x0_begin..x0_end when
// `thread_split`; `vector_note` on the innermost when it is the vector loop.
void print_nest(CppPrinter& p, char prefix, const std::vector<Expr>& sizes, bool thread_split,
                const std::string& vector_note, const std::function<void()>& body,
                std::size_t d = 0) {
  if (d == sizes.size()) {
    body();
    return;
  }
  const VarId v{prefix, static_cast<std::int32_t>(d)};
  if (d + 1 == sizes.size() && !vector_note.empty()) {
    p.line("// " + vector_note);
  }
  p.open(loop_header(v, thread_split && d == 0 ? "x0_begin" : "0",
                     thread_split && d == 0 ? "x0_end" : sizes[d].str()));
  print_nest(p, prefix, sizes, thread_split, vector_note, body, d + 1);
  p.close();
}

} // namespace

std::string print_kernel(const KernelPlan& k, const CpuLoopPlan& loops, const LoweredGraph& ir,
                         int threads) {
  CppPrinter p(k, ir);
  p.open(p.signature());
  const std::string vec =
      "vectorized: " + std::to_string(loops.lanes) + " lanes per iteration, then a scalar tail";
  auto note = [&](CpuLoopPlan::Vector where) { return loops.vector == where ? vec : ""; };
  if (!k.outer.empty()) {
    p.line("// x0_begin..x0_end: this thread's share of x0 (" + std::to_string(threads) +
           " threads)");
  }
  auto stages = [&] {
    for (const LoopStage& s : k.stages) {
      if (s.inner.empty()) {
        p.straight_line(s);
        continue;
      }
      const std::vector<CLikePrinter::Accumulator> accs = p.declare_accumulators(s);
      print_nest(p, 'r', s.inner, false, note(CpuLoopPlan::Vector::Stage),
                 [&] { p.accumulate(s, accs); });
      p.store_accumulators(accs);
    }
  };
  if (k.outer.empty()) {
    stages();
  } else {
    print_nest(p, 'x', k.outer, true, note(CpuLoopPlan::Vector::Outer), stages);
  }
  p.close();
  return p.text();
}

} // namespace compiler::inductor::cpu
