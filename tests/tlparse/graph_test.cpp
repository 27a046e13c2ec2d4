// The graph views (docs/TLPARSE-GRAPHS.md): the FX graph parser over PyTorch 2.11's spellings and
// our compiler's, the SVG's escaping of hostile text, the layout's size budget, `tlparse graph`
// end to end, and the parse rate over every graph artifact of the committed logs and the shared
// corpus.
#include "ingest_test_util.h"
#include "support/test_paths.h"
#include "tlparse/graph/fx_graph.h"
#include "tlparse/graph/graph_view.h"
#include "tlparse/highlight/html.h"
#include "tlparse/report/graph_pages.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <set>

namespace fs = std::filesystem;
using tlparse::graph::FxGraph;
using tlparse::graph::parse_fx_graph;

namespace {

std::size_t index_of(const FxGraph& g, const std::string& name, const std::string& module = "") {
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].name == name && g.nodes[i].module == module) {
      return i;
    }
  }
  FAIL("no node " << name);
  return 0;
}

bool reads(const FxGraph& g, const std::string& consumer, const std::string& producer,
           const std::string& module = "") {
  const auto& in = g.nodes[index_of(g, consumer, module)].inputs;
  return std::find(in.begin(), in.end(), index_of(g, producer, module)) != in.end();
}

// A linear chain of `n` nodes with a skip edge every 7th node, in the printed form.
std::string chain_graph(std::size_t n) {
  std::string text = "class GraphModule(torch.nn.Module):\n    def forward(self, x: "
                     "\"f32[8, 16][16, 1]cpu\"):\n";
  std::string prev = "x";
  for (std::size_t i = 0; i < n; ++i) {
    const std::string name = "add_" + std::to_string(i);
    const std::string other = i >= 7 ? "add_" + std::to_string(i - 7) : "x";
    text += "        " + name + ": \"f32[8, 16][16, 1]cpu\" = torch.ops.aten.add.Tensor(" + prev +
            ", " + other + ")\n";
    prev = name;
  }
  return text + "        return (" + prev + ",)\n";
}

} // namespace

TEST_CASE("graph parser reads dynamo's one-line forward with annotations and File comments",
          "[tlparse][graph]") {
  const FxGraph g = parse_fx_graph(
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, L_x_: \"f32[8, 16][16, 1]cpu\", L_w_: \"f32[16, 4][4, 1]cpu\"):\n"
      "        l_x_ = L_x_\n"
      "        l_w_ = L_w_\n"
      "        \n"
      "         # File: /root/w.py:7 in forward, code: y = x @ w\n"
      "        y: \"f32[8, 4][4, 1]cpu\" = l_x_ @ l_w_;  l_x_ = l_w_ = None\n"
      "        var_mean = torch.ops.aten.var_mean.correction(y, [1], correction = 0)\n"
      "        getitem: \"f32[8, 1][1, 1]cpu\" = var_mean[0]\n"
      "        return (y, getitem)\n");
  REQUIRE(g.nodes.size() == 8);
  CHECK(g.nodes[0].is_input());
  CHECK(g.nodes[0].dtype == "f32");
  CHECK(g.nodes[0].shape == "[8, 16]");
  CHECK(g.nodes[0].device == "cpu");
  const auto& y = g.nodes[index_of(g, "y")];
  CHECK(y.op == "expression");
  CHECK(y.source == "File: /root/w.py:7 in forward, code: y = x @ w");
  CHECK(y.shape == "[8, 4]");
  CHECK(reads(g, "y", "l_x_"));
  CHECK(reads(g, "y", "l_w_"));
  CHECK(reads(g, "l_x_", "L_x_"));
  CHECK(reads(g, "getitem", "var_mean"));
  CHECK(g.nodes.back().is_output());
  CHECK(g.nodes.back().inputs.size() == 2);
  CHECK(g.edge_count() == 8);
}

TEST_CASE("graph parser reads aot_joint_graph's spelling: parameters one per line, placeholders "
          "in the body, a pytree return over lines",
          "[tlparse][graph]") {
  const FxGraph g = parse_fx_graph(
      "class inner_f(torch.nn.Module):\n"
      "    def forward(\n"
      "        self,\n"
      "        primals,\n"
      "        tangents,\n"
      "    ):\n"
      "        primals_1: \"f32[1024, 256][256, 1]cuda:0\"  # PlainAOTInput(idx=0)\n"
      "        tangents_1: \"f32[]()cuda:0\"  # TangentAOTInput(idx=0)\n"
      "        # File: /root/w08.py:21 in forward, code: x = s.tok(idx)\n"
      "        mul: \"f32[1024, 256][256, 1]cuda:0\" = torch.ops.aten.mul.Tensor(primals_1, "
      "tangents_1)\n"
      "        return pytree.tree_unflatten([\n"
      "            mul,  # PlainAOTOutput(idx=0)\n"
      "            primals_1,  # SavedForBackwardsAOTOutput(idx=0)\n"
      "        ], self._out_spec)\n");
  REQUIRE(g.nodes.size() == 4);
  CHECK(g.nodes[0].name == "primals_1");
  CHECK(g.nodes[0].is_input());
  CHECK(g.nodes[0].shape == "[1024, 256]");
  CHECK(g.nodes[0].device == "cuda:0");
  CHECK(g.nodes[1].shape == "[]");
  CHECK(reads(g, "mul", "primals_1"));
  CHECK(reads(g, "mul", "tangents_1"));
  CHECK(g.nodes[3].is_output());
  CHECK(g.nodes[3].args == std::vector<std::string>{"mul", "primals_1"});
  CHECK(g.nodes[3].inputs.size() == 2);
}

TEST_CASE("graph parser reads old spellings, nested submodules and our compiler's dumps",
          "[tlparse][graph]") {
  SECTION("no class, untyped parameters (older PyTorch)") {
    const FxGraph g = parse_fx_graph("def forward(self, L_x_ : torch.Tensor):\n"
                                     "    l_x_ = L_x_\n"
                                     "    sin = torch.sin(l_x_);  l_x_ = None\n"
                                     "    return (sin,)\n");
    REQUIRE(g.nodes.size() == 4);
    CHECK(g.nodes[0].type == "torch.Tensor");
    CHECK(g.nodes[0].dtype.empty());
    CHECK(g.nodes[2].op == "call_function");
    CHECK(reads(g, "sin", "l_x_"));
  }
  SECTION("nested GraphModule classes are modules of their own") {
    const FxGraph g = parse_fx_graph(
        "class GraphModule(torch.nn.Module):\n"
        "    def forward(self, x: \"f32[4][1]cpu\"):\n"
        "        repeated_subgraph0 = self.repeated_subgraph0\n"
        "        invoke = torch.ops.higher_order.invoke_subgraph(repeated_subgraph0, 'sub', x)\n"
        "        return (invoke,)\n"
        "\n"
        "    class repeated_subgraph0(torch.nn.Module):\n"
        "        def forward(self, arg0_1: \"f32[4][1]cpu\"):\n"
        "            x: \"f32[4][1]cpu\" = torch.ops.aten.cos.default(arg0_1)\n"
        "            return (x,)\n");
    REQUIRE(g.modules == std::vector<std::string>{"repeated_subgraph0"});
    REQUIRE(g.nodes.size() == 7);
    CHECK(g.nodes[1].op == "get_attr");
    CHECK(reads(g, "invoke", "repeated_subgraph0"));
    CHECK(reads(g, "invoke", "x"));
    // Names resolve within their own forward: the submodule's x reads its arg0_1.
    CHECK(reads(g, "x", "arg0_1", "repeated_subgraph0"));
    CHECK(g.nodes[6].module == "repeated_subgraph0");
    CHECK(g.nodes[6].inputs == std::vector<std::size_t>{5});
  }
  SECTION("our compiler's pass dumps (graph_printer.cpp): Sym parameters, one-element returns") {
    const FxGraph g = parse_fx_graph(
        "class GraphModule(torch.nn.Module):\n"
        "    def forward(self, s0: \"Sym(s0)\", arg0_1: \"f32[s0, 8][8, 1]cpu\"):\n"
        "        \n        # File: model.cpp:12 in main, code: relu(x)\n"
        "        relu: \"f32[s0, 8][8, 1]cpu\" = torch.ops.aten.relu.default(arg0_1)\n"
        "        return (relu,)\n");
    REQUIRE(g.nodes.size() == 4);
    CHECK(g.nodes[0].dtype == "Sym");
    CHECK(g.nodes[0].shape == "s0");
    CHECK(g.nodes[2].source == "File: model.cpp:12 in main, code: relu(x)");
    CHECK(tlparse::graph::is_graph_artifact("after_post_grad_pass_fuse_pointwise"));
    CHECK(tlparse::graph::is_graph_artifact("aot_joint_graph"));
    CHECK(!tlparse::graph::is_graph_artifact("fx_graph_runnable"));
  }
  SECTION("text that is no FX graph parses to nothing, never an error") {
    CHECK(parse_fx_graph("").empty());
    CHECK(parse_fx_graph("def call(args):\n    buf0 = empty(3)\n").empty());
    CHECK(parse_fx_graph("{\"not\": \"a graph\"}").empty());
    // An unclosed bracket swallows the rest but stops at the end.
    CHECK(parse_fx_graph("def forward(self, x:\n    ((((\n").nodes.empty());
  }
}

TEST_CASE("graph node labels and styles are the ones every view draws", "[tlparse][graph]") {
  const FxGraph g =
      parse_fx_graph("class GraphModule(torch.nn.Module):\n"
                     "    def forward(self, x: \"f32[2, 3][3, 1]cpu\"):\n"
                     "        y: \"f32[2, 3][3, 1]cpu\" = torch.ops.aten.relu.default(x)\n"
                     "        return (y,)\n");
  REQUIRE(g.nodes.size() == 3);
  using tlparse::graph::node_label;
  using tlparse::graph::node_style;
  using tlparse::graph::NodeMark;
  CHECK(node_label(g.nodes[0]) == std::vector<std::string>{"x", "input", "f32[2, 3]"});
  CHECK(node_label(g.nodes[1]) == std::vector<std::string>{"y", "aten.relu.default", "f32[2, 3]"});
  CHECK(node_label(g.nodes[2]) == std::vector<std::string>{"output", "output (1)"});
  CHECK(std::string(node_style(g.nodes[0], NodeMark::none).fill) == "#dcf2dc");
  CHECK(node_style(g.nodes[2], NodeMark::none).double_border);
  CHECK(std::string(node_style(g.nodes[1], NodeMark::added).stroke) == "#1b8a1b");
  CHECK(node_style(g.nodes[1], NodeMark::removed).dash != nullptr);
  // The SVG draws with them.
  const std::string svg = tlparse::graph::render_svg(g, tlparse::graph::layout_graph(g));
  CHECK(svg.find("aten.relu.default") != std::string::npos);
  CHECK(svg.find("#dcf2dc") != std::string::npos);
}

TEST_CASE("graph SVG escapes hostile names, types and source lines", "[tlparse][graph]") {
  const FxGraph g = parse_fx_graph(
      "class GraphModule(torch.nn.Module):\n"
      "    def forward(self, x: \"f32<script>alert(1)</script>[2][1]cpu\"):\n"
      "        # File: </title><script>alert(2)</script>\x1b]0;pwned\x07 \x01\xff.py:1\n"
      "        y = torch.ops.aten.add.Tensor(x, \"<img src=x onerror=alert(3)>\\\"\")\n"
      "        z = x + '\x02<svg onload=alert(4)>'\n"
      "        return (y, z)\n");
  REQUIRE(g.nodes.size() == 4);
  for (const bool layered : {false, true}) {
    tlparse::graph::LayoutOptions options;
    options.force_layered = layered;
    tlparse::graph::SvgOptions svg_options;
    svg_options.title = "<script>alert(5)</script>\x1b";
    const std::string svg =
        tlparse::graph::render_svg(g, tlparse::graph::layout_graph(g, options), svg_options);
    INFO(svg);
    CHECK(svg.find("<script") == std::string::npos);
    CHECK(svg.find("<img") == std::string::npos);
    CHECK(svg.find("<svg onload") == std::string::npos);
    CHECK(svg.find("onerror=") == std::string::npos); // only as text: onerror=alert inside &lt;
    CHECK(svg.find("&lt;script&gt;") != std::string::npos);
    CHECK(tlparse::highlight::is_valid_utf8(svg));
    for (const char c : svg) {
      const auto u = static_cast<unsigned char>(c);
      CHECK((u >= 0x20 || c == '\n'));
      CHECK(u != 0x7f);
    }
  }
  const std::string dot = tlparse::graph::to_dot(g);
  const std::string json = tlparse::graph::to_json(g);
  for (const std::string* text : {&dot, &json}) {
    CHECK(tlparse::highlight::is_valid_utf8(*text));
    for (const char c : *text) {
      CHECK((static_cast<unsigned char>(c) >= 0x20 || c == '\n'));
    }
  }
  CHECK(tlparse::graph::svg_escape(std::string(10000, 'a'), 100).size() < 110);
}

TEST_CASE("graph layout stays within its budget: 5,000 nodes in 2 s, dot for small graphs",
          "[tlparse][graph]") {
  const FxGraph big = parse_fx_graph(chain_graph(5000));
  REQUIRE(big.nodes.size() == 5002);
  const auto start = std::chrono::steady_clock::now();
  const auto layout = tlparse::graph::layout_graph(big);
  const std::string svg = tlparse::graph::render_svg(big, layout);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "5,000-node graph: " << layout.engine << " layout + SVG in " << seconds << " s\n";
  CHECK(seconds <= 2.0);
  CHECK(layout.nodes.size() == big.nodes.size());
  CHECK(layout.edges.size() == big.edge_count());
  const FxGraph small = parse_fx_graph(chain_graph(20));
  CHECK(tlparse::graph::layout_graph(small).engine ==
        (tlparse::graph::graphviz_available() ? "dot" : "layered"));
}

TEST_CASE(
    "graph diff colours added, removed and changed nodes, and marks the joint graph's saved values",
    "[tlparse][graph]") {
  const FxGraph before = parse_fx_graph("def forward(self, x: \"f32[4][1]cpu\"):\n"
                                        "    a: \"f32[4][1]cpu\" = torch.ops.aten.sin.default(x)\n"
                                        "    b: \"f32[4][1]cpu\" = torch.ops.aten.cos.default(a)\n"
                                        "    return (b,)\n");
  const FxGraph after = parse_fx_graph("def forward(self, x: \"f32[4][1]cpu\"):\n"
                                       "    a: \"f32[8][1]cpu\" = torch.ops.aten.sin.default(x)\n"
                                       "    c: \"f32[8][1]cpu\" = torch.ops.aten.relu.default(a)\n"
                                       "    return (c,)\n");
  const auto d = tlparse::graph::diff_graphs(before, after);
  using tlparse::graph::NodeMark;
  CHECK(d.before[1] == NodeMark::changed); // sin: its shape changed
  CHECK(d.before[2] == NodeMark::removed); // cos
  CHECK(d.after[2] == NodeMark::added);    // relu
  CHECK(d.added == 1);
  CHECK(d.removed == 1);
  const std::string svg = tlparse::graph::render_svg_pair(
      before, tlparse::graph::layout_graph(before), {"before", d.before}, after,
      tlparse::graph::layout_graph(after), {"after", d.after});
  CHECK(svg.find("node op removed") != std::string::npos);
  CHECK(svg.find("node op added") != std::string::npos);

  const FxGraph backward = parse_fx_graph("def forward(self, a: \"f32[4][1]cpu\", tangents_1):\n"
                                          "    return (a,)\n");
  std::size_t found = 0;
  const auto marks = tlparse::graph::saved_for_backward(before, backward, found);
  CHECK(found == 1);
  CHECK(marks[1] == NodeMark::saved_for_backward);
}

TEST_CASE("the joint graph's split read from min_cut_information: saved and recomputed values",
          "[tlparse][graph]") {
  using tlparse::graph::NodeMark;
  const FxGraph joint = parse_fx_graph("def forward(self, x: \"f32[4][1]cpu\"):\n"
                                       "    mm: \"f32[4][1]cpu\" = torch.ops.aten.sin.default(x)\n"
                                       "    t: \"f32[4][1]cpu\" = torch.ops.aten.tanh.default(mm)\n"
                                       "    return (t,)\n");
  const std::string payload =
      R"({"Joint Graph Size": 4, "Joint Graph Node Information": {"mm": {"index": 1,)"
      R"( "recomputable_candidate_info": {"is_saved": true, "is_recomputed": false}}, "t":)"
      R"( {"index": 2, "recomputable_candidate_info": {"is_saved": false, "is_recomputed": true}}},)"
      R"( "Min Cut Solution Saved Values": ["x", "mm", "<script>"]})";
  std::size_t saved = 0;
  std::size_t recomputed = 0;
  const auto marks = tlparse::graph::split_from_min_cut(joint, payload, saved, recomputed);
  REQUIRE(marks.has_value());
  CHECK(saved == 2); // x and mm; a name the graph lacks is ignored
  CHECK(recomputed == 1);
  CHECK((*marks)[index_of(joint, "mm")] == NodeMark::saved_for_backward);
  CHECK((*marks)[index_of(joint, "t")] == NodeMark::recomputed);
  const std::string svg =
      tlparse::graph::render_svg(joint, tlparse::graph::layout_graph(joint), {"joint", *marks});
  CHECK(svg.find("recomputed") != std::string::npos);
  // Not that JSON: no marks, not an error.
  CHECK_FALSE(tlparse::graph::split_from_min_cut(joint, "{\"x\": 1}", saved, recomputed));
  CHECK_FALSE(tlparse::graph::split_from_min_cut(joint, "\x01not json", saved, recomputed));
}

TEST_CASE("graph artifacts of the committed logs and the shared corpus parse (the rate printed)",
          "[tlparse][graph][corpus]") {
  std::vector<fs::path> logs;
  for (const char* dir : {"samples/logs", "tests/data/pytorch-2.11"}) {
    for (const auto& e : fs::recursive_directory_iterator(test_support::source_dir() / dir)) {
      if (e.is_regular_file() && e.path().extension() == ".log") {
        logs.push_back(e.path());
      }
    }
  }
  if (const auto shared = test_support::shared_dir()) {
    for (const auto& e : fs::recursive_directory_iterator(*shared / "corpus")) {
      const auto ext = e.path().extension();
      if (e.is_regular_file() && (ext == ".log" || ext == ".txt")) {
        logs.push_back(e.path());
      }
    }
  } else {
    WARN("SKIPPED the shared corpus: it is absent (docs/BUILDING.md, Test data)");
  }
  std::sort(logs.begin(), logs.end());
  std::size_t total = 0, parsed = 0, with_edges = 0;
  for (const fs::path& log : logs) {
    INFO(log.string());
    test_support::TempDir tmp("graphs");
    const auto in = tlparse_test::ingest(log, tmp.path());
    auto graphs = tlparse::report::graph_outputs(*in.reader, in.file().file_id);
    REQUIRE(graphs);
    for (const auto& g : *graphs) {
      auto text = in.reader->payload(g.output.event_id);
      REQUIRE(text);
      ++total;
      const FxGraph fx = *text ? parse_fx_graph(**text) : FxGraph{};
      if (fx.empty()) {
        WARN("not parsed: " << log.filename().string() << " " << g.output.path);
        continue;
      }
      ++parsed;
      with_edges += fx.edge_count() > 0 ? 1 : 0;
    }
  }
  std::cout << "graph parse rate: " << parsed << " of " << total << " graph artifacts of "
            << logs.size() << " logs (" << with_edges << " with edges)\n";
  CHECK(total > 0);
  CHECK(parsed == total);
}

TEST_CASE("tlparse graph draws one artifact, and says what is wrong otherwise",
          "[tlparse][graph][cli]") {
  const fs::path log = tlparse_test::data_log("w01_mlp_train");
  test_support::TempDir tmp("graph_cli");
  const auto ok =
      tlparse_test::run_tlparse({"graph", log.string(), "--compile", "[0/0]", "--artifact",
                                 "dynamo_output_graph", "-o", (tmp.path() / "g.svg").string()},
                                tmp.path());
  INFO(ok.err);
  REQUIRE(ok.code == 0);
  const std::string svg = test_support::read_file(tmp.path() / "g.svg");
  CHECK(svg.starts_with("<?xml"));
  CHECK(svg.find("class=\"node input\"") != std::string::npos);
  CHECK(svg.find("class=\"node output\"") != std::string::npos);

  const auto json =
      tlparse_test::run_tlparse({"graph", log.string(), "--compile", "0/0", "--artifact",
                                 "dynamo_output_graph", "--format", "json"},
                                tmp.path());
  CHECK(json.code == 0);
  CHECK(json.out.starts_with("{\"nodes\": ["));

  const auto unknown = tlparse_test::run_tlparse(
      {"graph", log.string(), "--compile", "[9/9]", "--artifact", "dynamo_output_graph"},
      tmp.path());
  CHECK(unknown.code == 1);
  CHECK(unknown.err.find("no compile '[9/9]'") != std::string::npos);
  const auto escaped = tlparse_test::run_tlparse(
      {"graph", log.string(), "--compile", "\x1b]0;x\x07", "--artifact", "a\rb"}, tmp.path());
  CHECK(escaped.code == 1);
  CHECK(escaped.err.find('\x1b') == std::string::npos); // no raw control byte on a terminal
  CHECK(escaped.err.find("\\x1b") != std::string::npos);
  const auto not_graph = tlparse_test::run_tlparse(
      {"graph", log.string(), "--compile", "[0/0]", "--artifact", "dynamo_cpp_guards_str"},
      tmp.path());
  CHECK(not_graph.code == 1);
  CHECK(not_graph.err.find("has no graph artifact 'dynamo_cpp_guards_str'") != std::string::npos);
  const auto usage =
      tlparse_test::run_tlparse({"graph", log.string(), "--compile", "[0/0]"}, tmp.path());
  CHECK(usage.code == 2);
  const auto help = tlparse_test::run_tlparse({"graph", "--help"}, tmp.path());
  CHECK(help.code == 0);
  CHECK(help.out.find("--artifact") != std::string::npos);

  // --graphs: a folder of its own; the report's other files are those of a run without it,
  // byte for byte, but for the provenance pages (ours, with -i) that link the drawings.
  const auto with = tlparse_test::run_tlparse(
      {log.string(), "-o", (tmp.path() / "with").string(), "-i", "--graphs", "--no-browser"},
      tmp.path());
  const auto without = tlparse_test::run_tlparse(
      {log.string(), "-o", (tmp.path() / "without").string(), "-i", "--no-browser"}, tmp.path());
  REQUIRE(with.code == 0);
  REQUIRE(without.code == 0);
  std::set<std::string> extra;
  for (const auto& f : tlparse_test::files_under(tmp.path() / "with")) {
    if (!f.starts_with("graphs/")) {
      extra.insert(f);
    } else {
      CHECK((f.ends_with(".svg") || f == "graphs/index.html"));
    }
  }
  CHECK(extra == tlparse_test::files_under(tmp.path() / "without"));
  for (const auto& f : tlparse_test::files_under(tmp.path() / "without")) {
    const std::string a = test_support::read_file(tmp.path() / "with" / f);
    const std::string b = test_support::read_file(tmp.path() / "without" / f);
    INFO(f);
    if (f.starts_with("provenance_tracking_")) {
      CHECK(a.find("href=\"graphs/-_0_0_0/") != std::string::npos);
      CHECK(b.find("href=\"graphs/") == std::string::npos);
    } else if (f != "index.sqlite") {
      CHECK(a == b);
    }
  }
  CHECK(fs::exists(tmp.path() / "with/graphs/index.html"));
  CHECK(fs::exists(tmp.path() / "with/graphs/-_0_0_0/dynamo_output_graph_0.svg"));
  // --overwrite knows the graphs as the previous report's files: replaced, or removed without
  // --graphs.
  const auto again = tlparse_test::run_tlparse({log.string(), "-o", (tmp.path() / "with").string(),
                                                "--graphs", "--overwrite", "--no-browser"},
                                               tmp.path());
  INFO(again.err);
  CHECK(again.code == 0);
  const auto plain = tlparse_test::run_tlparse(
      {log.string(), "-o", (tmp.path() / "with").string(), "--overwrite", "--no-browser"},
      tmp.path());
  CHECK(plain.code == 0);
  CHECK(!fs::exists(tmp.path() / "with/graphs"));
}
