// The report orchestrator: loads the small per-file state once, streams every output from the
// index in the order tlparse 0.4.3 produced them (a later file of the same path replaces an
// earlier one), then writes the global files. See render.h.
#include "tlparse/report/render.h"

#include "common/content_hash.h"
#include "report/html_page.h"
#include "report/output_collisions.h"
#include "report/render_context.h"
#include "tlparse/compile_id.h"
#include "tlparse/graph/fx_graph.h"
#include "tlparse/index/index_reader.h"
#include "tlparse/report/graph_pages.h"
#include "tlparse/report/multi_rank.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <thread>
#include <unordered_map>

namespace tlparse::report {
namespace detail {

const std::string* RenderCache::find(int kind, const std::string& content_key) {
  std::string key = std::to_string(kind);
  key.push_back('\0');
  key.append(content_key);
  const auto it = entries_.find(key);
  if (it == entries_.end()) {
    return nullptr;
  }
  ++hits_;
  return &it->second;
}

void RenderCache::insert(int kind, const std::string& content_key, const std::string& rendered) {
  if (bytes_ + rendered.size() > max_bytes_) {
    return;
  }
  std::string key = std::to_string(kind);
  key.push_back('\0');
  key.append(content_key);
  if (entries_.emplace(std::move(key), rendered).second) {
    bytes_ += rendered.size();
  }
}

std::string RenderCache::key_of(std::string_view bytes) {
  // A match is trusted (the rendering is reused without the bytes): a 128-bit key under a seed
  // of this process, not a fixed hash a log's author could make collide (common/content_hash.h).
  const common::ContentKey k = common::content_key(bytes);
  return "h" + std::to_string(k.high) + "." + std::to_string(k.low) + ":" +
         std::to_string(bytes.size());
}

Payload RenderContext::fetch_payload(std::int64_t event_id) {
  std::optional<std::string> md5;
  if (md5_trusted) {
    if (auto declared = take(reader.payload_md5(event_id))) {
      md5 = std::move(declared);
      const auto it = payloads_by_md5.find(*md5);
      if (it != payloads_by_md5.end()) {
        return Payload{it->second, "md5:" + *md5};
      }
    }
  }
  auto bytes = std::make_shared<const std::string>(take(reader.payload(event_id)).value_or(""));
  if (md5) {
    if (payload_cache_bytes + bytes->size() <= budget::kPayloadCacheBytes) {
      payload_cache_bytes += bytes->size();
      payloads_by_md5.emplace(*md5, bytes);
    }
    return Payload{bytes, "md5:" + *md5};
  }
  std::string key = RenderCache::key_of(*bytes);
  return Payload{std::move(bytes), std::move(key)};
}

std::string compile_display(const std::optional<CompileId>& cid) {
  return cid ? display_name(*cid) : std::string("(unknown)");
}

std::optional<index::Output> RenderContext::output_with_id(std::int64_t id) {
  std::optional<index::Output> o = take(reader.output(id));
  if (o && o->file_id != file.id) {
    return std::nullopt; // another file's (a tampered index): not this report's
  }
  if (o) {
    plan.apply(*o);
  }
  return o;
}

std::optional<index::StackFrames> RenderContext::start_stack(const std::string& compile) {
  const auto it =
      std::lower_bound(starts.begin(), starts.end(), compile,
                       [](const StartOfCompile& s, const std::string& c) { return s.compile < c; });
  if (it == starts.end() || it->compile != compile) {
    return std::nullopt;
  }
  return take(reader.stack_frames(it->stack_id, StackTrie::kMaxDepth));
}

std::vector<bool> last_writers(const std::vector<index::Output>& outputs) {
  std::vector<bool> writes(outputs.size(), true);
  std::vector<std::uint32_t> files; // outputs that are files, by path then position
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].kind != index::OutputKind::link) {
      files.push_back(static_cast<std::uint32_t>(i));
    }
  }
  std::sort(files.begin(), files.end(), [&](std::uint32_t a, std::uint32_t b) {
    const int c = outputs[a].path.compare(outputs[b].path);
    return c != 0 ? c < 0 : a < b;
  });
  for (std::size_t k = 0; k + 1 < files.size(); ++k) {
    if (outputs[files[k]].path == outputs[files[k + 1]].path) {
      writes[files[k]] = false;
    }
  }
  return writes;
}

std::string RenderContext::key_display(std::optional<std::int64_t> key_id) const {
  if (!key_id) {
    return {};
  }
  const auto it = key_by_id.find(*key_id);
  return it == key_by_id.end() ? std::string() : keys[it->second].display;
}

const RenderContext::CompileOfFile*
RenderContext::compile_of_key(std::optional<std::int64_t> key_id) const {
  const auto key = key_id ? key_by_id.find(*key_id) : key_by_id.end();
  if (key == key_by_id.end()) {
    return nullptr;
  }
  const std::int64_t id = keys[key->second].compile_id;
  const auto it = std::lower_bound(compiles.begin(), compiles.end(), id,
                                   [](const CompileOfFile& c, std::int64_t v) { return c.id < v; });
  return it == compiles.end() || it->id != id ? nullptr : &*it;
}

index::CompileStatus RenderContext::status_of_key(std::optional<std::int64_t> key_id) const {
  const CompileOfFile* c = compile_of_key(key_id);
  return c != nullptr ? c->status : index::CompileStatus::missing;
}

const std::string& RenderContext::compile_display_of_key(std::optional<std::int64_t> key_id) const {
  static const std::string kNone;
  const CompileOfFile* c = compile_of_key(key_id);
  return c != nullptr ? c->display : kNone;
}

void output_link(std::string& out, const index::Output& o, std::string_view prefix,
                 std::string_view label) {
  const bool external = o.kind == index::OutputKind::link;
  if (external && !is_safe_external_url(o.path)) {
    esc(out, o.name);
    out.append(" <span class=\"badge\">(link not shown: ");
    esc(out, o.path);
    out.append(")</span>");
    return;
  }
  if (external) {
    out.append("<a href=\"");
    esc(out, o.path);
  } else {
    std::string href;
    if (!append_report_href(href, prefix, o.path)) {
      esc(out, label); // a path the report never writes: nothing to link to
      return;
    }
    out.append("<a href=\"").append(href);
  }
  out.append("\">");
  esc(out, external ? std::string_view(o.name) : label);
  out.append("</a>");
}

std::string_view status_class(index::CompileStatus status) {
  switch (status) {
  case index::CompileStatus::ok:
    return "status-ok";
  case index::CompileStatus::restart:
    return "status-break";
  case index::CompileStatus::empty:
    return "status-empty";
  case index::CompileStatus::error:
    return "status-error";
  case index::CompileStatus::missing:
    break;
  }
  return "status-missing";
}

void RenderContext::note_write(bool ok, std::string_view what) {
  if (ok) {
    return;
  }
  ++write_failures;
  warnings.push_back("not written: " + std::string(what));
}

void RenderContext::emit(const std::string& path, std::string bytes) {
  if (writer != nullptr) {
    writer->submit(path, std::move(bytes));
  } else {
    note_write(folder.write_file(path, bytes), path);
  }
}

std::vector<TrieFrame> to_trie_frames(const index::StackFrames& stack) {
  std::vector<TrieFrame> frames;
  // The trie shows no deeper; a 100k-frame stack from a hostile log is not copied whole.
  const std::size_t shown = std::min(stack.size(), StackTrie::kMaxDepth);
  frames.reserve(shown);
  for (const index::StackFrame& f : stack) {
    if (frames.size() == shown) {
      break;
    }
    TrieFrame t;
    t.filename =
        f.filename ? *f.filename : (f.uninterned_filename ? *f.uninterned_filename : "(unknown)");
    t.line = f.line;
    t.name = f.name;
    t.loc = f.loc;
    frames.push_back(std::move(t));
  }
  return frames;
}

void note_collisions(RenderContext& ctx, std::size_t renamed) {
  if (renamed == 0) {
    return;
  }
  ctx.warnings.push_back(std::to_string(renamed) +
                         " output(s) renamed because their names collided (output_name_collision)");
  const index::HealthInfo& info = index::health_info(index::HealthId::output_name_collision);
  for (index::HealthCounter& h : ctx.health) {
    if (h.counter == info.name) {
      h.count += static_cast<std::int64_t>(renamed);
      return;
    }
  }
  index::HealthCounter h;
  h.file_id = ctx.file.id;
  h.counter = std::string(info.name);
  h.severity = info.severity;
  h.description = std::string(info.description);
  h.count = static_cast<std::int64_t>(renamed);
  ctx.health.push_back(std::move(h));
}

void build_lookups(RenderContext& ctx) {
  for (std::size_t i = 0; i < ctx.metrics.size(); ++i) {
    if (ctx.metrics[i].metrics.output_id) {
      ctx.metrics_by_output.emplace(*ctx.metrics[i].metrics.output_id, i);
    }
  }
  for (std::size_t i = 0; i < ctx.specializations.size(); ++i) {
    ctx.specs_by_compile[ctx.compile_display_of_key(ctx.specializations[i].event.key_id)].push_back(
        i);
  }
  for (std::size_t i = 0; i < ctx.guards_added_fast.size(); ++i) {
    ctx.guards_by_compile[ctx.compile_display_of_key(ctx.guards_added_fast[i].event.key_id)]
        .push_back(i);
  }
  for (const index::UnknownKey& u : ctx.unknown_keys) {
    ctx.has_runtime_metrics = ctx.has_runtime_metrics || u.key == "compilation_metrics_runtime" ||
                              u.key == "bwd_compilation_metrics_runtime";
    ctx.has_memoizer_artifacts = ctx.has_memoizer_artifacts || u.key == "memoizer_artifacts";
  }
  if (ctx.has_runtime_metrics || ctx.has_memoizer_artifacts) {
    // The "unknown" entries (invalid ids) have no runtime metrics to show.
    for (const index::CompileKey& k : ctx.keys) {
      if (!k.is_unknown) {
        ctx.key_ids_by_compile[ctx.compile_display_of_key(k.id)].push_back(k.id);
      }
    }
  }
  for (std::size_t i = 0; i < ctx.created_symbols.size(); ++i) {
    ctx.symbols_by_compile[ctx.compile_display_of_key(ctx.created_symbols[i].event.key_id)]
        .push_back(i);
  }
}

} // namespace detail

Result<std::vector<std::string>> report_files(const tlparse::index::IndexReader& reader) {
  std::vector<std::string> out(std::begin(files::all), std::end(files::all));
  std::vector<std::string> per_report; // each rank's report: the same files, less the one index
  for (const char* name : files::all) {
    if (std::string_view(name) != files::index) {
      per_report.emplace_back(name);
    }
  }
  auto listed = reader.files();
  if (!listed) {
    return Error{listed.error()};
  }
  // A report of all ranks (--all-ranks-html) holds each rank's report under rank_<N>/ (the
  // rank of its file name) and the landing files; a single-rank report, the first file's.
  std::vector<std::uint32_t> ranks;
  for (const index::File& f : *listed) {
    const bool ranked = f.rank_from_name && *f.rank_from_name >= 0 &&
                        *f.rank_from_name <= static_cast<std::int64_t>(UINT32_MAX);
    std::string prefix;
    if (ranked) {
      const auto rank = static_cast<std::uint32_t>(*f.rank_from_name);
      ranks.push_back(rank);
      prefix = rank_folder(rank) + "/";
      for (const std::string& name : per_report) {
        out.push_back(prefix + name);
      }
    }
    auto plan = detail::plan_outputs(reader, f.id); // the names the report really wrote
    if (!plan) {
      return Error{plan.error()};
    }
    auto keys = reader.compile_keys(f.id);
    if (!keys) {
      return Error{keys.error()};
    }
    for (const index::CompileKey& k : *keys) {
      out.push_back(detail::provenance_page_name(k.dir_name));
    }
    out.emplace_back(kGraphsIndex);
    const Status listed_outputs = reader.for_each_output(f.id, [&](index::Output o) {
      if (o.kind == index::OutputKind::link) {
        return true;
      }
      plan->apply(o);
      out.push_back(o.path);
      if (ranked) {
        out.push_back(prefix + o.path);
      }
      if (graph::is_graph_artifact(o.artifact)) {
        out.push_back(graph_svg_path(o)); // --graphs (graph_pages.h)
      }
      if (o.readable_url && !o.readable_url->empty()) {
        out.push_back(*o.readable_url);
        if (ranked) {
          out.push_back(prefix + *o.readable_url);
        }
      }
      return true;
    });
    if (!listed_outputs) {
      return Error{listed_outputs.error()};
    }
  }
  for (std::string& name : multi_rank_landing_files(ranks)) {
    out.push_back(std::move(name));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

namespace detail {

bool load_context(RenderContext& ctx, const std::vector<index::File>& files, bool& found,
                  std::string& error) {
  const index::IndexReader& reader = ctx.reader;
  const RenderOptions& options = ctx.options;
  found = false;
  for (const index::File& f : files) {
    if (options.file_id == 0 || f.id == options.file_id) {
      ctx.file = f;
      found = true;
      break;
    }
  }
  if (!found && options.file_id != 0) {
    error = "the index has no file with id " + std::to_string(options.file_id);
    return false;
  }
  if (found) {
    const int64_t id = ctx.file.id;
    ctx.keys = ctx.take(reader.compile_keys(id));
    Status st = reader.for_each_compile(id, [&](const index::Compile& c) {
      ctx.compiles.push_back({c.id, c.status, c.display});
      return true;
    });
    std::sort(ctx.compiles.begin(), ctx.compiles.end(),
              [](const auto& a, const auto& b) { return a.id < b.id; });
    for (std::size_t i = 0; i < ctx.keys.size(); ++i) {
      ctx.key_by_id.emplace(ctx.keys[i].id, i);
    }
    if (st) {
      // The stack of a compile's metrics pages: the last dynamo_start logged for its compile.
      std::size_t order = 0;
      std::vector<std::pair<RenderContext::StartOfCompile, std::size_t>> starts;
      st = reader.for_each_stack(
          id, index::StackRole::dynamo_start, 0, [&](const index::EventStack& s) {
            starts.push_back({{ctx.compile_display_of_key(s.event.key_id), s.stack_id}, order++});
            return true;
          });
      std::sort(starts.begin(), starts.end(), [](const auto& a, const auto& b) {
        return a.first.compile != b.first.compile ? a.first.compile < b.first.compile
                                                  : a.second > b.second;
      });
      for (auto& [start, at] : starts) {
        if (ctx.starts.empty() || ctx.starts.back().compile != start.compile) {
          ctx.starts.push_back(std::move(start));
        }
      }
    }
    ctx.check(st);
    ctx.metrics = ctx.take(reader.compilation_metrics(id));
    ctx.unknown_stacks = ctx.take(reader.stacks(id, index::StackRole::unknown));
    // Pages show at most StackTrie::kMaxDepth frames: deeper ones are let go before the side
    // jobs start, so a pathological stack does not hold memory through the whole render.
    for (index::EventStack& s : ctx.unknown_stacks) {
      if (s.frames.size() > StackTrie::kMaxDepth) {
        s.frames.resize(StackTrie::kMaxDepth);
        s.frames.shrink_to_fit();
      }
    }
    ctx.specializations = ctx.take(reader.specializations(id));
    ctx.guards_added_fast = ctx.take(reader.guards_added_fast(id));
    ctx.created_symbols = ctx.take(reader.created_symbols(id));
    ctx.restarts_and_failures = ctx.take(reader.restarts_and_failures(id));
    ctx.stats = ctx.take(reader.stats(id));
    ctx.health = ctx.take(reader.health(id));
    ctx.unknown_keys = ctx.take(reader.unknown_keys(id));
    if (!ctx.read_error.empty()) {
      error = ctx.read_error; // nothing is written from a damaged index
      return false;
    }
  } else {
    ctx.warnings.push_back("the index holds no file; writing an empty report");
  }
  if (found) {
    ctx.plan = ctx.take(plan_outputs(reader, ctx.file.id));
    if (!ctx.metrics.empty()) {
      // Metrics pages list their compile's earlier outputs through a temporary table the reader
      // builds on first use: built now, before the outputs are streamed on this connection.
      ctx.check(
          reader.for_each_listed_output_of_key(-1, 0, [](const index::Output&) { return true; }));
    }
    if (!ctx.read_error.empty()) {
      error = ctx.read_error;
      return false;
    }
  }
  note_collisions(ctx, ctx.plan.renamed_outputs);
  build_lookups(ctx);
  // A payload cut at the size limit keeps its declared MD5, which then names other bytes.
  const auto truncated = std::find_if(ctx.health.begin(), ctx.health.end(), [](const auto& h) {
    return h.counter == index::health_info(index::HealthId::payload_too_large).name;
  });
  ctx.md5_trusted = found && ctx.stats.fail_payload_md5 == 0 &&
                    (truncated == ctx.health.end() || truncated->count == 0);
  return true;
}

} // namespace detail

RenderResult render_report(const tlparse::index::IndexReader& reader, const RenderOptions& options,
                           const std::filesystem::path& out_dir) {
  RenderResult result;
  auto phase_start = std::chrono::steady_clock::now();
  detail::OutputFolder folder(out_dir);
  if (!folder.prepare(result.error)) {
    return result;
  }
  detail::RenderContext ctx(reader, options, folder);

  auto listed = reader.files();
  if (!listed) {
    result.error = listed.error();
    return result;
  }
  const std::vector<index::File>& files = *listed;
  bool found = false;
  if (!detail::load_context(ctx, files, found, result.error)) {
    return result;
  }

  const auto end_phase = [&](const char* name) {
    const auto now = std::chrono::steady_clock::now();
    result.phase_seconds.emplace_back(name,
                                      std::chrono::duration<double>(now - phase_start).count());
    phase_start = now;
  };
  end_phase("load");

  // Side jobs: raw.log, chromium_events.json and raw.jsonl touch files of their own and, given
  // the index path, read through connections of their own, so they run while the per-event
  // outputs render. Without the path they run afterwards on this thread.
  const bool render_globals = found || files.empty();
  std::unique_ptr<index::IndexReader> chromium_reader;
  std::unique_ptr<index::IndexReader> jsonl_reader;
  if (render_globals && !options.index_path.empty()) {
    // Without them the files are written on this thread afterwards (same bytes, more time).
    // Each is used by its side job's thread only.
    index::IndexReader::OpenOptions private_reader;
    private_reader.one_thread = true;
    private_reader.scans_in_order = true;
    if (auto r = index::IndexReader::open(options.index_path, private_reader)) {
      chromium_reader = std::move(r).value();
    }
    if (auto r = index::IndexReader::open(options.index_path, private_reader)) {
      jsonl_reader = std::move(r).value();
    }
  }
  detail::StreamedResult chromium_result;
  detail::StreamedResult jsonl_result;
  double chromium_seconds = 0;
  double jsonl_seconds = 0;
  double raw_log_seconds = 0;
  bool raw_log_ok = true;
  bool raw_log_missing = false;
  const std::filesystem::path raw_source = !options.raw_log_source.empty() ? options.raw_log_source
                                           : options.raw_log_from_index
                                               ? std::filesystem::path(ctx.file.path)
                                               : std::filesystem::path();
  const auto timed = [](double& seconds, const auto& job) {
    const auto t0 = std::chrono::steady_clock::now();
    job();
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  const auto chromium_job = [&](const index::IndexReader& r) {
    timed(chromium_seconds, [&] {
      chromium_result = detail::render_chromium_events(
          r, ctx.file.id, folder, options.combined_chromium_part, options.combined_chromium_pid);
    });
  };
  const auto jsonl_job = [&](const index::IndexReader& r) {
    timed(jsonl_seconds, [&] { jsonl_result = detail::render_raw_jsonl(r, ctx.file, folder); });
  };
  // raw.log: the input, copied by the kernel (never loaded whole).
  const auto raw_log_job = [&] {
    timed(raw_log_seconds, [&] {
      std::error_code ec;
      if (found && std::filesystem::is_regular_file(raw_source, ec)) {
        raw_log_ok = folder.copy_file(raw_source, files::raw_log);
      } else {
        raw_log_missing = true;
      }
    });
  };
  std::vector<std::thread> side_jobs;
  if (chromium_reader && jsonl_reader) {
    side_jobs.emplace_back([&] { chromium_job(*chromium_reader); });
    side_jobs.emplace_back([&] { jsonl_job(*jsonl_reader); });
    side_jobs.emplace_back(raw_log_job);
  }

  // 1. Every per-event output, in production order. An output whose path a later output
  // rewrites is skipped: tlparse's last write wins, so the final bytes are the same.
  // The outputs are streamed from the index (one row at a time), renamed where they collided.
  {
    const unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
    detail::AsyncWriter writer(folder, threads, detail::budget::kPendingWriteBytes);
    ctx.writer = &writer;
    const auto total = found ? static_cast<std::uint64_t>(std::max<std::int64_t>(
                                   0, ctx.take(reader.output_count(ctx.file.id))))
                             : 0;
    std::uint64_t i = 0;
    const Status st = !found ? Status() : reader.for_each_output(ctx.file.id, [&](index::Output o) {
      const std::uint64_t at = i++;
      if (ctx.plan.is_overwritten(o.seq) && o.kind != index::OutputKind::link) {
        return true;
      }
      if (options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed)) {
        ctx.read_error = "cancelled";
        return false;
      }
      ctx.plan.apply(o);
      detail::render_output(ctx, o);
      if (options.on_progress && (at % 64 == 0 || at + 1 == total)) {
        options.on_progress(at + 1, std::max(total, at + 1));
      }
      return !(options.strict && folder.io_errors() > 0);
    });
    ctx.check(st);
    for (const std::string& failed : writer.finish()) {
      ctx.note_write(false, failed);
    }
    ctx.writer = nullptr;
  }
  end_phase("outputs");

  // 2-7. The global files (tlparse's order where it matters: all paths are distinct).
  if (render_globals && !(options.strict && folder.io_errors() > 0) && ctx.read_error.empty()) {
    detail::render_failures_page(ctx);
    if (side_jobs.empty()) {
      chromium_job(reader);
    }
    for (std::thread& t : side_jobs) {
      t.join();
    }
    end_phase("side jobs (waiting)");
    detail::render_compile_directory(ctx);
    detail::render_index_page(ctx, chromium_result.items);
    if (options.inductor_provenance) {
      detail::render_provenance_pages(ctx);
    }
    end_phase("index.html and compile_directory.json");
    if (side_jobs.empty()) {
      raw_log_job();
      jsonl_job(reader);
    }
    side_jobs.clear();
    ctx.note_write(chromium_result.ok, files::chromium_events);
    ctx.note_write(jsonl_result.ok, files::raw_jsonl);
    for (const std::string* e : {&chromium_result.read_error, &jsonl_result.read_error}) {
      if (ctx.read_error.empty() && !e->empty()) {
        ctx.read_error = *e;
      }
    }
    ctx.note_write(raw_log_ok, files::raw_log);
    if (raw_log_missing && raw_source.empty()) {
      ctx.warnings.push_back("raw.log not written: a file named by the index is never read (the "
                             "log was " +
                             ctx.file.path + "; pass it with --raw-log to copy it)");
    } else if (raw_log_missing) {
      ctx.warnings.push_back("raw.log not written: the original log " + raw_source.string() +
                             " is not available");
    }
    result.phase_seconds.emplace_back(files::chromium_events, chromium_seconds);
    result.phase_seconds.emplace_back(files::raw_log, raw_log_seconds);
    result.phase_seconds.emplace_back(files::raw_jsonl, jsonl_seconds);
  }
  for (std::thread& t : side_jobs) {
    t.join(); // strict mode stopped early: the side jobs still finish their files
  }

  result.files_written = folder.files_written();
  result.bytes_written = folder.bytes_written();
  result.unsafe_paths_refused = folder.refused();
  result.cache_hits = ctx.cache.hits() + chromium_result.cache_hits;
  result.warnings = std::move(ctx.warnings);
  result.ok = folder.io_errors() == 0 && ctx.read_error.empty();
  result.error = ctx.read_error.empty() ? folder.first_error() : ctx.read_error;
  return result;
}

} // namespace tlparse::report
