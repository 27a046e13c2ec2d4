// Drawing a parsed FX graph (fx_graph.h): a layout (Graphviz's dot with its effort capped, or a
// layered layout of our own for large graphs and for builds without Graphviz) and the SVG, DOT
// and JSON views of `tlparse graph`, the --serve graph pages and the static --graphs folder.
//
// Node labels come from logs: Graphviz never sees them (it lays out boxes of our measured size
// under numbered ids), and the SVG writer escapes every byte of them itself: no markup, no
// control byte, no invalid UTF-8 reaches the file, so an SVG opened on its own runs no script.
#pragma once

#include "tlparse/graph/fx_graph.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tlparse::graph {

// The layout budget (docs/TLPARSE-GRAPHS.md, "Size budget"): dot runs with its iterations
// capped up to `dot_node_limit` nodes; larger graphs get the layered layout, linear in the
// graph. Graphs above `max_nodes` are not drawn at all (the caller shows the text).
struct LayoutOptions {
  std::size_t dot_node_limit = 1000;
  std::size_t max_nodes = 20000;
  bool force_layered = false; // tests and the benchmark
};

struct Point {
  double x = 0, y = 0;
};

// Positions in SVG units (y grows downwards), origin at the top left.
struct Layout {
  struct Box {
    double x = 0, y = 0, w = 0, h = 0; // top-left corner and size
  };
  struct Edge {
    std::size_t from = 0, to = 0;
    std::vector<Point> points; // a cubic Bezier path (1 + 3k points) or a polyline
    bool bezier = false;
  };
  struct Cluster {
    std::string module;
    Box box;
  };
  std::vector<Box> nodes; // by node index
  std::vector<Edge> edges;
  std::vector<Cluster> clusters; // nested submodules (dot only)
  double width = 0, height = 0;
  std::string engine; // "dot" or "layered"
};

// Whether this build lays out with Graphviz (TORCHSCOPE_HAVE_GRAPHVIZ).
bool graphviz_available();

Layout layout_graph(const FxGraph& graph, const LayoutOptions& options = {});

// How a node is drawn beyond its kind: by a diff, or as a value the partitioner saved for the
// backward.
enum class NodeMark { none, added, removed, changed, saved_for_backward, recomputed };

// A node's label lines as every view draws them (log text, unescaped): its name, what it does
// (the target without "torch.ops."), dtype and shape. The layout sizes each box for these lines.
std::vector<std::string> node_label(const FxNode& node);

// How a node is drawn: its kind's colours (inputs green and rounded, outputs orange with a double
// border) changed by its mark. The SVG and tlparse-gui's graph view draw with these.
struct NodeStyle {
  const char* fill;   // "#rrggbb"
  const char* stroke; // "#rrggbb"
  double rx;          // corner radius
  bool double_border;
  const char* dash; // an SVG dash array, nullptr for a solid line
  double stroke_width;
};
NodeStyle node_style(const FxNode& node, NodeMark mark);

struct SvgOptions {
  std::string title;             // the graph's name (artifact, compile), shown at the top
  std::vector<NodeMark> marks{}; // by node index; empty: none
};

// The SVG of `graph` laid out as `layout`: ops are boxes labelled with their op, dtype and shape,
// inputs (placeholders) green rounded boxes, outputs orange double boxes; a node's tooltip is the
// user's source line.
std::string render_svg(const FxGraph& graph, const Layout& layout, const SvgOptions& options = {});

// Two graphs side by side in one SVG (a diff: marks say what was added, removed, changed).
std::string render_svg_pair(const FxGraph& left, const Layout& left_layout,
                            const SvgOptions& left_options, const FxGraph& right,
                            const Layout& right_layout, const SvgOptions& right_options);

// `tlparse graph --format dot|json`: the graph as Graphviz DOT text (labels escaped for DOT)
// and as JSON (nodes with their fields and inputs, edges), both valid UTF-8.
std::string to_dot(const FxGraph& graph);
std::string to_json(const FxGraph& graph);

// A graph diff: nodes of `before` and `after` matched by target and structure (the k-th node of
// a target in one graph with the k-th of the same target in the other, placeholders and outputs
// by name), then marked: unmatched nodes removed (before) or added (after), matched ones changed
// when their dtype, shape or matched inputs differ.
struct GraphDiff {
  std::vector<NodeMark> before, after;
  std::size_t added = 0, removed = 0, changed = 0;
};
GraphDiff diff_graphs(const FxGraph& before, const FxGraph& after);

// The forward/backward split of a joint graph: the nodes of `joint` that the partitioner saved
// for the backward, i.e. the backward graph's inputs that are not tangents (the forward graph's
// outputs beyond the user's). Marks by node index of `joint`, and how many were found.
std::vector<NodeMark> saved_for_backward(const FxGraph& joint, const FxGraph& backward,
                                         std::size_t& found);

// The split as the partitioner recorded it, from a min_cut_information artifact (PyTorch's
// activation-memory-budget log, or our compiler's, written for every joint graph): the nodes of
// "Min Cut Solution Saved Values" marked saved, the recomputable candidates whose
// recomputable_candidate_info says is_recomputed marked recomputed; nodes matched by name.
// nullopt when `min_cut_json` is not that JSON object.
std::optional<std::vector<NodeMark>> split_from_min_cut(const FxGraph& joint,
                                                        std::string_view min_cut_json,
                                                        std::size_t& saved,
                                                        std::size_t& recomputed);

// Text made safe for XML text and attribute values (SVG): control bytes and invalid UTF-8
// become U+FFFD, & < > " ' become entities; cut to `max_bytes` at a character boundary ("…").
std::string svg_escape(std::string_view text, std::size_t max_bytes = 4096);

} // namespace tlparse::graph
