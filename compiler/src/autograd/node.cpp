// The backward graph's pieces: saved tensors, nodes, leaf accumulation, and the helpers that
// connect tensors to nodes.
#include "compiler/autograd/node.h"

#include "autograd/accumulate_grad.h"
#include "compiler/core/errors.h"
#include "compiler/ops/ops.h"

#include <atomic>
#include <string>
#include <unordered_set>

namespace compiler::autograd {

namespace {

std::atomic<std::uint64_t> g_next_sequence_nr{0};

AutogradMeta& meta_of(const Tensor& t) {
  std::shared_ptr<AutogradMeta>& m = t.impl()->autograd;
  if (m == nullptr) {
    m = std::make_shared<AutogradMeta>();
  }
  return *m;
}

} // namespace

SavedTensor::SavedTensor(const Tensor& t, bool is_output) {
  if (!t.defined()) {
    return;
  }
  // An output would point back at the node saving it: keep a copy without its history.
  data_ = is_output ? alias_without_history(t) : t;
  activation_ = is_output || grad_fn_of(t) != nullptr;
  if (const auto& storage = t.impl()->storage) {
    version_ = storage->version();
  }
}

const Tensor& SavedTensor::unpack(const Node& saved_by) const {
  if (!data_.defined()) {
    user_error("Trying to backward through the graph a second time (or to read a tensor " +
               saved_by.name() +
               " saved after it was freed). Pass retain_graph=true to the first backward() "
               "if you need to backward through the graph again.");
  }
  if (const auto& storage = data_.impl()->storage; storage && storage->version() != version_) {
    std::string where;
    if (saved_by.where.file_name()[0] != '\0') {
      where = std::string(" (saved by the op at ") + saved_by.where.file_name() + ":" +
              std::to_string(saved_by.where.line()) + ")";
    }
    user_error("one of the variables needed for gradient computation has been modified by an "
               "inplace operation: [" +
               data_.type_string() + "], which is output 0 of " + saved_by.name() +
               ", is at version " + std::to_string(storage->version()) + "; expected version " +
               std::to_string(version_) + " instead" + where +
               ". Hint: do the in-place update after backward(), or update a copy.");
  }
  return data_;
}

Node::Node() : sequence_nr(g_next_sequence_nr.fetch_add(1, std::memory_order_relaxed)) {}

AccumulateGrad::AccumulateGrad(std::shared_ptr<TensorImpl> leaf) : leaf_(std::move(leaf)) {
  // Leaves run last among what feeds them: give them the highest sequence number class.
  sequence_nr = UINT64_MAX;
}

std::vector<Tensor> AccumulateGrad::apply(std::vector<Tensor>&& grads) {
  TORCHSCOPE_ASSERT(grads.size() == 1, "AccumulateGrad takes one gradient");
  if (!grads[0].defined()) {
    return {};
  }
  Tensor leaf(leaf_);
  AutogradMeta& m = meta_of(leaf);
  if (!m.grad.defined()) {
    m.grad = grads[0];
  } else {
    m.grad = add(m.grad, grads[0]);
  }
  return {};
}

Tensor alias_without_history(const Tensor& t) {
  auto impl = std::make_shared<TensorImpl>(*t.impl());
  impl->autograd = nullptr;
  impl->requires_grad = false;
  return Tensor(std::move(impl));
}

std::shared_ptr<Node> grad_fn_of(const Tensor& t) {
  if (!t.defined() || t.impl()->autograd == nullptr) {
    return nullptr;
  }
  return t.impl()->autograd->grad_fn;
}

Edge gradient_edge(const Tensor& t) {
  if (!t.defined() || !t.requires_grad()) {
    return {};
  }
  AutogradMeta& m = meta_of(t);
  if (m.grad_fn != nullptr) {
    return Edge{m.grad_fn, m.output_nr};
  }
  std::shared_ptr<Node> acc = m.accumulator.lock();
  if (acc == nullptr) {
    acc = std::make_shared<AccumulateGrad>(t.impl_ptr());
    m.accumulator = acc;
  }
  return Edge{std::move(acc), 0};
}

void set_history(const Tensor& t, std::shared_ptr<Node> fn, std::uint32_t output_nr) {
  AutogradMeta& m = meta_of(t);
  m.grad_fn = std::move(fn);
  m.output_nr = output_nr;
  t.impl()->requires_grad = true;
}

std::size_t saved_activation_bytes(std::span<const Tensor> roots) {
  std::vector<const Node*> stack;
  std::unordered_set<const Node*> seen;
  for (const Tensor& r : roots) {
    if (auto fn = grad_fn_of(r)) {
      stack.push_back(fn.get());
    }
  }
  std::unordered_set<const void*> storages;
  std::size_t bytes = 0;
  std::vector<const SavedTensor*> saved;
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second) {
      continue;
    }
    saved.clear();
    n->collect_saved(saved);
    for (const SavedTensor* s : saved) {
      const Tensor& t = s->peek();
      if (!s->is_activation() || !t.defined() || t.impl()->storage == nullptr) {
        continue;
      }
      if (storages.insert(t.impl()->storage.get()).second) {
        bytes += t.impl()->storage->nbytes();
      }
    }
    for (const Edge& e : n->next_edges) {
      if (e.valid()) {
        stack.push_back(e.fn.get());
      }
    }
  }
  return bytes;
}

} // namespace compiler::autograd
