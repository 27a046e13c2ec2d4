// inductor/codegen: the fx_graph_runnable artifact: the graph compile_fx_inner receives, as a
// standalone C++ program over torchscope's ops that rebuilds it (inputs and constants as random
// tensors of the same metadata, every node through its eager kernel). PyTorch writes a Python
// script for the same purpose: a repro a bug report can carry.
#pragma once

#include "compiler/graph/graph.h"

#include <string>

namespace compiler::inductor {

std::string fx_graph_runnable(const graph::Graph& graph);

} // namespace compiler::inductor
