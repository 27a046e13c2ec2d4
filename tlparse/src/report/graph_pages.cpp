// See tlparse/report/graph_pages.h. The graph text is the output's payload as logged; the SVG is
// graph_view.h's. Pages and SVGs are written through OutputFolder, whose path checks keep every
// file inside the output folder however the index was made.
#include "tlparse/report/graph_pages.h"

#include "report/html_page.h"
#include "report/output_collisions.h"
#include "report/output_folder.h"
#include "tlparse/graph/fx_graph.h"
#include "tlparse/index/index_reader.h"

#include <map>
#include <unordered_map>

namespace tlparse::report {

Result<std::vector<GraphOutput>> graph_outputs(const index::IndexReader& reader,
                                               std::int64_t file_id) {
  auto keys = reader.compile_keys(file_id);
  if (!keys) {
    return Error{keys.error()};
  }
  std::unordered_map<std::int64_t, const index::CompileKey*> key_of;
  for (const auto& k : *keys) {
    key_of[k.id] = &k;
  }
  // The paths the report really writes (collisions renamed), so the text links resolve.
  auto plan = detail::plan_outputs(reader, file_id);
  if (!plan) {
    return Error{plan.error()};
  }
  std::vector<GraphOutput> out;
  std::map<std::string, std::size_t> at_path; // the last output writing a path wins, as on disk
  const Status st = reader.for_each_output(file_id, [&](index::Output o) {
    plan->apply(o);
    if (o.kind == index::OutputKind::link || !graph::is_graph_artifact(o.artifact) ||
        !detail::OutputFolder::is_safe_relative_path(o.path)) {
      return true;
    }
    GraphOutput g;
    g.output = o;
    if (o.key_id) {
      if (const auto it = key_of.find(*o.key_id); it != key_of.end()) {
        g.compile = it->second->display;
        g.dir_name = it->second->dir_name;
      }
    }
    if (const auto it = at_path.find(o.path); it != at_path.end()) {
      out[it->second] = std::move(g);
    } else {
      at_path[o.path] = out.size();
      out.push_back(std::move(g));
    }
    return true;
  });
  if (!st) {
    return Error{st.error()};
  }
  return out;
}

std::string graph_svg_path(const index::Output& output) {
  std::string path = output.path;
  const std::size_t slash = path.rfind('/');
  const std::size_t dot = path.rfind('.');
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) {
    path.resize(dot);
  }
  return std::string(kGraphsFolder) + "/" + path + ".svg";
}

Result<GraphSvg> render_graph_output(const index::IndexReader& reader, const GraphOutput& graph,
                                     std::size_t node_budget) {
  auto payload = reader.payload(graph.output.event_id);
  if (!payload) {
    return Error{payload.error()};
  }
  GraphSvg out;
  if (!*payload) {
    return out;
  }
  const graph::FxGraph fx = graph::parse_fx_graph(**payload);
  out.nodes = fx.nodes.size();
  if (fx.empty() || fx.nodes.size() > node_budget) {
    return out;
  }
  const graph::Layout layout = graph::layout_graph(fx);
  out.engine = layout.engine;
  graph::SvgOptions options;
  options.title = graph.output.artifact + " " + graph.compile;
  out.svg = graph::render_svg(fx, layout, options);
  return out;
}

std::string graphs_index_page(const std::vector<GraphOutput>& graphs,
                              const std::vector<bool>& drawn) {
  std::string out;
  detail::PageOptions page;
  page.title = "Graphs";
  detail::begin_page(out, page);
  out += "<h1>Graphs</h1>\n<p>The printed FX graphs of this log, drawn (hover a node for the "
         "source line that made it). Inputs are green, outputs orange.</p>\n";
  if (graphs.empty()) {
    out += "<p>No graph artifacts.</p>\n";
  }
  std::string current;
  bool open = false;
  for (std::size_t i = 0; i < graphs.size(); ++i) {
    const GraphOutput& g = graphs[i];
    if (!open || g.compile != current) {
      if (open) {
        out += "</ul>\n";
      }
      current = g.compile;
      out += "<h2>";
      detail::esc(out, current.empty() ? std::string("(no compile id)") : current);
      out += "</h2>\n<ul>\n";
      open = true;
    }
    out += "<li>";
    const bool linked = drawn.empty() || (i < drawn.size() && drawn[i]);
    if (linked) {
      out += "<a href=\"";
      detail::append_report_href(out, "../", graph_svg_path(g.output));
      out += "\">";
    }
    detail::esc(out, g.output.name);
    out += linked ? "</a>" : " (not drawn: over the node budget or not parsed)";
    out += " <a href=\"";
    detail::append_report_href(out, "../", g.output.path);
    out += "\">text</a></li>\n";
  }
  if (open) {
    out += "</ul>\n";
  }
  detail::end_page(out, page);
  return out;
}

GraphFolderResult write_graph_folder(const index::IndexReader& reader, std::int64_t file_id,
                                     const std::filesystem::path& out_dir,
                                     std::size_t node_budget) {
  GraphFolderResult r;
  auto graphs = graph_outputs(reader, file_id);
  if (!graphs) {
    r.error = graphs.error();
    return r;
  }
  detail::OutputFolder folder(out_dir);
  if (!folder.prepare(r.error)) {
    return r;
  }
  std::vector<bool> drawn(graphs->size(), false);
  for (std::size_t i = 0; i < graphs->size(); ++i) {
    auto svg = render_graph_output(reader, (*graphs)[i], node_budget);
    if (!svg) {
      r.error = svg.error();
      return r;
    }
    ++r.graphs;
    if (!svg->svg) {
      ++(svg->nodes == 0 ? r.unparsed : r.over_budget);
      continue;
    }
    if (!folder.write_file(graph_svg_path((*graphs)[i].output), *svg->svg)) {
      r.error = folder.first_error();
      return r;
    }
    drawn[i] = true;
    ++r.drawn;
  }
  if (!folder.write_file(kGraphsIndex, graphs_index_page(*graphs, drawn))) {
    r.error = folder.first_error();
    return r;
  }
  r.ok = true;
  return r;
}

} // namespace tlparse::report
