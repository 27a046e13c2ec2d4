// AotTracer: records decomposed graphs through the op hook.
#include "aot/aot_tracer.h"

#include "compiler/aot/decompositions.h"
#include "compiler/autograd/node.h"
#include "compiler/core/errors.h"
#include "ops/custom_op_call.h"

#include <memory>
#include <optional>

namespace compiler::aot::detail {

namespace {

// What this tracer stores in TensorImpl::trace_slot. The slot pointer is the tensor's identity
// for the tracer: copies of a TensorImpl made by autograd (a saved output) share it.
struct AotSlot {
  std::size_t node = 0;
};

// Depth of nested hook calls: only the outermost call of an op takes a new user location.
class DepthScope {
public:
  explicit DepthScope(int& depth) noexcept : depth_(depth) { ++depth_; }
  ~DepthScope() { --depth_; }
  DepthScope(const DepthScope&) = delete;
  DepthScope& operator=(const DepthScope&) = delete;

private:
  int& depth_;
};

bool is_input(const TensorImpl* impl, std::span<const Value> args) {
  for (const Value& v : args) {
    if (const Tensor* t = std::get_if<Tensor>(&v); t != nullptr && t->impl() == impl) {
      return true;
    }
  }
  return false;
}

} // namespace

Tensor AotTracer::track(const Tensor& fake, std::size_t node) {
  auto slot = std::make_shared<AotSlot>();
  slot->node = node;
  nodes_[slot.get()] = node;
  fake.impl()->trace_slot = std::move(slot);
  return fake;
}

std::string AotTracer::next_name(std::string_view base) {
  static constexpr std::string_view kBuiltins[] = {"sum", "abs", "pow", "slice", "max", "min"};
  int& count = name_counts_[base];
  bool builtin = false;
  for (std::string_view b : kBuiltins) {
    builtin = builtin || b == base;
  }
  const int suffix = count + (builtin ? 1 : 0);
  ++count;
  return suffix == 0 ? std::string(base) : std::string(base) + "_" + std::to_string(suffix);
}

Tensor AotTracer::placeholder(const std::string& name, const graph::TensorMeta& meta) {
  graph::Node n;
  n.kind = graph::NodeKind::Placeholder;
  n.meta = meta;
  n.input = graph::InputRef{graph::InputRef::Kind::Argument, placeholders_++};
  const std::size_t index = graph_.add_node(std::move(n), name);
  Tensor fake = Tensor::fake(meta.sizes, meta.dtype, meta.strides, 0, meta.device);
  if (meta.requires_grad) {
    fake.set_requires_grad(true);
  }
  return track(fake, index);
}

std::optional<std::size_t> AotTracer::node_of(const Tensor& t) const {
  if (!t.defined() || t.impl()->trace_slot == nullptr) {
    return std::nullopt;
  }
  auto it = nodes_.find(t.impl()->trace_slot.get());
  if (it == nodes_.end()) {
    return std::nullopt;
  }
  return it->second;
}

graph::Arg AotTracer::to_arg(const Value& v) const {
  graph::Arg a;
  if (const Tensor* t = std::get_if<Tensor>(&v)) {
    if (auto n = node_of(*t)) {
      a.kind = graph::Arg::Kind::Node;
      a.node = *n;
      return a;
    }
    TORCHSCOPE_ASSERT(!t->defined() || !t->is_fake(), "a fake tensor from another trace");
    a.kind = graph::Arg::Kind::Constant;
    a.constant = t->defined() ? v : Value(std::monostate{});
    return a;
  }
  if (const auto* list = std::get_if<std::vector<Tensor>>(&v)) {
    bool traced = false;
    for (const Tensor& t : *list) {
      traced = traced || node_of(t).has_value();
    }
    if (traced) {
      a.kind = graph::Arg::Kind::NodeList;
      for (const Tensor& t : *list) {
        auto n = node_of(t);
        if (!n) {
          user_error("compile(): a tensor list mixes traced tensors with tensors created outside "
                     "the compiled function; pass them as arguments instead");
        }
        a.nodes.push_back(*n);
      }
      return a;
    }
  }
  if (const SymInt* s = std::get_if<SymInt>(&v); s != nullptr && s->is_symbolic()) {
    a.kind = graph::Arg::Kind::Symbolic;
    a.sym = *s;
    return a;
  }
  if (const auto* ss = std::get_if<std::vector<SymInt>>(&v)) {
    for (const SymInt& s : *ss) {
      if (s.is_symbolic()) {
        a.kind = graph::Arg::Kind::SymList;
        a.syms = *ss;
        return a;
      }
    }
  }
  a.kind = graph::Arg::Kind::Constant;
  a.constant = v;
  return a;
}

Value AotTracer::call(OpKind op, std::span<const Value> args, const std::source_location& loc) {
  if (depth_ == 0) {
    const std::source_location* backward = autograd::detail::current_backward_where();
    where_ = backward != nullptr ? *backward : loc;
  }
  DepthScope depth(depth_);
  std::optional<Value> user_decomposed;
  if (decompose_ && op == OpKind::custom_op) {
    user_decomposed = custom_ops::decompose(args); // a user op's decomposition, when it has one
  }
  if (decompose_ && (user_decomposed || !is_prim(op))) {
    Value out = user_decomposed ? std::move(*user_decomposed) : decompose(op, args);
    if (const Tensor* t = std::get_if<Tensor>(&out); t != nullptr && is_input(t->impl(), args)) {
      return autograd::alias_without_history(*t);
    }
    return out;
  }
  TORCHSCOPE_ASSERT(op_category(op) != OpCategory::DataDependent,
                    "a data-dependent op reached the AOT tracer");
  Value out = run_meta(op, args);
  const Tensor* t = std::get_if<Tensor>(&out);
  TORCHSCOPE_ASSERT(t != nullptr && t->defined(), "a traced op returned no tensor");
  if (is_input(t->impl(), args)) {
    // The op returned its input (contiguous of a contiguous tensor): no new value.
    return autograd::alias_without_history(*t);
  }
  graph::Node n;
  n.kind = graph::NodeKind::CallOp;
  n.op = op;
  n.where = where_;
  n.args.reserve(args.size());
  for (const Value& v : args) {
    n.args.push_back(to_arg(v));
  }
  n.meta = graph::tensor_meta(*t);
  // A device transfer is named as PyTorch's AOT graphs name it (the printer prints _to_copy).
  const std::string_view base = op == OpKind::to ? "_to_copy" : op_name(op);
  const std::size_t index = graph_.add_node(std::move(n), next_name(base));
  return track(*t, index);
}

} // namespace compiler::aot::detail
