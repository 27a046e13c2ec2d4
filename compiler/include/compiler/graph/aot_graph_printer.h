// compiler/graph: prints the AOT stage's graphs as PyTorch prints them in aot_joint_graph,
// aot_forward_graph, aot_backward_graph, aot_inference_graph and the before/after_joint_graph
// artifacts: op overloads (torch.ops.aten.mul.Tensor), each value's type annotation, the
// `;  x = None` after a value's last use, "# File: ..." comments naming the user's line (a
// backward node carries the line of the forward op it differentiates), and descriptors of the
// inputs and outputs (# PlainAOTInput(idx=0), # GradAOTOutput(grad_of=...)).
#pragma once

#include "compiler/graph/graph.h"

#include <string>
#include <utility>
#include <vector>

namespace compiler::graph {

struct AotPrintOptions {
  enum class Style : std::uint8_t {
    Joint,       // class inner_f: def forward(self, primals, tangents), pytree in and out
    Descriptors, // one parameter per line with its descriptor, return ( ... ) one per line
    Compact,     // FX's print_readable: def forward(self, a: "..."), return (x,)
  };
  Style style = Style::Descriptors;
  std::string class_name = "GraphModule";
  std::vector<std::string> input_descriptors;  // per placeholder, in order ("" for none)
  std::vector<std::string> output_descriptors; // per Output argument ("" for none)
  bool read_source_lines = true;               // tests turn it off for stable output
  // Mutated inputs (graph.h, InputMutation): {placeholder position, Output argument}; printed
  // as `copy_ = torch.ops.aten.copy_.default(input, value)` before the return, as PyTorch's
  // AOT graphs end with the copy-back of mutated inputs.
  std::vector<std::pair<std::size_t, std::size_t>> input_copies;
};

std::string print_aot_graph(const Graph& graph, const AotPrintOptions& options);

// The op as AOT graphs name it ("aten.mul"; a device transfer is aten._to_copy there).
std::string aot_op_name(const Node& node);

// The overload PyTorch's graphs name a call with ("Tensor", "Scalar", "dim_IntList",
// "default", ...), from the op and its arguments.
std::string_view op_overload(const Node& node);

// A float as Python's repr writes it (the shortest text that reads back to the same value).
std::string python_float_repr(double v);

} // namespace compiler::graph
