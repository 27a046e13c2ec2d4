// What tlparse 0.4.8 added and we show our way (docs/TLPARSE-INGEST.md): `subgraph_name` groups a
// compile's outputs by region (regional compilation) and `memoizer_artifacts` are shown on the
// compile's metrics page. Both keys are unknown to tlparse 0.4.3, so its files and numbers stay
// as 0.4.3 writes them; the index records the region of each output. A small log of our own.
#include "support/test_paths.h"
#include "tlparse_cli.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;
using test_support::kTlparse;
using test_support::quoted;

namespace {

// Payload digests are the MD5 of each payload (tab removed, lines joined with \n).
constexpr const char* kLog =
    R"(V0101 10:00:00.000000 100 torch/_inductor/compile_fx.py:10] {"artifact": {"name": "dynamo_output_graph_text", "encoding": "string"}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0, "has_payload": "dd33703ce40577a157ed44d342fb4590"}
	graph without a region
V0101 10:00:00.000000 100 torch/_inductor/compile_fx.py:10] {"artifact": {"name": "fx_graph_runnable", "encoding": "string"}, "subgraph_name": "layers_0", "frame_id": 0, "frame_compile_id": 0, "attempt": 0, "has_payload": "604ae68b977f477900dceb0e97a923f2"}
	runnable of region 0
V0101 10:00:00.000000 100 torch/_inductor/compile_fx.py:10] {"artifact": {"name": "fx_graph_runnable", "encoding": "string"}, "subgraph_name": "layers_1", "frame_id": 0, "frame_compile_id": 0, "attempt": 0, "has_payload": "7cfe807e20fd8dfeb01b1e614bff8896"}
	runnable of region 1
V0101 10:00:00.000000 100 torch/_inductor/compile_fx.py:10] {"inductor_output_code": {"filename": "/tmp/abc.py"}, "subgraph_name": "layers_0", "frame_id": 0, "frame_compile_id": 0, "attempt": 0, "has_payload": "cbe2a6e5ebe3188e9ccc0e9df3f7f0a4"}
	def call(args):
	    return args
V0101 10:00:00.000000 100 torch/_inductor/compile_fx.py:10] {"artifact": {"name": "after_regions", "encoding": "string"}, "subgraph_name": "<b>x</b>", "frame_id": 0, "frame_compile_id": 0, "attempt": 0, "has_payload": "35a3b2fc3a9599b87e6385dc9840fc0f"}
	hostile name
V0101 10:00:00.000000 100 torch/_inductor/compile_fx.py:10] {"memoizer_artifacts": {"sub_key": "fx_graph_cache", "aggregated": false}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0, "has_payload": "d4f5b14bbf8b7f900f9730858f2b1c6b"}
	{"key": "abc", "hits": 3}
V0101 10:00:00.000000 100 torch/_inductor/compile_fx.py:10] {"memoizer_artifacts": {"aggregated": true}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0, "has_payload": "09415310c7194381abd3d43e47c932e7"}
	{"entries": ["abc", "def"]}
V0101 10:00:00.000000 100 torch/_inductor/compile_fx.py:10] {"compilation_metrics": {"co_name": "f", "co_filename": "/x.py", "co_firstlineno": 1, "graph_op_count": 3, "restart_reasons": []}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0}
)";

std::string run(const std::string& command) {
  std::string out;
  std::FILE* p = ::popen(command.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) {
    out.append(buf, n);
  }
  CHECK(::pclose(p) == 0);
  std::erase(out, '\r'); // csv rows end with CRLF
  return out;
}

} // namespace

TEST_CASE("subgraph_name groups a compile's outputs, memoizer artifacts are shown") {
  if (kTlparse == nullptr) {
    TORCHSCOPE_SKIP("the tlparse binary is not built");
  }
  test_support::TempDir tmp("regions");
  const fs::path log = tmp.path() / "regions.log";
  std::ofstream(log) << kLog;
  const fs::path out = tmp.path() / "out";
  const std::string stats =
      run(quoted(kTlparse) + " " + quoted(log) + " -o " + quoted(out) + " --no-browser 2>&1");
  // tlparse 0.4.3's counters: both keys are unknown to it (4 subgraph_name, 2 memoizer_artifacts).
  CHECK(stats.find("Stats { ok: 8, unknown: 6 }") != std::string::npos);

  // The files and their numbers are 0.4.3's: regions only change how the pages group them.
  for (const char* path :
       {"-_0_0_0/dynamo_output_graph_text_0.txt", "-_0_0_0/fx_graph_runnable_1.txt",
        "-_0_0_0/fx_graph_runnable_2.txt", "-_0_0_0/inductor_output_code_abc_3.html",
        "-_0_0_0/after_regions_4.txt", "-_0_0_0/compilation_metrics_5.html",
        "payloads/d4f5b14bbf8b7f900f9730858f2b1c6b.txt"}) {
    INFO(path);
    CHECK(fs::is_regular_file(out / path));
  }

  // index.html: outputs without a region first, then each region (first-seen order) with its own.
  const std::string index = test_support::read_file(out / "index.html");
  const std::string golden =
      "<li><a href=\"-_0_0_0/dynamo_output_graph_text_0.txt\">"
      "-_0_0_0/dynamo_output_graph_text_0.txt</a> <span class=\"badge\">(0)</span></li>\n"
      "<li><a href=\"-_0_0_0/compilation_metrics_5.html\">-_0_0_0/compilation_metrics_5.html</a>"
      " <span class=\"badge\">(5)</span></li>\n"
      "<li>2 memoizer artifact(s): on this compile's compilation metrics page</li>\n"
      "<li>subgraph <code>layers_0</code>\n<ul class=\"outputs\">\n"
      "<li><a href=\"-_0_0_0/fx_graph_runnable_1.txt\">-_0_0_0/fx_graph_runnable_1.txt</a>"
      " <span class=\"badge\">(1)</span></li>\n"
      "<li><a href=\"-_0_0_0/inductor_output_code_abc_3.html\">"
      "-_0_0_0/inductor_output_code_abc_3.html</a> <span class=\"badge\">(3)</span></li>\n"
      "</ul></li>\n"
      "<li>subgraph <code>layers_1</code>\n<ul class=\"outputs\">\n"
      "<li><a href=\"-_0_0_0/fx_graph_runnable_2.txt\">-_0_0_0/fx_graph_runnable_2.txt</a>"
      " <span class=\"badge\">(2)</span></li>\n"
      "</ul></li>\n"
      "<li>subgraph <code>&lt;b&gt;x&lt;/b&gt;</code>\n<ul class=\"outputs\">\n"
      "<li><a href=\"-_0_0_0/after_regions_4.txt\">-_0_0_0/after_regions_4.txt</a>"
      " <span class=\"badge\">(4)</span></li>\n"
      "</ul></li>\n";
  CHECK(index.find(golden) != std::string::npos);
  CHECK(index.find("<b>x</b>") == std::string::npos); // log text never becomes markup

  // The compile's metrics page: its outputs with their region, and what the memoizer cached.
  const std::string metrics = test_support::read_file(out / "-_0_0_0/compilation_metrics_5.html");
  CHECK(metrics.find("<span class=\"badge\">subgraph layers_1</span>") != std::string::npos);
  CHECK(metrics.find("<h2>Memoizer artifacts</h2>") != std::string::npos);
  CHECK(metrics.find("<h3>fx_graph_cache <span class=\"badge\">(line 12)</span></h3>") !=
        std::string::npos);
  CHECK(metrics.find("<h3>aggregated <span class=\"badge\">(line 14)</span></h3>") !=
        std::string::npos);
  CHECK(metrics.find("&quot;hits&quot;: 3") != std::string::npos);

  // The index holds each output's region (NULL without one) and the memoizer events.
  const std::string rows = run(quoted(kTlparse) + " query " + quoted(out / "index.sqlite") +
                               " \"SELECT number, subgraph FROM outputs WHERE key_id IS NOT NULL "
                               "ORDER BY number\" --format csv");
  CHECK(rows == "number,subgraph\n0,\n1,layers_0\n2,layers_1\n3,layers_0\n4,<b>x</b>\n5,\n");
  const std::string kinds =
      run(quoted(kTlparse) + " query " + quoted(out / "index.sqlite") +
          " \"SELECT count(*) FROM events WHERE kind='memoizer_artifacts'\" --format csv");
  CHECK(kinds == "count(*)\n2\n");
}
