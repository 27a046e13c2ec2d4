// The one reader of printed FX graphs: the text GraphModule.print_readable() writes, which
// PyTorch logs as dynamo_output_graph, before/after_pre_grad_graph, aot_joint_graph,
// aot_forward_graph, aot_backward_graph, before_post_grad_graph, inductor_post_grad_graph (and
// our compiler logs after every pass, "after_<stage>_pass_<name>"), read into nodes and the
// edges between them. `tlparse graph`, the --serve graph pages, the static --graphs folder and
// `tlparse mcp`'s graph tool all read graphs through it.
//
// Log text is untrusted: the reader goes byte by byte with no recursion, in time linear in the
// text (bracket depth is a counter), and skips what it does not understand. Text that is no FX
// graph gives an empty graph, never an error.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tlparse::graph {

// One node: a forward() parameter or body placeholder, one assignment, or the return.
struct FxNode {
  std::string name;   // as printed; unique within its module
  std::string op;     // placeholder, call_function, call_method, call_module, get_attr,
                      // expression (an operator, an item, a rename) or output
  std::string target; // the callee (torch.ops.aten.mm.default), method, attribute or expression
  std::vector<std::string> args; // the printed arguments (call_method: the object first)
  std::string type;              // the annotation as printed ("f32[8, 16][16, 1]cpu"), if any
  // The annotation's parts, when it has the FakeTensor spelling: dtype "f32", shape "[8, 16]",
  // device "cpu"; Sym(s0) gives dtype "Sym" and shape "s0".
  std::string dtype, shape, device;
  std::string source; // the "# File: ..." comment above it, without "# " (the user's line)
  std::string module; // "" for the top-level forward, else the nested class ("submod_1")
  // The nodes (indices into FxGraph::nodes) whose values it reads, each once, in first-use order.
  std::vector<std::size_t> inputs;

  bool is_input() const { return op == "placeholder"; }
  bool is_output() const { return op == "output"; }
};

struct FxGraph {
  std::vector<FxNode> nodes;        // in printed order
  std::vector<std::string> modules; // the nested submodules' names, in printed order
  std::size_t edge_count() const;
  bool empty() const { return nodes.empty(); }
};

// Reads a printed FX graph (old and new spellings: parameters on one line or one per line,
// annotated or not, "# File:" comments, placeholders declared in the body as aot_joint_graph
// does, returns spread over lines or wrapped in pytree.tree_unflatten, nested GraphModule
// classes). Empty when the text holds no forward().
FxGraph parse_fx_graph(std::string_view text);

// Splits a FakeTensor annotation ("f32[8, 16][16, 1]cuda:0", "Sym(s0)") into dtype, shape and
// device; leaves them empty when it has another spelling ("torch.Tensor").
void split_annotation(std::string_view type, std::string& dtype, std::string& shape,
                      std::string& device);

// Whether an artifact (Output::artifact) is one of the printed FX graphs named above.
bool is_graph_artifact(std::string_view artifact);

} // namespace tlparse::graph
