// compiler/passes: user graph passes, run inside the compiler's own pass pipelines (the role of
// torch._inductor.config's pre_grad_custom_pass, joint_custom_pre_pass / joint_custom_post_pass
// and post_grad_custom_pre_pass / post_grad_custom_post_pass).
//
//   auto handle = compiler::passes::register_custom_pass(
//       {.name = "fold_scale", .stage = Stage::PostGrad, .run = [](graph::Graph& g) {
//          ... rewrite g with compiler/graph/graph_rewrite.h ...; return changed; },
//        .uuid = "fold_scale-v1"});
//
// A registered pass runs in its stage's pipeline before or after the built-in passes, timed
// like them (span "pass.<stage>_passes.<name>") and traced like them: when it changes the graph,
// the graph after it is written as the artifact "after_<stage>_pass_<name>", so tlparse steps
// through it with the rest. The pass must leave a valid graph (nodes in topological order);
// a pass that does not is a UserError naming it. The handle unregisters the pass when it is
// destroyed. Compile caches: a post-grad pass changes the code generated for a graph, so its
// uuid (PyTorch's CustomGraphPass.uuid()) is part of the FX graph cache key; a post-grad pass
// without a uuid makes compiles bypass that cache, as PyTorch does. Registering or removing
// any pass starts a new generation of the in-memory AOT cache.
#pragma once

#include "compiler/graph/graph.h"

#include <cstdint>
#include <functional>
#include <string>

namespace compiler::passes {

enum class Stage : std::uint8_t {
  PreGrad,    // the captured graph, before the AOT stage ("pre_grad")
  JointGraph, // the AOT stage's joint or inference graph, before partitioning ("joint_graph")
  PostGrad,   // each forward, backward and inference graph before lowering ("post_grad")
};

enum class Placement : std::uint8_t { BeforeBuiltins, AfterBuiltins };

struct CustomPass {
  // Letters, digits and '_' (it becomes part of an artifact name); unique among the passes
  // registered for its stage.
  std::string name;
  Stage stage = Stage::PostGrad;
  // Rewrites the graph in place; returns true when it changed it.
  std::function<bool(graph::Graph&)> run;
  Placement placement = Placement::AfterBuiltins;
  // The pass's version for compile caches; empty: post-grad compiles bypass the FX graph cache.
  std::string uuid{};
};

// Unregisters its pass when destroyed (movable, not copyable).
class CustomPassHandle {
public:
  CustomPassHandle() = default;
  explicit CustomPassHandle(std::uint64_t id) : id_(id) {}
  CustomPassHandle(CustomPassHandle&& other) noexcept : id_(other.id_) { other.id_ = 0; }
  CustomPassHandle& operator=(CustomPassHandle&& other) noexcept;
  CustomPassHandle(const CustomPassHandle&) = delete;
  CustomPassHandle& operator=(const CustomPassHandle&) = delete;
  ~CustomPassHandle();
  // Unregisters now (idempotent).
  void reset();

private:
  std::uint64_t id_ = 0;
};

// Registers `pass`. UserError for an empty function, a name that is not an identifier, or a
// name already registered for the stage.
[[nodiscard]] CustomPassHandle register_custom_pass(CustomPass pass);

} // namespace compiler::passes
