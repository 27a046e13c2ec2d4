// Readable kernel source (codegen/cpu/c_printer.h): the printing OpsHandler.
#include "inductor/codegen/cpu/c_printer.h"

#include "compiler/core/errors.h"
#include "inductor/ir/index_analysis.h"

#include <cmath>
#include <cstdio>
#include <map>

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

std::string literal(double v, DType d) {
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
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos) {
    s += ".0";
  }
  return s + "f";
}

class Printer final : public OpsHandler {
public:
  Printer(const KernelPlan& k, const LoweredGraph& ir) : k_(k), ir_(ir) {
    int in = 0;
    int out = 0;
    int inout = 0;
    for (const KernelArg& a : k.args) {
      std::string name = a.role == ArgRole::In    ? "in_ptr" + std::to_string(in++)
                         : a.role == ArgRole::Out ? "out_ptr" + std::to_string(out++)
                                                  : "in_out_ptr" + std::to_string(inout++);
      names_[a.buffer] = name;
    }
    for (const LoopStage& s : k.stages) {
      for (const FusedNode& n : s.nodes) {
        stored_[n.buffer] = n.store;
      }
    }
  }

  std::string signature() const {
    std::string out = "extern \"C\" void " + k_.name + "(";
    for (const KernelArg& a : k_.args) {
      const std::string t = c_type(ir_.buffer(a.buffer).layout.dtype);
      out += (a.role == ArgRole::In ? "const " + t : t) + "* " + names_.at(a.buffer) + ", ";
    }
    return out + "const int64_t* ks, int64_t x0_begin, int64_t x0_end)";
  }

  void line(const std::string& s) { lines_ += std::string(indent_ * 4, ' ') + s + "\n"; }
  void open(const std::string& s) {
    line(s);
    line("{");
    ++indent_;
    scopes_.emplace_back();
    cse_.emplace_back();
  }
  void close() {
    --indent_;
    line("}");
    scopes_.pop_back();
    cse_.pop_back();
  }
  const std::string& text() const { return lines_; }

  LoopValue load(BufferId buffer, const Expr& index) override {
    for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
      for (auto& [key, v] : *s) {
        if (key.first == buffer && key.second == index) {
          return v;
        }
      }
    }
    std::string read = names_.count(buffer) != 0
                           ? names_.at(buffer) + "[" + index.str() + "]"
                           : ir_.buffer(buffer).name + "[" + index.str() + "]";
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
    return define(names_.at(buffer) + "[" + offset.str() + " + " + expr(row) + "*(" +
                      row_stride.str() + ")]",
                  compute_dtype(ir_.buffer(buffer).layout.dtype));
  }

  void store(BufferId buffer, const Expr& index, LoopValue v) override {
    scopes_.back().push_back({{buffer, index}, v});
    if (stored_.count(buffer) != 0 && !stored_.at(buffer)) {
      return; // kept in registers
    }
    line(names_.at(buffer) + "[" + index.str() + "] = " + expr(v) + ";");
  }

  LoopValue constant(double v, DType dtype) override {
    const DType d = compute_dtype(dtype);
    return literal_value(literal(v, d), d);
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

  LoopValue apply(LoopOp op, std::span<const LoopValue> args) override {
    auto a = [&](std::size_t i) { return expr(args[i]); };
    std::string e;
    switch (op) {
    case LoopOp::add:
      e = a(0) + " + " + a(1);
      break;
    case LoopOp::sub:
      e = a(0) + " - " + a(1);
      break;
    case LoopOp::mul:
      e = a(0) + " * " + a(1);
      break;
    case LoopOp::truediv:
      e = a(0) + " / " + a(1);
      break;
    case LoopOp::eq:
      e = a(0) + " == " + a(1);
      break;
    case LoopOp::ne:
      e = a(0) + " != " + a(1);
      break;
    case LoopOp::lt:
      e = a(0) + " < " + a(1);
      break;
    case LoopOp::le:
      e = a(0) + " <= " + a(1);
      break;
    case LoopOp::gt:
      e = a(0) + " > " + a(1);
      break;
    case LoopOp::ge:
      e = a(0) + " >= " + a(1);
      break;
    case LoopOp::logical_and:
      e = a(0) + " && " + a(1);
      break;
    case LoopOp::logical_or:
      e = a(0) + " || " + a(1);
      break;
    case LoopOp::logical_not:
      e = "!" + a(0);
      break;
    case LoopOp::where:
      e = a(0) + " ? " + a(1) + " : " + a(2);
      break;
    case LoopOp::neg:
      e = "-" + a(0);
      break;
    case LoopOp::relu:
      e = "max_propagate_nan(" + a(0) + ", 0)";
      break;
    case LoopOp::maximum:
      e = "max_propagate_nan(" + a(0) + ", " + a(1) + ")";
      break;
    case LoopOp::minimum:
      e = "min_propagate_nan(" + a(0) + ", " + a(1) + ")";
      break;
    default: {
      e = std::string(loop_op_name(op)) + "(";
      for (std::size_t i = 0; i < args.size(); ++i) {
        e += (i ? ", " : "") + a(i);
      }
      e += ")";
      break;
    }
    }
    DType operand = args.empty() ? DType::Float32 : args.back().dtype;
    for (const LoopValue& v : args) {
      operand = v.dtype == DType::Float32 ? DType::Float32 : operand;
    }
    return define(e, loop_op_result(op, operand));
  }

  // A value as a C expression.
  std::string expr(LoopValue v) const { return exprs_.at(static_cast<std::size_t>(v.id)); }

  // Declares an accumulator and returns its name.
  std::string accumulator(const std::string& init, DType d) {
    const std::string name = "tmp_acc" + std::to_string(accs_++);
    line(c_type(d) + " " + name + " = " + init + ";");
    return name;
  }

  LoopValue named(const std::string& name, DType d) { return literal_value(name, d); }

private:
  LoopValue literal_value(const std::string& text, DType d) {
    exprs_.push_back(text);
    return {static_cast<std::int32_t>(exprs_.size() - 1), d};
  }
  // A value for expression `e`: the variable an enclosing scope already defined for it, or a
  // new one.
  LoopValue define(const std::string& e, DType d) {
    for (auto scope = cse_.rbegin(); scope != cse_.rend(); ++scope) {
      auto it = scope->find(e);
      if (it != scope->end()) {
        return it->second;
      }
    }
    const std::string name = "tmp" + std::to_string(tmps_++);
    line("auto " + name + " = " + e + ";");
    const LoopValue v = literal_value(name, d);
    cse_.back()[e] = v;
    return v;
  }

  const KernelPlan& k_;
  const LoweredGraph& ir_;
  std::map<BufferId, std::string> names_;
  std::map<BufferId, bool> stored_;
  std::string lines_;
  int indent_ = 0;
  std::vector<std::string> exprs_;
  std::vector<std::map<std::string, LoopValue>> cse_{1};
  std::vector<std::vector<std::pair<std::pair<BufferId, Expr>, LoopValue>>> scopes_{1};
  std::vector<std::string> masks_;
  int tmps_ = 0;
  int accs_ = 0;
};

std::string loop_header(const VarId& v, const std::string& begin, const std::string& end) {
  const std::string n = std::string(1, v.prefix) + std::to_string(v.index);
  return "for (int64_t " + n + " = " + begin + "; " + n + " < " + end + "; " + n + " += 1)";
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

void print_nest(Printer& p, char prefix, const std::vector<Expr>& sizes, bool first_is_range,
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
  p.open(loop_header(v, first_is_range && d == 0 ? "x0_begin" : "0",
                     first_is_range && d == 0 ? "x0_end" : sizes[d].str()));
  print_nest(p, prefix, sizes, first_is_range, vector_note, body, d + 1);
  p.close();
}

} // namespace

std::string print_kernel(const KernelPlan& k, const LoweredGraph& ir, const CpuTarget& target,
                         int threads) {
  Printer p(k, ir);
  p.open(p.signature());
  const std::string vec =
      "vectorized: " + std::to_string(target.lanes) + " lanes per iteration, then a scalar tail";
  if (!k.outer.empty()) {
    p.line("// x0_begin..x0_end: this thread's share of x0 (" + std::to_string(threads) +
           " threads)");
  }
  const bool pointwise = k.pointwise_only();
  auto stages = [&] {
    for (const LoopStage& s : k.stages) {
      if (pointwise || s.inner.empty()) {
        for (const FusedNode& n : s.nodes) {
          const Buffer& b = ir.buffer(n.buffer);
          const LoopValue v = run_body(b, p, n.index, n.rindex);
          if (b.kind == BufferKind::Reduction) {
            p.store(b.id, b.layout.index(n.index), v);
          }
        }
        continue;
      }
      std::vector<std::pair<const FusedNode*, std::string>> accs;
      for (const FusedNode& n : s.nodes) {
        const Buffer& b = ir.buffer(n.buffer);
        if (b.kind == BufferKind::Reduction) {
          accs.emplace_back(&n, p.accumulator(init_text(b.reduction, b.accumulate), b.accumulate));
          if (b.reduction == ReductionType::argmax) {
            p.line("int64_t " + accs.back().second + "_index = 0;");
          }
        }
      }
      print_nest(p, 'r', s.inner, false, vec, [&] {
        for (const FusedNode& n : s.nodes) {
          const Buffer& b = ir.buffer(n.buffer);
          const LoopValue v = run_body(b, p, n.index, n.rindex);
          if (b.kind != BufferKind::Reduction) {
            continue;
          }
          std::string acc;
          for (const auto& [node, name] : accs) {
            acc = node == &n ? name : acc;
          }
          switch (b.reduction) {
          case ReductionType::sum:
            p.line(acc + " = " + acc + " + " + p.expr(v) + ";");
            break;
          case ReductionType::max:
            p.line(acc + " = max_propagate_nan(" + acc + ", " + p.expr(v) + ");");
            break;
          case ReductionType::min:
            p.line(acc + " = min_propagate_nan(" + acc + ", " + p.expr(v) + ");");
            break;
          case ReductionType::argmax: {
            const Expr linear = dot(n.rindex, contiguous_strides(b.reduction_ranges));
            p.line("if (greater_or_nan(" + p.expr(v) + ", " + acc + ")) { " + acc + " = " +
                   p.expr(v) + "; " + acc + "_index = " + linear.str() + "; }");
            break;
          }
          }
        }
      });
      for (const auto& [node, name] : accs) {
        const Buffer& b = ir.buffer(node->buffer);
        const bool argmax = b.reduction == ReductionType::argmax;
        p.store(b.id, b.layout.index(node->index),
                p.named(argmax ? name + "_index" : name, argmax ? DType::Int64 : b.accumulate));
      }
    }
  };
  if (k.outer.empty()) {
    stages();
  } else {
    print_nest(p, 'x', k.outer, true, pointwise ? vec : "", stages);
  }
  p.close();
  return p.text();
}

} // namespace compiler::inductor::cpu
