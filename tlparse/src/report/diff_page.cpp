// The `tlparse diff --html` page (see tlparse/report/diff_page.h).
#include "tlparse/report/diff_page.h"

#include "report/html_page.h"

#include <cstdio>

namespace tlparse::report {
namespace {

using detail::esc;

std::string secs(const std::optional<double>& s) {
  return answers::format_seconds(s, "&ndash;");
}

std::string delta(const std::optional<double>& a, const std::optional<double>& b) {
  return answers::format_delta(a, b, false);
}

void total_row(std::string& out, const char* label, int64_t a, int64_t b) {
  out += "<tr><td>" + std::string(label) + "</td><td>" + std::to_string(a) + "</td><td>" +
         std::to_string(b) + "</td><td>" +
         (a == b ? "" : (b > a ? "+" : "") + std::to_string(b - a)) + "</td></tr>\n";
}

void line_diff(std::string& out, const char* what, const answers::LineDiff& d) {
  out += "<details><summary>" + std::string(what) + " changed (&minus;" +
         std::to_string(d.removed) + " +" + std::to_string(d.added) + " lines)</summary><pre>";
  for (const auto& l : d.lines) {
    const char* cls = l.starts_with("+")    ? "diff-add"
                      : l.starts_with("-")  ? "diff-del"
                      : l.starts_with("@@") ? "diff-hunk"
                                            : "";
    out += "<span class=\"" + std::string(cls) + "\">";
    esc(out, l);
    out += "</span>\n";
  }
  if (d.truncated) {
    out += "<span class=\"diff-hunk\">(cut)</span>\n";
  }
  out += "</pre></details>\n";
}

// One list item per entry of `items`, of `css_class` (diff-add, diff-del), each led by `label`
// ("added: ", "fixed: ").
void diff_items(std::string& out, const std::vector<std::string>& items, const char* css_class,
                const char* label) {
  for (const auto& item : items) {
    out += "<li class=\"";
    out += css_class;
    out += "\">";
    out += label;
    esc(out, item);
    out += "</li>\n";
  }
}

void compile_cell(std::string& out, const answers::CompileFacts* c) {
  if (c == nullptr) {
    out += "<td colspan=\"4\" class=\"note\">not compiled in this run</td>";
    return;
  }
  out += "<td>";
  esc(out, c->display);
  out += "</td><td>";
  out += to_string(c->status);
  out += "</td><td>" + secs(c->total_s) + "</td><td>";
  out += to_string(c->cache_state);
  out += "</td>";
}

} // namespace

std::string diff_section_html(const answers::RunDiff& d, const std::string& a_name,
                              const std::string& b_name) {
  const answers::RunFacts& a = *d.a;
  const answers::RunFacts& b = *d.b;
  std::string out;
  if (!a.label.empty()) {
    out += "<h2>";
    esc(out, a.label);
    out += "</h2>\n";
  }
  out += "<p class=\"note\">A: <code>";
  esc(out, a_name);
  out += "</code><br>B: <code>";
  esc(out, b_name);
  out += "</code></p>\n<table><tr><th></th><th>A</th><th>B</th><th>B &minus; A</th></tr>\n";
  total_row(out, "frames", static_cast<int64_t>(a.frames.size()),
            static_cast<int64_t>(b.frames.size()));
  total_row(out, "compiles", a.compiles, b.compiles);
  total_row(out, "recompiles", a.recompiles, b.recompiles);
  total_row(out, "graph breaks", a.graph_break_count, b.graph_break_count);
  total_row(out, "failed compiles", a.failures, b.failures);
  total_row(out, "cache hits", a.cache_hits, b.cache_hits);
  total_row(out, "cache misses", a.cache_misses, b.cache_misses);
  out += "<tr><td>compile time (s)</td><td>" + secs(a.compile_time_s) + "</td><td>" +
         secs(b.compile_time_s) + "</td><td>" + delta(a.compile_time_s, b.compile_time_s) +
         "</td></tr>\n</table>\n";
  if (!d.frames_added.empty() || !d.frames_gone.empty()) {
    out += "<h3>Frames added or gone</h3>\n<ul>\n";
    diff_items(out, d.frames_added, "diff-add", "added: ");
    diff_items(out, d.frames_gone, "diff-del", "gone: ");
    out += "</ul>\n";
  }
  out += "<h3>Frames</h3>\n";
  for (const auto& f : d.frames) {
    out += "<h4>";
    esc(out, f.location);
    out += " <span class=\"badge\">" + std::to_string(f.a_compiles) + " &rarr; " +
           std::to_string(f.b_compiles) + " compile(s)" + (f.changed ? "" : ", unchanged") +
           "</span></h4>\n<table><tr><th colspan=\"4\">A</th><th colspan=\"4\">B</th>"
           "<th>time B &minus; A (s)</th></tr>\n"
           "<tr><th>compile</th><th>status</th><th>time (s)</th><th>cache</th><th>compile</th>"
           "<th>status</th><th>time (s)</th><th>cache</th><th></th></tr>\n";
    for (const auto& c : f.compiles) {
      out += "<tr>";
      compile_cell(out, c.fa);
      compile_cell(out, c.fb);
      out += "<td>" + (c.fa && c.fb ? delta(c.fa->total_s, c.fb->total_s) : std::string()) +
             "</td></tr>\n";
      const bool details =
          !c.reasons_appeared.empty() || !c.reasons_vanished.empty() || c.graph || c.guards ||
          (c.fa && c.fb && (c.fa->backend_s || c.fa->inductor_s || c.fb->backend_s));
      if (!details) {
        continue;
      }
      out += "<tr><td colspan=\"9\">";
      if (c.fa && c.fb) {
        out += "<span class=\"note\">backend " + secs(c.fa->backend_s) + " &rarr; " +
               secs(c.fb->backend_s) + " s, inductor " + secs(c.fa->inductor_s) + " &rarr; " +
               secs(c.fb->inductor_s) + " s, code gen " + secs(c.fa->code_gen_s) + " &rarr; " +
               secs(c.fb->code_gen_s) + " s</span>\n";
      }
      for (const auto& r : c.reasons_appeared) {
        out += "<div class=\"diff-add\">recompile reason appeared: <code>";
        esc(out, r);
        out += "</code></div>\n";
      }
      for (const auto& r : c.reasons_vanished) {
        out += "<div class=\"diff-del\">recompile reason vanished: <code>";
        esc(out, r);
        out += "</code></div>\n";
      }
      if (c.graph) {
        line_diff(out, "graph", *c.graph);
      }
      if (c.guards) {
        line_diff(out, "guards", *c.guards);
      }
      out += "</td></tr>\n";
    }
    out += "</table>\n";
  }
  out += "<h3>Graph breaks that changed</h3>\n";
  if (d.graph_breaks.empty()) {
    out += "<p class=\"note\">None.</p>\n";
  } else {
    out += "<table><tr><th>A</th><th>B</th><th>where</th><th>reason</th></tr>\n";
    for (const auto& g : d.graph_breaks) {
      out += "<tr><td>" + std::to_string(g.a_count) + "</td><td>" + std::to_string(g.b_count) +
             "</td><td><code>";
      esc(out, g.location);
      out += "</code></td><td><pre>";
      esc(out, g.reason);
      out += "</pre></td></tr>\n";
    }
    out += "</table>\n";
  }
  out += "<h3>Failures</h3>\n";
  if (d.new_failures.empty() && d.fixed_failures.empty()) {
    out += "<p class=\"note\">No change.</p>\n";
  } else {
    out += "<ul>\n";
    diff_items(out, d.new_failures, "diff-del", "new: ");
    diff_items(out, d.fixed_failures, "diff-add", "fixed: ");
    out += "</ul>\n";
  }
  return out;
}

std::string diff_page_html(const std::string& sections) {
  std::string page;
  detail::PageOptions po;
  po.title = "tlparse diff";
  po.query_script = false;
  detail::begin_page(page, po);
  page += "<style>.diff-add { color: #1a7f37; } .diff-del { color: #cf222e; } "
          ".diff-hunk { color: #8250df; }</style>\n<h1>Run comparison</h1>\n"
          "<p class=\"note\">Frames are matched by code location and order, compiles by their "
          "order within the frame.</p>\n";
  page += sections;
  detail::end_page(page, po);
  return page;
}

} // namespace tlparse::report
