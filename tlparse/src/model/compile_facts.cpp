// See compile_facts.h.
#include "model/compile_facts.h"

namespace tlparse::model {
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

CompileFacts::CompileFacts(int64_t id, int64_t ord, const std::optional<CompileId>& raw,
                           int64_t first_line)
    : id_(id), ord_(ord), first_line_(first_line), scope_(compile_scope(raw)),
      display_(compile_display(raw)) {
  if (raw) {
    caid_ = part(raw->compiled_autograd_id);
    frame_id_ = part(raw->frame_id);
    frame_compile_id_ = part(raw->frame_compile_id);
  }
}

void CompileFacts::note_cache(index::CacheResult result) {
  switch (result) {
  case index::CacheResult::hit:
    ++cache_hits_;
    break;
  case index::CacheResult::miss:
    ++cache_misses_;
    break;
  case index::CacheResult::bypass:
    ++cache_bypasses_;
    break;
  }
}

void CompileFacts::note_metrics(const index::io::CompilationMetricsRecord& m) {
  ++metrics_events_;
  any_failed_ = any_failed_ || m.fail_type.has_value();
  any_empty_ = any_empty_ || !m.graph_op_count || *m.graph_op_count == 0;
  // A metrics event without a restart list is counted as a restart, as tlparse 0.4.3 does.
  any_restart_ = any_restart_ || !m.restart_reasons || *m.restart_reasons > 0;
  restarts_ += m.restart_reasons.value_or(0);
  if (!start_time_) {
    start_time_ = m.start_time;
  }
  add(entire_frame_, m.entire_frame_compile_time_s);
  add(backend_, m.backend_compile_time_s);
  add(inductor_, m.inductor_compile_time_s);
  add(code_gen_, m.code_gen_time_s);
  if (m.fail_type) {
    fail_type_ = copy(m.fail_type);
    fail_reason_ = copy(m.fail_reason);
  }
  if (!co_name_ && m.co_name) {
    co_name_ = copy(m.co_name);
    co_filename_ = copy(m.co_filename);
    co_firstlineno_ = m.co_firstlineno;
  }
}

void CompileFacts::note_user_stack(int64_t stack_id, const std::vector<index::StackFrame>& frames) {
  if (user_stack_id_) {
    return;
  }
  user_stack_id_ = stack_id;
  if (frames.empty()) {
    return;
  }
  const index::StackFrame& f = frames.back();
  user_file_ = f.filename ? f.filename : f.uninterned_filename;
  user_line_ = f.line;
  user_function_ = f.name;
}

index::CompileStatus CompileFacts::status() const {
  if (metrics_events_ == 0) {
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
  const int kinds = (cache_hits_ > 0) + (cache_misses_ > 0) + (cache_bypasses_ > 0);
  if (kinds == 0) {
    return index::CacheState::none;
  }
  if (kinds > 1) {
    return index::CacheState::mixed;
  }
  return cache_hits_ > 0     ? index::CacheState::hit
         : cache_misses_ > 0 ? index::CacheState::miss
                             : index::CacheState::bypass;
}

index::io::CompileRecord CompileFacts::record(int64_t file_id) const {
  index::io::CompileRecord r;
  r.id = id_;
  r.file_id = file_id;
  r.ord = ord_;
  r.scope = scope_;
  r.display = display_;
  r.caid = caid_;
  r.frame_id = frame_id_;
  r.frame_compile_id = frame_compile_id_;
  r.first_line = first_line_;
  r.attempts = attempts_;
  r.status = status();
  r.metrics_events = metrics_events_;
  r.start_time_s = start_time_;
  r.entire_frame_compile_time_s = entire_frame_;
  r.backend_compile_time_s = backend_;
  r.inductor_compile_time_s = inductor_;
  r.code_gen_time_s = code_gen_;
  r.fail_type = fail_type_;
  r.fail_reason = fail_reason_;
  r.co_name = co_name_;
  r.co_filename = co_filename_;
  r.co_firstlineno = co_firstlineno_;
  r.user_stack_id = user_stack_id_;
  r.user_file = user_file_;
  r.user_line = user_line_;
  r.user_function = user_function_;
  r.outputs = outputs_;
  r.restarts = restarts_;
  r.recompile_reasons = recompile_reasons_;
  r.graph_breaks = graph_breaks_;
  r.cache_hits = cache_hits_;
  r.cache_misses = cache_misses_;
  r.cache_bypasses = cache_bypasses_;
  r.cache_state = cache_state();
  return r;
}

} // namespace tlparse::model
