// The autograd engine: backward() and grad() over the recorded graph, the in-place assign_(),
// and Tensor's autograd methods.
//
// One run: count, for every node reachable from the roots, how many edges lead into it; start
// from the roots with their gradients; repeatedly run the ready node with the highest sequence
// number (the most recently created), adding the gradients it returns into the input buffers
// of its next nodes, which become ready when their count drops to zero. grad() captures the
// gradient arriving at each requested input's edge instead of accumulating it, and runs only
// the nodes on a path to those edges.
#include "autograd/accumulate_grad.h"
#include "compiler/autograd/autograd.h"
#include "compiler/core/errors.h"
#include "compiler/ops/ops.h"
#include "kernels/copy.h"

#include <queue>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace compiler::autograd {

namespace {

thread_local const std::source_location* t_backward_where = nullptr;

class BackwardWhereScope {
public:
  explicit BackwardWhereScope(const std::source_location* where) noexcept
      : previous_(t_backward_where) {
    t_backward_where = where;
  }
  ~BackwardWhereScope() { t_backward_where = previous_; }
  BackwardWhereScope(const BackwardWhereScope&) = delete;
  BackwardWhereScope& operator=(const BackwardWhereScope&) = delete;

private:
  const std::source_location* previous_;
};

// Sums gradients arriving at the same input of a node.
void accumulate(Tensor& slot, const Tensor& g) {
  slot = slot.defined() ? add(slot, g) : g;
}

struct ReadyOrder {
  bool operator()(const Node* a, const Node* b) const { return a->sequence_nr < b->sequence_nr; }
};

struct Capture {
  std::uint32_t input_nr;
  std::size_t result;
};

struct GraphTask {
  bool retain_graph = false;
  bool accumulate_into_leaves = true;
  std::unordered_map<Node*, int> dependencies;
  std::unordered_map<Node*, std::vector<Tensor>> buffers;
  // grad(): where each requested input's gradient arrives, and the nodes worth running.
  std::unordered_map<Node*, std::vector<Capture>> captures;
  std::unordered_set<Node*> needed;
  std::vector<Tensor> results;
};

void count_dependencies(GraphTask& task, const std::vector<Edge>& roots) {
  std::vector<Node*> stack;
  std::unordered_set<Node*> seen;
  for (const Edge& e : roots) {
    if (e.valid() && seen.insert(e.fn.get()).second) {
      stack.push_back(e.fn.get());
    }
  }
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge& e : n->next_edges) {
      if (!e.valid()) {
        continue;
      }
      ++task.dependencies[e.fn.get()];
      if (seen.insert(e.fn.get()).second) {
        stack.push_back(e.fn.get());
      }
    }
  }
}

// Marks the nodes from which a captured edge can be reached (post-order over the graph).
bool mark_needed(GraphTask& task, Node* n, std::unordered_map<Node*, bool>& memo) {
  if (auto it = memo.find(n); it != memo.end()) {
    return it->second;
  }
  memo[n] = false; // the graph is acyclic; this only stops re-entry
  // A node runs when it feeds a captured edge (a captured node itself only has to be reached).
  bool needed = false;
  for (const Edge& e : n->next_edges) {
    if (!e.valid()) {
      continue;
    }
    const bool child = mark_needed(task, e.fn.get(), memo);
    const bool captured_here = task.captures.count(e.fn.get()) > 0;
    needed = needed || child || captured_here;
  }
  memo[n] = needed;
  if (needed) {
    task.needed.insert(n);
  }
  return needed;
}

void execute(GraphTask& task, const std::vector<Edge>& roots, std::vector<Tensor> root_grads) {
  count_dependencies(task, roots);
  if (!task.accumulate_into_leaves) {
    std::unordered_map<Node*, bool> memo;
    for (const Edge& e : roots) {
      if (e.valid()) {
        mark_needed(task, e.fn.get(), memo);
      }
    }
  }
  std::priority_queue<Node*, std::vector<Node*>, ReadyOrder> ready;
  std::unordered_set<Node*> queued;
  for (std::size_t i = 0; i < roots.size(); ++i) {
    const Edge& e = roots[i];
    if (!e.valid()) {
      continue;
    }
    std::vector<Tensor>& buf = task.buffers[e.fn.get()];
    buf.resize(e.fn->num_outputs());
    accumulate(buf[e.input_nr], root_grads[i]);
    if (task.dependencies[e.fn.get()] == 0 && queued.insert(e.fn.get()).second) {
      ready.push(e.fn.get());
    }
  }
  NoGradGuard no_grad; // no create_graph: formulas are not themselves recorded
  while (!ready.empty()) {
    Node* n = ready.top();
    ready.pop();
    std::vector<Tensor> inputs = std::move(task.buffers[n]);
    task.buffers.erase(n);
    inputs.resize(n->num_outputs());
    if (auto it = task.captures.find(n); it != task.captures.end()) {
      for (const Capture& c : it->second) {
        task.results[c.result] = inputs[c.input_nr];
      }
    }
    const bool is_leaf = dynamic_cast<AccumulateGrad*>(n) != nullptr;
    if ((is_leaf && !task.accumulate_into_leaves) ||
        (!task.accumulate_into_leaves && task.needed.count(n) == 0)) {
      continue;
    }
    std::vector<Tensor> outputs;
    {
      BackwardWhereScope where(&n->where);
      outputs = n->apply(std::move(inputs));
    }
    if (!task.retain_graph) {
      n->release_saved();
    }
    for (std::size_t k = 0; k < n->next_edges.size(); ++k) {
      const Edge& e = n->next_edges[k];
      if (!e.valid()) {
        continue;
      }
      Node* child = e.fn.get();
      if (k < outputs.size() && outputs[k].defined()) {
        std::vector<Tensor>& buf = task.buffers[child];
        buf.resize(child->num_outputs());
        accumulate(buf[e.input_nr], outputs[k]);
      }
      if (--task.dependencies[child] == 0 && queued.insert(child).second) {
        ready.push(child);
      }
    }
  }
}

// The roots' edges and gradients, checked.
void prepare_roots(std::span<const Tensor> outputs, std::span<const Tensor> grad_outputs,
                   std::vector<Edge>& edges, std::vector<Tensor>& grads) {
  if (!grad_outputs.empty() && grad_outputs.size() != outputs.size()) {
    user_error("backward: got " + std::to_string(grad_outputs.size()) + " gradients for " +
               std::to_string(outputs.size()) + " outputs");
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    if (!out.defined()) {
      user_error("backward: output " + std::to_string(i) + " is an undefined tensor");
    }
    if (!out.requires_grad()) {
      user_error("element " + std::to_string(i) +
                 " of tensors does not require grad and does not have a grad_fn (was it made "
                 "under no_grad, or from tensors that do not require grad?)");
    }
    Tensor g = grad_outputs.empty() ? Tensor() : grad_outputs[i];
    if (!g.defined()) {
      if (out.numel() != 1) {
        user_error("grad can be implicitly created only for scalar outputs; pass a gradient "
                   "for the " +
                   out.type_string() + " output");
      }
      g = ones(out.sym_sizes(), out.dtype(), out.device());
    } else if (g.sizes() != out.sizes()) {
      user_error("backward: the gradient " + g.type_string() + " does not match the output " +
                 out.type_string());
    }
    edges.push_back(gradient_edge(out));
    grads.push_back(g);
  }
}

} // namespace

namespace detail {
const std::source_location* current_backward_where() noexcept {
  return t_backward_where;
}
} // namespace detail

void backward(std::span<const Tensor> outputs, std::span<const Tensor> grad_outputs,
              bool retain_graph, std::source_location loc) {
  CallSiteScope site(loc);
  for (const Tensor& out : outputs) {
    if (out.defined() && out.is_fake()) {
      // Inside a compiled function the tensors are fake; accumulating into real leaves from
      // there would mix traced values into their grad().
      user_error("backward() inside a compiled function is not supported: return the loss and "
                 "call backward() on the compiled function's result");
    }
  }
  std::vector<Edge> edges;
  std::vector<Tensor> grads;
  prepare_roots(outputs, grad_outputs, edges, grads);
  GraphTask task;
  task.retain_graph = retain_graph;
  execute(task, edges, std::move(grads));
}

std::vector<Tensor> grad(std::span<const Tensor> outputs, std::span<const Tensor> inputs,
                         std::span<const Tensor> grad_outputs, bool retain_graph, bool allow_unused,
                         std::source_location loc) {
  CallSiteScope site(loc);
  std::vector<Edge> edges;
  std::vector<Tensor> grads;
  prepare_roots(outputs, grad_outputs, edges, grads);
  GraphTask task;
  task.retain_graph = retain_graph;
  task.accumulate_into_leaves = false;
  task.results.resize(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& in = inputs[i];
    if (!in.defined() || !in.requires_grad()) {
      user_error("grad: input " + std::to_string(i) + " does not require grad");
    }
    const Edge e = gradient_edge(in);
    task.captures[e.fn.get()].push_back(Capture{e.input_nr, i});
  }
  execute(task, edges, std::move(grads));
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!task.results[i].defined() && !allow_unused) {
      user_error("grad: input " + std::to_string(i) +
                 " appears to not have been used in the graph (pass allow_unused=true to get "
                 "an undefined gradient instead)");
    }
  }
  return std::move(task.results);
}

void assign_(const Tensor& dst, const Tensor& src, std::source_location loc) {
  CallSiteScope site(loc);
  if (dst.is_fake() || src.is_fake()) {
    user_error("assign_: both tensors must hold data");
  }
  if (dst.requires_grad() && is_grad_enabled()) {
    user_error("a leaf Variable that requires grad is being used in an in-place operation "
               "(assign_): wrap the update in autograd::NoGradGuard");
  }
  if (!dst.is_contiguous()) {
    user_error("assign_: the destination must be contiguous");
  }
  Tensor value = src;
  if (value.sizes() != dst.sizes()) {
    value = expand(value, dst.sym_sizes());
  }
  kernels::copy_into(value, dst);
  dst.impl()->storage->bump_version();
}

} // namespace compiler::autograd

namespace compiler {

void Tensor::set_requires_grad(bool value) {
  TensorImpl& impl = checked_mutable();
  if (value && !is_floating(impl.dtype)) {
    user_error("only tensors of floating point dtype can require gradients, got " + type_string());
  }
  if (impl.autograd != nullptr && impl.autograd->grad_fn != nullptr) {
    user_error("you can only change requires_grad flags of leaf tensors; this one is the result "
               "of " +
               impl.autograd->grad_fn->name() + " (detach() it to make a leaf)");
  }
  impl.requires_grad = value;
}

Tensor Tensor::grad() const {
  const TensorImpl& impl = checked();
  return impl.autograd != nullptr ? impl.autograd->grad : Tensor();
}

void Tensor::set_grad(const Tensor& grad) const {
  (void)checked();
  TensorImpl& impl = *impl_;
  if (grad.defined() && grad.sizes() != impl.sizes) {
    user_error("set_grad: the gradient " + grad.type_string() + " does not match " + type_string());
  }
  if (impl.autograd == nullptr) {
    impl.autograd = std::make_shared<autograd::AutogradMeta>();
  }
  impl.autograd->grad = grad;
}

bool Tensor::is_leaf() const {
  const TensorImpl& impl = checked();
  return impl.autograd == nullptr || impl.autograd->grad_fn == nullptr;
}

void Tensor::backward(const Tensor& gradient, bool retain_graph, std::source_location loc) const {
  const Tensor self = *this;
  const Tensor grads[] = {gradient};
  autograd::backward(std::span<const Tensor>(&self, 1),
                     gradient.defined() ? std::span<const Tensor>(grads)
                                        : std::span<const Tensor>(),
                     retain_graph, loc);
}

Tensor Tensor::detach(std::source_location loc) const {
  return compiler::detach(*this, loc);
}

} // namespace compiler
