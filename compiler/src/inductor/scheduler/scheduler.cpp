// Fusion, loop merging, kernel-local values and memory planning (scheduler/scheduler.h).
#include "inductor/scheduler/scheduler.h"

#include "compiler/core/errors.h"
#include "inductor/ir/index_analysis.h"

#include <algorithm>
#include <limits>
#include <set>

namespace compiler::inductor {

namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

ReadWrites fused_accesses(const LoweredGraph& ir, const FusedNode& n) {
  return analyze_at(ir.buffer(n.buffer), n.index, n.rindex);
}

Expr store_index(const LoweredGraph& ir, const FusedNode& n) {
  return ir.buffer(n.buffer).layout.index(n.index);
}

// Loop variables over `sizes`, a dim of size 1 as the constant 0: a broadcast read of a
// keepdim result (layer_norm's mean over [rows, 1]) indexes that dim with 0, so the store and
// the read of the same element must both say 0 for the scheduler to see them as one (and fuse
// the reduction with its consumers).
std::vector<Expr> vars(std::span<const Expr> sizes, char prefix) {
  std::vector<Expr> v = index_vars(sizes, prefix);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i].is_constant() && sizes[i].constant_value() == 1) {
      v[i] = Expr(0);
    }
  }
  return v;
}

bool same_sizes(std::span<const Expr> a, std::span<const Expr> b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

// `sizes`' index in terms of loop variables `v` over `loop`: the variables themselves when the
// shapes agree, else through the linear position (the simplifier folds it when layouts agree).
std::optional<std::vector<Expr>> map_index(std::span<const Expr> sizes, std::span<const Expr> loop,
                                           std::span<const Expr> v) {
  if (same_sizes(sizes, loop)) {
    return std::vector<Expr>(v.begin(), v.end());
  }
  if (!(product(sizes) == product(loop))) {
    return std::nullopt;
  }
  return delinearize(dot(v, contiguous_strides(loop)), sizes);
}

std::string kernel_name(const graph::Graph& g, const std::vector<std::size_t>& origins,
                        std::size_t index) {
  std::set<std::string> names;
  for (std::size_t o : origins) {
    const graph::Node& n = g.node(o);
    if (n.kind == graph::NodeKind::CallOp) {
      std::string_view aten = op_aten_name(n.op);
      if (aten.starts_with("aten.")) {
        aten.remove_prefix(5);
      }
      names.emplace(aten);
    }
  }
  std::string name = "cpp_fused";
  std::size_t count = 0;
  for (const std::string& n : names) {
    if (++count > 6) {
      break; // long names say little more
    }
    name += "_" + n;
  }
  return name + "_" + std::to_string(index);
}

class Scheduler {
public:
  Scheduler(const LoweredGraph& ir, const graph::Graph& g)
      : ir_(ir), graph_(g), kernel_of_(ir.buffers.size(), kNone), stage_of_(ir.buffers.size(), 0),
        step_of_(ir.buffers.size(), kNone) {}

  Schedule run() {
    for (const Buffer& b : ir_.buffers) {
      switch (b.kind) {
      case BufferKind::Input:
      case BufferKind::Constant:
        break;
      case BufferKind::Extern:
      case BufferKind::Fallback:
        out_.steps.push_back(
            {b.kind == BufferKind::Extern ? Step::Kind::Extern : Step::Kind::Fallback, 0, b.id});
        step_of_[static_cast<std::size_t>(b.id)] = out_.steps.size() - 1;
        break;
      case BufferKind::Pointwise:
      case BufferKind::Reduction:
        place(b);
        break;
      }
    }
    for (KernelPlan& k : out_.kernels) {
      merge_loops(k);
    }
    finish_kernels();
    plan_memory();
    return std::move(out_);
  }

private:
  // ---------------------------------------------------------------- fusion

  void place(const Buffer& b) {
    const ReadWrites own = analyze(b);
    // The earliest step b may run in: after every producer that is not a kernel it can join.
    std::size_t earliest = 0;
    for (const MemoryAccess& r : own.reads) {
      const std::size_t s = step_of_[static_cast<std::size_t>(r.buffer)];
      if (s == kNone) {
        continue;
      }
      const bool in_kernel = kernel_of_[static_cast<std::size_t>(r.buffer)] != kNone;
      earliest = std::max(earliest, in_kernel ? s : s + 1);
    }
    for (std::size_t s = out_.steps.size(); s-- > earliest;) {
      if (out_.steps[s].kind != Step::Kind::Kernel) {
        continue;
      }
      if (try_fuse(out_.steps[s].kernel, b)) {
        step_of_[static_cast<std::size_t>(b.id)] = s;
        return;
      }
    }
    KernelPlan k;
    FusedNode n{b.id, {}, {}, true};
    k.outer = b.ranges;
    n.index = vars(b.ranges, 'x');
    LoopStage stage;
    if (b.kind == BufferKind::Reduction) {
      stage.inner = b.reduction_ranges;
      n.rindex = vars(b.reduction_ranges, 'r');
    }
    stage.nodes.push_back(std::move(n));
    k.stages.push_back(std::move(stage));
    out_.kernels.push_back(std::move(k));
    out_.steps.push_back({Step::Kind::Kernel, out_.kernels.size() - 1, -1});
    kernel_of_[static_cast<std::size_t>(b.id)] = out_.kernels.size() - 1;
    stage_of_[static_cast<std::size_t>(b.id)] = 0;
    step_of_[static_cast<std::size_t>(b.id)] = out_.steps.size() - 1;
  }

  // Where in `k` a node of `b` would go, with its indices; nullopt when the loops do not fit.
  struct Slot {
    std::size_t stage = 0;
    bool new_stage = false;
    std::vector<Expr> inner; // the new stage's inner sizes
    FusedNode node;
  };

  bool depends_on_stage(const ReadWrites& mapped, std::size_t kernel, std::size_t stage,
                        bool reductions_only) const {
    for (const MemoryAccess& r : mapped.reads) {
      const auto rb = static_cast<std::size_t>(r.buffer);
      if (kernel_of_[rb] != kernel || stage_of_[rb] != stage) {
        continue;
      }
      if (!reductions_only || ir_.buffer(r.buffer).kind == BufferKind::Reduction) {
        return true;
      }
    }
    return false;
  }

  std::optional<Slot> fit(const KernelPlan& k, std::size_t kernel_index, const Buffer& b) const {
    const std::vector<Expr> xo = vars(k.outer, 'x');
    const Expr outer_numel = product(k.outer);
    Slot slot;
    slot.node.buffer = b.id;
    if (k.pointwise_only()) {
      if (b.kind != BufferKind::Pointwise) {
        return std::nullopt; // handled by restructuring the kernel (try_fuse)
      }
      std::optional<std::vector<Expr>> idx = map_index(b.ranges, k.outer, xo);
      if (!idx) {
        return std::nullopt;
      }
      slot.node.index = std::move(*idx);
      slot.stage = k.stages.size() - 1;
      return slot;
    }
    const std::size_t last = k.stages.size() - 1;
    if (b.kind == BufferKind::Reduction) {
      std::optional<std::vector<Expr>> idx = map_index(b.ranges, k.outer, xo);
      if (!idx) {
        return std::nullopt;
      }
      slot.node.index = std::move(*idx);
      // Join the last stage when its inner loop has the reduction's size and the reduction
      // reads no reduction of that stage; else open a stage.
      const std::vector<Expr>& inner = k.stages[last].inner;
      const Expr rnumel = product(b.reduction_ranges);
      if (!inner.empty() && product(inner) == rnumel) {
        std::optional<std::vector<Expr>> ridx =
            map_index(b.reduction_ranges, inner, vars(inner, 'r'));
        slot.node.rindex = std::move(*ridx);
        ReadWrites mapped = mapped_accesses(slot.node);
        if (!depends_on_stage(mapped, kernel_index, last, true)) {
          slot.stage = last;
          return slot;
        }
      }
      slot.new_stage = true;
      slot.stage = k.stages.size();
      slot.inner = b.reduction_ranges;
      slot.node.rindex = vars(b.reduction_ranges, 'r');
      return slot;
    }
    // A pointwise node in a kernel with stages: over the outer index (an epilogue at the outer
    // level) or over outer x inner (inside a stage's loop).
    const Expr numel = product(b.ranges);
    if (numel == outer_numel) {
      std::optional<std::vector<Expr>> idx = map_index(b.ranges, k.outer, xo);
      if (!idx) {
        return std::nullopt;
      }
      slot.node.index = std::move(*idx);
      if (k.stages[last].inner.empty()) {
        slot.stage = last;
      } else {
        slot.new_stage = true;
        slot.stage = k.stages.size();
      }
      return slot;
    }
    // Inside the last stage with an inner loop whose size fits.
    for (std::size_t s = k.stages.size(); s-- > 0;) {
      const std::vector<Expr>& inner = k.stages[s].inner;
      if (inner.empty() || !(numel == outer_numel * product(inner))) {
        continue;
      }
      std::vector<Expr> loop = k.outer;
      loop.insert(loop.end(), inner.begin(), inner.end());
      std::vector<Expr> v = xo;
      const std::vector<Expr> ri = vars(inner, 'r');
      v.insert(v.end(), ri.begin(), ri.end());
      std::optional<std::vector<Expr>> idx = map_index(b.ranges, loop, v);
      if (!idx) {
        return std::nullopt;
      }
      slot.node.index = std::move(*idx);
      ReadWrites mapped = mapped_accesses(slot.node);
      if (s == last && !depends_on_stage(mapped, kernel_index, last, true)) {
        slot.stage = last;
      } else {
        slot.new_stage = true;
        slot.stage = k.stages.size();
        slot.inner = inner;
      }
      return slot;
    }
    return std::nullopt;
  }

  ReadWrites mapped_accesses(const FusedNode& n) const { return fused_accesses(ir_, n); }

  // Whether every read `n` (in stage `stage` of kernel `kernel`) makes of a buffer computed in
  // that kernel reads it where and when it is computed.
  bool legal(const KernelPlan& k, std::size_t kernel, std::size_t stage, const FusedNode& n) const {
    const ReadWrites rw = mapped_accesses(n);
    for (const MemoryAccess& r : rw.reads) {
      const auto rb = static_cast<std::size_t>(r.buffer);
      if (kernel_of_[rb] != kernel) {
        continue;
      }
      if (r.indirect) {
        return false;
      }
      const std::size_t ps = stage_of_[rb];
      const FusedNode* producer = nullptr;
      for (const FusedNode& f : k.stages[ps].nodes) {
        if (f.buffer == r.buffer) {
          producer = &f;
        }
      }
      TORCHSCOPE_ASSERT(producer != nullptr, "a kernel's buffer is in its stage");
      if (!(store_index(ir_, *producer) == r.index)) {
        return false;
      }
      // A reduction's value exists after its stage's loop; a pointwise value in its own
      // iteration, or (stored) in memory for the rest of the outer iteration.
      const bool reduction = ir_.buffer(r.buffer).kind == BufferKind::Reduction;
      if (reduction ? stage <= ps : stage < ps) {
        return false;
      }
    }
    return true;
  }

  bool try_fuse(std::size_t kernel, const Buffer& b) {
    KernelPlan& k = out_.kernels[kernel];
    // A reduction over everything a pointwise kernel computes turns it into a reduction
    // kernel: the pointwise loops become the reduction's stage.
    if (k.pointwise_only() && b.kind == BufferKind::Reduction &&
        product(k.outer) == product(b.ranges) * product(b.reduction_ranges) &&
        !b.reduction_ranges.empty() && k.stages.size() == 1) {
      KernelPlan next = restructure(k, b);
      const std::size_t stage = 0;
      FusedNode n{b.id, vars(b.ranges, 'x'), vars(b.reduction_ranges, 'r'), true};
      if (!legal(next, kernel, stage, n)) {
        return false;
      }
      next.stages[stage].nodes.push_back(std::move(n));
      k = std::move(next);
      commit(kernel, b.id, stage);
      return true;
    }
    std::optional<Slot> slot = fit(k, kernel, b);
    if (!slot || !legal(k, kernel, slot->stage, slot->node)) {
      return false;
    }
    if (slot->new_stage) {
      k.stages.push_back({slot->inner, {}});
    }
    k.stages[slot->stage].nodes.push_back(std::move(slot->node));
    commit(kernel, b.id, slot->stage);
    return true;
  }

  // `k` (pointwise only) re-expressed with the outer loops of reduction `b` and its nodes in
  // one stage looping over b's reduction ranges.
  KernelPlan restructure(const KernelPlan& k, const Buffer& b) const {
    KernelPlan next = k;
    next.outer = b.ranges;
    const std::vector<Expr> xo = vars(b.ranges, 'x');
    const std::vector<Expr> ri = vars(b.reduction_ranges, 'r');
    const Expr linear = dot(xo, contiguous_strides(b.ranges)) * product(b.reduction_ranges) +
                        dot(ri, contiguous_strides(b.reduction_ranges));
    const std::vector<Expr> old = delinearize(linear, k.outer);
    std::map<VarId, Expr> subst;
    for (std::size_t i = 0; i < old.size(); ++i) {
      subst[VarId{'x', static_cast<std::int32_t>(i)}] = old[i];
    }
    next.stages.assign(1, LoopStage{b.reduction_ranges, {}});
    for (const FusedNode& n : k.stages[0].nodes) {
      FusedNode m = n;
      for (Expr& e : m.index) {
        e = e.substitute(subst);
      }
      next.stages[0].nodes.push_back(std::move(m));
    }
    return next;
  }

  void commit(std::size_t kernel, BufferId id, std::size_t stage) {
    kernel_of_[static_cast<std::size_t>(id)] = kernel;
    stage_of_[static_cast<std::size_t>(id)] = stage;
  }

  // ---------------------------------------------------------------- loop merging

  // Merges adjacent loops (a, a+1) of prefix `prefix` when every access of `nodes` is
  // contiguous across them, so no access divides by the merged loop.
  void merge(std::vector<Expr>& sizes, std::vector<FusedNode*> nodes, char prefix) {
    bool merged = true;
    while (merged && sizes.size() > 1) {
      merged = false;
      for (std::size_t a = sizes.size() - 1; a-- > 0;) {
        std::vector<Expr> next_sizes;
        std::map<VarId, Expr> subst;
        const Expr fused = Expr::var(prefix, static_cast<std::int32_t>(a), sizes[a] * sizes[a + 1]);
        for (std::size_t i = 0; i < sizes.size(); ++i) {
          const VarId old{prefix, static_cast<std::int32_t>(i)};
          if (i < a) {
            next_sizes.push_back(sizes[i]);
          } else if (i == a) {
            next_sizes.push_back(sizes[a] * sizes[a + 1]);
            subst[old] = Expr::floordiv(fused, sizes[a + 1]);
          } else if (i == a + 1) {
            subst[old] = Expr::mod(fused, sizes[a + 1]);
          } else {
            next_sizes.push_back(sizes[i]);
            subst[old] = Expr::var(prefix, static_cast<std::int32_t>(i - 1), sizes[i]);
          }
        }
        std::vector<FusedNode> trial;
        bool ok = true;
        const VarId fv{prefix, static_cast<std::int32_t>(a)};
        for (FusedNode* n : nodes) {
          FusedNode m = *n;
          // A pointwise node inside a stage indexes with the stage's variables too.
          for (Expr& e : m.index) {
            e = e.substitute(subst);
          }
          for (Expr& e : m.rindex) {
            e = e.substitute(subst);
          }
          const ReadWrites rw = mapped_accesses(m);
          for (const auto* list : {&rw.reads, &rw.writes}) {
            for (const MemoryAccess& acc : *list) {
              ok = ok && !acc.index.divides_var(fv);
            }
          }
          if (!ok) {
            break;
          }
          trial.push_back(std::move(m));
        }
        if (!ok) {
          continue;
        }
        for (std::size_t i = 0; i < nodes.size(); ++i) {
          *nodes[i] = std::move(trial[i]);
        }
        sizes = std::move(next_sizes);
        merged = true;
        break;
      }
    }
  }

  void merge_loops(KernelPlan& k) {
    std::vector<FusedNode*> all;
    for (LoopStage& s : k.stages) {
      for (FusedNode& n : s.nodes) {
        all.push_back(&n);
      }
    }
    merge(k.outer, all, 'x');
    for (LoopStage& s : k.stages) {
      std::vector<FusedNode*> nodes;
      for (FusedNode& n : s.nodes) {
        nodes.push_back(&n);
      }
      merge(s.inner, nodes, 'r');
    }
  }

  // ---------------------------------------------------------------- kernels and memory

  struct Read {
    std::size_t step;
    std::size_t stage;
    std::size_t position; // node position within its stage
    Expr index;
    bool indirect;
  };

  void finish_kernels() {
    const std::size_t nb = ir_.buffers.size();
    reads_.assign(nb, {});
    is_output_.assign(nb, false);
    for (const BufferView& v : ir_.outputs) {
      is_output_[static_cast<std::size_t>(v.buffer)] = true;
    }
    for (std::size_t s = 0; s < out_.steps.size(); ++s) {
      const Step& st = out_.steps[s];
      if (st.kind == Step::Kind::Kernel) {
        const KernelPlan& k = out_.kernels[st.kernel];
        for (std::size_t si = 0; si < k.stages.size(); ++si) {
          for (std::size_t p = 0; p < k.stages[si].nodes.size(); ++p) {
            const ReadWrites rw = mapped_accesses(k.stages[si].nodes[p]);
            for (const MemoryAccess& r : rw.reads) {
              reads_[static_cast<std::size_t>(r.buffer)].push_back({s, si, p, r.index, r.indirect});
            }
          }
        }
        continue;
      }
      const Buffer& b = ir_.buffer(st.buffer);
      auto add = [&](BufferId id) {
        if (id >= 0) {
          reads_[static_cast<std::size_t>(id)].push_back({s, 0, 0, Expr(), true});
        }
      };
      if (b.extern_call) {
        add(b.extern_call->a.buffer);
        add(b.extern_call->b.buffer);
        add(b.extern_call->bias.buffer);
        if (b.extern_call->node) {
          for (const BufferView& v : b.extern_call->node->operands) {
            add(v.buffer);
          }
        }
      }
      if (b.fallback) {
        for (const BufferView& v : b.fallback->operands) {
          add(v.buffer);
        }
      }
    }
    for (std::size_t ki = 0; ki < out_.kernels.size(); ++ki) {
      KernelPlan& k = out_.kernels[ki];
      const std::size_t step = step_of_kernel(ki);
      std::vector<BufferId> loads;
      std::vector<BufferId> stores;
      for (std::size_t si = 0; si < k.stages.size(); ++si) {
        LoopStage& stage = k.stages[si];
        for (std::size_t p = 0; p < stage.nodes.size(); ++p) {
          FusedNode& n = stage.nodes[p];
          n.store = !kernel_local(k, step, si, n);
          const std::vector<std::size_t>& origins = ir_.buffer(n.buffer).origins;
          k.origins.insert(k.origins.end(), origins.begin(), origins.end());
          if (n.store) {
            stores.push_back(n.buffer);
          }
          const ReadWrites rw = mapped_accesses(n);
          for (const MemoryAccess& r : rw.reads) {
            if (kernel_of_[static_cast<std::size_t>(r.buffer)] == ki && !stored_in(k, r.buffer)) {
              continue; // forwarded from a register
            }
            if (std::find(loads.begin(), loads.end(), r.buffer) == loads.end()) {
              loads.push_back(r.buffer);
            }
          }
        }
      }
      for (BufferId id : loads) {
        const bool also_stored = std::find(stores.begin(), stores.end(), id) != stores.end();
        k.args.push_back({id, also_stored ? ArgRole::InOut : ArgRole::In});
      }
      for (BufferId id : stores) {
        if (std::find(loads.begin(), loads.end(), id) == loads.end()) {
          k.args.push_back({id, ArgRole::Out});
        }
      }
      std::sort(k.origins.begin(), k.origins.end());
      k.origins.erase(std::unique(k.origins.begin(), k.origins.end()), k.origins.end());
      k.name = kernel_name(graph_, k.origins, ki);
    }
  }

  std::size_t step_of_kernel(std::size_t kernel) const {
    for (std::size_t s = 0; s < out_.steps.size(); ++s) {
      if (out_.steps[s].kind == Step::Kind::Kernel && out_.steps[s].kernel == kernel) {
        return s;
      }
    }
    return kNone;
  }

  bool stored_in(const KernelPlan& k, BufferId id) const {
    for (const LoopStage& s : k.stages) {
      for (const FusedNode& n : s.nodes) {
        if (n.buffer == id) {
          return n.store;
        }
      }
    }
    return true;
  }

  // Every reader of n's buffer is in this kernel and reads the value where it is computed.
  bool kernel_local(const KernelPlan& k, std::size_t step, std::size_t stage,
                    const FusedNode& n) const {
    const auto id = static_cast<std::size_t>(n.buffer);
    if (is_output_[id]) {
      return false;
    }
    const Expr at = store_index(ir_, n);
    const bool reduction = ir_.buffer(n.buffer).kind == BufferKind::Reduction;
    const bool outer_level = k.stages[stage].inner.empty();
    for (const Read& r : reads_[id]) {
      if (r.step != step || r.indirect || !(r.index == at)) {
        return false;
      }
      if (reduction ? r.stage <= stage : (outer_level ? r.stage < stage : r.stage != stage)) {
        return false;
      }
    }
    return true;
  }

  void plan_memory() {
    const std::size_t nb = ir_.buffers.size();
    out_.buffers.assign(nb, {});
    std::vector<std::size_t> defined(nb, kNone);
    for (std::size_t i = 0; i < nb; ++i) {
      const Buffer& b = ir_.buffers[i];
      BufferPlan& p = out_.buffers[i];
      for (const Read& r : reads_[i]) {
        p.last_use = std::max(p.last_use, r.step);
      }
      switch (b.kind) {
      case BufferKind::Input:
      case BufferKind::Constant:
        p.source = BufferPlan::Source::External;
        continue;
      case BufferKind::Fallback:
        p.source = BufferPlan::Source::Result;
        defined[i] = step_of_[i];
        continue;
      case BufferKind::Extern:
        if (b.extern_call->kind == ExternCall::Kind::Convolution) {
          p.source = BufferPlan::Source::Result; // the eager kernel's result tensor
          defined[i] = step_of_[i];
          continue;
        }
        break;
      default:
        break;
      }
      defined[i] = step_of_[i];
      if (b.is_computed() && !stored_in(out_.kernels[kernel_of_[i]], b.id)) {
        p.source = BufferPlan::Source::None;
        continue;
      }
      if (is_output_[i]) {
        p.source = BufferPlan::Source::Output;
        p.last_use = out_.steps.size();
      }
    }
    // Allocations in step order: in place over a dead input read at the same index, else a
    // dead allocation of the same size, else a new one. Outputs always get their own.
    std::vector<std::int32_t> slot_of(nb, -1);
    holder_.clear();
    for (std::size_t s = 0; s < out_.steps.size(); ++s) {
      for (std::size_t i = 0; i < nb; ++i) {
        BufferPlan& p = out_.buffers[i];
        if (defined[i] != s ||
            (p.source != BufferPlan::Source::Slot && p.source != BufferPlan::Source::Output)) {
          continue;
        }
        const Buffer& b = ir_.buffers[i];
        const Expr numel = b.layout.storage_extent();
        if (p.source == BufferPlan::Source::Output) {
          // A result may be computed over a dead intermediate (softmax rescales exp(x - max)
          // where it was written); the allocation is then the result's.
          std::int32_t over =
              out_.steps[s].kind == Step::Kind::Kernel ? in_place_candidate(b, s, slot_of) : -1;
          if (over >= 0) {
            ++out_.inplace;
            ++out_.reused;
            out_.allocations[static_cast<std::size_t>(over)].output = true;
            holder_[static_cast<std::size_t>(over)] = b.id;
            p.slot = over;
          } else {
            p.slot = new_allocation(numel, b.layout.dtype, true, b.id);
          }
          continue;
        }
        std::int32_t chosen = -1;
        if (out_.steps[s].kind == Step::Kind::Kernel) {
          chosen = in_place_candidate(b, s, slot_of);
          if (chosen >= 0) {
            ++out_.inplace;
          }
        }
        if (chosen < 0) {
          for (std::size_t a = 0; a < out_.allocations.size(); ++a) {
            const Schedule::Allocation& al = out_.allocations[a];
            const BufferId h = holder_[a];
            if (al.output || !(al.numel == numel) ||
                dtype_size(al.dtype) != dtype_size(b.layout.dtype) ||
                out_.buffers[static_cast<std::size_t>(h)].last_use >= s) {
              continue;
            }
            chosen = static_cast<std::int32_t>(a);
            break;
          }
        }
        if (chosen >= 0) {
          ++out_.reused;
          holder_[static_cast<std::size_t>(chosen)] = b.id;
        } else {
          chosen = new_allocation(numel, b.layout.dtype, false, b.id);
        }
        p.slot = chosen;
        slot_of[i] = chosen;
      }
    }
  }

  std::int32_t new_allocation(const Expr& numel, DType dtype, bool output, BufferId holder) {
    out_.allocations.push_back({numel, dtype, output});
    holder_.push_back(holder);
    return static_cast<std::int32_t>(out_.allocations.size() - 1);
  }

  // An allocation `b` may overwrite at step `s`: a buffer whose last reader is this kernel,
  // read here only at b's store index, in earlier stages or by nodes no later than b's.
  std::int32_t in_place_candidate(const Buffer& b, std::size_t s,
                                  const std::vector<std::int32_t>& slot_of) const {
    const auto bi = static_cast<std::size_t>(b.id);
    const KernelPlan& k = out_.kernels[kernel_of_[bi]];
    const std::size_t stage = stage_of_[bi];
    std::size_t position = 0;
    const FusedNode* node = nullptr;
    for (std::size_t p = 0; p < k.stages[stage].nodes.size(); ++p) {
      if (k.stages[stage].nodes[p].buffer == b.id) {
        node = &k.stages[stage].nodes[p];
        position = p;
      }
    }
    TORCHSCOPE_ASSERT(node != nullptr, "a kernel buffer is in its stage");
    if (b.kind != BufferKind::Pointwise) {
      return -1;
    }
    // Reading at the store index is safe only when every iteration stores a different element.
    // A result laid out with a stride-0 dim (a graph result that is an expand of the value) is
    // stored once per element of that dim at the same address: in place, each iteration would
    // read what the previous one stored (an expanded scatter_add gradient summed 12 times).
    for (std::size_t d = 0; d < b.layout.sizes.size(); ++d) {
      if (b.layout.strides[d].is_zero() && !(b.layout.sizes[d] == Expr(1))) {
        return -1;
      }
    }
    const Expr at = store_index(ir_, *node);
    const Expr numel = b.layout.storage_extent();
    std::vector<BufferId> candidates;
    if (b.reuse >= 0) {
      candidates.push_back(b.reuse); // the re-inplacing pass's choice first
    }
    for (std::size_t i = 0; i < ir_.buffers.size(); ++i) {
      if (static_cast<BufferId>(i) != b.reuse) {
        candidates.push_back(static_cast<BufferId>(i));
      }
    }
    for (BufferId c : candidates) {
      const auto ci = static_cast<std::size_t>(c);
      const std::int32_t slot = slot_of[ci];
      if (slot < 0 || holder_[static_cast<std::size_t>(slot)] != c ||
          out_.buffers[ci].last_use != s ||
          out_.allocations[static_cast<std::size_t>(slot)].output ||
          !(out_.allocations[static_cast<std::size_t>(slot)].numel == numel) ||
          dtype_size(out_.allocations[static_cast<std::size_t>(slot)].dtype) !=
              dtype_size(b.layout.dtype)) {
        continue;
      }
      bool ok = !reads_[ci].empty();
      for (const Read& r : reads_[ci]) {
        if (r.step != s) {
          continue;
        }
        // Reads in earlier stages are done for this outer index before b is written.
        ok = ok && !r.indirect && r.index == at &&
             (r.stage < stage || (r.stage == stage && r.position <= position));
      }
      if (ok) {
        return slot;
      }
    }
    return -1;
  }

  const LoweredGraph& ir_;
  const graph::Graph& graph_;
  Schedule out_;
  std::vector<std::size_t> kernel_of_;
  std::vector<std::size_t> stage_of_;
  std::vector<std::size_t> step_of_;
  std::vector<std::vector<Read>> reads_;
  std::vector<bool> is_output_;
  std::vector<BufferId> holder_; // per allocation: the buffer last placed there
};

} // namespace

Schedule schedule(const LoweredGraph& ir, const graph::Graph& graph) {
  return Scheduler(ir, graph).run();
}

} // namespace compiler::inductor
