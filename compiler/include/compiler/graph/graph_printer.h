// compiler/capture: prints a Graph as Dynamo's dynamo_output_graph payload does (an FX
// GraphModule's readable code), with each node's type annotation and a "# File:" comment
// naming the user's line whenever it changes.
#pragma once

#include "compiler/graph/graph.h"
#include "tracer/json_writer.h"

#include <string>

namespace compiler::graph {

// The FX-style listing of `graph`. `read_source_lines` adds the user's code after "code:" by
// reading the source file (cached per file); tests turn it off for stable output.
std::string print_graph(const Graph& graph, bool read_source_lines = true);

// One argument as graph printouts write it: node names, [a, b] lists, symbolic expressions,
// constants by value_to_string.
std::string print_arg(const Graph& graph, const Arg& arg);

// The `sizes` map of dynamo_output_graph: node name -> sizes (ints, or strings for symbolic
// sizes), written into an open JSON object as members.
void write_graph_sizes(tracer::JsonWriter& w, const Graph& graph);

// graph_node_shapes of compilation_metrics: "{'l_x_': [8, 128], 'sin': [8, 128]}".
std::string graph_node_shapes(const Graph& graph);

} // namespace compiler::graph
