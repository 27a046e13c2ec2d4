// passes: the pattern rewrites, declared as small graphs (passes/pattern_matcher.h):
// - a decomposed softmax, exp(x - amax(x)) / sum(exp(x - amax(x))), becomes one softmax, and the
//   decomposed log_softmax one log_softmax (pre- and post-grad: both ops exist before AOT);
// - x * sigmoid(x) becomes silu(x) (post-grad);
// - matmul(a, b) + bias, or mm(a, b) + bias (the AOT stage decomposes matmul into mm), becomes
//   addmm(bias, a, b) for 2-D float32 operands (post-grad), so the extern matmul adds the bias
//   as it writes its result.
#pragma once

#include "compiler/graph/graph.h"
#include "passes/pattern_matcher.h"

#include <vector>

namespace compiler::passes {

bool pre_grad_pattern_rewrites(graph::Graph& graph);
bool post_grad_pattern_rewrites(graph::Graph& graph);

// The rewrite tables (for tests and documentation).
const std::vector<Rewrite>& pre_grad_rewrites();
const std::vector<Rewrite>& post_grad_rewrites();

} // namespace compiler::passes
