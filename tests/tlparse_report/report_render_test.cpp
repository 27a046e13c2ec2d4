// The renderer over a real index: a hostile synthetic log (markup and event handlers in every
// field that reaches a page, a javascript: link, invalid UTF-8) must give pages with no
// executable markup; the same index must always give the same bytes; every listed output exists.
#include "ingest/reader/md5.h"
#include "support/html_checks.h"
#include "support/must.h"
#include "support/test_paths.h"
#include "tlparse/highlight/html.h"
#include "tlparse/index/index_reader.h"
#include "tlparse/ingest/ingest.h"
#include "tlparse/report/render.h"

#include <catch2/catch.hpp>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>

namespace fs = std::filesystem;

namespace {

// Builds a glog-prefixed trace the way PyTorch writes it.
class LogBuilder {
public:
  LogBuilder& line(const std::string& envelope_json) {
    text_ += prefix() + envelope_json + "\n";
    return *this;
  }
  // `envelope_head` is the envelope without its closing brace; has_payload is appended.
  LogBuilder& with_payload(const std::string& envelope_head, const std::string& payload) {
    text_ += prefix() + envelope_head + ", \"has_payload\": \"" +
             tlparse::ingest::md5_hex(payload) + "\"}\n";
    std::size_t start = 0;
    while (true) {
      const std::size_t nl = payload.find('\n', start);
      text_ += "\t" +
               payload.substr(start, nl == std::string::npos ? std::string::npos : nl - start) +
               "\n";
      if (nl == std::string::npos) {
        break;
      }
      start = nl + 1;
    }
    return *this;
  }
  LogBuilder& raw(const std::string& bytes) {
    text_ += bytes;
    return *this;
  }
  const std::string& text() const { return text_; }

private:
  std::string prefix() {
    ++n_;
    return "V1122 02:58:46." + std::to_string(100000 + n_) +
           " 539 torch/_dynamo/x.py:" + std::to_string(n_) + "] ";
  }
  std::string text_;
  int n_ = 0;
};

const std::string kCid = R"J("frame_id": 0, "frame_compile_id": 0, "attempt": 0)J";

std::string hostile_log() {
  LogBuilder b;
  b.line(R"J({"str": ["/home/<script>alert(1)</script>/model.py", 0]})J");
  b.line(R"J({"dynamo_start": {"stack": [{"line": 4, "name": "<script>f", "filename": 0, )J"
         R"J("loc": "x = \"onload=alert(1)"}]}, )J" +
         kCid + "}");
  b.with_payload(R"J({"dynamo_output_graph": {}, )J" + kCid,
                 "class GraphModule(torch.nn.Module):\n    def forward(self):  # "
                 "<script>alert(1)</script>\n        return ()");
  b.with_payload(R"J({"dynamo_guards": {}, )J" + kCid,
                 R"J([{"code": "<script>alert(1)</script> \"onload=x", "stack": null}])J");
  b.with_payload(R"J({"artifact": {"name": "evil<img src=x onerror=alert(1)>", )J"
                 R"J("encoding": "json"}, )J" +
                     kCid,
                 R"J({"b": "<script>alert(1)</script>", "a": [1, 2.5]})J");
  b.with_payload(R"J({"artifact": {"name": "inductor_provenance_tracking_kernel_stack_traces", )J"
                 R"J("encoding": "json"}, )J" +
                     kCid,
                 R"J({"<script>kernel": ["  File \"x.py\", line 1\n    \"onload=alert(1)\n"]})J");
  b.with_payload(R"J({"inductor_output_code": {"filename": "/tmp/<script>abc.py"}, )J" + kCid,
                 "# AOT ID: 0\nimport torch\nx = '<script>alert(1)</script>'\n"
                 "y = \"\\\"onload=1\"\n");
  b.with_payload(R"J({"dump_file": {"name": "<eval_with_key>.7"})J",
                 "def forward(self):\n    return '<script>alert(1)</script>'\n");
  b.line(R"J({"link": {"name": "<script>docs", "url": "javascript:alert(1)"}, )J" + kCid + "}");
  b.line(R"J({"symbolic_shape_specialization": {"symbol": "<script>s0", )J"
         R"J("sources": ["L['x'].size()[0]<script>"], "value": "\"onload=1", "reason": "r", )J"
         R"J("stack": [], "user_stack": []}, )J" +
         kCid + "}");
  b.line(R"J({"guard_added_fast": {"expr": "Eq(s0, \"onload=3)", "stack": [], )J"
         R"J("user_stack": []}, )J" +
         kCid + "}");
  b.with_payload(R"J({"chromium_event": {}, )J" + kCid,
                 R"J({"name": "<script>alert(1)</script>", "ph": "B", "ts": 1.5, "pid": 0, )J"
                 R"J("tid": 0, "args": {"z": 1, "a": null}})J");
  b.line(R"J({"stack": [{"line": 9, "name": "<script>g", "filename": 0}]})J");
  b.line(R"J({"compilation_metrics": {"co_name": "<script>f", "co_filename": "/x/<b>.py", )J"
         R"J("co_firstlineno": 1, "graph_op_count": 3, "fail_type": "<script>Err", )J"
         R"J("fail_reason": "\"onload=alert(1)", "fail_user_frame_filename": "<i>.py", )J"
         R"J("fail_user_frame_lineno": 2, "restart_reasons": ["<script>alert(2)</script>"], )J"
         R"J("entire_frame_compile_time_s": 0.25}, )J" +
         kCid + "}");
  b.line(R"J({"bwd_compilation_metrics": {"inductor_compile_time_s": 1.5, )J"
         R"J("code_gen_time_s": 0.5, "fail_type": "<script>", "fail_reason": "\"onload=1"}, )J" +
         kCid + "}");
  // A line of invalid UTF-8: dropped and counted by the ingest, never fatal.
  b.raw("V1122 02:58:47.000000 539 x.py:1] {\"bad\": \"\xff\xfe\"}\n");
  return b.text();
}

struct Rendered {
  std::map<std::string, std::string> files; // relative path -> bytes
};

Rendered read_tree(const fs::path& root) {
  Rendered r;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file()) {
      r.files[fs::relative(e.path(), root).generic_string()] = test_support::read_file(e.path());
    }
  }
  return r;
}

// Ingests `log_text` and returns the index path.
fs::path ingest(const test_support::TempDir& tmp, const std::string& log_text) {
  const fs::path log = tmp.path() / "dedicated_log_torch_trace_test.log";
  std::ofstream(log, std::ios::binary) << log_text;
  const fs::path index = tmp.path() / "index.sqlite";
  tlparse::ingest::IngestOptions options;
  const auto result = tlparse::ingest::ingest_files({log}, index, options);
  REQUIRE(result.ok);
  return index;
}

Rendered render(const fs::path& index, const fs::path& out,
                tlparse::report::RenderOptions options = {}) {
  options.raw_log_from_index = true; // the tests' own indexes
  auto reader = test_support::must(tlparse::index::IndexReader::open(index));
  const auto result = tlparse::report::render_report(*reader, options, out);
  INFO(result.error);
  REQUIRE(result.ok);
  return read_tree(out);
}

} // namespace

TEST_CASE("markup from a hostile log never becomes executable in any page") {
  test_support::TempDir tmp("report-hostile");
  const fs::path index = ingest(tmp, hostile_log());
  const Rendered out = render(index, tmp.path() / "out");
  int pages = 0;
  for (const auto& [path, bytes] : out.files) {
    if (!path.ends_with(".html")) {
      continue;
    }
    ++pages;
    INFO(path);
    CHECK(tlparse::highlight::is_valid_utf8(bytes));
    CHECK(test_support::executable_markup(bytes) == "");
    CHECK(bytes.find("\"onload=") == std::string::npos);
  }
  CHECK(pages >= 7); // index, failures, guards, output code, dump_file, readable, metrics, bwd
  REQUIRE(out.files.count("index.html") == 1);
  const std::string& index_html = out.files.at("index.html");
  CHECK(index_html.find("&lt;script&gt;f") != std::string::npos); // the trie frame, escaped
  CHECK(index_html.find("Unknown stacks") != std::string::npos);
  REQUIRE(out.files.count("failures_and_restarts.html") == 1);
  const std::string& failures = out.files.at("failures_and_restarts.html");
  CHECK(failures.find("&lt;script&gt;alert(2)&lt;/script&gt;") != std::string::npos);
  CHECK(failures.find("</table>") != std::string::npos);
}

TEST_CASE("rendering the same index twice gives byte-identical folders") {
  test_support::TempDir tmp("report-determinism");
  const fs::path index = ingest(tmp, hostile_log());
  const Rendered a = render(index, tmp.path() / "a");
  const Rendered b = render(index, tmp.path() / "b");
  REQUIRE(a.files.size() == b.files.size());
  for (const auto& [path, bytes] : a.files) {
    INFO(path);
    REQUIRE(b.files.count(path) == 1);
    CHECK(b.files.at(path) == bytes);
  }
}

TEST_CASE("every output the index lists is written, and JSON artifacts are pretty and sorted") {
  test_support::TempDir tmp("report-outputs");
  const fs::path index = ingest(tmp, hostile_log());
  const Rendered out = render(index, tmp.path() / "out");
  auto reader = test_support::must(tlparse::index::IndexReader::open(index));
  const auto files = test_support::must(reader->files());
  REQUIRE(files.size() == 1);
  int json_artifacts = 0;
  for (const auto& o : test_support::must(reader->outputs(files[0].id))) {
    if (o.kind == tlparse::index::OutputKind::link) {
      continue;
    }
    INFO(o.path);
    REQUIRE(out.files.count(o.path) == 1);
    if (o.kind == tlparse::index::OutputKind::json_pretty &&
        o.path.find("evil") != std::string::npos) {
      CHECK(out.files.at(o.path) ==
            "{\n  \"a\": [\n    1,\n    2.5\n  ],\n  \"b\": \"<script>alert(1)</script>\"\n}");
      ++json_artifacts;
    }
    if (o.kind == tlparse::index::OutputKind::output_code_html) {
      CHECK(out.files.at(o.path).find("class=\"hl-kw\"") != std::string::npos);
    }
  }
  CHECK(json_artifacts == 1);
  for (const char* global : {"index.html", "failures_and_restarts.html", "chromium_events.json",
                             "compile_directory.json", "raw.log", "raw.jsonl"}) {
    INFO(global);
    CHECK(out.files.count(global) == 1);
  }
  CHECK(out.files.at("chromium_events.json") ==
        "[\n  {\n    \"args\": {\n      \"a\": null,\n      \"z\": 1\n    },\n    \"name\": "
        "\"<script>alert(1)</script>\",\n    \"ph\": \"B\",\n    \"pid\": 0,\n    \"tid\": 0,\n"
        "    \"ts\": 1.5\n  }\n]");
  const std::string& jsonl = out.files.at("raw.jsonl");
  CHECK(jsonl.starts_with("{\"string_table\":[\"/home/<script>alert(1)</script>/model.py\"]}\n"));
  CHECK(jsonl.find("\"chromium_event\"") == std::string::npos);
}

TEST_CASE("an empty log renders an empty but complete report") {
  test_support::TempDir tmp("report-empty");
  const fs::path index = ingest(tmp, "");
  const Rendered out = render(index, tmp.path() / "out");
  CHECK(out.files.at("compile_directory.json") == "{}");
  CHECK(out.files.at("chromium_events.json") == "[]");
  CHECK(out.files.at("raw.jsonl") == "{\"string_table\":[null]}\n");
  CHECK(out.files.at("raw.log").empty());
  CHECK(out.files.count("index.html") == 1);
}

TEST_CASE("the markup checker itself flags injected script, handlers and javascript links") {
  CHECK(test_support::executable_markup("<p>x</p><script>alert(1)</script>") == "<script>");
  CHECK(test_support::executable_markup("<img src=x onerror=alert(1)>") != "");
  CHECK(test_support::executable_markup("<a href=\"javascript:alert(1)\">x</a>") != "");
  CHECK(test_support::executable_markup("<div onload=\"x()\">") != "");
  CHECK(test_support::executable_markup("<a href=\"a&lt;img onerror=x&gt;.json\">ok</a>") == "");
  CHECK(test_support::executable_markup(
            "<span class=\"marker\" onclick=\"toggleList(this)\"></span>") == "");
}

TEST_CASE("the custom header is placed verbatim at the top of index.html only") {
  test_support::TempDir tmp("report-header");
  const fs::path index = ingest(tmp, hostile_log());
  tlparse::report::RenderOptions options;
  options.custom_header_html = "<div class=\"banner\">Team build 42</div>";
  const Rendered out = render(index, tmp.path() / "out", options);
  const std::string& index_html = out.files.at("index.html");
  const std::size_t body = index_html.find("<body>\n");
  REQUIRE(body != std::string::npos);
  CHECK(index_html.compare(body + 7, options.custom_header_html.size(),
                           options.custom_header_html) == 0);
  CHECK(out.files.at("failures_and_restarts.html").find("banner") == std::string::npos);
}

TEST_CASE("source pages number every line so stack frames can link to #L<n>") {
  test_support::TempDir tmp("report-lines");
  const fs::path index = ingest(tmp, hostile_log());
  const Rendered out = render(index, tmp.path() / "out");
  REQUIRE(out.files.count("dump_file/eval_with_key_7.html") == 1);
  const std::string& page = out.files.at("dump_file/eval_with_key_7.html");
  CHECK(page.find("<span class=\"ln\" id=\"L1\"><span class=\"hl-kw\">def</span>") !=
        std::string::npos);
  CHECK(page.find("id=\"L2\"") != std::string::npos);
  CHECK(page.find("&lt;script&gt;") != std::string::npos);
}

TEST_CASE("rendering with a second connection (index_path) gives the same bytes") {
  test_support::TempDir tmp("report-parallel");
  const fs::path index = ingest(tmp, hostile_log());
  const Rendered serial = render(index, tmp.path() / "a");
  tlparse::report::RenderOptions options;
  options.index_path = index;
  const Rendered parallel = render(index, tmp.path() / "b", options);
  CHECK(serial.files == parallel.files);
}

TEST_CASE("raw.jsonl rows are compact, key-sorted envelopes with tlparse's added fields") {
  test_support::TempDir tmp("report-jsonl");
  const fs::path index = ingest(tmp, hostile_log());
  const Rendered out = render(index, tmp.path() / "out");
  auto reader = test_support::must(tlparse::index::IndexReader::open(index));
  const int64_t year = test_support::must(reader->files()).at(0).timestamp_year;
  const std::string expected =
      "{\"attempt\":0,\"dynamo_start\":{\"stack\":[{\"filename\":0,\"line\":4,\"loc\":\"x = "
      "\\\"onload=alert(1)\",\"name\":\"<script>f\"}]},\"frame_compile_id\":0,\"frame_id\":0,"
      "\"lineno\":2,\"pathname\":\" torch/_dynamo/x.py\",\"thread\":539,\"timestamp\":\"" +
      std::to_string(year) + "-11-22T02:58:46.100002Z\"}\n";
  const std::string& jsonl = out.files.at("raw.jsonl");
  INFO(jsonl.substr(0, 1500));
  CHECK(jsonl.find(expected) != std::string::npos);
  // A payload-bearing row names its file.
  CHECK(jsonl.find("\"payload_filename\":\"-_0_0_0/dynamo_output_graph_") != std::string::npos);
}
