// Internal: FrameTracer, the OpHook that records one frame's graph while the user's function
// runs on fake tensors.
//
// Ops before `first_op` (a resume frame replaying the ops that earlier frames already ran) are
// served from the call's real results instead of being traced; the op at `stop_at` (the known
// graph break of a restarted attempt) ends the trace; any other data-dependent op raises
// GraphBreakSignal so the engine can restart with the prefix.
#pragma once

#include "capture/graph_names.h"
#include "capture/trace_slot.h"
#include "compiler/capture/guards.h"
#include "compiler/capture/shape_env.h"
#include "compiler/nn/module.h"
#include "compiler/ops/op_hook.h"

#include <map>
#include <optional>
#include <source_location>
#include <span>
#include <string>
#include <vector>

namespace compiler::capture::detail {

// Thrown through the user's function at a data-dependent op.
struct GraphBreakSignal {
  OpKind op;
  std::int64_t op_index;
  std::source_location where;
};

// Thrown through the user's function at the break a restarted attempt stops at.
struct StopSignal {};

// One guarded frame input, as traced.
struct TracedInput {
  std::uint32_t guard_index = 0;
  InputRef ref;
  std::string name;
  GuardInput::Kind kind = GuardInput::Kind::None;
  std::shared_ptr<TensorImpl> real; // tensors: the real input (metadata for guards)
  std::vector<bool> dynamic_dims;
  Value value;                        // scalars
  std::source_location where;         // first use
  const nn::Module* module = nullptr; // modules
};

// A module attribute the function read while traced.
struct ModuleRead {
  const nn::Module* module = nullptr;
  std::string attribute;
  nn::AttributeValue value;
  std::source_location where;
};

class FrameTracer final : public OpHook, public nn::ModuleObserver {
public:
  struct Config {
    std::optional<std::int64_t> stop_at;
    std::int64_t first_op = 0;
    std::span<const Value> served;                    // real results by op index
    std::span<const std::string* const> served_names; // node names by op index (may be null)
    std::uint32_t first_extra_guard = 0;              // guard index of the first served input
    // A branch on a tensor (to_bool()) ends the graph in this attempt, as a data-dependent
    // jump does in Dynamo; other data-dependent ops raise GraphBreakSignal (a restart).
    bool branch_in_place = false;
  };

  FrameTracer(Config config, ShapeEnv& env);

  Value call(OpKind op, std::span<const Value> args, const std::source_location& loc) override;
  // Functionalization: dst stands for value's node from now on; a graph input or a constant
  // (a module buffer) written this way becomes one of the graph's input_mutations.
  void mutate(const Tensor& dst, const Tensor& value, std::string_view op,
              const std::source_location& loc) override;
  void on_attribute_read(const nn::Module& module, std::string_view name,
                         const nn::AttributeValue& value) override;

  // Records a module argument.
  void add_module_input(const nn::Module& m, InputRef ref, std::uint32_t guard_index,
                        std::string name);
  const std::vector<ModuleRead>& module_reads() const noexcept { return module_reads_; }

  // A fake stand-in for the real tensor input `real` (symbols for `dynamic_dims`), and its
  // describe_* events.
  Tensor wrap_tensor_input(const Tensor& real, InputRef ref, std::uint32_t guard_index,
                           std::string name, const std::vector<bool>& dynamic_dims);
  // Records a guarded scalar input.
  void add_scalar_input(const Value& v, InputRef ref, std::uint32_t guard_index, std::string name);

  // Ends the graph with an Output node returning `results`.
  void finish_with_outputs(std::span<const Value> results);
  // Ends the graph at the recorded break: the Output returns the break op's tensor inputs.
  void finish_at_break();

  Graph& graph() noexcept { return graph_; }
  const std::vector<TracedInput>& inputs() const noexcept { return inputs_; }
  bool stopped_at_break() const noexcept { return break_recorded_; }
  OpKind break_op() const noexcept { return break_op_; }
  std::int64_t break_index() const noexcept { return break_index_; }
  const std::vector<Arg>& break_args() const noexcept { return break_args_; }
  const std::source_location& break_where() const noexcept { return break_where_; }
  std::int64_t ops_seen() const noexcept { return next_op_; }
  // The generator symbols' ids (-1 when the frame drew no random numbers: then both are) and
  // the count of numbers the frame draws.
  std::int64_t generator_seed_symbol() const noexcept { return generator_seed_symbol_; }
  std::int64_t generator_offset_symbol() const noexcept { return generator_offset_symbol_; }
  const SymInt& generator_draws() const noexcept { return generator_draws_; }

private:
  Arg to_arg(const Value& v);
  std::size_t node_of(const Tensor& t);
  std::size_t materialize(ProxySlot& p, const Tensor& t);
  Value serve(std::int64_t index);
  // The fake stand-in of `real` with its proxy (symbols for `dynamic_dims`).
  Tensor make_fake(const Tensor& real, InputRef ref, std::uint32_t guard_index, std::string name,
                   const std::vector<bool>& dynamic_dims);
  // Makes `real` a guarded input of the frame and writes its describe_* events.
  void register_tensor_input(const Tensor& real, InputRef ref, std::uint32_t guard_index,
                             const std::string& name, const std::vector<bool>& dynamic_dims);
  void note_scalar_uses(std::span<const Value> args, const std::source_location& loc);
  void set_proxy(const Tensor& t, std::int64_t node);
  // A draw from the process's generator (dropout, rand): its seed becomes the generator-seed
  // symbol and its offset the generator-offset symbol plus the frame's draws so far, so the
  // graph takes the call's seed and offset as inputs.
  std::vector<Value> with_generator_inputs(OpKind op, std::span<const Value> args);

  // A write of `value` through `view` (a view of `base`): the base's new value is computed from
  // the view op's geometry (PyTorch's view_scatter ops, written with slice/cat/reshape/permute)
  // and written to the base in turn; the view then stands for `value`, still a view of the base.
  void write_through_view(const Tensor& view, const ProxySlot& slot,
                          const std::shared_ptr<TensorImpl>& base, const Tensor& value,
                          std::string_view op, const std::source_location& loc);
  bool writing_base_ = false; // mutate() of a base from write_through_view()

  // Real tensors (constants) rebound by mutate(), and the slot each had before: restored when
  // the trace ends, since those tensors outlive it.
  std::vector<std::pair<std::shared_ptr<TensorImpl>, std::shared_ptr<void>>> rebound_constants_;
  // The input (placeholder or constant) each mutated tensor stands for: its input_mutations entry.
  std::map<const TensorImpl*, std::size_t> mutation_of_;
  // Inputs written by ops a resume frame replays: their own slot (null for a constant), so a
  // later write in this frame still targets the input rather than the served value.
  std::map<const TensorImpl*, std::shared_ptr<void>> replayed_inputs_;

public:
  ~FrameTracer() override;

private:
  Config config_;
  ShapeEnv& env_;
  std::uint64_t id_;
  Graph graph_;
  std::vector<TracedInput> inputs_;
  std::vector<ModuleRead> module_reads_;
  std::map<std::int64_t, Tensor> served_fakes_;
  std::uint32_t next_extra_guard_;
  std::int64_t next_op_ = 0;
  std::int64_t describer_id_;
  std::int64_t next_described_ = 0;
  bool break_recorded_ = false;
  OpKind break_op_ = OpKind::item;
  std::int64_t break_index_ = -1;
  std::vector<Arg> break_args_;
  std::source_location break_where_;
  std::int64_t generator_seed_symbol_ = -1;
  std::int64_t generator_offset_symbol_ = -1;
  SymInt generator_seed_;
  SymInt generator_offset_;
  SymInt generator_draws_{0};
};

} // namespace compiler::capture::detail
