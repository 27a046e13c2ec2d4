// CompilesReader: the compile directory and the facts of compiles (compiles_reader.h).
#include "tlparse/index/compiles_reader.h"

#include "index/reader_core.h"

#include <algorithm>

namespace tlparse::index {

using namespace detail;

std::optional<CompileId> compile_id_of(const CompileKey& k) {
  if (k.is_unknown) {
    return std::nullopt;
  }
  return compile_id_from(k.caid, k.frame_id, k.frame_compile_id, k.attempt);
}

Result<std::vector<Compile>> CompilesReader::compiles(int64_t file_id) const {
  return core_->rows<Compile>("WHERE file_id=? ORDER BY ord", {file_id});
}

Result<std::vector<CompileKey>> CompilesReader::compile_keys(int64_t file_id) const {
  return core_->rows<CompileKey>("WHERE file_id=? ORDER BY ord", {file_id});
}

Result<std::optional<Compile>> CompilesReader::compile(int64_t compile_id) const {
  return core_->row_by_id<Compile>(compile_id);
}

Status CompilesReader::for_each_compile(int64_t file_id,
                                        const std::function<bool(const Compile&)>& fn) const {
  return core_->for_each_row<Compile>("WHERE file_id=? ORDER BY ord", {file_id}, fn);
}

Status CompilesReader::for_each_compile_by_frame(
    int64_t file_id, const std::function<bool(const Compile&, int64_t)>& fn) const {
  constexpr int kCompile = io::Table<Compile>::kColumns;
  Compile c;
  return core_->each_row(
      "compiles",
      "SELECT c.*,COUNT(*) OVER w,MIN(c.ord) OVER w AS first FROM compiles c WHERE c.file_id=? "
      "AND c.scope='compile' WINDOW w AS (PARTITION BY COALESCE(c.caid,-1),"
      "COALESCE(c.frame_id,-1)) ORDER BY first,c.ord",
      {file_id}, [&](const Stmt& s, int& bad) {
        bad = io::read_row(s, 0, c);
        if (bad >= 0) {
          return Next::bad;
        }
        return fn(c, s.i64(kCompile)) ? Next::more : Next::stop;
      });
}

Status CompilesReader::for_each_compile_with_artifacts(
    int64_t file_id,
    const std::function<bool(const Compile&, const std::vector<std::string>&)>& fn) const {
  constexpr int kCompile = io::Table<Compile>::kColumns;
  constexpr int kFirst = 4; // is_artifact, ord, compile id, artifact
  // Each compile's row, then its distinct artifacts: one sort, no join on an unindexed column.
  const std::string sql =
      "SELECT 0,c.ord,c.id,NULL,c.* FROM compiles c WHERE c.file_id=?1 UNION ALL SELECT DISTINCT "
      "1,c.ord,c.id,o.artifact" +
      nulls(kCompile) +
      " FROM outputs o JOIN compile_keys k ON k.id=o.key_id JOIN compiles c ON c.id=k.compile_id "
      "WHERE o.file_id=?1 AND k.file_id=?1 AND c.file_id=?1 ORDER BY 2,3,1,4";
  Compile c;
  std::vector<std::string> artifacts;
  bool pending = false;
  bool stopped = false;
  const Status st = core_->each_row("compiles", sql, {file_id}, [&](const Stmt& s, int& bad) {
    if (s.i64(0) == 0) {
      if (pending && !fn(c, artifacts)) {
        stopped = true;
        return Next::stop;
      }
      bad = io::read_row(s, kFirst, c);
      if (bad >= 0) {
        return Next::bad;
      }
      artifacts.clear();
      pending = true;
      return Next::more;
    }
    std::string a;
    if (!read_column(s, 3, a)) {
      bad = 3;
      return Next::bad;
    }
    if (pending && s.i64(2) == c.id) {
      artifacts.push_back(std::move(a));
    }
    return Next::more;
  });
  if (!st) {
    return st;
  }
  if (pending && !stopped) {
    fn(c, artifacts);
  }
  return {};
}

Result<std::vector<MetricsEvent>> CompilesReader::compilation_metrics(int64_t file_id) const {
  auto lists = core_->lists_by_event(file_id, "compilation_metrics");
  if (!lists) {
    return Error{lists.error()};
  }
  std::vector<MetricsEvent> out;
  const Status st = core_->for_each_event_row<CompilationMetrics>(
      file_id, "", [&](const Stmt&, CompilationMetrics&& row, const EventRef& ref, int&) {
        MetricsEvent m;
        m.event = ref;
        m.metrics = std::move(row);
        if (auto it = lists->find(m.metrics.event_id); it != lists->end()) {
          m.restart_reasons = std::move(it->second["restart_reasons"]);
          m.non_compliant_ops = std::move(it->second["non_compliant_ops"]);
          m.compliant_custom_ops = std::move(it->second["compliant_custom_ops"]);
        }
        out.push_back(std::move(m));
        return Next::more;
      });
  if (!st) {
    return Error{st.error()};
  }
  return out;
}

Result<std::vector<MetricsOtherField>>
CompilesReader::metrics_other_fields(int64_t event_id) const {
  return core_->rows<MetricsOtherField>("WHERE event_id=? ORDER BY pos", {event_id});
}

Result<std::vector<RestartOrFailure>> CompilesReader::restarts_and_failures(int64_t file_id) const {
  auto metrics = compilation_metrics(file_id);
  if (!metrics) {
    return Error{metrics.error()};
  }
  std::vector<RestartOrFailure> out;
  for (const MetricsEvent& m : *metrics) {
    if (m.metrics.event_key != MetricsKind::compilation_metrics) {
      continue;
    }
    for (const std::string& r : m.restart_reasons) {
      RestartOrFailure row;
      row.cid = m.event.cid;
      row.metrics_output_id = m.metrics.output_id;
      row.is_restart = true;
      row.type_or_reason = r;
      out.push_back(std::move(row));
    }
    if (m.metrics.fail_type) {
      RestartOrFailure row;
      row.cid = m.event.cid;
      row.metrics_output_id = m.metrics.output_id;
      row.type_or_reason = *m.metrics.fail_type;
      row.failure_reason = m.metrics.fail_reason.value_or("");
      row.failure_source = m.metrics.fail_user_frame_filename.value_or("N/A") + ":" +
                           std::to_string(m.metrics.fail_user_frame_lineno.value_or(0));
      out.push_back(std::move(row));
    }
  }
  return out;
}

Result<std::vector<SpecializationEvent>> CompilesReader::specializations(int64_t file_id) const {
  auto lists = core_->lists_by_event(file_id, "specializations");
  if (!lists) {
    return Error{lists.error()};
  }
  auto stacks = core_->stacks_by_event(file_id, "'stack','user_stack'");
  if (!stacks) {
    return Error{stacks.error()};
  }
  std::vector<SpecializationEvent> out;
  std::optional<Error> failure;
  const Status st = core_->for_each_event_row<Specialization>(
      file_id, "," TORCHSCOPE_METADATA_COLUMNS,
      [&](const Stmt& s, Specialization&& row, const EventRef& ref, int& bad) {
        SpecializationEvent x;
        x.event = ref;
        x.specialization = std::move(row);
        if ((bad = core_->read_metadata(s, ReaderCore::kExtraColumn<Specialization>,
                                        x.event.event_id, x.metadata_json, failure)) >= 0) {
          return Next::bad;
        }
        if (failure) {
          return Next::stop;
        }
        if (auto it = lists->find(x.event.event_id); it != lists->end()) {
          x.sources = std::move(it->second["sources"]);
        }
        if (auto it = stacks->find(x.event.event_id); it != stacks->end()) {
          x.stack = std::move(it->second[StackRole::stack]);
          x.user_stack = std::move(it->second[StackRole::user_stack]);
        }
        out.push_back(std::move(x));
        return Next::more;
      });
  if (!st) {
    return Error{st.error()};
  }
  if (failure) {
    return *failure;
  }
  return out;
}

Result<std::vector<GuardAddedFastEvent>> CompilesReader::guards_added_fast(int64_t file_id) const {
  auto stacks = core_->stacks_by_event(file_id, "'stack','user_stack'");
  if (!stacks) {
    return Error{stacks.error()};
  }
  std::vector<GuardAddedFastEvent> out;
  const Status st = core_->for_each_event_row<GuardAddedFast>(
      file_id, "", [&](const Stmt&, GuardAddedFast&& row, const EventRef& ref, int&) {
        GuardAddedFastEvent g;
        g.event = ref;
        g.guard = std::move(row);
        if (auto it = stacks->find(g.event.event_id); it != stacks->end()) {
          g.stack = std::move(it->second[StackRole::stack]);
          g.user_stack = std::move(it->second[StackRole::user_stack]);
        }
        out.push_back(std::move(g));
        return Next::more;
      });
  if (!st) {
    return Error{st.error()};
  }
  return out;
}

Result<std::vector<SymbolEvent>> CompilesReader::created_symbols(int64_t file_id) const {
  std::vector<SymbolEvent> out;
  const Status st = core_->for_each_event_row<CreatedSymbol>(
      file_id, ",e.kind", [&](const Stmt& s, CreatedSymbol&& row, const EventRef& ref, int& bad) {
        SymbolEvent x;
        x.event = ref;
        x.symbol = std::move(row);
        if (!read_column(s, ReaderCore::kExtraColumn<CreatedSymbol>, x.event_key)) {
          bad = ReaderCore::kExtraColumn<CreatedSymbol>;
          return Next::bad;
        }
        out.push_back(std::move(x));
        return Next::more;
      });
  if (!st) {
    return Error{st.error()};
  }
  return out;
}

Result<std::vector<CacheEvent>> CompilesReader::cache_events(int64_t file_id) const {
  return core_->rows<CacheEvent>("WHERE file_id=? ORDER BY event_id", {file_id});
}

Result<std::vector<RecompileReason>> CompilesReader::recompile_reasons(int64_t file_id) const {
  return core_->rows<RecompileReason>("WHERE file_id=? ORDER BY event_id, pos", {file_id});
}

Result<std::vector<GraphBreak>> CompilesReader::graph_breaks(int64_t file_id) const {
  return core_->rows<GraphBreak>("WHERE file_id=? ORDER BY event_id", {file_id});
}

Result<std::vector<Event>> CompilesReader::runtime_metrics_events(int64_t key_id) const {
  return core_->rows<Event>("WHERE key_id=? AND kind IN ('compilation_metrics_runtime', "
                            "'bwd_compilation_metrics_runtime') ORDER BY id",
                            {key_id});
}

Result<std::vector<Event>> CompilesReader::memoizer_artifact_events(int64_t key_id) const {
  return core_->rows<Event>("WHERE key_id=? AND kind='memoizer_artifacts' ORDER BY id", {key_id});
}

Result<int64_t> CompilesReader::memoizer_artifact_count(int64_t key_id) const {
  return core_->count("events",
                      "SELECT count(*) FROM events WHERE key_id=? AND kind='memoizer_artifacts'",
                      {key_id});
}

Result<std::vector<EventStack>> CompilesReader::stacks(int64_t file_id, StackRole role) const {
  std::vector<EventStack> out;
  const Status st = for_each_stack(file_id, role, SIZE_MAX, [&](const EventStack& es) {
    out.push_back(es);
    return true;
  });
  if (!st) {
    return Error{st.error()};
  }
  return out;
}

Status CompilesReader::for_each_stack(int64_t file_id, StackRole role, std::size_t max_frames,
                                      const std::function<bool(const EventStack&)>& fn) const {
  constexpr int kFrame = 2 + kEventRefColumns;
  EventStack es;
  bool pending = false;
  bool stopped = false;
  const Status st = core_->each_row(
      "stacks",
      std::string("SELECT x.id,k.compile_id," TORCHSCOPE_EVENT_REF_COLUMNS
                  ",f.* FROM stacks x JOIN events e ON e.id=x.event_id LEFT JOIN compile_keys k "
                  "ON k.id=e.key_id LEFT JOIN stack_frames f ON f.stack_id=x.id WHERE "
                  "x.file_id=? AND x.role='") +
          std::string(to_string(role)) + "' ORDER BY x.id,f.pos",
      {file_id}, [&](const Stmt& s, int& bad) {
        int64_t id = 0;
        if (!read_column(s, 0, id)) {
          bad = 0;
          return Next::bad;
        }
        if (pending && id != es.stack_id) {
          if (!fn(es)) {
            stopped = true;
            return Next::stop;
          }
          pending = false;
        }
        if (!pending) {
          es = EventStack();
          es.stack_id = id;
          if (!read_column(s, 1, es.compile_id)) {
            bad = 1;
            return Next::bad;
          }
          if ((bad = read_event_ref(s, 2, es.event)) >= 0) {
            return Next::bad;
          }
          pending = true;
        }
        if (!s.is_null(kFrame) && es.frames.size() < max_frames) {
          StackFrame f;
          if ((bad = io::read_row(s, kFrame, f)) >= 0) {
            return Next::bad;
          }
          es.frames.push_back(std::move(f));
        }
        return Next::more;
      });
  if (!st) {
    return st;
  }
  if (pending && !stopped) {
    fn(es);
  }
  return {};
}

Result<StackFrames> CompilesReader::stack_frames(int64_t stack_id, std::size_t max_frames) const {
  StackFrames out;
  const Status st = core_->for_each_row<StackFrame>(
      "WHERE stack_id=? ORDER BY pos LIMIT ?",
      {stack_id, static_cast<int64_t>(std::min<std::size_t>(max_frames, INT64_MAX))},
      [&](const StackFrame& f) {
        out.push_back(f);
        return true;
      });
  if (!st) {
    return Error{st.error()};
  }
  return out;
}

} // namespace tlparse::index
