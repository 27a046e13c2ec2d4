// Recording history: OpBackward (the backward node of one op call, driven by the op's
// derivative entry) and call_with_history(), which dispatch() uses for tracked calls.
#include "autograd/record.h"

#include "autograd/derivatives.h"
#include "compiler/autograd/grad_mode.h"
#include "compiler/autograd/node.h"
#include "compiler/core/errors.h"
#include "compiler/ops/ops.h"

#include <string>

namespace compiler::autograd::detail {

namespace {

constexpr std::int32_t kNoSlot = -1;

// The backward node of one op call. Tensor arguments are flattened into "slots" (a tensor
// list contributes one slot per element); edges, metadata and saved tensors are per slot.
class OpBackward final : public Node, private GradContext {
public:
  OpBackward(OpKind op, const Derivative& d, std::span<const Value> args) : op_(op), d_(d) {
    args_.reserve(args.size());
    for (const Value& v : args) {
      if (const Tensor* t = std::get_if<Tensor>(&v)) {
        first_slot_.push_back(static_cast<std::int32_t>(slots_.size()));
        list_size_.push_back(1);
        add_slot(*t);
        args_.emplace_back(std::monostate{});
      } else if (const auto* list = std::get_if<std::vector<Tensor>>(&v)) {
        first_slot_.push_back(static_cast<std::int32_t>(slots_.size()));
        list_size_.push_back(list->size());
        for (const Tensor& element : *list) {
          add_slot(element);
        }
        args_.emplace_back(std::monostate{});
      } else {
        first_slot_.push_back(kNoSlot);
        list_size_.push_back(0);
        args_.push_back(v);
      }
    }
  }

  bool any_needs() const {
    for (const Slot& s : slots_) {
      if (s.needs) {
        return true;
      }
    }
    return false;
  }

  // Keeps what the derivative entry declares (arguments saved "for the others" only when
  // another slot needs a gradient, as PyTorch saves `other` for mul only if self needs grad).
  void save(std::span<const Value> args, const Tensor& output) {
    for (std::size_t a = 0; a < args.size(); ++a) {
      const bool always = (d_.saved_args >> a) & 1u;
      const bool for_others = (d_.saved_for_others >> a) & 1u;
      if (first_slot_[a] == kNoSlot || (!always && !for_others)) {
        continue;
      }
      const auto first = static_cast<std::size_t>(first_slot_[a]);
      bool other_needs = false;
      for (std::size_t s = 0; s < slots_.size(); ++s) {
        if ((s < first || s >= first + list_size_[a]) && slots_[s].needs) {
          other_needs = true;
        }
      }
      if (!always && !other_needs) {
        continue;
      }
      if (const Tensor* t = std::get_if<Tensor>(&args[a])) {
        slots_[first].saved = SavedTensor(*t, false);
      } else {
        const auto& list = std::get<std::vector<Tensor>>(args[a]);
        for (std::size_t j = 0; j < list.size(); ++j) {
          slots_[first + j].saved = SavedTensor(list[j], false);
        }
      }
    }
    if (d_.saves_output) {
      output_ = SavedTensor(output, true);
    }
  }

  std::string name() const override { return d_.backward_name; }

  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override {
    if (released_) {
      user_error("Trying to backward through the graph a second time (or directly access saved "
                 "tensors after they have already been freed): " +
                 name() +
                 " was freed by an earlier backward(). Pass retain_graph=true to the first "
                 "backward() if you need to backward through the graph again.");
    }
    std::vector<Tensor> out(slots_.size());
    if (grads.empty() || !grads[0].defined()) {
      return out;
    }
    grad_ = std::move(grads[0]);
    struct Sink final : GradSink {
      OpBackward& self;
      std::vector<Tensor>& out;
      Sink(OpBackward& s, std::vector<Tensor>& o) : self(s), out(o) {}
      void set(std::size_t arg, const Tensor& g) override { set(arg, 0, g); }
      void set(std::size_t arg, std::size_t elem, const Tensor& g) override {
        out[self.slot(arg, elem)] = g;
      }
    } sink(*this, out);
    d_.formula(*this, sink);
    grad_ = Tensor();
    for (std::size_t s = 0; s < out.size(); ++s) {
      if (!slots_[s].needs) {
        out[s] = Tensor();
        continue;
      }
      if (out[s].defined()) {
        out[s] = validated(out[s], slots_[s].meta);
      }
    }
    return out;
  }

  void release_saved() override {
    bool had_saved = output_.defined();
    for (Slot& s : slots_) {
      had_saved = had_saved || s.saved.defined();
      s.saved.release();
    }
    output_.release();
    // A node that kept nothing can run again; one whose tensors are gone cannot.
    released_ = released_ || had_saved;
  }

  void collect_saved(std::vector<const SavedTensor*>& out) const override {
    for (const Slot& s : slots_) {
      if (s.saved.defined()) {
        out.push_back(&s.saved);
      }
    }
    if (output_.defined()) {
      out.push_back(&output_);
    }
  }

private:
  struct Slot {
    InputMeta meta;
    bool needs = false;
    SavedTensor saved;
  };

  void add_slot(const Tensor& t) {
    Slot s;
    s.meta.dtype = t.dtype();
    s.meta.sizes = t.sym_sizes();
    s.meta.device = t.device();
    s.needs = t.requires_grad();
    next_edges.push_back(gradient_edge(t));
    slots_.push_back(std::move(s));
  }

  std::size_t slot(std::size_t arg, std::size_t elem) const {
    TORCHSCOPE_ASSERT(arg < first_slot_.size() && first_slot_[arg] != kNoSlot &&
                          elem < list_size_[arg],
                      "a derivative formula addressed a non-tensor argument");
    return static_cast<std::size_t>(first_slot_[arg]) + elem;
  }

  // The gradient in the input's dtype, after checking it has the input's shape.
  Tensor validated(const Tensor& g, const InputMeta& m) const {
    bool same = g.sym_sizes().size() == m.sizes.size();
    for (std::size_t i = 0; same && i < m.sizes.size(); ++i) {
      same = g.sym_sizes()[i].hint() == m.sizes[i].hint();
    }
    TORCHSCOPE_ASSERT(same, "a derivative formula returned a gradient of the wrong shape");
    return g.dtype() == m.dtype ? g : to_dtype(g, m.dtype);
  }

  // GradContext
  const Tensor& grad() const override { return grad_; }
  const Tensor& output() const override {
    TORCHSCOPE_ASSERT(d_.saves_output, "a formula read an output its entry does not save");
    return output_.unpack(*this);
  }
  const Tensor& saved(std::size_t arg, std::size_t elem) const override {
    const SavedTensor& s = slots_[slot(arg, elem)].saved;
    TORCHSCOPE_ASSERT(s.defined() || released_, "a formula read an argument it does not save");
    return s.unpack(*this);
  }
  const InputMeta& meta(std::size_t arg, std::size_t elem) const override {
    return slots_[slot(arg, elem)].meta;
  }
  bool needs(std::size_t arg, std::size_t elem) const override {
    return slots_[slot(arg, elem)].needs;
  }
  bool is_tensor(std::size_t arg) const override {
    return arg < first_slot_.size() && first_slot_[arg] != kNoSlot;
  }
  std::size_t list_size(std::size_t arg) const override { return list_size_[arg]; }
  std::size_t num_args() const override { return args_.size(); }
  const Value& arg(std::size_t i) const override {
    TORCHSCOPE_ASSERT(i < args_.size(), "a formula read a missing argument");
    return args_[i];
  }

  OpKind op_;
  const Derivative& d_;
  std::vector<Value> args_; // non-tensor arguments (tensors are monostate here)
  std::vector<std::int32_t> first_slot_;
  std::vector<std::size_t> list_size_;
  std::vector<Slot> slots_;
  SavedTensor output_;
  Tensor grad_;
  bool released_ = false;
};

bool requires_grad_value(const Value& v) noexcept {
  if (const Tensor* t = std::get_if<Tensor>(&v)) {
    return t->defined() && t->impl()->requires_grad;
  }
  if (const auto* list = std::get_if<std::vector<Tensor>>(&v)) {
    for (const Tensor& t : *list) {
      if (t.defined() && t.impl()->requires_grad) {
        return true;
      }
    }
  }
  return false;
}

bool is_input_impl(const TensorImpl* impl, std::span<const Value> args) {
  for (const Value& v : args) {
    if (const Tensor* t = std::get_if<Tensor>(&v); t != nullptr && t->impl() == impl) {
      return true;
    }
    if (const auto* list = std::get_if<std::vector<Tensor>>(&v)) {
      for (const Tensor& t : *list) {
        if (t.impl() == impl) {
          return true;
        }
      }
    }
  }
  return false;
}

} // namespace

bool wants_history(std::span<const Value> args) noexcept {
  if (!is_grad_enabled() || below_autograd()) {
    return false;
  }
  for (const Value& v : args) {
    if (requires_grad_value(v)) {
      return true;
    }
  }
  return false;
}

Value call_with_history(OpKind op, std::span<const Value> args, const std::source_location& loc) {
  Value out;
  {
    BelowAutogradGuard below;
    out = dispatch_below_autograd(op, args, loc);
  }
  const Derivative& d = derivative_of(op);
  Tensor* t = std::get_if<Tensor>(&out);
  if (d.formula == nullptr || t == nullptr || !t->defined() || !is_floating(t->dtype())) {
    return out;
  }
  if (t->requires_grad()) {
    // Not a fresh result: a hook served an existing tensor (a resume frame replaying ops that
    // an earlier compiled frame computed); it keeps the history it has.
    return out;
  }
  if (is_input_impl(t->impl(), args)) {
    // The kernel returned its input (contiguous on a contiguous tensor): the result is a new
    // tensor for autograd, so give it its own TensorImpl.
    *t = alias_without_history(*t);
  }
  auto node = std::make_shared<OpBackward>(op, d, args);
  if (!node->any_needs()) {
    return out;
  }
  node->where = loc;
  node->save(args, *t);
  set_history(*t, std::move(node), 0);
  return out;
}

} // namespace compiler::autograd::detail
