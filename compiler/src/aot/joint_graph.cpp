// Tracing the joint and inference graphs: the captured graph is interpreted on fake tensors
// under AotTracer, with autograd recording for the joint graph, then autograd's engine is run
// from the tangents under the same tracer.
#include "compiler/aot/joint_graph.h"

#include "aot/aot_tracer.h"
#include "compiler/autograd/autograd.h"
#include "compiler/core/errors.h"

#include <unordered_map>

namespace compiler::aot {

namespace {

using graph::Arg;
using graph::Graph;
using graph::Node;
using graph::NodeKind;

// The graph's inputs in order of first use: its placeholders, and (when lifting) the constant
// tensors that require grad.
struct Primals {
  std::vector<PrimalSource> sources;
  std::vector<graph::TensorMeta> metas;
  std::vector<std::size_t> of_placeholder;                        // placeholder number -> primal
  std::unordered_map<const TensorImpl*, std::size_t> of_constant; // lifted tensor -> primal
};

bool liftable(const Tensor& t) {
  return t.defined() && !t.is_fake() && t.requires_grad();
}

Primals collect_primals(const Graph& g, bool lift) {
  Primals p;
  auto add_constant = [&](const Tensor& t) {
    if (!lift || !liftable(t) || p.of_constant.count(t.impl()) > 0) {
      return;
    }
    p.of_constant[t.impl()] = p.sources.size();
    PrimalSource s;
    s.is_constant = true;
    s.constant = t;
    p.sources.push_back(s);
    p.metas.push_back(graph::tensor_meta(t));
  };
  std::size_t placeholders = 0;
  for (const Node& n : g.nodes()) {
    if (n.kind == NodeKind::Placeholder) {
      p.of_placeholder.push_back(p.sources.size());
      PrimalSource s;
      s.placeholder = placeholders++;
      p.sources.push_back(s);
      p.metas.push_back(n.meta);
      continue;
    }
    if (n.kind != NodeKind::CallOp) {
      continue;
    }
    for (const Arg& a : n.args) {
      if (a.kind != Arg::Kind::Constant) {
        continue;
      }
      if (const Tensor* t = std::get_if<Tensor>(&a.constant)) {
        add_constant(*t);
      } else if (const auto* list = std::get_if<std::vector<Tensor>>(&a.constant)) {
        for (const Tensor& e : *list) {
          add_constant(e);
        }
      }
    }
  }
  return p;
}

// The value of a captured-graph argument during the trace.
Value resolve(const Arg& a, const std::vector<Value>& env, const Primals& primals,
              const std::vector<Tensor>& fakes) {
  switch (a.kind) {
  case Arg::Kind::Node:
    return env[a.node];
  case Arg::Kind::NodeList: {
    std::vector<Tensor> list;
    for (std::size_t i : a.nodes) {
      list.push_back(std::get<Tensor>(env[i]));
    }
    return list;
  }
  case Arg::Kind::Symbolic:
    return a.sym;
  case Arg::Kind::SymList:
    return a.syms;
  case Arg::Kind::Constant:
    break;
  }
  auto lifted = [&](const Tensor& t) -> Tensor {
    auto it = t.defined() ? primals.of_constant.find(t.impl()) : primals.of_constant.end();
    return it != primals.of_constant.end() ? fakes[it->second] : t;
  };
  if (const Tensor* t = std::get_if<Tensor>(&a.constant)) {
    return lifted(*t);
  }
  if (const auto* list = std::get_if<std::vector<Tensor>>(&a.constant)) {
    std::vector<Tensor> out;
    for (const Tensor& e : *list) {
      out.push_back(lifted(e));
    }
    return out;
  }
  return a.constant;
}

graph::TensorMeta contiguous_meta(const Tensor& t) {
  graph::TensorMeta m = graph::tensor_meta(t);
  m.strides = contiguous_strides(t.sizes());
  m.requires_grad = false;
  return m;
}

TracedGraph trace(const Graph& captured, const TraceOptions& options, bool joint) {
  detail::AotTracer tracer(options.decompose);
  const Primals primals = collect_primals(captured, joint);
  TracedGraph out;
  out.primals = primals.sources;
  std::vector<Tensor> fakes;
  for (std::size_t i = 0; i < primals.sources.size(); ++i) {
    graph::TensorMeta meta = primals.metas[i];
    meta.requires_grad = joint && meta.requires_grad && is_floating(meta.dtype);
    out.primal_requires_grad.push_back(meta.requires_grad);
    const std::string name =
        joint ? "primals_" + std::to_string(i + 1) : "arg" + std::to_string(i) + "_1";
    fakes.push_back(tracer.placeholder(name, meta));
  }

  // The forward, on fake tensors; autograd records it when the graph is joint.
  std::vector<Value> env(captured.size());
  {
    autograd::GradModeGuard grad_mode(joint);
    OpHookGuard hook(&tracer);
    std::size_t placeholder = 0;
    std::vector<Value> args;
    for (std::size_t i = 0; i < captured.size(); ++i) {
      const Node& n = captured.node(i);
      if (n.kind == NodeKind::Placeholder) {
        env[i] = fakes[primals.of_placeholder[placeholder++]];
      } else if (n.kind == NodeKind::CallOp) {
        args.clear();
        for (const Arg& a : n.args) {
          args.push_back(resolve(a, env, primals, fakes));
        }
        env[i] = dispatch(n.op, args, n.where);
      }
    }
  }

  // The forward outputs: what the captured graph returns (and, for a frame that ends at a
  // graph break, every value), each traced value once.
  std::vector<std::size_t> wanted;
  if (options.all_nodes_are_outputs) {
    for (std::size_t i = 0; i < captured.size(); ++i) {
      if (captured.node(i).kind == NodeKind::CallOp) {
        wanted.push_back(i);
      }
    }
  }
  const std::size_t out_index = captured.output_index();
  if (out_index < captured.size()) {
    for (const Arg& a : captured.node(out_index).args) {
      if (a.kind == Arg::Kind::Node) {
        wanted.push_back(a.node);
      }
    }
  }
  out.output_of.assign(captured.size(), TracedGraph::kNone);
  std::vector<Tensor> outputs;
  std::unordered_map<std::size_t, std::size_t> output_of_node; // traced node -> output
  for (std::size_t i : wanted) {
    const Tensor* t = std::get_if<Tensor>(&env[i]);
    TORCHSCOPE_ASSERT(t != nullptr, "a graph output is not a tensor");
    const auto node = tracer.node_of(*t);
    TORCHSCOPE_ASSERT(node.has_value(), "a graph output was not traced");
    auto [it, fresh] = output_of_node.try_emplace(*node, outputs.size());
    if (fresh) {
      outputs.push_back(*t);
    }
    out.output_of[i] = it->second;
  }
  out.num_outputs = outputs.size();
  std::vector<Tensor> needing;
  out.tangent_of_output.assign(outputs.size(), TracedGraph::kNone);
  for (std::size_t j = 0; j < outputs.size(); ++j) {
    const bool rg = joint && outputs[j].requires_grad();
    out.output_requires_grad.push_back(rg);
    if (rg) {
      out.tangent_of_output[j] = needing.size();
      needing.push_back(outputs[j]);
    }
  }
  out.is_joint = !needing.empty();

  // The backward: autograd's engine runs the derivative formulas from the tangents.
  std::vector<Tensor> grads;
  if (out.is_joint) {
    std::vector<Tensor> tangents;
    for (std::size_t k = 0; k < needing.size(); ++k) {
      tangents.push_back(
          tracer.placeholder("tangents_" + std::to_string(k + 1), contiguous_meta(needing[k])));
    }
    out.num_tangents = tangents.size();
    std::vector<Tensor> wrt;
    for (std::size_t i = 0; i < fakes.size(); ++i) {
      if (out.primal_requires_grad[i]) {
        wrt.push_back(fakes[i]);
      }
    }
    OpHookGuard hook(&tracer);
    grads = autograd::grad(needing, wrt, tangents, false, true);
  }

  Node result;
  result.kind = NodeKind::Output;
  for (const Tensor& t : outputs) {
    result.args.push_back(tracer.to_arg(t));
  }
  if (out.is_joint) {
    std::size_t k = 0;
    for (std::size_t i = 0; i < fakes.size(); ++i) {
      Arg a;
      if (out.primal_requires_grad[i] && grads[k].defined()) {
        a = tracer.to_arg(grads[k]);
      }
      k += out.primal_requires_grad[i] ? 1 : 0;
      result.args.push_back(a); // a default Arg is the constant None
    }
  }
  tracer.graph().add_node(std::move(result), "output");
  out.graph = std::move(tracer.graph());
  return out;
}

} // namespace

bool needs_joint(const graph::Graph& captured) {
  if (!autograd::is_grad_enabled()) {
    return false;
  }
  for (const Node& n : captured.nodes()) {
    if (n.kind == NodeKind::Placeholder && n.meta.requires_grad) {
      return true;
    }
    for (const Arg& a : n.args) {
      if (a.kind != Arg::Kind::Constant) {
        continue;
      }
      if (const Tensor* t = std::get_if<Tensor>(&a.constant); t != nullptr && liftable(*t)) {
        return true;
      }
      if (const auto* list = std::get_if<std::vector<Tensor>>(&a.constant)) {
        for (const Tensor& e : *list) {
          if (liftable(e)) {
            return true;
          }
        }
      }
    }
  }
  return false;
}

TracedGraph trace_joint(const graph::Graph& captured, const TraceOptions& options) {
  return trace(captured, options, true);
}

TracedGraph trace_inference(const graph::Graph& captured, const TraceOptions& options) {
  return trace(captured, options, false);
}

} // namespace compiler::aot
