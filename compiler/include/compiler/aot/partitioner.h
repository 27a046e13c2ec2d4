// compiler/aot: splitting a joint graph into the forward and backward graphs, as PyTorch's
// min_cut_rematerialization_partition does.
//
// The forward must hand the backward every value the backward cannot recompute; which values
// to save is a minimum cut. Each joint node n becomes two vertices n_in -> n_out joined by an
// edge whose capacity is the cost of saving n (its bytes); every use u of n adds n_out -> u_in
// with infinite capacity. The source feeds the primals and every node that must not be
// recomputed; every node that depends on a tangent drains into the sink. A finite cut separates
// what the forward computes from what the backward needs, and the cut edges n_in -> n_out are
// the saved values: the cheapest set from which the backward can recompute the rest. It is
// solved exactly with a max-flow (Dinic's algorithm).
//
// Recomputation is banned as in PyTorch (torch._functorch.config's ban_recompute_* flags):
// matmuls, indexing, random and other ops outside the recomputable allowlist; reductions whose
// output is 4x smaller than their input; nodes the backward must materialise anyway; fusible
// chains over 100 ops long; and fusible uses far apart from the first unfusible one. Weights
// favour saving nodes close to the backward (x1.1 per step, up to 100) and values a fused
// kernel would not have written to memory anyway (x2), as PyTorch's get_node_weight does;
// parameters are free to save (treat_parameters_as_free_to_save).
#pragma once

#include "compiler/aot/joint_graph.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace compiler::aot {

struct PartitionOptions {
  bool ban_recompute_not_in_allowlist = true;
  bool ban_recompute_reductions = true;
  bool ban_recompute_materialized_backward = true;
  bool ban_recompute_long_fusible_chains = true;
  bool ban_recompute_used_far_apart = true;
  std::int64_t max_dist_from_bw = 1000;
  // Parameters (lifted constants) cost nothing to save: the module keeps them alive anyway, so
  // the backward reads a weight rather than a saved view of it.
  bool treat_parameters_as_free_to_save = true;
  // PyTorch's weights (bytes scaled by distance and materialisation); off: plain bytes, which
  // makes the cut the minimum of saved bytes (what the brute-force test checks).
  bool heuristic_weights = true;
};

// The two graphs and what they exchange.
struct Partition {
  // Primals in; the forward outputs, then the saved values, out.
  graph::Graph forward;
  // The saved values, then the tangents, in; one gradient per primal (None where there is
  // none) out.
  graph::Graph backward;
  // The joint graph's nodes the forward saves, in the order it returns them: saved primals
  // (first num_saved_primals, in primal order), then intermediate values.
  std::vector<std::size_t> saved;
  std::size_t num_saved_primals = 0;
  // Bytes of every saved value, and of those that are not primals (the activation memory of a
  // step: primals are alive anyway).
  std::size_t saved_bytes = 0;
  std::size_t saved_activation_bytes = 0;
  // Joint nodes that may not be recomputed (min-cut partitions only).
  std::vector<std::size_t> banned;
  // The weight each joint node's save would cost in the cut, and the cut's total (min-cut
  // partitions only; for tests).
  std::vector<std::int64_t> weights;
  std::int64_t cut_cost = 0;
  // Forward values the backward computes again from the saved ones (joint nodes, in order).
  std::vector<std::size_t> recomputed;
};

// PyTorch's min_cut_rematerialization_partition. `joint` must be a joint graph.
Partition min_cut_partition(const TracedGraph& joint, const PartitionOptions& options = {});

// PyTorch's default_partition: the forward computes what its outputs need and saves every
// value of it that the backward reads ("save every intermediate"); the backward computes the
// rest (values only it uses, even those derived from primals alone, from the saved ones).
Partition save_all_partition(const TracedGraph& joint);

// PyTorch's min_cut_information artifact (one line of JSON) for `joint` and its partition: every
// joint node (name, target, shape, inputs, the user's line), the edges, and for each forward
// value the backward reads (a "recomputable candidate") its bytes, its estimated runtime and the
// decision: saved or recomputed. PyTorch fills the Knapsack fields from its memory-budget solver;
// this partitioner is a pure min cut, so they hold its decisions in the same shape.
// docs/COMPILER.md, "min_cut_information", says what each field holds here.
std::string min_cut_information(const TracedGraph& joint, const Partition& partition);

} // namespace compiler::aot
