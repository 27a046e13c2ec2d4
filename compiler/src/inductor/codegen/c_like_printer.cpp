// The C-like printer both source dialects share (inductor/codegen/c_like_printer.h).
#include "inductor/codegen/c_like_printer.h"

#include "compiler/core/errors.h"
#include "inductor/ir/index_analysis.h"

#include <cstdio>

namespace compiler::inductor {

std::string decimal_text(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos) {
    s += ".0";
  }
  return s;
}

CLikePrinter::CLikePrinter(const KernelPlan& k, const LoweredGraph& ir, CLikeLayout layout)
    : k_(k), ir_(ir), layout_(layout) {
  int in = 0;
  int out = 0;
  int inout = 0;
  for (const KernelArg& a : k.args) {
    names_[a.buffer] = a.role == ArgRole::In    ? "in_ptr" + std::to_string(in++)
                       : a.role == ArgRole::Out ? "out_ptr" + std::to_string(out++)
                                                : "in_out_ptr" + std::to_string(inout++);
  }
  for (const LoopStage& s : k.stages) {
    for (const FusedNode& n : s.nodes) {
      stored_[n.buffer] = n.store;
    }
  }
}

void CLikePrinter::line(const std::string& s) {
  lines_ += std::string(static_cast<std::size_t>(indent_ * layout_.indent), ' ') + s + "\n";
}

void CLikePrinter::open(const std::string& header) {
  if (layout_.brace_on_own_line) {
    line(header);
    line("{");
  } else {
    line(header + " {");
  }
  ++indent_;
  scopes_.emplace_back();
  cse_.emplace_back();
}

void CLikePrinter::close() {
  --indent_;
  line("}");
  scopes_.pop_back();
  cse_.pop_back();
}

void CLikePrinter::insert_line(std::size_t& pos, int depth, const std::string& s) {
  const std::string text =
      std::string(static_cast<std::size_t>(depth * layout_.indent), ' ') + s + "\n";
  lines_.insert(pos, text);
  pos += text.size();
}

std::string
CLikePrinter::buffer_params(const std::function<std::string(BufferId)>& qualifier) const {
  std::string out;
  for (const KernelArg& a : k_.args) {
    const std::string t = storage_type(ir_.buffer(a.buffer).layout.dtype);
    out += (a.role == ArgRole::In ? "const " + t : t) + "*" + qualifier(a.buffer) + " " +
           names_.at(a.buffer) + ", ";
  }
  return out;
}

LoopValue CLikePrinter::constant(double v, DType dtype) {
  const DType d = compute_dtype(dtype);
  return literal_value(literal(v, d), d);
}

std::string CLikePrinter::operation(LoopOp op, const std::vector<std::string>& a,
                                    DType operand) const {
  switch (op) {
  case LoopOp::add:
    return a[0] + " + " + a[1];
  case LoopOp::sub:
    return a[0] + " - " + a[1];
  case LoopOp::mul:
    return a[0] + " * " + a[1];
  case LoopOp::truediv:
    return a[0] + " / " + a[1];
  case LoopOp::eq:
    return a[0] + " == " + a[1];
  case LoopOp::ne:
    return a[0] + " != " + a[1];
  case LoopOp::lt:
    return a[0] + " < " + a[1];
  case LoopOp::le:
    return a[0] + " <= " + a[1];
  case LoopOp::gt:
    return a[0] + " > " + a[1];
  case LoopOp::ge:
    return a[0] + " >= " + a[1];
  case LoopOp::logical_and:
    return a[0] + " && " + a[1];
  case LoopOp::logical_or:
    return a[0] + " || " + a[1];
  case LoopOp::logical_not:
    return "!" + a[0];
  case LoopOp::where:
    return a[0] + " ? " + a[1] + " : " + a[2];
  case LoopOp::neg:
    return "-" + a[0];
  // pointwise, more
  case LoopOp::logical_xor:
    return a[0] + " != " + a[1];
  case LoopOp::bitwise_and:
    return a[0] + " & " + a[1];
  case LoopOp::bitwise_or:
    return a[0] + " | " + a[1];
  case LoopOp::bitwise_xor:
    return a[0] + " ^ " + a[1];
  case LoopOp::bitwise_not:
    return "~" + a[0];
  default:
    return intrinsic(op, a, operand);
  }
}

std::string CLikePrinter::combined(ReductionType t, const std::string& acc, const std::string& x,
                                   DType d) const {
  TORCHSCOPE_ASSERT(t != ReductionType::argmax, "argmax combines values and indices");
  const LoopOp op = t == ReductionType::sum   ? LoopOp::add
                    : t == ReductionType::max ? LoopOp::maximum
                                              : LoopOp::minimum;
  return operation(op, {acc, x}, d);
}

LoopValue CLikePrinter::literal_value(const std::string& text, DType d) {
  exprs_.push_back(text);
  return {static_cast<std::int32_t>(exprs_.size() - 1), d};
}

LoopValue CLikePrinter::define(const std::string& e, DType d) {
  for (auto scope = cse_.rbegin(); scope != cse_.rend(); ++scope) {
    auto it = scope->find(e);
    if (it != scope->end() && it->second.dtype == d) {
      return it->second;
    }
  }
  const std::string name = "tmp" + std::to_string(tmps_++);
  line(temporary_type(d) + " " + name + " = " + e + ";");
  const LoopValue v = literal_value(name, d);
  cse_.back()[e] = v;
  return v;
}

std::optional<LoopValue> CLikePrinter::forwarded(BufferId buffer, const Expr& index) const {
  for (auto s = scopes_.rbegin(); s != scopes_.rend(); ++s) {
    for (const auto& [key, v] : *s) {
      if (key.first == buffer && key.second == index) {
        return v;
      }
    }
  }
  return std::nullopt;
}

void CLikePrinter::remember(BufferId buffer, const Expr& index, LoopValue v) {
  scopes_.back().push_back({{buffer, index}, v});
}

bool CLikePrinter::kept_in_registers(BufferId buffer) const {
  auto it = stored_.find(buffer);
  return it != stored_.end() && !it->second;
}

std::string CLikePrinter::element(BufferId buffer, const Expr& index) const {
  return names_.at(buffer) + "[" + index.str() + "]";
}

void CLikePrinter::straight_line(const LoopStage& st) {
  for (const FusedNode& n : st.nodes) {
    const Buffer& b = ir_.buffer(n.buffer);
    const LoopValue v = run_body(b, *this, n.index, n.rindex);
    if (b.kind == BufferKind::Reduction) { // a reduction over nothing: its one element
      store(b.id, b.layout.index(n.index),
            b.reduction == ReductionType::argmax ? constant(0.0, DType::Int64) : v);
    }
  }
}

std::vector<CLikePrinter::Accumulator> CLikePrinter::declare_accumulators(const LoopStage& st) {
  std::vector<Accumulator> accs;
  for (const FusedNode& n : st.nodes) {
    const Buffer& b = ir_.buffer(n.buffer);
    if (b.kind != BufferKind::Reduction) {
      continue;
    }
    Accumulator a = declare_accumulator(b);
    a.node = &n;
    accs.push_back(std::move(a));
  }
  return accs;
}

void CLikePrinter::accumulate(const LoopStage& st, const std::vector<Accumulator>& accs) {
  for (const FusedNode& n : st.nodes) {
    const Buffer& b = ir_.buffer(n.buffer);
    const LoopValue v = run_body(b, *this, n.index, n.rindex);
    if (b.kind != BufferKind::Reduction) {
      continue;
    }
    const Accumulator* acc = nullptr;
    for (const Accumulator& a : accs) {
      acc = a.node == &n ? &a : acc;
    }
    update_accumulator(*acc, b, n, v);
  }
}

void CLikePrinter::store_accumulators(const std::vector<Accumulator>& accs) {
  for (const Accumulator& a : accs) {
    const Buffer& b = ir_.buffer(a.node->buffer);
    const bool argmax = b.reduction == ReductionType::argmax;
    store(b.id, b.layout.index(a.node->index),
          named(argmax ? a.index : a.value, argmax ? DType::Int64 : b.accumulate));
  }
}

} // namespace compiler::inductor
