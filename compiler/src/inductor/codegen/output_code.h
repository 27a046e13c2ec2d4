// inductor/codegen: the inductor_output_code payload: the compiled program as readable source,
// laid out as PyTorch's output code is. The wrapper `call(args)` allocates buffers (reusing dead
// ones: `buf3 = buf1; del buf1  # reuse`), calls each kernel, extern kernel and fallback in
// order and returns the results; each kernel's source is preceded by the comments PyTorch writes
// ("Topologically Sorted Source Nodes: [...], Original ATen: [...]", the source-to-ATen mapping
// and the graph fragment). Kernel names carry provenance debug handles (name:handle) in the
// `# [Provenance debug handles]` comments, as inductor_provenance_tracking_node_mappings names
// them.
#pragma once

#include "compiler/graph/graph.h"
#include "inductor/codegen/kernel_compiler.h"

#include <string>
#include <vector>

namespace compiler::inductor {

struct OutputCodeInput {
  const graph::Graph& graph; // the post-grad graph
  const LoweredGraph& ir;
  const Schedule& schedule;
  const KernelCompiler& compiler;
  std::string aot_id;      // "0_inference"
  std::string kernel_path; // where the cache keeps the kernels' object ("" when not cached)
};

std::string output_code(const OutputCodeInput& in);

// The debug handle of each step (1, 2, ...), as the provenance artifacts number kernels, and
// its name there: "cpp_fused_add_0:1", "extern_kernels.mm:2", "aten.randn:3".
std::vector<std::string> step_handles(const LoweredGraph& ir, const Schedule& s);

// "[mul, add]" and "[aten.mul, aten.add]" for graph nodes in graph order.
std::string source_nodes(const graph::Graph& g, const std::vector<std::size_t>& nodes);
std::string original_aten(const graph::Graph& g, const std::vector<std::size_t>& nodes);

} // namespace compiler::inductor
