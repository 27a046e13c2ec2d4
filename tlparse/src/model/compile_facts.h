// What the index says about each compile, computed once while its file is ingested: the handlers
// note what they see (metrics, outputs, reasons, cache artifacts, the dynamo_start stack) and the
// file's model writes one `compiles` row per compile when the file ends. The status rule lives
// here and nowhere else: every reader (report, CLI, GUI) reads the stored status.
#pragma once

#include "index/schema_io.gen.h"
#include "tlparse/index/schema.gen.h"
#include "tlparse/model/compile_id.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tlparse::model {

// The compile an event belongs to: its compile id with the attempt forced to 0 (tlparse 0.4.3's
// rule for metrics and stacks), or none when a compile-id key had the wrong type.
index::CompileScope compile_scope(const std::optional<CompileId>& raw);
std::string compile_display(const std::optional<CompileId>& raw);

class CompileFacts {
public:
  CompileFacts(int64_t id, int64_t ord, const std::optional<CompileId>& raw, int64_t first_line);

  int64_t id() const { return id_; }

  void note_attempt() { ++attempts_; }
  void note_output() { ++outputs_; }
  void note_recompile_reasons(int64_t n) { recompile_reasons_ += n; }
  void note_graph_break() { ++graph_breaks_; }
  void note_cache(index::CacheResult result);
  // A compilation_metrics event (not the backward ones: tlparse's status ignores them).
  void note_metrics(const index::io::CompilationMetricsRecord& m);
  // The first dynamo_start stack of the compile (later ones are ignored).
  void note_user_stack(int64_t stack_id, const std::vector<index::StackFrame>& frames);

  // How the compile ended (see index::CompileStatus).
  index::CompileStatus status() const;
  index::CacheState cache_state() const;
  // The row, with views into this object's strings.
  index::io::CompileRecord record(int64_t file_id) const;

private:
  int64_t id_, ord_, first_line_;
  index::CompileScope scope_;
  std::string display_;
  std::optional<int64_t> caid_, frame_id_, frame_compile_id_;
  int64_t attempts_ = 0;
  int64_t metrics_events_ = 0;
  bool any_failed_ = false, any_empty_ = false, any_restart_ = false;
  std::optional<double> start_time_, entire_frame_, backend_, inductor_, code_gen_;
  std::optional<std::string> fail_type_, fail_reason_, co_name_, co_filename_;
  std::optional<int64_t> co_firstlineno_;
  std::optional<int64_t> user_stack_id_;
  std::optional<std::string> user_file_, user_function_;
  std::optional<int64_t> user_line_;
  int64_t outputs_ = 0, restarts_ = 0, recompile_reasons_ = 0, graph_breaks_ = 0;
  int64_t cache_hits_ = 0, cache_misses_ = 0, cache_bypasses_ = 0;
};

} // namespace tlparse::model
