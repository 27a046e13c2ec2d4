// index.html's answer sections (recompilation explorer, graph-break summary, compile-time chart,
// artifact explanations): present on real logs, and log text in them is always escaped.
#include "ingest/reader/md5.h"
#include "report/flame_chart.h"
#include "support/must.h"
#include "support/test_paths.h"
#include "tlparse/index/index_reader.h"
#include "tlparse/ingest/ingest.h"
#include "tlparse/report/render.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace {

std::string glog(const std::string& envelope) {
  return "V1122 02:58:48.528000 539 torch/_dynamo/guards.py:1] " + envelope + "\n";
}

std::string with_payload(const std::string& head, const std::string& payload) {
  std::string out =
      glog(head + ", \"has_payload\": \"" + tlparse::ingest::md5_hex(payload) + "\"}");
  size_t start = 0;
  while (true) {
    const size_t nl = payload.find('\n', start);
    out += "\t" + payload.substr(start, nl == std::string::npos ? std::string::npos : nl - start) +
           "\n";
    if (nl == std::string::npos) {
      return out;
    }
    start = nl + 1;
  }
}

std::string index_html_of(const test_support::TempDir& tmp, const fs::path& log) {
  const fs::path index = tmp.path() / "index.sqlite";
  const auto result = tlparse::ingest::ingest_files({log}, index, {});
  REQUIRE(result.ok);
  auto reader = test_support::must(tlparse::index::IndexReader::open(index));
  const auto r = tlparse::report::render_report(*reader, {}, tmp.path() / "out");
  INFO(r.error);
  REQUIRE(r.ok);
  return test_support::read_file(tmp.path() / "out/index.html");
}

fs::path committed_log(const std::string& workload) {
  for (const auto& e :
       fs::directory_iterator(test_support::source_dir() / "tests/data/pytorch-2.11" / workload)) {
    if (e.path().extension() == ".log") {
      return e.path();
    }
  }
  FAIL("no log for " << workload);
  return {};
}

} // namespace

TEST_CASE("index.html explains recompiles, graph breaks and compile time on a real log",
          "[tlparse][answers]") {
  test_support::TempDir tmp;
  const std::string page = index_html_of(tmp, committed_log("w02_recompile"));
  CHECK(page.find("<h2 id=\"recompilations\">Recompilations</h2>") != std::string::npos);
  // Each shape of reason payload is shown with its category (never "no reason").
  CHECK(page.find("tensor &#39;x&#39; size mismatch at index 0") != std::string::npos);
  CHECK(page.find("<td>shape</td>") != std::string::npos);
  CHECK(page.find("<td>dtype</td>") != std::string::npos);
  CHECK(page.find("<td>value</td>") != std::string::npos);
  CHECK(page.find("no recompile reason in the log") == std::string::npos);
  CHECK(page.find("mark_dynamic") != std::string::npos);
  CHECK(page.find("<h2 id=\"graph-breaks\">Graph breaks</h2>") != std::string::npos);
  CHECK(page.find("1 distinct graph break(s), 1 in all") != std::string::npos);
  CHECK(page.find("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"flame\"") !=
        std::string::npos);
  CHECK(page.find("<h2 id=\"missing-artifacts\">") != std::string::npos);
}

TEST_CASE("index.html says why a compile has no output code", "[tlparse][answers]") {
  test_support::TempDir tmp;
  const std::string failure = index_html_of(tmp, committed_log("w04_failure"));
  CHECK(failure.find("The compile failed (BackendCompilerFailed)") != std::string::npos);
  test_support::TempDir tmp2;
  const std::string hit = index_html_of(tmp2, committed_log("w13_cache_run2"));
  CHECK(hit.find("AOTAutograd cache hit") != std::string::npos);
}

TEST_CASE("log text in the answer sections is escaped", "[tlparse][answers]") {
  test_support::TempDir tmp;
  const std::string cid0 = R"J("frame_id": 0, "frame_compile_id": 0, "attempt": 0)J";
  const std::string cid1 = R"J("frame_id": 0, "frame_compile_id": 1, "attempt": 0)J";
  std::string log;
  log += glog(
      R"J({"compilation_metrics": {"co_name": "<script>f", "co_filename": "/x/<b>.py", "co_firstlineno": 1}, )J" +
      cid0 + "}");
  log +=
      with_payload(R"J({"artifact": {"name": "recompile_reasons", "encoding": "json"}, )J" + cid1,
                   R"J(["0/0: <script>alert(1)</script> == 3"])J");
  log += with_payload(
      R"J({"artifact": {"name": "dynamo_graph_break_reason", "encoding": "string"}, )J" + cid1,
      "Graph break in user code at /x/<img src=x onerror=alert(2)>.py:3\n"
      "Graph Break Reason: <script>alert(3)</script>\nUser code traceback:\n"
      "  File \"<script>.py\", line 3, in f");
  log += with_payload(
      R"J({"chromium_event": {}, )J" + cid1,
      R"J({"name": "<script>alert(4)</script>", "ph": "X", "ts": 1.0, "dur": 5.0, "pid": 0, "tid": 0})J");
  log += glog(
      R"J({"compilation_metrics": {"co_name": "<script>f", "co_filename": "/x/<b>.py", "co_firstlineno": 1}, )J" +
      cid1 + "}");
  const fs::path path = tmp.path() / "hostile.log";
  std::ofstream(path, std::ios::binary) << log;
  const std::string page = index_html_of(tmp, path);
  CHECK(page.find("<script>alert") == std::string::npos);
  CHECK(page.find("<img src=x") == std::string::npos);
  CHECK(page.find("&lt;script&gt;alert(1)") != std::string::npos); // the reason, escaped
  CHECK(page.find("&lt;script&gt;alert(3)") != std::string::npos); // the break, escaped
  CHECK(page.find("&lt;script&gt;alert(4)") != std::string::npos); // the span, escaped
}

TEST_CASE("the recompilation explorer lists a frame's compiles with their reasons and stacks",
          "[tlparse][answers]") {
  test_support::TempDir tmp;
  const auto cid = [](int frame_compile) {
    return R"J("frame_id": 0, "frame_compile_id": )J" + std::to_string(frame_compile) +
           R"J(, "attempt": 0)J";
  };
  std::string log;
  for (int fc = 0; fc < 8; ++fc) {
    if (fc == 1) { // two reasons, the first with its user stack
      log += with_payload(
          R"J({"artifact": {"name": "recompile_reasons", "encoding": "json"}, )J" + cid(fc),
          R"J(["0/0: tensor 'x' size mismatch at index 0. expected 1, actual 2\nUser stack )J"
          R"J(trace:\n  File \"/w/<a>.py\", line 6, in f\n    y = x * 2", "0/0: L['s'] == 1"])J");
    } else if (fc > 2) { // [0/2] has none
      log += with_payload(
          R"J({"artifact": {"name": "recompile_reasons", "encoding": "string"}, )J" + cid(fc),
          "0/0: ___check_obj_id(L['m'], 7)");
    }
    if (fc == 3) {
      log += with_payload(
          R"J({"artifact": {"name": "dynamo_graph_break_reason", "encoding": "string"}, )J" +
              cid(fc),
          "Graph break in user code at /x/m.py:10\nGraph Break Reason: print\n"
          "User code traceback:\n  File \"/x/m.py\", line 10, in f\n    print(x)");
    }
    log += glog(
        R"J({"compilation_metrics": {"co_name": "f", "co_filename": "/x/m.py", "co_firstlineno": 4}, )J" +
        cid(fc) + "}");
  }
  const fs::path path = tmp.path() / "explorer.log";
  std::ofstream(path, std::ios::binary) << log;
  const std::string page = index_html_of(tmp, path);
  // The frame's heading, the recompile limit reached (8 compiles), the table, the first compile.
  CHECK(page.find(
            "<h2 id=\"recompilations\">Recompilations</h2>\n"
            "<h3><code>f</code> <span class=\"badge\">/x/m.py:4</span> &middot; 8 compiles</h3>\n"
            "<p class=\"health-warning\">This frame reached PyTorch's default recompile limit "
            "(8): later calls with new inputs run eagerly. Fix the cause below, or raise "
            "<code>torch._dynamo.config.recompile_limit</code>.</p>\n"
            "<table><tr><th>compile</th><th>status</th><th>failed guard (of the cached "
            "compile)</th><th>category</th><th>where the guard comes from</th><th>suggestion"
            "</th></tr>\n"
            "<tr><td rowspan=\"1\"><a href=\"#[0/0]\">[0/0]</a></td><td rowspan=\"1\"><span "
            "class=\"status-empty\">empty</span></td><td colspan=\"4\" class=\"note\">first "
            "compile of the frame</td></tr>\n") != std::string::npos);
  // A compile with two reasons spans two rows; the first reason's user stack is folded.
  CHECK(page.find(
            "<tr><td rowspan=\"2\"><a href=\"#[0/1]\">[0/1]</a></td><td rowspan=\"2\"><span "
            "class=\"status-empty\">empty</span></td><td><code>0/0: tensor &#39;x&#39; size "
            "mismatch at index 0. expected 1, actual 2</code></td><td>shape</td><td><code>/w/"
            "&lt;a&gt;.py:6</code><details><summary>user stack</summary><pre>  File &quot;/w/"
            "&lt;a&gt;.py&quot;, line 6, in f\n    y = x * 2</pre></details></td><td>Sizes vary "
            "between calls: mark the dimension dynamic (torch._dynamo.mark_dynamic(x, dim)) or "
            "compile with dynamic=True.</td></tr>\n"
            "<tr><td><code>0/0: L[&#39;s&#39;] == 1</code></td><td>value</td><td></td><td>A "
            "Python value was specialized: pass it as a tensor, or let Dynamo treat ints as "
            "dynamic (dynamic=True).</td></tr>\n"
            "<tr><td rowspan=\"1\"><a href=\"#[0/2]\">[0/2]</a></td><td rowspan=\"1\"><span "
            "class=\"status-empty\">empty</span></td><td colspan=\"4\" class=\"note\">no "
            "recompile reason in the log</td></tr>\n") != std::string::npos);
  CHECK(page.find("<a href=\"#[0/7]\">[0/7]</a></td><td rowspan=\"1\"><span "
                  "class=\"status-empty\">empty</span></td><td><code>0/0: ___check_obj_id(L[&#39;"
                  "m&#39;], 7)</code></td><td>object identity</td><td></td><td>A different object "
                  "(module, function, ...) is passed: reuse one object, or raise "
                  "torch._dynamo.config.recompile_limit if the variants are few and expected.</td>"
                  "</tr>\n</table>\n<h2 id=\"graph-breaks\">") != std::string::npos);
  // The graph break's user stack is folded the same way.
  CHECK(page.find(
            "<tr><td>1</td><td></td><td><code>/x/m.py:10</code></td><td><pre>print</pre><details>"
            "<summary>user stack</summary><pre>  File &quot;/x/m.py&quot;, line 10, in f\n"
            "    print(x)</pre></details></td><td><a href=\"#[0/3]\">[0/3]</a></td></tr>\n") !=
        std::string::npos);
}

TEST_CASE("graph breaks are grouped by PyTorch's stable id, linking its docs page",
          "[tlparse][answers]") {
  test_support::TempDir tmp;
  const auto cid = [](int frame_compile) {
    return R"J("frame_id": 0, "frame_compile_id": )J" + std::to_string(frame_compile) +
           R"J(, "attempt": 0)J";
  };
  const auto gb = [&](int fc, const std::string& where, const std::string& reason) {
    return with_payload(
        R"J({"artifact": {"name": "dynamo_graph_break_reason", "encoding": "string"}, )J" + cid(fc),
        "Graph break in user code at " + where + "\nGraph Break Reason: " + reason +
            "\nUser code traceback:\n  File \"/x/m.py\", line 10, in f");
  };
  const std::string site = "https://meta-pytorch.github.io/compile-graph-break-site/gb/";
  std::string log;
  // gb0170 at two places (three breaks), gb0007 once, one break without an id, and one whose
  // only "link" is a javascript: URL (no id: only http(s) links count).
  log += gb(0, "/x/m.py:10",
            "Data-dependent branching\n For more details about this graph "
            "break, please visit: " +
                site + "gb0170.html");
  log += gb(1, "/x/m.py:10",
            "Data-dependent branching\n For more details about this graph "
            "break, please visit: " +
                site + "gb0170.html");
  log += gb(2, "/x/m.py:20",
            "Data-dependent branching\n For more details about this graph "
            "break, please visit: " +
                site + "gb0170.html");
  log += gb(3, "/x/m.py:30", "Unsupported call\n please visit: " + site + "gb0007.html.");
  log += gb(4, "/x/m.py:40", "print");
  log += gb(5, "/x/m.py:50", "x please visit: javascript:alert(1)//gb0999");
  for (int fc = 0; fc < 6; ++fc) {
    log += glog(
        R"J({"compilation_metrics": {"co_name": "f", "co_filename": "/x/m.py", "co_firstlineno": 4}, )J" +
        cid(fc) + "}");
  }
  const fs::path path = tmp.path() / "gb.log";
  std::ofstream(path, std::ios::binary) << log;
  const std::string page = index_html_of(tmp, path);
  CHECK(page.find("<table><tr><th>id</th><th>count</th><th>places</th></tr>\n"
                  "<tr><td><a href=\"" +
                  site +
                  "gb0170.html\" rel=\"noopener noreferrer\">gb0170</a></td><td>3</td><td>2"
                  "</td></tr>\n<tr><td><a href=\"" +
                  site +
                  "gb0007.html\" rel=\"noopener noreferrer\">gb0007</a></td><td>1</td><td>1"
                  "</td></tr>\n</table>") != std::string::npos);
  // Each distinct break names its id; the one without stays empty; a trailing dot is not part
  // of the link.
  CHECK(page.find("<tr><td>2</td><td><a href=\"" + site +
                  "gb0170.html\" rel=\"noopener noreferrer\">gb0170</a></td><td><code>/x/m.py:10"
                  "</code>") != std::string::npos);
  CHECK(page.find("<tr><td>1</td><td></td><td><code>/x/m.py:40</code>") != std::string::npos);
  CHECK(page.find("javascript:alert(1)//gb0999\"") == std::string::npos);
  CHECK(page.find(">gb0999<") == std::string::npos);
}

TEST_CASE("the report's flame chart draws the shared layout's bars, labels escaped",
          "[tlparse][answers]") {
  namespace rd = tlparse::report::detail;
  namespace ta = tlparse::answers;
  const std::vector<rd::ChartSpan> spans = {{"dynamo", "[0/0]", 0, 100},
                                            {"<script>x</script>", "[0/0]", 10, 20},
                                            {"tiny", "[0/0]", 50, 0.001},
                                            {"open", "[0/1]", 60, std::nullopt}};
  const ta::ChartWindow window{0, 100, 1000, 0, 100};
  const std::string svg = rd::flame_chart_svg(spans, window, 2);
  const ta::ChartLayout layout =
      ta::layout_chart({{0, 100}, {10, 20}, {50, 0.001}, {60, std::nullopt}}, window);
  REQUIRE(layout.bars.size() == 3);
  std::size_t rects = 0;
  for (std::size_t at = svg.find("<rect "); at != std::string::npos;
       at = svg.find("<rect ", at + 1)) {
    ++rects;
  }
  CHECK(rects == layout.bars.size());
  // The rows are the layout's: dynamo on the first, the nested spans below it.
  CHECK(svg.find("height=\"" + std::to_string(20 + 2 * 18 + 4) + "\"") != std::string::npos);
  CHECK(svg.find("<script>") == std::string::npos);
  CHECK(svg.find("&lt;script&gt;x") != std::string::npos);
  CHECK(svg.find("never closed") != std::string::npos);
  CHECK(svg.find("3 span(s) too short") != std::string::npos); // "tiny" and the 2 left out
}

TEST_CASE("the recompilation explorer says how many calls each compile served, from our "
          "compiler's runtime_facts",
          "[tlparse][answers]") {
  test_support::TempDir tmp;
  const auto cid = [](int frame_compile) {
    return R"J("frame_id": 0, "frame_compile_id": )J" + std::to_string(frame_compile) +
           R"J(, "attempt": 0)J";
  };
  std::string log;
  for (int fc = 0; fc < 3; ++fc) {
    log += glog(
        R"J({"compilation_metrics": {"co_name": "f", "co_filename": "/x/m.py", "co_firstlineno": 4}, )J" +
        cid(fc) + "}");
  }
  const auto facts = [&](int fc, const std::string& payload) {
    return with_payload(
        R"J({"artifact": {"name": "runtime_facts", "encoding": "json"}, )J" + cid(fc), payload);
  };
  log += facts(0, R"J({"calls": 1, "timed_calls": 1, "mean_run_ms": 0.5, "total_run_ms": 0.5})J");
  log +=
      facts(1, R"J({"calls": 640, "timed_calls": 17, "mean_run_ms": 0.25, "total_run_ms": 160})J");
  log += facts(2, "<script>not json</script>"); // hostile: no facts for [0/2]
  const fs::path path = tmp.path() / "served.log";
  std::ofstream(path, std::ios::binary) << log;
  const std::string page = index_html_of(tmp, path);
  CHECK(page.find("<table><tr><th>compile</th><th>status</th><th>served</th>") !=
        std::string::npos);
  CHECK(page.find("<td rowspan=\"1\">1 call, 0.5 ms</td>") != std::string::npos);
  CHECK(page.find("<td rowspan=\"1\">640 calls, 0.25 ms each</td>") != std::string::npos);
  CHECK(page.find("<td rowspan=\"1\">no call</td>") != std::string::npos);
  CHECK(page.find("<script>not json") == std::string::npos);
}
