// The read API's part for compiles and the facts the ingest stored about them: the compile
// directory, metrics, restarts and failures, shape events, cache events, recompile reasons,
// graph breaks and stacks. Part of IndexReader (index_reader.h), the one door.
#pragma once

#include "tlparse/index/reader_part.h"
#include "tlparse/result.h"

#include <cstddef>
#include <functional>
#include <string>

namespace tlparse::index {

// The compile id of a compile-directory entry; nullopt for the "unknown" entry.
std::optional<CompileId> compile_id_of(const CompileKey& k);

// A stack with its event (dynamo_start and envelope `stack` stacks).
struct EventStack {
  EventRef event;
  int64_t stack_id = 0;
  std::optional<int64_t> compile_id;
  StackFrames frames;
};

// A metrics event with its list fields. The fields no typed column holds are read one event
// at a time (metrics_other_fields), as is the metadata as logged (event_metadata of event()):
// together they are a fifth of a large log's index, too much to hold for every event at once.
struct MetricsEvent {
  EventRef event;
  CompilationMetrics metrics;
  std::vector<std::string> restart_reasons, non_compliant_ops, compliant_custom_ops;
};

struct SpecializationEvent {
  EventRef event;
  Specialization specialization;
  std::vector<std::string> sources;
  StackFrames stack, user_stack;
  std::string metadata_json; // the event's metadata as logged
};

struct GuardAddedFastEvent {
  EventRef event;
  GuardAddedFast guard;
  StackFrames stack, user_stack;
};

struct SymbolEvent {
  EventRef event;
  std::string event_key; // create_symbol | create_unbacked_symbol
  CreatedSymbol symbol;
};

// failures_and_restarts rows: for each compilation_metrics event in log order, one row per
// restart reason, then one for its failure.
struct RestartOrFailure {
  std::optional<CompileId> cid;             // raw id of the metrics event
  std::optional<int64_t> metrics_output_id; // its page
  bool is_restart = false;
  std::string type_or_reason; // restart: the reason; failure: fail_type
  std::string failure_reason; // failure only
  std::string failure_source; // "file:line" or "N/A:0"
};

class CompilesReader : public ReaderPart {
public:
  // Compiles and compile-directory entries, in first-seen order.
  Result<std::vector<Compile>> compiles(int64_t file_id) const;
  Result<std::vector<CompileKey>> compile_keys(int64_t file_id) const;
  // Compiles in first-seen order, streamed; one compile by id.
  Status for_each_compile(int64_t file_id, const std::function<bool(const Compile&)>& fn) const;
  Result<std::optional<Compile>> compile(int64_t compile_id) const;
  // The compiles of scope `compile`, grouped by frame ((compiled autograd id, frame id)) in the
  // order each frame was first seen, first-seen order within a frame; with the frame's count.
  Status for_each_compile_by_frame(
      int64_t file_id, const std::function<bool(const Compile&, int64_t frame_compiles)>& fn) const;
  // Compiles in first-seen order, each with the distinct artifacts of its outputs (sorted).
  Status for_each_compile_with_artifacts(
      int64_t file_id,
      const std::function<bool(const Compile&, const std::vector<std::string>& artifacts)>& fn)
      const;

  Result<std::vector<MetricsEvent>> compilation_metrics(int64_t file_id) const;
  // The fields of one metrics event that no typed column holds, in logged order, values as
  // logged (JSON text).
  Result<std::vector<MetricsOtherField>> metrics_other_fields(int64_t event_id) const;
  Result<std::vector<RestartOrFailure>> restarts_and_failures(int64_t file_id) const;
  Result<std::vector<SpecializationEvent>> specializations(int64_t file_id) const;
  Result<std::vector<GuardAddedFastEvent>> guards_added_fast(int64_t file_id) const;
  Result<std::vector<SymbolEvent>> created_symbols(int64_t file_id) const;
  Result<std::vector<CacheEvent>> cache_events(int64_t file_id) const;
  Result<std::vector<RecompileReason>> recompile_reasons(int64_t file_id) const;
  Result<std::vector<GraphBreak>> graph_breaks(int64_t file_id) const;

  // The compilation_metrics_runtime and bwd_compilation_metrics_runtime events of one
  // compile-directory entry (metrics PyTorch records when compiled code first runs), log order.
  Result<std::vector<Event>> runtime_metrics_events(int64_t key_id) const;
  // The memoizer_artifacts events of one compile-directory entry (what Inductor's memoizer cached),
  // log order; their payloads through payload().
  Result<std::vector<Event>> memoizer_artifact_events(int64_t key_id) const;
  // How many memoizer_artifacts events one compile-directory entry has, counted by the index
  // without reading them.
  Result<int64_t> memoizer_artifact_count(int64_t key_id) const;

  // Stacks of one role (dynamo_start or unknown), in log order.
  Result<std::vector<EventStack>> stacks(int64_t file_id, StackRole role) const;
  // The same streamed, with at most `max_frames` frames each (the first ones).
  Status for_each_stack(int64_t file_id, StackRole role, std::size_t max_frames,
                        const std::function<bool(const EventStack&)>& fn) const;
  // The first `max_frames` frames of one stack.
  Result<StackFrames> stack_frames(int64_t stack_id, std::size_t max_frames) const;

protected:
  using ReaderPart::ReaderPart;
};

} // namespace tlparse::index
