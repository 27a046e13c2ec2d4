// See compile_facts.h.
#include "ingest/trackers/compile_facts.h"

namespace tlparse::ingest {
namespace {

std::optional<int64_t> part(const std::optional<uint32_t>& v) {
  return v ? std::optional<int64_t>(*v) : std::nullopt;
}

void add(std::optional<double>& sum, const std::optional<double>& v) {
  if (v) {
    sum = sum.value_or(0) + *v;
  }
}

std::optional<std::string> copy(const std::optional<std::string_view>& v) {
  return v ? std::optional<std::string>(*v) : std::nullopt;
}

} // namespace

index::CompileScope compile_scope(const std::optional<CompileId>& raw) {
  if (!raw) {
    return index::CompileScope::invalid_id;
  }
  if (!raw->compiled_autograd_id && !raw->frame_id && !raw->frame_compile_id && !raw->attempt) {
    return index::CompileScope::outside;
  }
  return index::CompileScope::compile;
}

std::string compile_display(const std::optional<CompileId>& raw) {
  return raw ? display_name(attempt_forced_to_zero(*raw)) : std::string("unknown");
}

CompileFacts::CompileFacts(int64_t id, int64_t file_id, int64_t ord,
                           const std::optional<CompileId>& raw, int64_t first_line) {
  row_.id = id;
  row_.file_id = file_id;
  row_.ord = ord;
  row_.scope = compile_scope(raw);
  row_.display = compile_display(raw);
  if (raw) {
    row_.caid = part(raw->compiled_autograd_id);
    row_.frame_id = part(raw->frame_id);
    row_.frame_compile_id = part(raw->frame_compile_id);
  }
  row_.first_line = first_line;
}

void CompileFacts::note_cache(index::CacheResult result) {
  switch (result) {
  case index::CacheResult::hit:
    ++row_.cache_hits;
    break;
  case index::CacheResult::miss:
    ++row_.cache_misses;
    break;
  case index::CacheResult::bypass:
    ++row_.cache_bypasses;
    break;
  }
}

void CompileFacts::note_metrics(const index::io::CompilationMetricsRecord& m) {
  ++row_.metrics_events;
  any_failed_ = any_failed_ || m.fail_type.has_value();
  any_empty_ = any_empty_ || !m.graph_op_count || *m.graph_op_count == 0;
  // A metrics event without a restart list is counted as a restart, as tlparse 0.4.3 does.
  any_restart_ = any_restart_ || !m.restart_reasons || *m.restart_reasons > 0;
  row_.restarts += m.restart_reasons.value_or(0);
  if (!row_.start_time_s) {
    row_.start_time_s = m.start_time;
  }
  add(row_.entire_frame_compile_time_s, m.entire_frame_compile_time_s);
  add(row_.backend_compile_time_s, m.backend_compile_time_s);
  add(row_.inductor_compile_time_s, m.inductor_compile_time_s);
  add(row_.code_gen_time_s, m.code_gen_time_s);
  if (m.fail_type) {
    row_.fail_type = copy(m.fail_type);
    row_.fail_reason = copy(m.fail_reason);
  }
  if (!row_.co_name && m.co_name) {
    row_.co_name = copy(m.co_name);
    row_.co_filename = copy(m.co_filename);
    row_.co_firstlineno = m.co_firstlineno;
  }
}

void CompileFacts::note_user_stack(int64_t stack_id, const std::vector<index::StackFrame>& frames) {
  if (row_.user_stack_id) {
    return;
  }
  row_.user_stack_id = stack_id;
  if (frames.empty()) {
    return;
  }
  const index::StackFrame& f = frames.back();
  row_.user_file = f.filename ? f.filename : f.uninterned_filename;
  row_.user_line = f.line;
  row_.user_function = f.name;
}

index::CompileStatus CompileFacts::status() const {
  if (row_.metrics_events == 0) {
    return index::CompileStatus::missing;
  }
  if (any_failed_) {
    return index::CompileStatus::error;
  }
  if (any_empty_) {
    return index::CompileStatus::empty;
  }
  if (any_restart_) {
    return index::CompileStatus::restart;
  }
  return index::CompileStatus::ok;
}

index::CacheState CompileFacts::cache_state() const {
  const int kinds = (row_.cache_hits > 0) + (row_.cache_misses > 0) + (row_.cache_bypasses > 0);
  if (kinds == 0) {
    return index::CacheState::none;
  }
  if (kinds > 1) {
    return index::CacheState::mixed;
  }
  return row_.cache_hits > 0     ? index::CacheState::hit
         : row_.cache_misses > 0 ? index::CacheState::miss
                                 : index::CacheState::bypass;
}

const index::Compile& CompileFacts::row() {
  row_.status = status();
  row_.cache_state = cache_state();
  return row_;
}

} // namespace tlparse::ingest
