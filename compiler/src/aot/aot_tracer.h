// Internal: AotTracer, the op hook that records the AOT stage's graphs (PyTorch's make_fx
// under FakeTensorMode, with the decomposition table applied).
//
// It sits below autograd: when the joint graph is traced, autograd records the forward ops as
// usual (on fake tensors) and its engine then runs the derivative formulas for the backward,
// and every op either call issues reaches this hook. Composite ops are decomposed on the spot
// (their decomposition's ops come back through the hook); primitive ops become graph nodes
// whose output metadata run_meta computes. Each node is attributed to the user's line: the
// op's call site in the forward, the forward op's call site for the backward ops derived from
// it (as PyTorch's joint graphs carry the forward's stack trace into backward nodes).
#pragma once

#include "compiler/graph/graph.h"
#include "compiler/ops/op_hook.h"

#include <cstddef>
#include <optional>
#include <source_location>
#include <string>
#include <unordered_map>

namespace compiler::aot::detail {

class AotTracer final : public OpHook {
public:
  explicit AotTracer(bool decompose) : decompose_(decompose) {}

  // A new placeholder node and the fake tensor standing for it.
  Tensor placeholder(const std::string& name, const graph::TensorMeta& meta);

  Value call(OpKind op, std::span<const Value> args, const std::source_location& loc) override;

  // The node a traced tensor is, or nullopt for a tensor this tracer did not make.
  std::optional<std::size_t> node_of(const Tensor& t) const;
  // A value as a graph argument: traced tensors become node references, real tensors and
  // other values constants, symbolic integers expressions.
  graph::Arg to_arg(const Value& v) const;

  graph::Graph& graph() noexcept { return graph_; }

private:
  Tensor track(const Tensor& fake, std::size_t node);
  // FX's node name for the next node of op `base`: base, base_1, ... (base_1 first for names
  // that are Python builtins, which FX does not shadow: sum_1, abs_1).
  std::string next_name(std::string_view base);

  graph::Graph graph_;
  std::unordered_map<const void*, std::size_t> nodes_; // trace slot -> node
  std::unordered_map<std::string_view, int> name_counts_;
  bool decompose_;
  std::size_t placeholders_ = 0;
  int depth_ = 0;
  std::source_location where_;
};

} // namespace compiler::aot::detail
