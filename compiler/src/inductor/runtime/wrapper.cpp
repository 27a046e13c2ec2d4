// The compiled program's runtime (inductor/runtime/wrapper.h).
#include "inductor/runtime/wrapper.h"

#include "compiler/core/errors.h"
#include "compiler/graph/graph_rewrite.h"
#include "compiler/graph/interpreter.h"
#include "inductor/counters.h"
#include "kernels/gemm.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace compiler::inductor {

namespace {

thread_local std::vector<std::shared_ptr<Storage>>* t_keep = nullptr;

// The index checks of GPU training forwards whose flags this thread has not read yet
// (make_generated_graph's `defer_checks`), each with the kernels' names.
struct PendingChecks {
  std::vector<std::function<bool()>> checks;
  std::vector<std::string> kernels;
};
// Reads every check of `runs` (waiting for its kernel only), calling raised(kernel name) for each
// that raised its flag.
template <class Fn>
void read_checks(std::vector<PendingChecks>& runs, const Fn& raised) {
  for (PendingChecks& p : runs) {
    for (std::size_t i = 0; i < p.checks.size(); ++i) {
      if (p.checks[i]()) {
        raised(p.kernels[i]);
      }
    }
  }
}

// The checks still unread when the thread ends (a training forward was its last compiled run)
// are read then: a raised flag cannot become an error any more, so it is said on stderr rather
// than lost.
struct PendingAtExit : std::vector<PendingChecks> {
  PendingAtExit() = default;
  PendingAtExit(const PendingAtExit&) = delete;
  PendingAtExit& operator=(const PendingAtExit&) = delete;
  ~PendingAtExit() {
    try {
      read_checks(*this, [](const std::string& kernel) {
        std::fprintf(stderr,
                     "torchscope: index out of range: kernel %s of the last GPU training "
                     "forward of this thread read a row outside its tensor; no later compiled "
                     "call reported it, so its results were wrong\n",
                     kernel.c_str());
      });
    } catch (...) { // the device is gone: nothing can be read any more
    }
  }
};
thread_local PendingAtExit t_pending;

// Reads the checks of `earlier` runs: UserError when one raised its flag.
void resolve(std::vector<PendingChecks>& earlier) {
  std::string raised;
  read_checks(earlier, [&](const std::string& kernel) {
    if (raised.empty()) {
      raised = kernel;
    }
  });
  earlier.clear();
  if (!raised.empty()) {
    user_error("index out of range: kernel " + raised +
               " of an earlier GPU training forward read a row (a gather's or an embedding's "
               "index) outside its tensor, so that call's results are wrong. A training "
               "forward reports this after the next compiled call was queued (normally its "
               "backward), so the device need not wait for it (docs/COMPILER.md, \"GPU code "
               "generation\"); run without gradients to get eager's error at the call.");
  }
}

// A tensor the host's eager kernels can take: itself, or a copy on the host.
Tensor on_host(const Tensor& t) {
  return t.device().is_cpu() ? t : t.to(Device::cpu());
}

// An eager kernel on `device`'s tensors: eager kernels run on the host, so a GPU program copies
// the operands there and the result back (fallback nodes and re-laid-out inputs only).
Value eager_on(Device device, OpKind op, std::span<const Value> args) {
  if (device.is_cpu()) {
    return run_eager(op, args);
  }
  std::vector<Value> host(args.begin(), args.end());
  for (Value& v : host) {
    if (const Tensor* t = std::get_if<Tensor>(&v)) {
      v = on_host(*t);
    } else if (const auto* list = std::get_if<std::vector<Tensor>>(&v)) {
      std::vector<Tensor> moved;
      for (const Tensor& item : *list) {
        moved.push_back(on_host(item));
      }
      v = std::move(moved);
    }
  }
  return std::get<Tensor>(run_eager(op, host)).to(device);
}

// Where a buffer's elements are during one run.
struct Place {
  std::shared_ptr<Storage> storage;
  std::int64_t offset = 0; // elements from the storage's start
  DType dtype = DType::Float32;
  void* data() const {
    return static_cast<char*>(storage->data()) +
           offset * static_cast<std::int64_t>(dtype_size(dtype));
  }
};

std::vector<std::int64_t> evaluate(const std::vector<Expr>& e, std::span<const std::int64_t> sym) {
  std::vector<std::int64_t> out;
  out.reserve(e.size());
  for (const Expr& x : e) {
    out.push_back(x.evaluate(sym));
  }
  return out;
}

// Whether a tensor of `sizes` has `strides` where it matters (dims longer than 1).
bool strides_match(const Tensor& t, const std::vector<std::int64_t>& sizes,
                   const std::vector<std::int64_t>& strides) {
  if (t.sizes() != sizes) {
    return false;
  }
  // A tensor with no elements is never read: any strides serve (an empty slice of a
  // non-contiguous gradient has strides no compiled layout names).
  if (std::find(sizes.begin(), sizes.end(), 0) != sizes.end()) {
    return true;
  }
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] > 1 && t.strides()[d] != strides[d]) {
      return false;
    }
  }
  return true;
}

Tensor view_of(const Place& p, const Layout& l, std::span<const std::int64_t> sym) {
  auto impl = std::make_shared<TensorImpl>();
  impl->dtype = l.dtype;
  impl->sizes = evaluate(l.sizes, sym);
  impl->sym_sizes = to_sym_sizes(impl->sizes);
  impl->strides = evaluate(l.strides, sym);
  impl->storage_offset = p.offset + l.offset.evaluate(sym);
  impl->storage = p.storage;
  impl->device = p.storage->device();
  return Tensor(std::move(impl));
}

Place place_of(const Tensor& t) {
  return {t.impl()->storage, t.storage_offset(), t.dtype()};
}

MatrixView matrix(const Place& p, const Layout& l, std::span<const std::int64_t> sym,
                  std::int64_t batch = 0) {
  const std::size_t r = l.sizes.size();
  const auto* base = static_cast<const float*>(p.data());
  std::int64_t offset = l.offset.evaluate(sym);
  if (r == 3) {
    offset += batch * l.strides[0].evaluate(sym);
  }
  return {base + offset, l.strides[r - 2].evaluate(sym), l.strides[r - 1].evaluate(sym)};
}

class GeneratedGraph final : public backend::CompiledGraph {
public:
  GeneratedGraph(const graph::Graph& g, std::shared_ptr<const LoweredGraph> ir,
                 std::shared_ptr<const Schedule> s, std::unique_ptr<LoadedKernels> k,
                 bool defer_checks)
      : graph_(g), ir_(std::move(ir)), schedule_(std::move(s)), kernels_(std::move(k)),
        defer_checks_(defer_checks) {
    for (std::size_t i = 0; i < graph_.size(); ++i) {
      if (graph_.node(i).kind == graph::NodeKind::Placeholder) {
        placeholders_.push_back(i);
      }
    }
    const std::size_t out = graph_.output_index();
    for (const graph::Arg& a : graph_.node(out).args) {
      results_.push_back(a.node);
    }
  }

  std::vector<Value> run(std::span<const Value> inputs,
                         std::span<const std::int64_t> symbols) const override {
    const LoweredGraph& ir = *ir_;
    const Schedule& s = *schedule_;
    std::vector<Place> places(ir.buffers.size());
    // Inputs and constants, in place (copied when the layout is not the compiled one).
    for (const Buffer& b : ir.buffers) {
      if (b.kind != BufferKind::Input && b.kind != BufferKind::Constant) {
        continue;
      }
      Tensor t =
          b.kind == BufferKind::Constant ? b.constant : std::get<Tensor>(inputs[b.input_index]);
      const std::vector<std::int64_t> sizes = evaluate(b.layout.sizes, symbols);
      const std::vector<std::int64_t> strides = evaluate(b.layout.strides, symbols);
      if (!strides_match(t, sizes, strides)) {
        TORCHSCOPE_ASSERT(b.layout.is_contiguous(), "only contiguous inputs are re-laid out");
        const std::array<Value, 1> args = {t};
        t = std::get<Tensor>(eager_on(kernels_->device(), OpKind::contiguous, args));
      }
      places[static_cast<std::size_t>(b.id)] = place_of(t);
    }
    // Planned allocations.
    std::vector<std::shared_ptr<Storage>> allocations;
    allocations.reserve(s.allocations.size());
    const Device device = kernels_->device();
    for (const Schedule::Allocation& a : s.allocations) {
      const std::int64_t numel = std::max<std::int64_t>(0, a.numel.evaluate(symbols));
      const std::size_t bytes = static_cast<std::size_t>(numel) * dtype_size(a.dtype);
      allocations.push_back(device.is_cpu()
                                ? std::make_shared<Storage>(bytes, Storage::Fill::Uninitialized)
                                : std::make_shared<Storage>(std::max<std::size_t>(bytes, 1), device,
                                                            Storage::Fill::Uninitialized));
      if (t_keep != nullptr) {
        t_keep->push_back(allocations.back());
      }
    }
    for (const Buffer& b : ir.buffers) {
      const BufferPlan& p = s.buffers[static_cast<std::size_t>(b.id)];
      if (p.source == BufferPlan::Source::Slot || p.source == BufferPlan::Source::Output) {
        places[static_cast<std::size_t>(b.id)] = {allocations[static_cast<std::size_t>(p.slot)], 0,
                                                  b.layout.dtype};
      }
    }
    std::vector<void*> args;
    PendingChecks pending;
    std::int64_t launched = 0;
    std::int64_t fallbacks = 0;
    std::int64_t externs = 0;
    for (const Step& step : s.steps) {
      switch (step.kind) {
      case Step::Kind::Kernel: {
        const KernelPlan& k = s.kernels[step.kernel];
        // A kernel over a size-0 result has nothing to compute: launch nothing.
        if (std::any_of(k.outer.begin(), k.outer.end(),
                        [&](const Expr& e) { return e.evaluate(symbols) == 0; })) {
          break;
        }
        args.clear();
        for (const KernelArg& a : k.args) {
          args.push_back(places[static_cast<std::size_t>(a.buffer)].data());
        }
        ++launched;
        if (defer_checks_) {
          if (std::function<bool()> check =
                  kernels_->launch_check_later(step.kernel, args.data(), symbols)) {
            pending.checks.push_back(std::move(check));
            pending.kernels.push_back(k.name);
          }
        } else if (!kernels_->launch(step.kernel, args.data(), symbols)) {
          // An index read from data was out of range: the eager kernels report it.
          return interpret_on_host(inputs, symbols);
        }
        break;
      }
      case Step::Kind::Extern: {
        ++externs;
        const Buffer& b = ir.buffer(step.buffer);
        if (b.extern_call->kind == ExternCall::Kind::Convolution) {
          places[static_cast<std::size_t>(step.buffer)] =
              run_node(*b.extern_call->node, b.layout, places, symbols);
        } else {
          run_extern(*kernels_, b, places, symbols);
        }
        break;
      }
      case Step::Kind::Fallback:
        ++fallbacks;
        places[static_cast<std::size_t>(step.buffer)] =
            run_fallback(ir.buffer(step.buffer), places, symbols);
        break;
      }
    }
    // This run's work is queued: the checks earlier training forwards left are read now (the
    // device runs this run's kernels meanwhile), and this run's own wait for the next run.
    if (!t_pending.empty() || !pending.checks.empty()) {
      std::vector<PendingChecks> earlier;
      earlier.swap(t_pending);
      if (!pending.checks.empty()) {
        t_pending.push_back(std::move(pending));
      }
      resolve(earlier);
    }
    detail::AtomicCounters& c = detail::atomic_counters();
    bump(c.kernel_launches, launched);
    bump(c.fallback_runs, fallbacks);
    bump(c.extern_calls, externs);
    std::vector<Value> values(graph_.size());
    for (std::size_t k = 0; k < placeholders_.size(); ++k) {
      values[placeholders_[k]] = inputs[k];
    }
    for (std::size_t k = 0; k < results_.size(); ++k) {
      if (graph_.node(results_[k]).kind == graph::NodeKind::Placeholder) {
        continue; // the input itself, as eager returns it
      }
      const BufferView& v = ir.outputs[k];
      values[results_[k]] = view_of(places[static_cast<std::size_t>(v.buffer)], v.layout, symbols);
    }
    return values;
  }

private:
  // The interpreter over the inputs on the host (it raises the eager error a kernel flagged),
  // its results moved back to the program's device.
  std::vector<Value> interpret_on_host(std::span<const Value> inputs,
                                       std::span<const std::int64_t> symbols) const {
    const Device device = kernels_->device();
    if (device.is_cpu()) {
      return graph::interpret(graph_, inputs, symbols);
    }
    std::vector<Value> host(inputs.begin(), inputs.end());
    for (Value& v : host) {
      if (const Tensor* t = std::get_if<Tensor>(&v)) {
        v = on_host(*t);
      }
    }
    std::vector<Value> out = graph::interpret(graph_, host, symbols);
    for (Value& v : out) {
      if (const Tensor* t = std::get_if<Tensor>(&v); t != nullptr && t->defined()) {
        v = t->to(device);
      }
    }
    return out;
  }

  static void run_extern(const LoadedKernels& kernels, const Buffer& b, std::vector<Place>& places,
                         std::span<const std::int64_t> sym) {
    const ExternCall& call = *b.extern_call;
    const Place& pa = places[static_cast<std::size_t>(call.a.buffer)];
    const Place& pb = places[static_cast<std::size_t>(call.b.buffer)];
    auto* out = static_cast<float*>(places[static_cast<std::size_t>(b.id)].data());
    const std::vector<std::int64_t> out_sizes = evaluate(b.layout.sizes, sym);
    const std::size_t r = out_sizes.size();
    const std::int64_t m = out_sizes[r - 2];
    const std::int64_t n = out_sizes[r - 1];
    const std::int64_t k = call.a.layout.sizes.back().evaluate(sym);
    if (call.kind == ExternCall::Kind::Bmm) {
      for (std::int64_t i = 0; i < out_sizes[0]; ++i) {
        kernels.gemm(b.id, m, n, k, matrix(pa, call.a.layout, sym, i),
                     matrix(pb, call.b.layout, sym, i), out + i * m * n, n, nullptr);
      }
      return;
    }
    MatrixView bias;
    if (call.kind == ExternCall::Kind::Addmm) {
      bias = matrix(places[static_cast<std::size_t>(call.bias.buffer)], call.bias.layout, sym);
    }
    kernels.gemm(b.id, m, n, k, matrix(pa, call.a.layout, sym), matrix(pb, call.b.layout, sym), out,
                 n, call.kind == ExternCall::Kind::Addmm ? &bias : nullptr);
  }

  Place run_fallback(const Buffer& b, std::vector<Place>& places,
                     std::span<const std::int64_t> sym) const {
    return run_node(*b.fallback, b.layout, places, sym);
  }

  // One graph node on its eager kernel (a fallback, or the convolution extern kernel), its
  // result laid out as `layout`.
  Place run_node(const FallbackCall& call, const Layout& layout, std::vector<Place>& places,
                 std::span<const std::int64_t> sym) const {
    std::vector<Tensor> operands;
    for (const BufferView& v : call.operands) {
      operands.push_back(view_of(places[static_cast<std::size_t>(v.buffer)], v.layout, sym));
    }
    // The node's arguments with node references replaced by the operands, in order.
    std::vector<Value> args;
    std::size_t next = 0;
    for (const graph::Arg& a : call.node.args) {
      switch (a.kind) {
      case graph::Arg::Kind::Node:
        args.emplace_back(operands[next++]);
        break;
      case graph::Arg::Kind::NodeList: {
        std::vector<Tensor> list;
        for (std::size_t i = 0; i < a.nodes.size(); ++i) {
          list.push_back(operands[next++]);
        }
        args.emplace_back(std::move(list));
        break;
      }
      case graph::Arg::Kind::Symbolic:
        args.emplace_back(SymInt(a.sym.node()->evaluate(sym)));
        break;
      case graph::Arg::Kind::SymList: {
        std::vector<SymInt> list;
        for (const SymInt& x : a.syms) {
          list.emplace_back(x.is_symbolic() ? x.node()->evaluate(sym) : x.hint());
        }
        args.emplace_back(std::move(list));
        break;
      }
      case graph::Arg::Kind::Constant:
        args.push_back(a.constant);
        break;
      }
    }
    Tensor result;
    {
      CallSiteScope site(call.node.where);
      result = std::get<Tensor>(eager_on(kernels_->device(), call.node.op, args));
    }
    const std::vector<std::int64_t> strides = evaluate(layout.strides, sym);
    if (!strides_match(result, evaluate(layout.sizes, sym), strides)) {
      TORCHSCOPE_ASSERT(layout.is_contiguous(), "a fallback's result has its planned layout");
      const std::array<Value, 1> cargs = {result};
      result = std::get<Tensor>(eager_on(kernels_->device(), OpKind::contiguous, cargs));
    }
    return place_of(result);
  }

  graph::Graph graph_;
  std::shared_ptr<const LoweredGraph> ir_;
  std::shared_ptr<const Schedule> schedule_;
  std::unique_ptr<LoadedKernels> kernels_;
  // A GPU training forward: its kernels' index checks are read after the next run was queued.
  bool defer_checks_ = false;
  std::vector<std::size_t> placeholders_;
  std::vector<std::size_t> results_;
};

} // namespace

AllocationKeeper::AllocationKeeper(std::vector<std::shared_ptr<Storage>>& keep)
    : previous_(t_keep) {
  t_keep = &keep;
}
AllocationKeeper::~AllocationKeeper() {
  t_keep = previous_;
}

std::unique_ptr<backend::CompiledGraph>
make_generated_graph(const graph::Graph& graph, std::shared_ptr<const LoweredGraph> ir,
                     std::shared_ptr<const Schedule> schedule,
                     std::unique_ptr<LoadedKernels> kernels, bool defer_checks) {
  return std::make_unique<GeneratedGraph>(graph, std::move(ir), std::move(schedule),
                                          std::move(kernels), defer_checks);
}

} // namespace compiler::inductor
