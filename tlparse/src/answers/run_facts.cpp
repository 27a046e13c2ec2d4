// run_facts: frames and compiles of one file of an index, through the read API.
#include "tlparse/answers/run_facts.h"

#include <map>
#include <unordered_map>

namespace tlparse::answers {
namespace {

std::string base_name(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

} // namespace

std::string frame_location(const index::Compile& c) {
  if (c.co_filename && c.co_firstlineno) {
    return c.co_name.value_or("?") + " (" + base_name(*c.co_filename) + ":" +
           std::to_string(*c.co_firstlineno) + ")";
  }
  if (c.user_file && c.user_line) {
    return c.user_function.value_or("?") + " (" + base_name(*c.user_file) + ":" +
           std::to_string(*c.user_line) + ")";
  }
  return c.frame_id ? "frame " + std::to_string(*c.frame_id) : std::string("unknown frame");
}

Result<RunFacts> run_facts(const index::IndexReader& reader, const index::File& file) {
  RunFacts run;
  const std::optional<int64_t> rank = file.rank ? file.rank : file.rank_from_name;
  run.label = rank ? "rank " + std::to_string(*rank) : std::string();
  auto compiles = reader.compiles(file.id);
  if (!compiles) {
    return Error{compiles.error()};
  }
  auto keys = reader.compile_keys(file.id);
  if (!keys) {
    return Error{keys.error()};
  }
  auto outputs = reader.outputs(file.id);
  if (!outputs) {
    return Error{outputs.error()};
  }
  auto reasons = reader.recompiles_explained(file.id);
  if (!reasons) {
    return Error{reasons.error()};
  }
  auto breaks = reader.graph_break_summary(file.id);
  if (!breaks) {
    return Error{breaks.error()};
  }
  std::unordered_map<int64_t, int64_t> compile_of_key; // key id -> compile row id
  for (const auto& k : *keys) {
    compile_of_key[k.id] = k.compile_id;
  }
  // Frames in first-seen order; a frame is (compiled autograd id, frame id).
  std::map<std::pair<int64_t, int64_t>, size_t> frame_index;
  std::unordered_map<int64_t, std::pair<size_t, size_t>> where; // compile id -> frame, compile
  std::unordered_map<std::string, std::pair<size_t, size_t>> by_display;
  for (const index::Compile& c : *compiles) {
    if (c.scope != index::CompileScope::compile) {
      continue;
    }
    const auto key = std::make_pair(c.caid.value_or(-1), c.frame_id.value_or(-1));
    auto [it, inserted] = frame_index.emplace(key, run.frames.size());
    if (inserted) {
      run.frames.push_back(FrameFacts{frame_location(c), c.frame_id, {}});
    }
    FrameFacts& f = run.frames[it->second];
    CompileFacts cf;
    cf.display = c.display;
    cf.status = c.status;
    cf.total_s = c.entire_frame_compile_time_s;
    cf.backend_s = c.backend_compile_time_s;
    cf.inductor_s = c.inductor_compile_time_s;
    cf.code_gen_s = c.code_gen_time_s;
    cf.cache_state = c.cache_state;
    cf.cache_hits = c.cache_hits;
    cf.cache_misses = c.cache_misses;
    cf.cache_bypasses = c.cache_bypasses;
    cf.fail_type = c.fail_type;
    cf.fail_reason = c.fail_reason;
    where[c.id] = {it->second, f.compiles.size()};
    by_display[c.display] = {it->second, f.compiles.size()};
    f.compiles.push_back(std::move(cf));
    ++run.compiles;
    run.failures += c.status == index::CompileStatus::error ? 1 : 0;
    run.graph_break_count += c.graph_breaks;
    run.cache_hits += c.cache_hits;
    run.cache_misses += c.cache_misses;
    run.compile_time_s += c.entire_frame_compile_time_s.value_or(0);
    // Its first-seen location wins; a later compile may know the code object when the first
    // failed before logging it.
    if (f.location.rfind("frame ", 0) == 0) {
      f.location = frame_location(c);
    }
  }
  for (const FrameFacts& f : run.frames) {
    run.recompiles += f.compiles.empty() ? 0 : static_cast<int64_t>(f.compiles.size()) - 1;
  }
  for (const auto& r : *reasons) {
    if (auto it = by_display.find(r.compile); it != by_display.end()) {
      run.frames[it->second.first].compiles[it->second.second].recompile_guards.push_back(r.guard);
    }
  }
  for (const auto& b : *breaks) {
    BreakFacts bf;
    bf.reason = b.reason;
    if (b.user_file && b.user_line) {
      bf.location = base_name(*b.user_file) + ":" + std::to_string(*b.user_line);
    }
    bf.count = b.count;
    run.graph_breaks.push_back(std::move(bf));
  }
  // The graph and guards of each compile (the last of each, as the last attempt is the one kept).
  for (const index::Output& o : *outputs) {
    const bool graph = o.artifact == "dynamo_output_graph";
    const bool guards = o.artifact == "dynamo_guards" || o.artifact == "dynamo_cpp_guards_str";
    if ((!graph && !guards) || !o.key_id) {
      continue;
    }
    const auto k = compile_of_key.find(*o.key_id);
    if (k == compile_of_key.end()) {
      continue;
    }
    const auto w = where.find(k->second);
    if (w == where.end()) {
      continue;
    }
    auto event = reader.event(o.event_id);
    if (!event) {
      return Error{event.error()};
    }
    CompileFacts& cf = run.frames[w->second.first].compiles[w->second.second];
    const std::string md5 = *event && (*event)->payload_md5 ? *(*event)->payload_md5 : "";
    if (graph) {
      cf.graph_md5 = md5;
      cf.graph_event = o.event_id;
    } else if (o.artifact == "dynamo_cpp_guards_str" || !cf.guards_event) {
      cf.guards_md5 = md5;
      cf.guards_event = o.event_id;
    }
  }
  return run;
}

} // namespace tlparse::answers
