// The CPU loop decision (codegen/cpu/cpu_loop_plan.h).
#include "inductor/codegen/cpu/cpu_loop_plan.h"

namespace compiler::inductor::cpu {

CpuLoopPlan plan_cpu_loops(const KernelPlan& k, const CpuTarget& target) {
  CpuLoopPlan p;
  p.lanes = target.lanes;
  // No stage loops inside the outer loops: the innermost outer loop is the vector loop.
  if (!k.pointwise_only()) {
    p.vector = CpuLoopPlan::Vector::Stage;
  } else if (!k.outer.empty()) {
    p.vector = CpuLoopPlan::Vector::Outer;
  }
  p.split_extent = k.outer.empty() ? Expr(1) : k.outer[0];
  Expr rest = 1;
  for (std::size_t d = 1; d < k.outer.size(); ++d) {
    rest = rest * k.outer[d];
  }
  Expr inner = 0;
  for (const LoopStage& st : k.stages) {
    inner = inner + (st.inner.empty() ? Expr(1) : product(st.inner));
  }
  p.work = rest * inner;
  // x0 itself the vector loop: parts of whole vectors, so only the last part has a tail.
  p.split_align = p.vector == CpuLoopPlan::Vector::Outer && k.outer.size() == 1 ? p.lanes : 1;
  return p;
}

} // namespace compiler::inductor::cpu
