// index.html's recompilation explorer, graph-break summary, compile-time chart and artifact
// explanations (see answers_sections.h).
#include "report/answers_sections.h"

#include "report/flame_chart.h"
#include "report/html_page.h"
#include "tlparse/answers/artifact_explanation.h"
#include "tlparse/answers/compile_time_chart.h"
#include "tlparse/answers/graph_break_id.h"
#include "tlparse/answers/recompile_explanation.h"
#include "tlparse/answers/runtime_facts.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

namespace tlparse::report::detail {
namespace {

// PyTorch's default torch._dynamo.config.recompile_limit: past it a frame runs eagerly.
constexpr std::size_t kRecompileLimit = 8;
// Per-compile flame charts drawn (the slowest compiles).
constexpr std::size_t kCompileCharts = 20;
// Spans kept per charted compile.
constexpr std::size_t kSpansPerCompile = 2000;

std::string location(const std::optional<std::string>& file, const std::optional<int64_t>& line) {
  if (!file) {
    return "";
  }
  return *file + (line ? ":" + std::to_string(*line) : std::string());
}

void compile_link(std::string& out, const std::string& display) {
  out += "<a href=\"#";
  esc(out, display);
  out += "\">";
  esc(out, display);
  out += "</a>";
}

// A graph break id linking the docs page its reason names (an http(s) URL, escaped).
void docs_link(std::string& out, const std::string& id, const std::string& url) {
  out += "<a href=\"";
  esc(out, url);
  out += "\" rel=\"noopener noreferrer\">";
  esc(out, id);
  out += "</a>";
}

// A user stack (a recompile reason's, a graph break's), folded under a `<details>`.
void user_stack_details(std::string& page, const std::optional<std::string>& stack) {
  if (stack) {
    page += "<details><summary>user stack</summary><pre>";
    esc(page, *stack);
    page += "</pre></details>";
  }
}

// A frame compiled `count` times (at least twice), introduced by its first compile: its heading,
// the recompile-limit warning when it reached the limit, and its table's header row.
using ServedByCompile = std::unordered_map<std::string, answers::Served>;

void frame_heading(std::string& page, const index::Compile& first, std::size_t count,
                   bool with_served) {
  page += "<h3>";
  if (first.co_name) {
    page += "<code>";
    esc(page, *first.co_name);
    page += "</code> ";
  }
  if (first.co_filename) {
    page += "<span class=\"badge\">";
    esc(page, location(first.co_filename, first.co_firstlineno));
    page += "</span> ";
  }
  page += "&middot; " + std::to_string(count) + " compiles</h3>\n";
  if (count >= kRecompileLimit) {
    page += "<p class=\"health-warning\">This frame reached PyTorch's default recompile "
            "limit (" +
            std::to_string(kRecompileLimit) +
            "): later calls with new inputs run "
            "eagerly. Fix the cause below, or raise "
            "<code>torch._dynamo.config.recompile_limit</code>.</p>\n";
  }
  page += "<table><tr><th>compile</th><th>status</th>";
  if (with_served) {
    page += "<th>served</th>";
  }
  page += "<th>failed guard (of the cached "
          "compile)</th><th>category</th><th>where the guard comes from</th><th>suggestion"
          "</th></tr>\n";
}

// The four cells of one recompile reason: the failed guard, its category, where it comes from
// and the suggestion.
void reason_cells(std::string& page, const index::RecompileExplained& r) {
  page += "<td><code>";
  if (r.cached_entry) {
    esc(page, *r.cached_entry);
    page += ": ";
  }
  esc(page, r.guard);
  page += "</code></td><td>";
  esc(page, r.category);
  page += "</td><td>";
  if (r.user_file) {
    page += "<code>";
    esc(page, location(r.user_file, r.user_line));
    page += "</code>";
  }
  user_stack_details(page, r.user_stack);
  page += "</td><td>";
  esc(page, r.suggestion);
  page += "</td>";
}

// A compile's rows in its frame's table: one per recompile reason (`reasons`, null when the log
// has none for it), the compile and its status spanning them; without a reason, one row saying
// why there is none.
void compile_rows(StreamedFile& file, const index::Compile& c,
                  const std::vector<const index::RecompileExplained*>* reasons,
                  const ServedByCompile* served) {
  std::string& page = file.buffer();
  const std::size_t rows = reasons == nullptr ? 1 : reasons->size();
  for (std::size_t k = 0; k < rows; ++k) {
    page += "<tr>";
    if (k == 0) {
      page += "<td rowspan=\"" + std::to_string(rows) + "\">";
      compile_link(page, c.display);
      page += "</td><td rowspan=\"" + std::to_string(rows) + "\"><span class=\"" +
              std::string(status_class(c.status)) + "\">" + std::string(to_string(c.status)) +
              "</span></td>";
      if (served != nullptr) {
        const auto it = served->find(c.display);
        page += "<td rowspan=\"" + std::to_string(rows) + "\">" +
                answers::served_text(it == served->end() ? nullptr : &it->second) + "</td>";
      }
    }
    if (reasons == nullptr) {
      page += "<td colspan=\"4\" class=\"note\">";
      page += answers::no_recompile_reason_note(c);
      page += "</td>";
    } else {
      reason_cells(page, *(*reasons)[k]);
    }
    page += "</tr>\n";
    file.flush_if_large();
  }
}

// Frames with more than one compile, in first-seen order, each with a table of its compiles and
// why each recompiled. The index streams the compiles grouped by frame, each with its frame's
// count.
void recompilation_explorer(RenderContext& ctx, StreamedFile& file) {
  std::string& page = file.buffer();
  const auto reasons = ctx.take(ctx.reader.recompiles_explained(ctx.file.id));
  std::unordered_map<std::string, std::vector<const index::RecompileExplained*>> by_compile;
  for (const auto& r : reasons) {
    by_compile[r.compile].push_back(&r);
  }
  // Logs of our compiler say how each cache entry served its calls: a "served" column then
  // tells hot compiles from cold ones.
  const ServedByCompile served =
      answers::served_by_compile(ctx.take(ctx.reader.runtime_facts(ctx.file.id)));
  const ServedByCompile* served_or_null = served.empty() ? nullptr : &served;
  page += "<h2 id=\"recompilations\">Recompilations</h2>\n";
  std::size_t shown = 0;
  std::optional<std::pair<int64_t, int64_t>> frame; // the frame being listed
  bool open_table = false;                          // whether it is listed (compiled twice)
  ctx.check(ctx.reader.for_each_compile_by_frame(ctx.file.id, [&](const index::Compile& c,
                                                                  int64_t frame_compiles) {
    if (const auto key = std::make_pair(c.caid.value_or(-1), c.frame_id.value_or(-1));
        frame != key) {
      frame = key;
      if (open_table) {
        page += "</table>\n";
      }
      open_table = frame_compiles >= 2;
      if (open_table) {
        ++shown;
        frame_heading(page, c, static_cast<std::size_t>(frame_compiles), served_or_null != nullptr);
      }
    }
    if (open_table) {
      const auto it = by_compile.find(c.display);
      compile_rows(file, c, it == by_compile.end() ? nullptr : &it->second, served_or_null);
    }
    return true;
  }));
  if (open_table) {
    page += "</table>\n";
  }
  if (shown == 0) {
    page += "<p class=\"note\">No frame was compiled more than once.</p>\n";
  }
}

void graph_break_summary(RenderContext& ctx, std::string& page) {
  const auto breaks = ctx.take(ctx.reader.graph_break_summary(ctx.file.id));
  page += "<h2 id=\"graph-breaks\">Graph breaks</h2>\n";
  if (breaks.empty()) {
    page += "<p class=\"note\">No graph break was logged.</p>\n";
    return;
  }
  int64_t total = 0;
  for (const auto& b : breaks) {
    total += b.count;
  }
  // PyTorch 2.11 names each kind of break with a stable id (gb0170) and a docs page: the kinds,
  // most frequent first, above the distinct breaks.
  std::vector<answers::GraphBreakId> ids;
  ids.reserve(breaks.size());
  struct Kind {
    std::string docs_url;
    int64_t places = 0, count = 0;
  };
  std::map<std::string, Kind> kinds;
  for (const auto& b : breaks) {
    ids.push_back(answers::graph_break_id(b.reason));
    if (!ids.back().id.empty()) {
      Kind& k = kinds[ids.back().id];
      k.docs_url = ids.back().docs_url;
      ++k.places;
      k.count += b.count;
    }
  }
  page += "<p>" + std::to_string(breaks.size()) + " distinct graph break(s), " +
          std::to_string(total) +
          " in all, most frequent first. Each splits the compiled "
          "region in two; fix the first ones to get the largest graphs.</p>\n";
  if (!kinds.empty()) {
    std::vector<std::pair<std::string, Kind>> by_count(kinds.begin(), kinds.end());
    std::stable_sort(by_count.begin(), by_count.end(),
                     [](const auto& x, const auto& y) { return x.second.count > y.second.count; });
    page += "<p>By PyTorch's stable graph-break id (each links its docs page):</p>\n"
            "<table><tr><th>id</th><th>count</th><th>places</th></tr>\n";
    for (const auto& [id, k] : by_count) {
      page += "<tr><td>";
      docs_link(page, id, k.docs_url);
      page += "</td><td>" + std::to_string(k.count) + "</td><td>" + std::to_string(k.places) +
              "</td></tr>\n";
    }
    page += "</table>\n";
  }
  page += "<table><tr><th>count</th><th>id</th><th>where</th><th>reason</th><th>in "
          "compiles</th></tr>\n";
  for (std::size_t i = 0; i < breaks.size(); ++i) {
    const auto& b = breaks[i];
    page += "<tr><td>" + std::to_string(b.count) + "</td><td>";
    if (!ids[i].id.empty()) {
      docs_link(page, ids[i].id, ids[i].docs_url);
    }
    page += "</td><td><code>";
    esc(page, location(b.user_file, b.user_line));
    page += "</code></td><td><pre>";
    esc(page, b.reason);
    page += "</pre>";
    user_stack_details(page, b.user_stack);
    page += "</td><td>";
    std::size_t start = 0;
    bool first = true;
    while (start <= b.compile_ids.size() && !b.compile_ids.empty()) {
      const std::size_t comma = b.compile_ids.find(',', start);
      const std::string id = b.compile_ids.substr(
          start, comma == std::string::npos ? std::string::npos : comma - start);
      page += first ? "" : " ";
      compile_link(page, id);
      first = false;
      if (comma == std::string::npos) {
        break;
      }
      start = comma + 1;
    }
    page += "</td></tr>\n";
  }
  page += "</table>\n";
}

// A compile's label in the charts. Compiles are read by id when a chart needs them, the labels
// of the first few thousand kept (a chart of a run with a million compiles then costs one query
// per bar of the rest, not a row per compile held).
class CompileLabels {
public:
  explicit CompileLabels(RenderContext& ctx) : ctx_(ctx) {}
  std::string operator()(const std::optional<int64_t>& compile_id) {
    if (!compile_id) {
      return "(outside any compile)";
    }
    if (const auto it = known_.find(*compile_id); it != known_.end()) {
      return it->second;
    }
    std::string label = "(outside any compile)";
    if (const auto c = ctx_.take(ctx_.reader.compile(*compile_id));
        c && c->file_id == ctx_.file.id) {
      switch (c->scope) {
      case index::CompileScope::compile:
        label = c->display;
        break;
      case index::CompileScope::outside:
        break;
      case index::CompileScope::invalid_id:
        label = "(invalid compile id)";
        break;
      }
    }
    if (known_.size() < kKept) {
      known_.emplace(*compile_id, label);
    }
    return label;
  }

private:
  static constexpr std::size_t kKept = 4096;
  RenderContext& ctx_;
  std::unordered_map<int64_t, std::string> known_;
};

void compile_time_charts(RenderContext& ctx, std::string& page) {
  CompileLabels compile_label(ctx);
  // Pass 1: the run's extent and each compile's time at depth 0.
  double t0 = 0, t1 = 0;
  bool any = false;
  std::unordered_map<int64_t, double> compile_time; // compile id -> top-level span time
  std::unordered_map<int64_t, std::pair<double, double>> compile_extent;
  Status st = ctx.reader.for_each_span(ctx.file.id, [&](const index::Span& s) {
    const double end = s.start_us + s.duration_us.value_or(0);
    t0 = any ? std::min(t0, s.start_us) : s.start_us;
    t1 = any ? std::max(t1, end) : end;
    any = true;
    if (s.compile_id) {
      if (s.depth == 0) {
        compile_time[*s.compile_id] += s.duration_us.value_or(0);
      }
      auto [it, inserted] = compile_extent.emplace(*s.compile_id, std::make_pair(s.start_us, end));
      if (!inserted) {
        it->second.first = std::min(it->second.first, s.start_us);
        it->second.second = std::max(it->second.second, end);
      }
    }
    return true;
  });
  page += "<h2 id=\"compile-time\">Compile time</h2>\n";
  if (!st) {
    ctx.take<int>(Error{st.error()});
    return;
  }
  if (!any) {
    page += "<p class=\"note\">No chromium events were logged, so there is no timeline.</p>\n";
    return;
  }
  // The slowest compiles get their own chart.
  std::vector<std::pair<double, int64_t>> slowest;
  for (const auto& [id, t] : compile_time) {
    if (compile_label(id).front() == '[') {
      slowest.emplace_back(t, id);
    }
  }
  std::sort(slowest.begin(), slowest.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  if (slowest.size() > kCompileCharts) {
    slowest.resize(kCompileCharts);
  }
  // Each chart's window; a span its window cannot show (under half a pixel) is not kept.
  const answers::ChartWindow run_window{t0, t1, 1200, t0, t1};
  std::unordered_map<int64_t, answers::ChartWindow> compile_window;
  std::unordered_map<int64_t, std::vector<ChartSpan>> per_compile;
  std::unordered_map<int64_t, std::size_t> per_compile_left_out;
  for (const auto& [t, id] : slowest) {
    const auto ext = compile_extent[id];
    compile_window[id] = answers::ChartWindow{ext.first, ext.second, 900, ext.first, t1};
    per_compile[id];
  }
  // Pass 2: the spans to draw.
  std::vector<ChartSpan> run;
  std::size_t run_left_out = 0;
  st = ctx.reader.for_each_span(ctx.file.id, [&](const index::Span& s) {
    const double dur = s.duration_us.value_or(t1 - s.start_us);
    ChartSpan cs{s.name, compile_label(s.compile_id), s.start_us, s.duration_us};
    if (s.compile_id) {
      if (auto it = per_compile.find(*s.compile_id); it != per_compile.end()) {
        if (dur >= compile_window[*s.compile_id].min_duration_us() &&
            it->second.size() < kSpansPerCompile) {
          it->second.push_back(cs);
        } else {
          ++per_compile_left_out[*s.compile_id];
        }
      }
    }
    if (dur >= run_window.min_duration_us() && run.size() < answers::kMaxChartBars) {
      run.push_back(std::move(cs));
    } else {
      ++run_left_out;
    }
    return true;
  });
  if (!st) {
    ctx.take<int>(Error{st.error()});
    return;
  }
  page += "<p>Where compile time went, from the chromium events the compiler logged (hover a "
          "bar for its phase, compile and duration; the same events are in "
          "<a href=\"chromium_events.json\">chromium_events.json</a> for Perfetto). A phase has "
          "one colour in every chart.</p>\n<h3>The whole run</h3>\n";
  page += flame_chart_svg(run, run_window, run_left_out);
  page += "<h3>Per compile (the " + std::to_string(slowest.size()) + " slowest)</h3>\n";
  for (const auto& [t, id] : slowest) {
    page += "<h4>";
    compile_link(page, compile_label(id));
    char buf[64];
    std::snprintf(buf, sizeof buf, " &middot; %.3f s", t / 1e6);
    page += buf;
    page += "</h4>\n";
    page += flame_chart_svg(per_compile[id], compile_window[id], per_compile_left_out[id]);
  }
}

// Why a compile has no generated code (or lacks the graphs of the later stages).
void artifact_explanations(RenderContext& ctx, StreamedFile& file) {
  std::string& page = file.buffer();
  page += "<h2 id=\"missing-artifacts\">Artifacts explained</h2>\n";
  bool any = false;
  ctx.check(ctx.reader.for_each_compile_with_artifacts(
      ctx.file.id, [&](const index::Compile& c, const std::vector<std::string>& artifacts) {
        if (c.scope != index::CompileScope::compile) {
          return true;
        }
        const auto why = answers::explain_missing_artifacts(
            c, std::set<std::string>(artifacts.begin(), artifacts.end()));
        if (!why) {
          return true;
        }
        if (!any) {
          page += "<p>Compiles without generated code, or without the graphs of the later "
                  "stages, and why.</p>\n<table><tr><th>compile</th><th>cache</th><th>why</th>"
                  "</tr>\n";
          any = true;
        }
        page += "<tr><td>";
        compile_link(page, c.display);
        page += "</td><td>";
        page += to_string(c.cache_state);
        page += "</td><td>";
        esc(page, *why);
        page += "</td></tr>\n";
        file.flush_if_large();
        return true;
      }));
  page += any ? "</table>\n" : "<p class=\"note\">Every compile has its generated code.</p>\n";
}

} // namespace

void render_answer_sections(RenderContext& ctx, StreamedFile& file) {
  recompilation_explorer(ctx, file);
  graph_break_summary(ctx, file.buffer());
  compile_time_charts(ctx, file.buffer());
  artifact_explanations(ctx, file);
}

} // namespace tlparse::report::detail
