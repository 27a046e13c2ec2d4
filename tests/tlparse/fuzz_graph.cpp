// fuzz_graph: bytes as the text of a printed FX graph through the parser, the layout (the
// layered one always, Graphviz's dot for small graphs) and the SVG, DOT and JSON writers: never a
// crash, every edge between existing nodes read before their consumer, and no markup, control
// byte or invalid UTF-8 of the input in any output.
#include "tlparse/graph/fx_graph.h"
#include "tlparse/graph/graph_view.h"
#include "tlparse/highlight/html.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_graph: %s\n", what);
    std::abort();
  }
}

void check_text(const std::string& text, bool markup_allowed_from_us) {
  check(tlparse::highlight::is_valid_utf8(text), "invalid UTF-8 in an output");
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    check(u >= 0x20 || c == '\n', "a control byte in an output");
  }
  if (markup_allowed_from_us) {
    check(text.find("<script") == std::string::npos, "a script element in an SVG");
    check(text.find("<foreignObject") == std::string::npos, "foreign markup in an SVG");
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const tlparse::graph::FxGraph g = tlparse::graph::parse_fx_graph(text);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    check(!g.nodes[i].name.empty(), "a node without a name");
    for (const std::size_t in : g.nodes[i].inputs) {
      check(in < i, "an edge from a node not read before its consumer");
    }
  }
  tlparse::graph::LayoutOptions options;
  options.force_layered = g.nodes.size() > 200;
  const auto layout = tlparse::graph::layout_graph(g, options);
  check(layout.nodes.size() == g.nodes.size(), "a layout without every node");
  check_text(tlparse::graph::render_svg(g, layout, {std::string(text.substr(0, 64)), {}}), true);
  check_text(tlparse::graph::to_dot(g), false);
  check_text(tlparse::graph::to_json(g), false);
  return 0;
}
