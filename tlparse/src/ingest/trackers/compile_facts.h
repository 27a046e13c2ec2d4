// What the index says about each compile, computed once while its file is ingested: the handlers
// note what they see (metrics, outputs, reasons, cache artifacts, the dynamo_start stack) and the
// file's state writes one `compiles` row per compile when the file ends. The status rule lives
// here and nowhere else: every reader (report, CLI, GUI) reads the stored status.
#pragma once

#include "index/schema_io.gen.h"
#include "tlparse/compile_id.h"
#include "tlparse/index/schema.gen.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tlparse::ingest {

// What a compile row stands for, and its display (the id with the attempt forced to 0, tlparse
// 0.4.3's rule for metrics and stacks; "unknown" when a compile-id key had the wrong type).
index::CompileScope compile_scope(const std::optional<CompileId>& raw);
std::string compile_display(const std::optional<CompileId>& raw);

class CompileFacts {
public:
  CompileFacts(int64_t id, int64_t file_id, int64_t ord, const std::optional<CompileId>& raw,
               int64_t first_line);

  int64_t id() const { return row_.id; }

  void note_attempt() { ++row_.attempts; }
  void note_output() { ++row_.outputs; }
  void note_recompile_reasons(int64_t n) { row_.recompile_reasons += n; }
  void note_graph_break() { ++row_.graph_breaks; }
  void note_cache(index::CacheResult result);
  // A compilation_metrics event (not the backward ones: tlparse's status ignores them).
  void note_metrics(const index::io::CompilationMetricsRecord& m);
  // The first dynamo_start stack of the compile (later ones are ignored).
  void note_user_stack(int64_t stack_id, const std::vector<index::StackFrame>& frames);

  // The row, its status and cache state decided.
  const index::Compile& row();

private:
  index::CompileStatus status() const;
  index::CacheState cache_state() const;

  index::Compile row_;
  bool any_failed_ = false, any_empty_ = false, any_restart_ = false;
};

} // namespace tlparse::ingest
