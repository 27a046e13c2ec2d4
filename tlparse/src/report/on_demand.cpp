// See tlparse/report/on_demand.h. The renderers are the report's own (render_context.h); only the
// choice of what to render, and when, differs from render_report.
#include "tlparse/report/on_demand.h"

#include "report/output_folder.h"
#include "report/render_context.h"
#include "tlparse/index/index_reader.h"
#include "tlparse/report/graph_pages.h"

#include <algorithm>
#include <map>
#include <set>

namespace tlparse::report {

struct OnDemandReport::Impl {
  std::unique_ptr<index::IndexReader> reader;
  RenderOptions options;
  detail::OutputFolder folder;
  std::unique_ptr<detail::RenderContext> ctx;
  // The outputs (renamed where they collided): the server looks them up by path, so it holds
  // them, unlike a render (docs/SECURITY.md, "Memory").
  std::vector<index::Output> outputs;
  std::map<std::string, std::size_t> output_at; // path -> the last output writing it
  std::set<std::string> provenance;             // provenance page names (with -i)
  std::set<std::string> done;                   // paths rendered into the cache
  // The graph views (graph_pages.h), listed at the first request under graphs/.
  std::optional<std::vector<GraphOutput>> graphs;
  std::map<std::string, std::size_t> graph_at; // graphs/<path>.svg -> its output
  explicit Impl(const std::filesystem::path& cache) : folder(cache) {}
};

OnDemandReport::OnDemandReport(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
OnDemandReport::~OnDemandReport() = default;

Result<std::unique_ptr<OnDemandReport>> OnDemandReport::open(const std::filesystem::path& index,
                                                             const RenderOptions& options,
                                                             const std::filesystem::path& cache) {
  auto impl = std::make_unique<Impl>(cache);
  auto reader = index::IndexReader::open(index);
  if (!reader) {
    return Error{reader.error()};
  }
  impl->reader = std::move(reader).value();
  impl->options = options;
  impl->options.index_path.clear(); // one reader, one thread
  std::string error;
  if (!impl->folder.prepare(error)) {
    return Error{error};
  }
  impl->ctx = std::make_unique<detail::RenderContext>(*impl->reader, impl->options, impl->folder);
  auto files = impl->reader->files();
  if (!files) {
    return Error{files.error()};
  }
  bool found = false;
  if (!detail::load_context(*impl->ctx, *files, found, error)) {
    return Error{error};
  }
  if (found) {
    auto outputs = impl->reader->outputs(impl->ctx->file.id);
    if (!outputs) {
      return Error{outputs.error()};
    }
    impl->outputs = std::move(outputs).value();
  }
  for (std::size_t i = 0; i < impl->outputs.size(); ++i) {
    impl->ctx->plan.apply(impl->outputs[i]);
    if (impl->outputs[i].kind != index::OutputKind::link) {
      impl->output_at[impl->outputs[i].path] = i;
    }
  }
  if (options.inductor_provenance) {
    for (const index::CompileKey& k : impl->ctx->keys) {
      impl->provenance.insert(detail::provenance_page_name(k.dir_name));
    }
  }
  return std::unique_ptr<OnDemandReport>(new OnDemandReport(std::move(impl)));
}

Result<std::optional<std::filesystem::path>> OnDemandReport::file(const std::string& relative) {
  Impl& s = *impl_;
  detail::RenderContext& ctx = *s.ctx;
  const std::filesystem::path target = s.folder.root() / relative;
  if (s.done.count(relative) != 0) {
    return std::optional<std::filesystem::path>(target);
  }
  const auto before = s.folder.io_errors() + s.folder.refused();
  if (relative == files::index_html) {
    // Counted by the index: streaming a 1 GB log's events would delay the first page.
    auto chromium = s.reader->chromium_event_count(ctx.file.id);
    if (!chromium) {
      return Error{chromium.error()};
    }
    detail::render_index_page(ctx,
                              static_cast<std::uint64_t>(std::max<std::int64_t>(0, *chromium)));
  } else if (relative == files::failures_html) {
    detail::render_failures_page(ctx);
  } else if (relative == files::compile_directory) {
    detail::render_compile_directory(ctx);
  } else if (relative == files::chromium_events) {
    const auto r = detail::render_chromium_events(*s.reader, ctx.file.id, s.folder);
    if (!r.read_error.empty()) {
      return Error{r.read_error};
    }
  } else if (relative == files::raw_jsonl) {
    const auto r = detail::render_raw_jsonl(*s.reader, ctx.file, s.folder);
    if (!r.read_error.empty()) {
      return Error{r.read_error};
    }
  } else if (relative == files::raw_log) {
    // A path stored in the index is read only when the caller says the index is its own
    // (RenderOptions::raw_log_from_index).
    const std::filesystem::path source =
        !s.options.raw_log_source.empty() ? s.options.raw_log_source
        : s.options.raw_log_from_index    ? std::filesystem::path(ctx.file.path)
                                          : std::filesystem::path();
    if (source.empty()) {
      return std::optional<std::filesystem::path>();
    }
    if (!s.folder.copy_file(source, files::raw_log)) {
      return Error{s.folder.first_error()};
    }
  } else if (s.provenance.count(relative) != 0) {
    detail::render_provenance_pages(ctx);
    s.done.insert(s.provenance.begin(), s.provenance.end());
  } else if (const auto it = s.output_at.find(relative); it != s.output_at.end()) {
    detail::render_output(ctx, s.outputs[it->second]);
  } else if (relative.starts_with(std::string(kGraphsFolder) + "/")) {
    // Graph views: beside the report, never part of what tlparse 0.4.3 writes.
    if (!s.graphs) {
      auto graphs = graph_outputs(*s.reader, ctx.file.id);
      if (!graphs) {
        return Error{graphs.error()};
      }
      s.graphs = std::move(graphs).value();
      for (std::size_t i = 0; i < s.graphs->size(); ++i) {
        s.graph_at[graph_svg_path((*s.graphs)[i].output)] = i;
      }
    }
    if (relative == kGraphsIndex) {
      s.folder.write_file(relative, graphs_index_page(*s.graphs));
    } else if (const auto g = s.graph_at.find(relative); g != s.graph_at.end()) {
      auto svg = render_graph_output(*s.reader, (*s.graphs)[g->second], kDefaultGraphNodeBudget);
      if (!svg) {
        return Error{svg.error()};
      }
      if (!svg->svg) {
        return std::optional<std::filesystem::path>(); // not an FX graph, or over the budget
      }
      s.folder.write_file(relative, *svg->svg);
    } else {
      return std::optional<std::filesystem::path>();
    }
  } else {
    return std::optional<std::filesystem::path>();
  }
  if (!ctx.read_error.empty()) {
    return Error{ctx.read_error};
  }
  if (s.folder.io_errors() + s.folder.refused() != before) {
    return Error{"cannot write " + relative + " into the page cache: " + s.folder.first_error()};
  }
  s.done.insert(relative);
  return std::optional<std::filesystem::path>(target);
}

} // namespace tlparse::report
