// See tlparse/graph/graph_view.h. Graphviz is used for positions only: it gets numbered boxes of
// the size our labels need and no text of the log; the SVG is written here.
#include "tlparse/graph/graph_view.h"

#include "tlparse/highlight/html.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#ifdef TORCHSCOPE_HAVE_GRAPHVIZ
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <simdjson.h>
#endif

namespace tlparse::graph {
namespace {

constexpr double kCharWidth = 7.0;   // monospace 12px
constexpr double kLineHeight = 15.0; // per label line
constexpr double kPadding = 8.0;     // inside a box
constexpr std::size_t kLabelChars = 56;
constexpr double kMargin = 16.0;
constexpr double kTitleHeight = 24.0;

// Calls fn(from, to) for each edge, by consumer in printed order.
template <class Fn>
void for_each_edge(const FxGraph& graph, Fn fn) {
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    for (const std::size_t in : graph.nodes[i].inputs) {
      fn(in, i);
    }
  }
}

// Characters of UTF-8 text (continuation bytes not counted).
std::size_t char_count(std::string_view s) {
  std::size_t n = 0;
  for (const char c : s) {
    n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  }
  return n;
}

std::string_view short_target(const FxNode& node) {
  std::string_view t = node.target;
  for (const std::string_view prefix : {"torch.ops.", "torch._ops.", "torch."}) {
    if (t.rfind(prefix, 0) == 0) {
      t.remove_prefix(prefix.size());
      break;
    }
  }
  return t;
}

// The label's lines, unescaped: name, what it does, dtype and shape.
std::vector<std::string> label_lines(const FxNode& node) {
  std::vector<std::string> lines;
  lines.push_back(node.name);
  if (node.is_input()) {
    lines.emplace_back("input");
  } else if (node.is_output()) {
    lines.push_back("output (" + std::to_string(node.args.size()) + ")");
  } else if (node.op == "call_method") {
    lines.push_back("." + std::string(node.target) + "()");
  } else if (node.op == "call_module" || node.op == "get_attr") {
    lines.push_back("self." + node.target);
  } else {
    lines.emplace_back(short_target(node));
  }
  if (!node.dtype.empty() || !node.shape.empty()) {
    lines.push_back(node.dtype + node.shape);
  } else if (!node.type.empty()) {
    lines.push_back(node.type);
  }
  return lines;
}

// A box's size for its label (lines cut to kLabelChars).
Layout::Box box_for(const FxNode& node) {
  std::size_t widest = 4;
  const auto lines = label_lines(node);
  for (const auto& l : lines) {
    widest = std::max(widest, std::min(char_count(l), kLabelChars + 1));
  }
  return {0, 0, static_cast<double>(widest) * kCharWidth + 2 * kPadding,
          static_cast<double>(lines.size()) * kLineHeight + kPadding};
}

// The layered layout: a node's rank is one below its deepest input (printed order is a
// topological order: a node reads only names printed above it), nodes of a rank ordered by the
// mean position of their inputs, edges straight. Linear in the graph but for the per-rank sort.
Layout layered_layout(const FxGraph& graph) {
  Layout out;
  out.engine = "layered";
  const std::size_t n = graph.nodes.size();
  out.nodes.resize(n);
  std::vector<std::size_t> rank(n, 0);
  std::size_t ranks = 0;
  for (std::size_t i = 0; i < n; ++i) {
    for (const std::size_t in : graph.nodes[i].inputs) {
      if (in < i) {
        rank[i] = std::max(rank[i], rank[in] + 1);
      }
    }
    ranks = std::max(ranks, rank[i] + 1);
    out.nodes[i] = box_for(graph.nodes[i]);
  }
  std::vector<std::vector<std::size_t>> by_rank(ranks);
  for (std::size_t i = 0; i < n; ++i) {
    by_rank[rank[i]].push_back(i);
  }
  constexpr double kGapX = 24.0, kGapY = 40.0;
  std::vector<double> centre(n, 0.0), key(n, 0.0);
  double y = 0, widest = 0;
  std::vector<double> row_width(ranks, 0.0);
  for (std::size_t r = 0; r < ranks; ++r) {
    auto& row = by_rank[r];
    for (const std::size_t i : row) {
      double sum = 0;
      std::size_t count = 0;
      for (const std::size_t in : graph.nodes[i].inputs) {
        if (in < i) {
          sum += centre[in];
          ++count;
        }
      }
      key[i] = count > 0 ? sum / static_cast<double>(count) : static_cast<double>(i);
    }
    if (r > 0) {
      std::stable_sort(row.begin(), row.end(),
                       [&](std::size_t a, std::size_t b) { return key[a] < key[b]; });
    }
    double x = 0, height = 0;
    for (const std::size_t i : row) {
      out.nodes[i].x = x;
      out.nodes[i].y = y;
      centre[i] = x + out.nodes[i].w / 2;
      x += out.nodes[i].w + kGapX;
      height = std::max(height, out.nodes[i].h);
    }
    row_width[r] = std::max(0.0, x - kGapX);
    widest = std::max(widest, row_width[r]);
    y += height + kGapY;
  }
  // Centre each rank.
  for (std::size_t r = 0; r < ranks; ++r) {
    const double shift = (widest - row_width[r]) / 2;
    for (const std::size_t i : by_rank[r]) {
      out.nodes[i].x += shift;
    }
  }
  for_each_edge(graph, [&](std::size_t from, std::size_t to) {
    const auto& a = out.nodes[from];
    const auto& b = out.nodes[to];
    out.edges.push_back({from, to, {{a.x + a.w / 2, a.y + a.h}, {b.x + b.w / 2, b.y}}, false});
  });
  out.width = widest;
  out.height = std::max(0.0, y - kGapY);
  return out;
}

#ifdef TORCHSCOPE_HAVE_GRAPHVIZ
// Graphviz keeps global state (its error handler, the plugin list): one layout at a time.
std::mutex g_graphviz;

void set_attr(Agraph_t* g, int kind, const char* name, const char* value) {
  agattr(g, kind, const_cast<char*>(name), const_cast<char*>(value));
}

std::optional<Layout> dot_layout(const FxGraph& graph) {
  std::lock_guard<std::mutex> lock(g_graphviz);
  agseterr(AGMAX); // no warnings on stderr: a log's graph is data, not our diagnostics
  // One context for the process: Graphviz 2.43 leaks a few KB with each one it frees, which a
  // long --serve session would pile up.
  static GVC_t* const gvc = gvContext();
  if (gvc == nullptr) {
    return std::nullopt;
  }
  Agraph_t* g = agopen(const_cast<char*>("fx"), Agdirected, nullptr);
  const std::size_t n = graph.nodes.size();
  // The effort caps (docs/TLPARSE-GRAPHS.md, "Size budget"): network simplex iterations in
  // ranking and positioning (nslimit1, nslimit: factors of the node count), crossing
  // minimisation passes (mclimit) and its search (searchsize), no final crossing pass. Above 300
  // nodes, the cheapest that still ranks: transformer graphs' skip connections make dot's
  // positioning superlinear (1,000 nodes: 0.8 s of CPU so, minutes with its defaults).
  const bool big = n > 300;
  set_attr(g, AGRAPH, "rankdir", "TB");
  set_attr(g, AGRAPH, "nodesep", "0.25");
  set_attr(g, AGRAPH, "ranksep", "0.4");
  set_attr(g, AGRAPH, "nslimit", big ? "0.1" : "1");
  set_attr(g, AGRAPH, "nslimit1", big ? "0.1" : "1");
  set_attr(g, AGRAPH, "mclimit", big ? "0.01" : "0.5");
  set_attr(g, AGRAPH, "searchsize", big ? "10" : "30");
  set_attr(g, AGRAPH, "remincross", "false");
  set_attr(g, AGRAPH, "splines", big ? "line" : "spline");
  set_attr(g, AGNODE, "shape", "box");
  set_attr(g, AGNODE, "fixedsize", "true");
  set_attr(g, AGNODE, "label", "");
  set_attr(g, AGNODE, "width", "1");
  set_attr(g, AGNODE, "height", "0.5");
  std::vector<Agnode_t*> nodes(n);
  std::vector<Layout::Box> boxes(n);
  char buf[64];
  for (std::size_t i = 0; i < n; ++i) {
    const std::string id = "n" + std::to_string(i);
    nodes[i] = agnode(g, const_cast<char*>(id.c_str()), 1);
    boxes[i] = box_for(graph.nodes[i]);
    std::snprintf(buf, sizeof buf, "%.3f", boxes[i].w / 72.0);
    agsafeset(nodes[i], const_cast<char*>("width"), buf, const_cast<char*>(""));
    std::snprintf(buf, sizeof buf, "%.3f", boxes[i].h / 72.0);
    agsafeset(nodes[i], const_cast<char*>("height"), buf, const_cast<char*>(""));
  }
  std::vector<std::pair<Agedge_t*, std::pair<std::size_t, std::size_t>>> edges;
  for_each_edge(graph, [&](std::size_t from, std::size_t to) {
    edges.push_back({agedge(g, nodes[from], nodes[to], nullptr, 1), {from, to}});
  });
  if (gvLayout(gvc, g, "dot") != 0) {
    agclose(g);
    return std::nullopt;
  }
  Layout out;
  out.engine = "dot";
  const boxf bb = GD_bb(g);
  const auto to_svg = [&](pointf p) { return Point{p.x - bb.LL.x, bb.UR.y - p.y}; };
  for (std::size_t i = 0; i < n; ++i) {
    const Point c = to_svg(ND_coord(nodes[i]));
    boxes[i].x = c.x - boxes[i].w / 2;
    boxes[i].y = c.y - boxes[i].h / 2;
  }
  out.nodes = std::move(boxes);
  for (const auto& [e, ends] : edges) {
    Layout::Edge edge{ends.first, ends.second, {}, true};
    const splines* spl = ED_spl(e);
    if (spl != nullptr && spl->size > 0) {
      const bezier& b = spl->list[0];
      for (int k = 0; k < b.size; ++k) {
        edge.points.push_back(to_svg(b.list[k]));
      }
      if (b.eflag != 0 && !edge.points.empty()) {
        // The arrow's tip: a straight piece after the curve.
        const Point tip = to_svg(b.ep);
        const Point last = edge.points.back();
        edge.points.push_back(last);
        edge.points.push_back(tip);
        edge.points.push_back(tip);
      }
    }
    if (edge.points.size() < 4 || (edge.points.size() - 1) % 3 != 0) {
      const auto& a = out.nodes[ends.first];
      const auto& c = out.nodes[ends.second];
      edge.points = {{a.x + a.w / 2, a.y + a.h}, {c.x + c.w / 2, c.y}};
      edge.bezier = false;
    }
    out.edges.push_back(std::move(edge));
  }
  // Submodules are drawn as boxes around their nodes, not as dot clusters: Graphviz 2.43 leaks
  // a few KB with every layout of a graph with clusters (found by fuzz_graph). A submodule's
  // forward shares no edge with another, so dot keeps its nodes together anyway.
  for (const std::string& m : graph.modules) {
    Layout::Box box{1e18, 1e18, -1e18, -1e18}; // min x, min y, max x, max y until the end
    for (std::size_t i = 0; i < n; ++i) {
      if (graph.nodes[i].module == m) {
        const auto& b = out.nodes[i];
        box = {std::min(box.x, b.x), std::min(box.y, b.y), std::max(box.w, b.x + b.w),
               std::max(box.h, b.y + b.h)};
      }
    }
    if (box.w >= box.x) {
      constexpr double kPad = 8.0, kLabel = 14.0;
      out.clusters.push_back({m,
                              {box.x - kPad, box.y - kPad - kLabel, box.w - box.x + 2 * kPad,
                               box.h - box.y + 2 * kPad + kLabel}});
    }
  }
  out.width = bb.UR.x - bb.LL.x;
  out.height = bb.UR.y - bb.LL.y;
  // The boxes' padding may reach past dot's bounding box: move everything into view.
  double left = 0, top = 0;
  for (const auto& c : out.clusters) {
    left = std::min(left, c.box.x);
    top = std::min(top, c.box.y);
    out.width = std::max(out.width, c.box.x + c.box.w);
    out.height = std::max(out.height, c.box.y + c.box.h);
  }
  if (left < 0 || top < 0) {
    for (auto& b : out.nodes) {
      b.x -= left;
      b.y -= top;
    }
    for (auto& e : out.edges) {
      for (auto& p : e.points) {
        p.x -= left;
        p.y -= top;
      }
    }
    for (auto& c : out.clusters) {
      c.box.x -= left;
      c.box.y -= top;
    }
    out.width -= left;
    out.height -= top;
  }
  gvFreeLayout(gvc, g);
  agclose(g);
  return out;
}
#endif

void append_number(std::string& out, double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  out += buf;
}

using Style = NodeStyle;

Style style_of(const FxNode& node, NodeMark mark) {
  Style s{"#f4f6fa", "#5a6b85", 3, false, nullptr, 1};
  if (node.is_input()) {
    s = {"#dcf2dc", "#2e7d32", 12, false, nullptr, 1.5};
  } else if (node.is_output()) {
    s = {"#fbe3cf", "#c25e00", 3, true, nullptr, 1.5};
  } else if (node.op == "get_attr") {
    s.fill = "#ece8f6";
  }
  switch (mark) {
  case NodeMark::added:
    s.fill = "#c9f2c9";
    s.stroke = "#1b8a1b";
    s.stroke_width = 2.5;
    break;
  case NodeMark::removed:
    s.fill = "#f8d0d0";
    s.stroke = "#c62828";
    s.stroke_width = 2.5;
    s.dash = "5,3";
    break;
  case NodeMark::changed:
    s.fill = "#fff1b8";
    s.stroke = "#c79100";
    s.stroke_width = 2.5;
    break;
  case NodeMark::saved_for_backward:
    s.stroke = "#7b1fa2";
    s.stroke_width = 3;
    break;
  case NodeMark::recomputed:
    s.stroke = "#1565c0";
    s.stroke_width = 2.5;
    s.dash = "2,2";
    break;
  case NodeMark::none:
    break;
  }
  return s;
}

const char* mark_name(NodeMark mark) {
  switch (mark) {
  case NodeMark::added:
    return " added";
  case NodeMark::removed:
    return " removed";
  case NodeMark::changed:
    return " changed";
  case NodeMark::saved_for_backward:
    return " saved";
  case NodeMark::recomputed:
    return " recomputed";
  case NodeMark::none:
    break;
  }
  return "";
}

// ` name="v"`, the number to one decimal.
void attr(std::string& out, const char* name, double v) {
  out += ' ';
  out += name;
  out += "=\"";
  append_number(out, v);
  out += '"';
}

// `<rect x y width height` of `b` moved by (dx, dy), left open for more attributes.
void open_rect(std::string& out, const Layout::Box& b, double dx, double dy) {
  out += "<rect";
  attr(out, "x", dx + b.x);
  attr(out, "y", dy + b.y);
  attr(out, "width", std::max(0.0, b.w));
  attr(out, "height", std::max(0.0, b.h));
}

// `<text x y` left open.
void open_text(std::string& out, double x, double y) {
  out += "<text";
  attr(out, "x", x);
  attr(out, "y", y);
}

// The body of one graph's drawing (no <svg> element), offset by (dx, dy).
void append_graph(std::string& out, const FxGraph& graph, const Layout& layout,
                  const SvgOptions& options, double dx, double dy) {
  open_text(out, dx, dy - 8);
  out += " class=\"title\">" + svg_escape(options.title, 512) + " (" +
         std::to_string(graph.nodes.size()) + " nodes, " + layout.engine + ")</text>\n";
  for (const auto& c : layout.clusters) {
    out += "<g class=\"cluster\">";
    open_rect(out, c.box, dx, dy);
    out += " fill=\"none\" stroke=\"#9aa5b8\" stroke-dasharray=\"4,3\"/>";
    open_text(out, dx + c.box.x + 4, dy + c.box.y + 12);
    out += ">" + svg_escape(c.module, 256) + "</text></g>\n";
  }
  out += "<g class=\"edges\" fill=\"none\" stroke=\"#66758f\" marker-end=\"url(#arrow)\">\n";
  for (const auto& e : layout.edges) {
    if (e.points.empty()) {
      continue;
    }
    out += "<path d=\"M";
    for (std::size_t k = 0; k < e.points.size(); ++k) {
      if (k > 0) {
        out += (e.bezier && (k - 1) % 3 == 0) ? " C" : (e.bezier ? " " : " L");
      }
      append_number(out, dx + e.points[k].x);
      out += ',';
      append_number(out, dy + e.points[k].y);
    }
    out += "\"/>\n";
  }
  out += "</g>\n";
  for (std::size_t i = 0; i < graph.nodes.size() && i < layout.nodes.size(); ++i) {
    const FxNode& node = graph.nodes[i];
    const Layout::Box& b = layout.nodes[i];
    const NodeMark mark = i < options.marks.size() ? options.marks[i] : NodeMark::none;
    const Style s = style_of(node, mark);
    out += "<g class=\"node ";
    out += node.is_input() ? "input" : node.is_output() ? "output" : "op";
    out += mark_name(mark);
    out += "\"><title>";
    std::string tip = node.name + " = " + (node.op == "placeholder" ? "input" : node.target);
    if (!node.type.empty()) {
      tip += "\n" + node.type;
    }
    if (!node.source.empty()) {
      tip += "\n" + node.source;
    }
    // One escaped line each: a tooltip's line breaks are ours, never the log's.
    for (std::size_t start = 0; start <= tip.size();) {
      const std::size_t nl = std::min(tip.find('\n', start), tip.size());
      out += start == 0 ? "" : "\n";
      out += svg_escape(std::string_view(tip).substr(start, nl - start), 1024);
      start = nl + 1;
    }
    out += "</title>";
    open_rect(out, b, dx, dy);
    attr(out, "rx", s.rx);
    out += std::string(" fill=\"") + s.fill + "\" stroke=\"" + s.stroke + "\"";
    attr(out, "stroke-width", s.stroke_width);
    if (s.dash != nullptr) {
      out += std::string(" stroke-dasharray=\"") + s.dash + "\"";
    }
    out += "/>";
    if (s.double_border) {
      open_rect(out, {b.x + 3, b.y + 3, b.w - 6, b.h - 6}, dx, dy);
      out += std::string(" fill=\"none\" stroke=\"") + s.stroke + "\"/>";
    }
    const auto lines = label_lines(node);
    for (std::size_t k = 0; k < lines.size(); ++k) {
      open_text(out, dx + b.x + b.w / 2,
                dy + b.y + kPadding / 2 + kLineHeight * static_cast<double>(k) + 11);
      out += k == 0 ? " font-weight=\"bold\">" : ">";
      out += svg_escape(lines[k], kLabelChars);
      out += "</text>";
    }
    out += "</g>\n";
  }
}

void open_svg(std::string& out, double width, double height) {
  out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
         "width=\"";
  append_number(out, width);
  out += "\" height=\"";
  append_number(out, height);
  out += "\" viewBox=\"0 0 ";
  append_number(out, width);
  out += ' ';
  append_number(out, height);
  out += "\" font-family=\"monospace\" font-size=\"12\" text-anchor=\"middle\">\n"
         "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
         "markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" "
         "fill=\"#66758f\"/></marker></defs>\n"
         "<style>.title{text-anchor:start;font-size:14px;font-weight:bold}"
         ".cluster text{text-anchor:start;fill:#5a6b85}</style>\n"
         "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
}

void append_json_string(std::string& out, std::string_view s) {
  const std::string valid = highlight::sanitize_utf8(s);
  out += '"';
  for (const char ch : valid) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  out += '"';
}

std::string dot_escape(std::string_view s) {
  std::string valid;
  for (const char ch : highlight::sanitize_utf8(s)) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      valid += '\\';
      valid += ch;
    } else if (c < 0x20 || c == 0x7f) {
      valid += "\xEF\xBF\xBD";
    } else {
      valid += ch;
    }
  }
  return valid;
}

} // namespace

std::vector<std::string> node_label(const FxNode& node) {
  return label_lines(node);
}

NodeStyle node_style(const FxNode& node, NodeMark mark) {
  return style_of(node, mark);
}

bool graphviz_available() {
#ifdef TORCHSCOPE_HAVE_GRAPHVIZ
  return true;
#else
  return false;
#endif
}

Layout layout_graph(const FxGraph& graph, const LayoutOptions& options) {
#ifdef TORCHSCOPE_HAVE_GRAPHVIZ
  if (!options.force_layered && graph.nodes.size() <= options.dot_node_limit &&
      !graph.nodes.empty()) {
    if (auto laid = dot_layout(graph)) {
      return std::move(*laid);
    }
  }
#endif
  (void)options;
  return layered_layout(graph);
}

std::string svg_escape(std::string_view text, std::size_t max_bytes) {
  std::string clean;
  clean.reserve(std::min(text.size(), max_bytes) + 8);
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) {
      clean += "\xEF\xBF\xBD";
    } else {
      clean += ch;
    }
  }
  clean = highlight::sanitize_utf8(clean);
  if (clean.size() > max_bytes) {
    std::size_t cut = max_bytes;
    while (cut > 0 && (static_cast<unsigned char>(clean[cut]) & 0xC0) == 0x80) {
      --cut;
    }
    clean.resize(cut);
    clean += "\xE2\x80\xA6";
  }
  return highlight::html_escape(clean);
}

std::string render_svg(const FxGraph& graph, const Layout& layout, const SvgOptions& options) {
  std::string out;
  out.reserve(graph.nodes.size() * 400 + 1024);
  const double width = std::max(layout.width, 320.0) + 2 * kMargin;
  const double height = layout.height + 2 * kMargin + kTitleHeight;
  open_svg(out, width, height);
  append_graph(out, graph, layout, options, kMargin, kMargin + kTitleHeight);
  out += "</svg>\n";
  return out;
}

std::string render_svg_pair(const FxGraph& left, const Layout& left_layout,
                            const SvgOptions& left_options, const FxGraph& right,
                            const Layout& right_layout, const SvgOptions& right_options) {
  std::string out;
  const double left_width = std::max(left_layout.width, 320.0);
  const double width = left_width + std::max(right_layout.width, 320.0) + 4 * kMargin;
  const double height =
      std::max(left_layout.height, right_layout.height) + 2 * kMargin + kTitleHeight;
  open_svg(out, width, height);
  append_graph(out, left, left_layout, left_options, kMargin, kMargin + kTitleHeight);
  append_graph(out, right, right_layout, right_options, left_width + 3 * kMargin,
               kMargin + kTitleHeight);
  out += "</svg>\n";
  return out;
}

std::string to_dot(const FxGraph& graph) {
  std::string out = "digraph fx {\n  node [shape=box, fontname=\"monospace\"];\n";
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const FxNode& node = graph.nodes[i];
    std::string label;
    for (const auto& l : label_lines(node)) {
      label += (label.empty() ? "" : "\\n") + dot_escape(l);
    }
    out += "  n" + std::to_string(i) + " [label=\"" + label + "\"";
    if (!node.source.empty()) {
      out += ", tooltip=\"" + dot_escape(node.source) + "\"";
    }
    if (node.is_input()) {
      out += ", style=\"rounded,filled\", fillcolor=\"#dcf2dc\"";
    } else if (node.is_output()) {
      out += ", peripheries=2, style=filled, fillcolor=\"#fbe3cf\"";
    }
    out += "];\n";
  }
  for_each_edge(graph, [&](std::size_t from, std::size_t to) {
    out += "  n" + std::to_string(from) + " -> n" + std::to_string(to) + ";\n";
  });
  out += "}\n";
  return out;
}

std::string to_json(const FxGraph& graph) {
  std::string out = "{\"nodes\": [";
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const FxNode& n = graph.nodes[i];
    out += i ? ",\n  {" : "\n  {";
    const std::pair<const char*, const std::string*> fields[] = {
        {"name", &n.name},     {"op", &n.op},         {"target", &n.target},
        {"type", &n.type},     {"dtype", &n.dtype},   {"shape", &n.shape},
        {"device", &n.device}, {"source", &n.source}, {"module", &n.module}};
    bool first = true;
    for (const auto& [key, value] : fields) {
      out += first ? "\"" : ", \"";
      first = false;
      out += key;
      out += "\": ";
      append_json_string(out, *value);
    }
    out += ", \"inputs\": [";
    for (std::size_t k = 0; k < n.inputs.size(); ++k) {
      out += (k ? ", " : "") + std::to_string(n.inputs[k]);
    }
    out += "]}";
  }
  out += "\n], \"edges\": [";
  bool first = true;
  for_each_edge(graph, [&](std::size_t from, std::size_t to) {
    out += first ? "\n  [" : ",\n  [";
    first = false;
    out += std::to_string(from) + ", " + std::to_string(to) + "]";
  });
  out += "\n]}\n";
  return out;
}

GraphDiff diff_graphs(const FxGraph& before, const FxGraph& after) {
  // Match key: placeholders and outputs by module and name, other nodes by module, target and
  // occurrence number of that target.
  const auto keys = [](const FxGraph& g) {
    std::vector<std::string> out(g.nodes.size());
    std::map<std::string, std::size_t> seen;
    for (std::size_t i = 0; i < g.nodes.size(); ++i) {
      const FxNode& n = g.nodes[i];
      if (n.is_input() || n.is_output()) {
        out[i] = n.module + '\n' + n.op + '\n' + n.name;
      } else {
        const std::string base = n.module + '\n' + n.op + '\n' + n.target;
        out[i] = base + '\n' + std::to_string(seen[base]++);
      }
    }
    return out;
  };
  const auto before_keys = keys(before);
  const auto after_keys = keys(after);
  std::unordered_map<std::string, std::size_t> after_at;
  for (std::size_t i = 0; i < after_keys.size(); ++i) {
    after_at.emplace(after_keys[i], i);
  }
  GraphDiff d;
  d.before.assign(before.nodes.size(), NodeMark::removed);
  d.after.assign(after.nodes.size(), NodeMark::added);
  std::vector<std::size_t> match(before.nodes.size(), static_cast<std::size_t>(-1));
  std::vector<std::size_t> back(after.nodes.size(), static_cast<std::size_t>(-1));
  for (std::size_t i = 0; i < before_keys.size(); ++i) {
    const auto it = after_at.find(before_keys[i]);
    if (it != after_at.end()) {
      match[i] = it->second;
      back[it->second] = i;
    }
  }
  for (std::size_t i = 0; i < before.nodes.size(); ++i) {
    if (match[i] == static_cast<std::size_t>(-1)) {
      ++d.removed;
      continue;
    }
    const FxNode& a = before.nodes[i];
    const FxNode& b = after.nodes[match[i]];
    bool same = a.dtype == b.dtype && a.shape == b.shape && a.inputs.size() == b.inputs.size();
    for (std::size_t k = 0; same && k < a.inputs.size(); ++k) {
      same = match[a.inputs[k]] == b.inputs[k];
    }
    const NodeMark mark = same ? NodeMark::none : NodeMark::changed;
    d.before[i] = mark;
    d.after[match[i]] = mark;
    d.changed += same ? 0 : 1;
  }
  for (std::size_t j = 0; j < after.nodes.size(); ++j) {
    d.added += back[j] == static_cast<std::size_t>(-1) ? 1 : 0;
  }
  return d;
}

std::vector<NodeMark> saved_for_backward(const FxGraph& joint, const FxGraph& backward,
                                         std::size_t& found) {
  std::unordered_set<std::string> saved;
  for (const FxNode& n : backward.nodes) {
    if (n.is_input() && n.module.empty() && n.name.rfind("tangents_", 0) != 0) {
      saved.insert(n.name);
    }
  }
  std::vector<NodeMark> marks(joint.nodes.size(), NodeMark::none);
  found = 0;
  for (std::size_t i = 0; i < joint.nodes.size(); ++i) {
    const FxNode& n = joint.nodes[i];
    if (n.module.empty() && !n.is_output() && saved.count(n.name) != 0) {
      marks[i] = NodeMark::saved_for_backward;
      ++found;
    }
  }
  return marks;
}

std::optional<std::vector<NodeMark>> split_from_min_cut(const FxGraph& joint,
                                                        std::string_view min_cut_json,
                                                        std::size_t& saved,
                                                        std::size_t& recomputed) {
  saved = 0;
  recomputed = 0;
  simdjson::dom::parser parser;
  simdjson::dom::object root;
  if (parser.parse(min_cut_json.data(), min_cut_json.size()).get(root)) {
    return std::nullopt;
  }
  simdjson::dom::array saved_values;
  if (root["Min Cut Solution Saved Values"].get(saved_values)) {
    return std::nullopt;
  }
  std::unordered_set<std::string> saved_names;
  for (simdjson::dom::element v : saved_values) {
    std::string_view name;
    if (!v.get(name)) {
      saved_names.emplace(name);
    }
  }
  std::unordered_set<std::string> recomputed_names;
  simdjson::dom::object info;
  if (!root["Joint Graph Node Information"].get(info)) {
    for (auto field : info) {
      bool is_recomputed = false;
      if (!field.value["recomputable_candidate_info"]["is_recomputed"].get(is_recomputed) &&
          is_recomputed) {
        recomputed_names.emplace(field.key);
      }
    }
  }
  std::vector<NodeMark> marks(joint.nodes.size(), NodeMark::none);
  for (std::size_t i = 0; i < joint.nodes.size(); ++i) {
    const FxNode& n = joint.nodes[i];
    if (!n.module.empty() || n.is_output()) {
      continue;
    }
    if (saved_names.count(n.name) != 0) {
      marks[i] = NodeMark::saved_for_backward;
      ++saved;
    } else if (recomputed_names.count(n.name) != 0) {
      marks[i] = NodeMark::recomputed;
      ++recomputed;
    }
  }
  return marks;
}

} // namespace tlparse::graph
