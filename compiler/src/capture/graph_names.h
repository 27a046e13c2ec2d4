// Internal: capture records into the graph IR shared by every stage (compiler/graph/). These
// declarations let the capture sources name its types unqualified.
#pragma once

#include "compiler/graph/graph.h"
#include "compiler/graph/graph_printer.h"
#include "compiler/graph/interpreter.h"

namespace compiler::capture {

using graph::Arg;
using graph::Graph;
using graph::InputRef;
using graph::meta_annotation;
using graph::Node;
using graph::NodeKind;
using graph::TensorMeta;

} // namespace compiler::capture
