// FrameTracer: records one frame's graph through the op hook.
#include "capture/frame_tracer.h"

#include "compiler/core/errors.h"
#include "compiler/ops/ops.h"
#include "kernels/shape_util.h"
#include "tracer/trace.h"
#include "tracing/event_keys.h"
#include "tracing/trace_util.h"

#include <atomic>

namespace compiler::capture::detail {

namespace {

namespace keys = tracing::keys;

std::atomic<std::uint64_t> g_next_trace_id{1};
std::atomic<std::int64_t> g_next_describer_id{0};

ProxySlot* proxy_of(const Tensor& t, std::uint64_t trace_id) {
  if (!t.defined()) {
    return nullptr;
  }
  TraceSlot* s = slot_of(*t.impl());
  if (s == nullptr || s->kind != TraceSlot::Kind::Proxy) {
    return nullptr;
  }
  auto* p = static_cast<ProxySlot*>(s);
  return p->trace_id == trace_id ? p : nullptr;
}

TensorMeta meta_of(const Tensor& t) {
  return graph::tensor_meta(t);
}

std::string placeholder_name(const std::string& source) {
  return "l_" + source + "_";
}

// Marks the computation of an op's own metadata, also when it throws: size reads inside it
// are not the user's (ShapeEnv::on_size_read).
class InOpScope {
public:
  explicit InOpScope(ShapeEnv& env) : env_(env) { env_.set_in_op(true); }
  ~InOpScope() { env_.set_in_op(false); }
  InOpScope(const InOpScope&) = delete;
  InOpScope& operator=(const InOpScope&) = delete;

private:
  ShapeEnv& env_;
};

} // namespace

FrameTracer::FrameTracer(Config config, ShapeEnv& env)
    : config_(config), env_(env), id_(g_next_trace_id.fetch_add(1)),
      next_extra_guard_(config.first_extra_guard), describer_id_(g_next_describer_id.fetch_add(1)) {
}

void FrameTracer::set_proxy(const Tensor& t, std::int64_t node) {
  auto p = std::make_shared<ProxySlot>();
  p->trace_id = id_;
  p->node = node;
  t.impl()->trace_slot = std::move(p);
}

Tensor FrameTracer::wrap_tensor_input(const Tensor& real, InputRef ref, std::uint32_t guard_index,
                                      std::string name, const std::vector<bool>& dynamic_dims) {
  // Described first, then its symbols created, in the order Dynamo logs them.
  register_tensor_input(real, ref, guard_index, name, dynamic_dims);
  return make_fake(real, ref, guard_index, std::move(name), dynamic_dims);
}

Tensor FrameTracer::make_fake(const Tensor& real, InputRef ref, std::uint32_t guard_index,
                              std::string name, const std::vector<bool>& dynamic_dims) {
  std::vector<SymInt> sizes;
  sizes.reserve(real.sizes().size());
  for (std::size_t d = 0; d < real.sizes().size(); ++d) {
    std::int64_t n = real.sizes()[d];
    if (d < dynamic_dims.size() && dynamic_dims[d]) {
      sizes.push_back(
          env_.create_symbol(n, SymbolSource{guard_index, static_cast<std::int64_t>(d), name}));
    } else {
      sizes.emplace_back(n);
    }
  }
  Tensor fake = Tensor::fake(std::move(sizes), real.dtype(), real.strides(), real.storage_offset(),
                             real.device());
  fake.set_requires_grad(real.requires_grad());
  auto p = std::make_shared<ProxySlot>();
  p->trace_id = id_;
  p->source = ref;
  p->guard_index = guard_index;
  p->name = name;
  fake.impl()->trace_slot = std::move(p);
  return fake;
}

void FrameTracer::register_tensor_input(const Tensor& real, InputRef ref, std::uint32_t guard_index,
                                        const std::string& name,
                                        const std::vector<bool>& dynamic_dims) {
  std::int64_t id = next_described_++;
  tracer::event(keys::describe_storage, [&](tracer::JsonWriter& w) {
    w.member("id", id).member("describer_id", describer_id_);
    std::int64_t bytes =
        real.impl()->storage ? static_cast<std::int64_t>(real.impl()->storage->nbytes()) : 0;
    w.member("size", bytes);
  });
  tracer::event(keys::describe_tensor, [&](tracer::JsonWriter& w) {
    w.member("id", id).member("ndim", real.dim());
    w.member("dtype", dtype_torch_name(real.dtype()));
    w.member("device", real.device().repr());
    w.key("size").begin_array();
    for (std::int64_t s : real.sizes()) {
      w.value(s);
    }
    w.end_array();
    w.member("is_leaf", true);
    if (real.requires_grad()) {
      w.member("requires_grad", true);
    }
    w.key("stride").begin_array();
    for (std::int64_t s : real.strides()) {
      w.value(s);
    }
    w.end_array();
    w.member("storage", id).member("describer_id", describer_id_);
  });
  tracer::event(keys::describe_source, [&](tracer::JsonWriter& w) {
    w.member("describer_id", describer_id_).member("id", id);
    w.member("source", "L['" + name + "']");
  });

  TracedInput in;
  in.guard_index = guard_index;
  in.ref = ref;
  in.name = name;
  in.kind = GuardInput::Kind::Tensor;
  in.real = real.impl_ptr();
  in.dynamic_dims = dynamic_dims;
  inputs_.push_back(std::move(in));
}

void FrameTracer::add_scalar_input(const Value& v, InputRef ref, std::uint32_t guard_index,
                                   std::string name) {
  TracedInput in;
  in.guard_index = guard_index;
  in.ref = ref;
  in.name = std::move(name);
  in.value = v;
  if (std::holds_alternative<double>(v)) {
    in.kind = GuardInput::Kind::Float;
  } else if (std::holds_alternative<bool>(v)) {
    in.kind = GuardInput::Kind::Bool;
  } else if (std::holds_alternative<SymInt>(v)) {
    in.kind = GuardInput::Kind::Int;
  } else {
    in.kind = GuardInput::Kind::None;
  }
  inputs_.push_back(std::move(in));
}

void FrameTracer::add_module_input(const nn::Module& m, InputRef ref, std::uint32_t guard_index,
                                   std::string name) {
  TracedInput in;
  in.guard_index = guard_index;
  in.ref = ref;
  in.name = std::move(name);
  in.kind = GuardInput::Kind::Module;
  in.module = &m;
  inputs_.push_back(std::move(in));
}

void FrameTracer::on_attribute_read(const nn::Module& module, std::string_view name,
                                    const nn::AttributeValue& value) {
  module_reads_.push_back(ModuleRead{&module, std::string(name), value, env_.user_location()});
}

std::size_t FrameTracer::materialize(ProxySlot& p, const Tensor& t) {
  if (!p.registered) {
    // A served value's first use: it becomes an input of this frame now.
    p.guard_index = next_extra_guard_++;
    p.registered = true;
    const Tensor& real = std::get<Tensor>(config_.served[p.source.index]);
    register_tensor_input(real, p.source, p.guard_index, p.name, {});
  }
  Node n;
  n.kind = NodeKind::Placeholder;
  n.meta = meta_of(t);
  n.input = p.source;
  n.input_name = "L['" + p.name + "']";
  std::size_t index = graph_.add_node(std::move(n), placeholder_name(p.name));
  p.node = static_cast<std::int64_t>(index);
  env_.note_first_use(p.guard_index, env_.user_location());
  for (TracedInput& in : inputs_) {
    if (in.guard_index == p.guard_index && in.where.file_name()[0] == '\0') {
      in.where = env_.user_location();
    }
  }
  return index;
}

std::size_t FrameTracer::node_of(const Tensor& t) {
  ProxySlot* p = proxy_of(t, id_);
  TORCHSCOPE_ASSERT(p != nullptr, "node_of() on a tensor without a proxy");
  if (const std::shared_ptr<TensorImpl> base = p->view_base) {
    const ProxySlot* b = proxy_of(Tensor(base), id_);
    if ((b != nullptr ? b->node : -1) != p->view_base_node) {
      user_error("compile(): a view is read after its base was written in place; "
                 "functionalization does not regenerate views yet: take the view after the "
                 "write");
    }
  }
  if (p->node < 0) {
    return materialize(*p, t);
  }
  return static_cast<std::size_t>(p->node);
}

Arg FrameTracer::to_arg(const Value& v) {
  Arg a;
  if (const Tensor* t = std::get_if<Tensor>(&v)) {
    if (proxy_of(*t, id_) != nullptr) {
      a.kind = Arg::Kind::Node;
      a.node = node_of(*t);
      return a;
    }
    if (!t->defined()) {
      a.kind = Arg::Kind::Constant; // an absent optional tensor
      a.constant = std::monostate{};
      return a;
    }
    if (t->is_fake()) {
      user_error("compile(): a fake tensor from another trace reached this one (was a tensor "
                 "from inside a compiled function kept and reused?)");
    }
    a.kind = Arg::Kind::Constant; // a real tensor the function closed over: a graph constant
    a.constant = v;
    return a;
  }
  if (const auto* list = std::get_if<std::vector<Tensor>>(&v)) {
    bool any_traced = false;
    bool any_real = false;
    for (const Tensor& t : *list) {
      (proxy_of(t, id_) != nullptr ? any_traced : any_real) = true;
    }
    if (any_traced && any_real) {
      user_error("compile(): a tensor list mixes traced tensors with tensors created outside the "
                 "compiled function; pass them as arguments instead");
    }
    if (any_traced) {
      a.kind = Arg::Kind::NodeList;
      for (const Tensor& t : *list) {
        a.nodes.push_back(node_of(t));
      }
      return a;
    }
    a.kind = Arg::Kind::Constant;
    a.constant = v;
    return a;
  }
  if (const SymInt* s = std::get_if<SymInt>(&v); s != nullptr && s->is_symbolic()) {
    a.kind = Arg::Kind::Symbolic;
    a.sym = *s;
    return a;
  }
  if (const auto* ss = std::get_if<std::vector<SymInt>>(&v)) {
    for (const SymInt& s : *ss) {
      if (s.is_symbolic()) {
        a.kind = Arg::Kind::SymList;
        a.syms = *ss;
        return a;
      }
    }
  }
  a.kind = Arg::Kind::Constant;
  a.constant = v;
  return a;
}

Value FrameTracer::serve(std::int64_t index) {
  TORCHSCOPE_ASSERT(static_cast<std::size_t>(index) < config_.served.size(),
                    "replay reached an op no earlier frame computed");
  const Value& v = config_.served[static_cast<std::size_t>(index)];
  const Tensor* real = std::get_if<Tensor>(&v);
  if (real == nullptr) {
    return v; // a break value (a host scalar) or a non-tensor result
  }
  auto it = served_fakes_.find(index);
  if (it != served_fakes_.end()) {
    return it->second;
  }
  // Intermediate results enter the resume frame with static sizes (docs/COMPILER.md).
  std::string name = "tmp" + std::to_string(index);
  if (static_cast<std::size_t>(index) < config_.served_names.size() &&
      config_.served_names[static_cast<std::size_t>(index)] != nullptr) {
    name = *config_.served_names[static_cast<std::size_t>(index)];
  }
  // Guarded and described only once an op uses it (materialize()).
  Tensor fake =
      make_fake(*real, InputRef{InputRef::Kind::PriorValue, static_cast<std::size_t>(index)}, 0,
                std::move(name), {});
  static_cast<ProxySlot*>(slot_of(*fake.impl()))->registered = false;
  served_fakes_.emplace(index, fake);
  return fake;
}

Value FrameTracer::call(OpKind op, std::span<const Value> args, const std::source_location& loc) {
  std::int64_t index = next_op_++;
  if (index < config_.first_op) {
    return serve(index);
  }
  env_.set_user_location(loc);
  std::vector<Value> drawn;
  if ((op == OpKind::dropout || op == OpKind::rand) && dispatching_generator_draw()) {
    drawn = with_generator_inputs(op, args);
    args = drawn;
  }
  note_scalar_uses(args, loc);
  if (op_category(op) == OpCategory::DataDependent) {
    if ((config_.stop_at && *config_.stop_at == index) ||
        (config_.branch_in_place && op == OpKind::to_bool)) {
      break_recorded_ = true;
      break_op_ = op;
      break_index_ = index;
      break_where_ = loc;
      for (const Value& v : args) {
        break_args_.push_back(to_arg(v));
      }
      throw StopSignal{};
    }
    throw GraphBreakSignal{op, index, loc};
  }
  Node n;
  n.kind = NodeKind::CallOp;
  n.op = op;
  n.where = loc;
  n.op_index = index;
  n.args.reserve(args.size());
  for (const Value& v : args) {
    n.args.push_back(to_arg(v));
  }
  Value out;
  {
    InOpScope in_op(env_);
    out = run_meta(op, args);
  }
  const Tensor* t = std::get_if<Tensor>(&out);
  if (t == nullptr || !t->defined()) {
    return out; // metadata-only results (none today) are constants of the trace
  }
  n.meta = meta_of(*t);
  std::size_t node = graph_.add_node(std::move(n), op_name(op));
  set_proxy(*t, static_cast<std::int64_t>(node));
  if (op_category(op) == OpCategory::View && !args.empty()) {
    const Tensor* base = std::get_if<Tensor>(&args[0]);
    const ProxySlot* base_proxy = base != nullptr ? proxy_of(*base, id_) : nullptr;
    ProxySlot* view_proxy = proxy_of(*t, id_);
    // A view of a traced tensor, or of a real one the graph reads as a constant (a buffer,
    // which has no node until it is written: -1).
    if (view_proxy != nullptr && base != nullptr && !base->is_same(*t) &&
        (base_proxy != nullptr || !base->is_fake())) {
      view_proxy->view_base = base->impl_ptr();
      view_proxy->view_base_node = base_proxy != nullptr ? base_proxy->node : -1;
      view_proxy->view_node = static_cast<std::int64_t>(node);
    }
  }
  return out;
}

std::vector<Value> FrameTracer::with_generator_inputs(OpKind op, std::span<const Value> args) {
  std::vector<Value> out(args.begin(), args.end());
  const std::size_t seed_at = op == OpKind::dropout ? 2 : 1; // ops.cpp's layouts
  const std::size_t offset_at = seed_at + 1;
  const SymInt count = op == OpKind::dropout ? value_tensor(args[0]).sym_numel()
                                             : kernels::sym_product(value_sym_ints(args[0]));
  if (generator_offset_symbol_ < 0) {
    // The traced values are the hints: the generator's state when tracing began.
    generator_seed_symbol_ = static_cast<std::int64_t>(env_.symbols().size());
    generator_seed_ =
        env_.create_generator_symbol(GeneratorPart::Seed, value_sym_int(args[seed_at]).hint());
    generator_offset_symbol_ = static_cast<std::int64_t>(env_.symbols().size());
    generator_offset_ =
        env_.create_generator_symbol(GeneratorPart::Offset, value_sym_int(args[offset_at]).hint());
  }
  out[seed_at] = generator_seed_;
  out[offset_at] = generator_offset_ + generator_draws_;
  generator_draws_ = generator_draws_ + count;
  return out;
}

void FrameTracer::write_through_view(const Tensor& view, const ProxySlot& slot,
                                     const std::shared_ptr<TensorImpl>& base_impl,
                                     const Tensor& value, std::string_view op,
                                     const std::source_location& loc) {
  const Tensor base(base_impl);
  const std::int64_t view_node = slot.view_node;
  const Node& vn = graph_.node(static_cast<std::size_t>(view_node));
  auto refuse = [&](const std::string& why) {
    user_error("compile(): " + std::string(op) + " writes through a " +
               std::string(op_name(vn.op)) + " view" + why +
               "; functionalization supports writes through view, reshape, unsqueeze, squeeze, "
               "permute, transpose, and slice or narrow with step 1: write to the base tensor");
  };
  auto constant_int = [&](std::size_t i) {
    if (i >= vn.args.size() || vn.args[i].kind != Arg::Kind::Constant) {
      refuse(" with symbolic arguments");
    }
    return value_int(vn.args[i].constant);
  };
  if (base.has_symbolic_sizes() || view.has_symbolic_sizes()) {
    refuse(" with symbolic sizes");
  }
  // The base's new value: the base with the view's elements replaced by `value`.
  Tensor new_base;
  switch (vn.op) {
  case OpKind::view:
  case OpKind::reshape:
  case OpKind::unsqueeze:
  case OpKind::squeeze:
  case OpKind::detach:
    // Same elements in the same (row-major) order: the value, in the base's shape.
    new_base = reshape(value, base.sym_sizes(), loc);
    break;
  case OpKind::transpose:
    new_base = transpose(value, constant_int(1), constant_int(2), loc);
    break;
  case OpKind::permute: {
    if (vn.args.size() < 2 || vn.args[1].kind != Arg::Kind::Constant) {
      refuse(" with symbolic arguments");
    }
    const std::vector<std::int64_t>& dims = value_ints(vn.args[1].constant);
    std::vector<std::int64_t> inverse(dims.size());
    for (std::size_t i = 0; i < dims.size(); ++i) {
      const std::int64_t d =
          dims[i] < 0 ? dims[i] + static_cast<std::int64_t>(dims.size()) : dims[i];
      inverse[static_cast<std::size_t>(d)] = static_cast<std::int64_t>(i);
    }
    new_base = permute(value, inverse, loc);
    break;
  }
  case OpKind::slice:
  case OpKind::narrow: {
    if (vn.op == OpKind::slice && constant_int(4) != 1) {
      refuse(" with a step other than 1");
    }
    std::int64_t dim = constant_int(1);
    dim = dim < 0 ? dim + base.dim() : dim;
    const std::int64_t stride = base.strides()[static_cast<std::size_t>(dim)];
    if (stride <= 0) {
      refuse(" of a broadcast dim");
    }
    // Where the view starts along dim, from the layouts (the op's own start may count from the
    // end or lie out of range, as Python slicing allows).
    const std::int64_t start = (view.storage_offset() - base.storage_offset()) / stride;
    const std::int64_t end = start + view.sizes()[static_cast<std::size_t>(dim)];
    const std::int64_t size = base.sizes()[static_cast<std::size_t>(dim)];
    std::vector<Tensor> parts;
    if (start > 0) {
      parts.push_back(slice(base, dim, 0, start, 1, loc));
    }
    parts.push_back(value);
    if (end < size) {
      parts.push_back(slice(base, dim, end, size, 1, loc));
    }
    new_base = parts.size() == 1 ? value : cat(parts, dim, loc);
    break;
  }
  default:
    refuse("");
  }
  const bool was_writing_base = writing_base_;
  writing_base_ = true;
  mutate(base, new_base, op, loc);
  writing_base_ = was_writing_base;
  auto p = std::make_shared<ProxySlot>();
  p->trace_id = id_;
  p->node = static_cast<std::int64_t>(node_of(value));
  p->view_base = base_impl;
  p->view_base_node = static_cast<std::int64_t>(node_of(base));
  p->view_node = view_node;
  view.impl()->trace_slot = std::move(p);
}

FrameTracer::~FrameTracer() {
  for (auto& [impl, previous] : rebound_constants_) {
    impl->trace_slot = std::move(previous);
  }
}

void FrameTracer::mutate(const Tensor& dst, const Tensor& value, std::string_view op,
                         const std::source_location& loc) {
  CallSiteScope site(loc);
  if (proxy_of(value, id_) == nullptr) {
    user_error("compile(): " + std::string(op) +
               " writes a tensor made outside the compiled function into a traced one; pass it "
               "as an argument instead");
  }
  if (ProxySlot* vp = proxy_of(dst, id_); vp != nullptr && vp->view_node >= 0) {
    if (const std::shared_ptr<TensorImpl> base = vp->view_base) {
      write_through_view(dst, *vp, base, value, op, loc);
      return;
    }
  }
  if (next_op_ <= config_.first_op) {
    // Replaying an op an earlier frame ran: it wrote its inputs back already, so dst only
    // stands for the served value from now on. An input stays the target of later writes.
    if (mutation_of_.count(dst.impl()) == 0 && replayed_inputs_.count(dst.impl()) == 0) {
      const ProxySlot* dp = proxy_of(dst, id_);
      if (dp == nullptr && !dst.is_fake()) {
        replayed_inputs_.emplace(dst.impl(), nullptr); // a constant
        rebound_constants_.emplace_back(dst.impl_ptr(), dst.impl()->trace_slot);
      } else if (dp != nullptr && dp->source.kind == InputRef::Kind::Argument &&
                 (dp->node < 0 ||
                  graph_.node(static_cast<std::size_t>(dp->node)).kind == NodeKind::Placeholder)) {
        replayed_inputs_.emplace(dst.impl(), dst.impl()->trace_slot);
      }
    }
    dst.impl()->trace_slot = value.impl()->trace_slot;
    return;
  }
  const std::size_t value_node = node_of(value);
  if (!writing_base_ && value_node + 1 == graph_.size() &&
      graph_.node(value_node).op_index == next_op_ - 1) {
    // The out-of-place op this in-place op just issued: named as Dynamo names the call.
    graph_.nodes()[value_node].name = graph_.unique_name(op);
  }
  ProxySlot* dp = proxy_of(dst, id_);
  auto it = mutation_of_.find(dst.impl());
  auto replayed = replayed_inputs_.find(dst.impl());
  if (it != mutation_of_.end()) {
    graph_.input_mutations[it->second].value_node = value_node;
  } else if ((replayed != replayed_inputs_.end() && replayed->second != nullptr) ||
             (dp != nullptr &&
              (dp->node < 0 ||
               graph_.node(static_cast<std::size_t>(dp->node)).kind == NodeKind::Placeholder))) {
    if (dst.requires_grad()) {
      user_error("compile(): " + std::string(op) +
                 " writes a graph input that requires grad; this is not supported");
    }
    std::size_t placeholder = 0;
    if (replayed != replayed_inputs_.end()) {
      // An argument whose earlier writes were replayed: its own placeholder is the target.
      auto& input = *static_cast<ProxySlot*>(replayed->second.get());
      placeholder = input.node < 0 ? materialize(input, dst) : static_cast<std::size_t>(input.node);
    } else {
      placeholder = node_of(dst);
    }
    graph::InputMutation m;
    m.value_node = value_node;
    m.placeholder = 0;
    for (std::size_t i = 0; i < placeholder; ++i) {
      m.placeholder += graph_.node(i).kind == NodeKind::Placeholder ? 1 : 0;
    }
    mutation_of_.emplace(dst.impl(), graph_.input_mutations.size());
    graph_.input_mutations.push_back(std::move(m));
  } else if (dp == nullptr || replayed != replayed_inputs_.end()) {
    if (dst.is_fake()) {
      user_error("compile(): a fake tensor from another trace reached this one (was a tensor "
                 "from inside a compiled function kept and reused?)");
    }
    // A real tensor the function reads as a constant (a module buffer): written back too.
    graph::InputMutation m;
    m.value_node = value_node;
    m.constant = dst;
    mutation_of_.emplace(dst.impl(), graph_.input_mutations.size());
    graph_.input_mutations.push_back(std::move(m));
    if (replayed == replayed_inputs_.end()) {
      rebound_constants_.emplace_back(dst.impl_ptr(), dst.impl()->trace_slot);
    }
  }
  auto p = std::make_shared<ProxySlot>();
  p->trace_id = id_;
  p->node = static_cast<std::int64_t>(value_node);
  dst.impl()->trace_slot = std::move(p);
}

void FrameTracer::note_scalar_uses(std::span<const Value> args, const std::source_location& loc) {
  // Scalars reach ops as plain values, so their first use is found by value: the first op that
  // receives a scalar equal to a not-yet-used scalar input. Only the guards' location comments
  // depend on it.
  for (TracedInput& in : inputs_) {
    if (in.where.file_name()[0] != '\0' || in.kind == GuardInput::Kind::Tensor ||
        in.kind == GuardInput::Kind::Module || in.kind == GuardInput::Kind::None) {
      continue;
    }
    for (const Value& v : args) {
      bool same = false;
      if (const double* d = std::get_if<double>(&v); d && in.kind == GuardInput::Kind::Float) {
        same = *d == std::get<double>(in.value);
      } else if (const bool* b = std::get_if<bool>(&v); b && in.kind == GuardInput::Kind::Bool) {
        same = *b == std::get<bool>(in.value);
      } else if (const SymInt* i = std::get_if<SymInt>(&v);
                 i && !i->is_symbolic() && in.kind == GuardInput::Kind::Int) {
        same = i->hint() == std::get<SymInt>(in.value).hint();
      }
      if (same) {
        in.where = loc;
        break;
      }
    }
  }
}

void FrameTracer::finish_with_outputs(std::span<const Value> results) {
  Node out;
  out.kind = NodeKind::Output;
  for (const Value& v : results) {
    out.args.push_back(to_arg(v));
  }
  graph_.add_node(std::move(out), "output");
}

void FrameTracer::finish_at_break() {
  Node out;
  out.kind = NodeKind::Output;
  for (const Arg& a : break_args_) {
    if (a.kind == Arg::Kind::Node) {
      out.args.push_back(a);
    }
  }
  graph_.add_node(std::move(out), "output");
}

} // namespace compiler::capture::detail
