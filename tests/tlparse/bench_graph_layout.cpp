// The graph views' layout budget (docs/TLPARSE-GRAPHS.md, "Size budget"): parse, layout and SVG
// times of printed FX graphs of 100, 1,000 and 5,000 nodes, with the layout layout_graph picks
// (dot with capped effort up to LayoutOptions::dot_node_limit, the layered one above) and with
// each engine forced where it runs. Graphs are transformer-like: chains with skip connections.
#include "tlparse/graph/fx_graph.h"
#include "tlparse/graph/graph_view.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>

namespace {

std::string printed_graph(std::size_t n) {
  std::string text =
      "class GraphModule(torch.nn.Module):\n    def forward(self, x: "
      "\"f32[8, 128, 256][32768, 256, 1]cuda:0\", w: \"f32[256, 256][256, 1]cuda:0\"):\n";
  std::string prev = "x";
  for (std::size_t i = 0; i < n; ++i) {
    const std::string name = "op_" + std::to_string(i);
    const std::string other = i >= 5 ? "op_" + std::to_string(i - 5 - (i % 3)) : "w";
    const char* target = i % 4 == 0   ? "torch.ops.aten.mm.default"
                         : i % 4 == 1 ? "torch.ops.aten.add.Tensor"
                         : i % 4 == 2 ? "torch.ops.aten.mul.Tensor"
                                      : "torch.ops.aten.relu.default";
    text += "        # File: model.py:" + std::to_string(i) + " in forward\n        " + name +
            ": \"f32[8, 128, 256][32768, 256, 1]cuda:0\" = " + target + "(" + prev + ", " + other +
            ")\n";
    prev = name;
  }
  return text + "        return (" + prev + ",)\n";
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void run(std::size_t n, const char* label, tlparse::graph::LayoutOptions options) {
  const std::string text = printed_graph(n);
  const std::clock_t cpu_start = std::clock();
  auto start = std::chrono::steady_clock::now();
  const auto g = tlparse::graph::parse_fx_graph(text);
  const double parse = seconds_since(start);
  start = std::chrono::steady_clock::now();
  const auto layout = tlparse::graph::layout_graph(g, options);
  const double lay = seconds_since(start);
  start = std::chrono::steady_clock::now();
  const std::string svg = tlparse::graph::render_svg(g, layout);
  const double write = seconds_since(start);
  const double cpu = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  std::printf("%5zu nodes %-8s engine %-7s parse %.3f s  layout %.3f s  svg %.3f s  total %.3f s"
              " (CPU %.3f s, %zu KB)\n",
              g.nodes.size(), label, layout.engine.c_str(), parse, lay, write, parse + lay + write,
              cpu, svg.size() >> 10);
}

} // namespace

int main() {
  std::printf("graphviz: %s; dot up to %zu nodes\n",
              tlparse::graph::graphviz_available() ? "yes" : "no",
              tlparse::graph::LayoutOptions{}.dot_node_limit);
  for (const std::size_t n : {100, 1000, 5000}) {
    run(n, "default", {});
    tlparse::graph::LayoutOptions layered;
    layered.force_layered = true;
    run(n, "layered", layered);
    if (tlparse::graph::graphviz_available() && n <= 1000) {
      tlparse::graph::LayoutOptions dot;
      dot.dot_node_limit = n + 10;
      run(n, "dot", dot);
    }
  }
  return 0;
}
