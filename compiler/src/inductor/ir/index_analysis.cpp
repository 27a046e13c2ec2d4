// The analysis handler (inductor/ir/index_analysis.h).
#include "inductor/ir/index_analysis.h"

#include "compiler/core/errors.h"

namespace compiler::inductor {

namespace {

class Analysis final : public OpsHandler {
public:
  ReadWrites rw;
  int ops = 0;

  LoopValue load(BufferId buffer, const Expr& index) override {
    rw.reads.push_back({buffer, index, false});
    return value(DType::Float32);
  }
  LoopValue masked(LoopValue, const std::function<LoopValue()>& body, double) override {
    return body();
  }
  LoopValue load_indirect(BufferId buffer, LoopValue, const Expr&, const Expr&,
                          const Expr& offset) override {
    rw.reads.push_back({buffer, offset, true});
    return value(DType::Float32);
  }
  void store(BufferId buffer, const Expr& index, LoopValue) override {
    rw.writes.push_back({buffer, index, false});
  }
  LoopValue constant(double, DType dtype) override { return value(dtype); }
  LoopValue index_expr(const Expr&, DType dtype) override { return value(dtype); }
  LoopValue cast(LoopValue, DType dtype) override { return value(compute_dtype(dtype)); }
  LoopValue apply(LoopOp op, std::span<const LoopValue> args) override {
    ++ops;
    return value(loop_op_result(op, args.empty() ? DType::Float32 : args.back().dtype));
  }

private:
  LoopValue value(DType dtype) { return {next_++, dtype}; }
  std::int32_t next_ = 0;
};

} // namespace

std::vector<Expr> index_vars(std::span<const Expr> ranges, char prefix) {
  std::vector<Expr> vars;
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    vars.push_back(Expr::var(prefix, static_cast<std::int32_t>(i), ranges[i]));
  }
  return vars;
}

LoopValue run_body(const Buffer& b, OpsHandler& ops, std::span<const Expr> index,
                   std::span<const Expr> rindex) {
  if (b.kind == BufferKind::Pointwise) {
    const LoopValue v = b.pointwise(ops, index);
    ops.store(b.id, b.layout.index(index), v);
    return v;
  }
  TORCHSCOPE_ASSERT(b.kind == BufferKind::Reduction, "run_body on a computed buffer");
  return b.reduce(ops, index, rindex);
}

ReadWrites analyze_at(const Buffer& b, std::span<const Expr> index, std::span<const Expr> rindex) {
  Analysis a;
  run_body(b, a, index, rindex);
  if (b.kind == BufferKind::Reduction) {
    a.rw.writes.push_back({b.id, b.layout.index(index), false});
  }
  return std::move(a.rw);
}

ReadWrites analyze(const Buffer& b) {
  return analyze_at(b, index_vars(b.ranges, 'x'), index_vars(b.reduction_ranges, 'r'));
}

int body_op_count(const Buffer& b) {
  Analysis a;
  const std::vector<Expr> x = index_vars(b.ranges, 'x');
  const std::vector<Expr> r = index_vars(b.reduction_ranges, 'r');
  run_body(b, a, x, r);
  return a.ops;
}

} // namespace compiler::inductor
