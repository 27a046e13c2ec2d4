// compiler/capture: the graph IR that capture records (PyTorch's FX graph, in C++).
//
// A Graph is a list of Nodes in execution order. Node kinds are listed once (X-macro below);
// the printer and the interpreter switch over that list. A node's arguments are Args: a
// reference to an earlier node, a list of such references (cat/stack), a symbolic integer
// expression (evaluated from the symbol values at run time), or a constant Value. Every call
// node keeps the user's source location of the op, and its output metadata (dtype, symbolic
// sizes, strides), so the graph prints like Dynamo's output graph.
#pragma once

#include "compiler/core/sym_int.h"
#include "compiler/core/value.h"
#include "compiler/ops/op_hook.h"

#include <cstdint>
#include <memory>
#include <source_location>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace compiler::graph {

// clang-format off
#define TORCHSCOPE_GRAPH_NODE_KINDS(X)                                                  \
  X(Placeholder, "placeholder")   /* a graph input */                                  \
  X(CallOp,      "call_function") /* one op, run with run_eager */                     \
  X(Output,      "output")        /* the values the graph returns */
// clang-format on

enum class NodeKind : std::uint8_t {
#define TORCHSCOPE_NODE_KIND_ENUM(name, text) name,
  TORCHSCOPE_GRAPH_NODE_KINDS(TORCHSCOPE_NODE_KIND_ENUM)
#undef TORCHSCOPE_NODE_KIND_ENUM
};

// "placeholder", "call_function", "output" (FX's op names).
std::string_view node_kind_name(NodeKind kind) noexcept;

// Where a graph input comes from when the compiled frame runs.
struct InputRef {
  enum class Kind : std::uint8_t {
    Argument,   // the compiled function's argument `index`
    PriorValue, // the value of op `index` computed by an earlier frame of this call
    BreakValue, // the host value of the data-dependent op `index` that ended the last frame
  };
  Kind kind = Kind::Argument;
  std::size_t index = 0;
  friend bool operator==(const InputRef&, const InputRef&) = default;
};

// One argument of a call node.
struct Arg {
  enum class Kind : std::uint8_t {
    Node,     // the result of node `node`
    NodeList, // a tensor list: the results of `nodes`
    Symbolic, // an integer expression over the symbols (sym)
    SymList,  // a size list, some of it symbolic (syms)
    Constant, // a value fixed at trace time (constant)
  };
  Kind kind = Kind::Constant;
  std::size_t node = 0;
  std::vector<std::size_t> nodes;
  SymInt sym;
  std::vector<SymInt> syms;
  Value constant;
};

// The metadata of a node's result, as a fake tensor carried it at trace time.
struct TensorMeta {
  bool is_tensor = false; // false: a non-tensor result (printed with its value kind)
  DType dtype = DType::Float32;
  std::vector<SymInt> sizes;
  std::vector<std::int64_t> strides;
  // Whether the value required grad when traced (inputs: as passed; results: as autograd made
  // them), which tells the AOT stage whether a graph needs a backward.
  bool requires_grad = false;
  Device device; // where the value lives (the annotation's suffix: "cpu", "cuda:0")
};

struct Node {
  NodeKind kind = NodeKind::CallOp;
  std::string name;           // unique in the graph: "sin", "mul_1", "l_x_"
  OpKind op = OpKind::add;    // CallOp only
  std::vector<Arg> args;      // CallOp: op arguments; Output: the returned nodes
  TensorMeta meta;            // Placeholder and CallOp
  std::source_location where; // CallOp: the user's call of the op
  InputRef input;             // Placeholder only
  std::string input_name;     // Placeholder only: the source, "L['x']"
  std::int64_t op_index = -1; // CallOp: position of the op in the traced function
  // Graph passes (compiler/src/passes/): the names of the nodes of the captured graph this node
  // was made from, for provenance (empty: the node stands for itself, under its own name).
  std::vector<std::string> from_nodes;
  // Re-inplacing (passes/reinplace.cpp): the argument whose buffer this node may overwrite with
  // its result (no one reads it afterwards), or -1 for an out-of-place op.
  std::int32_t inplace_arg = -1;
};

// A graph input that the traced function wrote in place (functionalization: the graph computes
// the new value out of place; docs/COMPILER.md, "Mutation and functionalization"). After the
// graph runs, the value of node `value_node` is copied into the input's memory, as PyTorch's
// AOT runtime wrapper copies mutated inputs back.
struct InputMutation {
  std::size_t value_node = 0;    // the input's final value, a node of the captured graph
  std::int64_t placeholder = -1; // the input's position among the placeholders; -1: `constant`
  Tensor constant;               // a real tensor the graph reads as a constant (a module buffer)
  // Set by the backend seam (backend/kept_values.h): the value's position among the Output
  // node's arguments in the graph the later stages see (they print the copy-back from it).
  std::size_t output = 0;
};

class Graph {
public:
  // The graph's input mutations, in the order they were first made.
  std::vector<InputMutation> input_mutations;

  // Appends a node, giving it a unique name derived from `base` ("mul", "mul_1", ...).
  std::size_t add_node(Node node, std::string_view base);
  // A name derived from `base` that no node of this graph has had, reserved from now on (graph
  // rewrites name the nodes they insert with it).
  std::string unique_name(std::string_view base);
  // Makes room for `n` nodes (a graph built by copying another's knows its size).
  void reserve(std::size_t n);

  const std::vector<Node>& nodes() const noexcept { return nodes_; }
  std::vector<Node>& nodes() noexcept { return nodes_; }
  const Node& node(std::size_t i) const { return nodes_[i]; }
  std::size_t size() const noexcept { return nodes_.size(); }

  // Counts, as compilation_metrics reports them.
  std::size_t op_count() const noexcept;    // call nodes
  std::size_t input_count() const noexcept; // placeholders
  std::size_t node_count() const noexcept { return nodes_.size(); }
  // Index of the Output node, or size() when the graph has none yet.
  std::size_t output_index() const noexcept;

private:
  std::vector<Node> nodes_;
  // Names in use, and the next suffix to try per base name: naming stays O(1) per node on the
  // AOT stage's graphs of thousands of nodes.
  std::unordered_set<std::string> used_names_;
  std::unordered_map<std::string, int> next_suffix_;
};

// The metadata a graph records for a (real or fake) tensor value.
TensorMeta tensor_meta(const Tensor& t);

// "f32[s0, 128][128, 1]cpu" or "f32[8, 128][128, 1]cuda:0", the FX type annotation of a tensor
// result.
std::string meta_annotation(const TensorMeta& meta);

// The op a call node names, as graphs print it after "torch.ops.": "aten.add", or a user op's
// own "mylib.scale_add" (compiler/ops/custom_ops.h).
std::string op_target(const Node& node);

// The first of a call node's arguments that printouts show: a user op's name is its target, not
// an argument (1 for custom_op, else 0).
std::size_t first_printed_arg(const Node& node) noexcept;

} // namespace compiler::graph
