// Golden tests of `tlparse query`, `check` and `diff` (Perfetto's diff-test style): each case in
// tests/data/answers-golden/*.case names a command, committed corpus logs, a query or flags, the
// exit status, and the exact stdout expected. TORCHSCOPE_UPDATE_GOLDEN=1 rewrites the expected
// output from the current binary (review the diff before committing it).
#include "ingest_test_util.h"
#include "support/test_paths.h"
#include "tlparse/answers/run_diff.h"
#include "tlparse/index/index_reader.h"
#include "tlparse/report/diff_page.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace tlparse_test;
namespace fs = std::filesystem;

namespace {

struct GoldenCase {
  std::string command;              // query | check | diff
  std::vector<std::string> sources; // workloads under tests/data/pytorch-2.11
  std::string sql;                  // query only
  std::vector<std::string> args;    // more arguments; @workload names a committed log
  int exit = 0;
  std::string stderr_has; // a substring stderr must hold
  std::string header;     // the file up to and including the separator
  std::string expected;   // stdout
};

constexpr std::string_view kSeparator = "----\n";

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) {
    out.push_back(w);
  }
  return out;
}

GoldenCase parse_case(const fs::path& p) {
  const std::string text = test_support::read_file(p);
  const size_t sep = text.find(kSeparator);
  REQUIRE(sep != std::string::npos);
  GoldenCase c;
  c.header = text.substr(0, sep + kSeparator.size());
  c.expected = text.substr(sep + kSeparator.size());
  std::istringstream in(text.substr(0, sep));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') {
      continue;
    }
    const size_t colon = line.find(": ");
    REQUIRE(colon != std::string::npos);
    const std::string key = line.substr(0, colon), value = line.substr(colon + 2);
    if (key == "command") {
      c.command = value;
    } else if (key == "source") {
      c.sources = words(value);
    } else if (key == "sql") {
      c.sql = value;
    } else if (key == "args") {
      c.args = words(value);
    } else if (key == "exit") {
      c.exit = std::atoi(value.c_str());
    } else if (key == "stderr") {
      c.stderr_has = value;
    } else {
      FAIL("unknown key " << key << " in " << p.string());
    }
  }
  return c;
}

std::string resolve(const std::string& arg) {
  return arg.size() > 1 && arg[0] == '@' ? data_log(arg.substr(1)).string() : arg;
}

// Paths of the checkout differ between machines: print them relative to tests/data.
std::string normalised(std::string out) {
  const std::string data = (test_support::source_dir() / "tests/data/").string();
  for (size_t at = out.find(data); at != std::string::npos; at = out.find(data, at)) {
    out.replace(at, data.size(), "@data/");
  }
  return out;
}

std::vector<fs::path> cases() {
  std::vector<fs::path> out;
  for (const auto& e :
       fs::directory_iterator(test_support::source_dir() / "tests/data/answers-golden")) {
    if (e.path().extension() == ".case") {
      out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace

TEST_CASE("golden: query, check and diff give the committed output on corpus logs",
          "[tlparse][answers]") {
  const bool update = std::getenv("TORCHSCOPE_UPDATE_GOLDEN") != nullptr;
  const auto all = cases();
  REQUIRE(all.size() >= 20);
  test_support::TempDir tmp;
  for (const fs::path& p : all) {
    const GoldenCase c = parse_case(p);
    std::vector<std::string> args{c.command};
    for (const auto& s : c.sources) {
      args.push_back(data_log(s).string());
    }
    if (!c.sql.empty()) {
      args.push_back(c.sql);
    }
    for (const auto& a : c.args) {
      args.push_back(resolve(a));
    }
    const Run r = run_tlparse(args, tmp.path());
    const std::string got = normalised(r.out);
    if (update) {
      std::ofstream(p, std::ios::binary) << c.header << got;
      continue;
    }
    INFO(p.filename().string() << "\nstderr: " << r.err);
    CHECK(r.code == c.exit);
    CHECK(got == c.expected);
    if (!c.stderr_has.empty()) {
      CHECK(r.err.find(c.stderr_has) != std::string::npos);
    }
  }
}

TEST_CASE("every view's example runs on every committed log", "[tlparse][answers]") {
  test_support::TempDir tmp;
  for (const char* w :
       {"w01_mlp_train", "w02_recompile", "w03_data_dependent", "w04_failure", "w07_export",
        "w13_cache_run1", "w13_cache_run2", "w16_dynamic", "w19_fullgraph_error"}) {
    const auto dir = tmp.path() / w;
    fs::create_directories(dir);
    const Ingested in = ingest(data_log(w), dir);
    for (const auto& v : tlparse::index::kViewInfos) {
      INFO(w << ": " << v.name << ": " << v.example);
      size_t columns = 0;
      const auto st = in.reader->query(
          v.example, [&](const std::vector<std::string>& c) { columns = c.size(); },
          [](const std::vector<tlparse::index::QueryValue>&) { return true; });
      CHECK(st.ok());
      CHECK(columns > 0);
    }
  }
}

TEST_CASE("query refuses writes, ATTACH, load_extension and more than one statement",
          "[tlparse][answers]") {
  test_support::TempDir tmp;
  const Ingested in = ingest(data_log("w19_fullgraph_error"), tmp.path());
  const auto index = tmp.path() / "index.sqlite";
  const auto size_before = fs::file_size(index);
  for (const std::string sql :
       {"DELETE FROM compiles", "INSERT INTO meta VALUES ('a', 'b')", "DROP TABLE compiles",
        "CREATE TABLE t(x)", "ATTACH DATABASE '/tmp/x.sqlite' AS x",
        "SELECT load_extension('/tmp/evil.so')", "PRAGMA journal_mode=WAL",
        "PRAGMA writable_schema=1", "SELECT 1; DELETE FROM compiles", "BEGIN",
        "UPDATE compiles SET status = 'ok'", "VACUUM INTO '/tmp/copy.sqlite'"}) {
    INFO(sql);
    const auto st = in.reader->query(
        sql, [](const std::vector<std::string>&) {},
        [](const std::vector<tlparse::index::QueryValue>&) { return true; });
    CHECK_FALSE(st.ok());
  }
  CHECK(fs::file_size(index) == size_before);
  CHECK_FALSE(fs::exists("/tmp/copy.sqlite"));
  // Reads still work after refusals, and the schema PRAGMAs are allowed.
  int rows = 0;
  const auto ok = in.reader->query(
      "PRAGMA table_info(compiles)", [](const std::vector<std::string>&) {},
      [&](const std::vector<tlparse::index::QueryValue>&) {
        ++rows;
        return true;
      });
  CHECK(ok.ok());
  CHECK(rows > 10);
}

TEST_CASE("query over a log leaves no temporary index behind", "[tlparse][answers]") {
  test_support::TempDir tmp;
  const std::string tmpdir = (tmp.path() / "t").string();
  fs::create_directories(tmpdir);
  ::setenv("TMPDIR", tmpdir.c_str(), 1);
  const Run r = run_tlparse({"query", data_log("w19_fullgraph_error").string(),
                             "SELECT COUNT(*) AS n FROM compile_summary", "--format", "csv"},
                            tmp.path());
  ::unsetenv("TMPDIR");
  CHECK(r.code == 0);
  CHECK(r.out == "n\r\n1\r\n");
  CHECK(fs::is_empty(tmpdir));
}

TEST_CASE("diff --html writes one self-contained page with the log text escaped",
          "[tlparse][answers]") {
  test_support::TempDir tmp;
  const Run r = run_tlparse({"diff", data_log("w13_cache_run1").string(),
                             data_log("w13_cache_run2").string(), "--html", "d.html"},
                            tmp.path());
  CHECK(r.code == 0);
  const std::string page = test_support::read_file(tmp.path() / "d.html");
  CHECK(page.find("<h1>Run comparison</h1>") != std::string::npos);
  CHECK(page.find("<script") == std::string::npos);
  CHECK(page.find("src=\"http") == std::string::npos);
}

TEST_CASE("the diff page lists frames added and gone, failures new and fixed, escaped",
          "[tlparse][answers]") {
  tlparse::answers::RunFacts a, b;
  tlparse::answers::RunDiff d;
  d.a = &a;
  d.b = &b;
  d.frames_added = {"<b>new.py:1", "n.py:2"};
  d.frames_gone = {"g.py:3"};
  d.new_failures = {"[1/0] f (m.py:3): <script>TypeError"};
  d.fixed_failures = {"[0/0] f (w.py:7): BackendCompilerFailed"};
  const std::string html = tlparse::report::diff_section_html(d, "A", "B");
  CHECK(html.find("<h3>Frames added or gone</h3>\n<ul>\n"
                  "<li class=\"diff-add\">added: &lt;b&gt;new.py:1</li>\n"
                  "<li class=\"diff-add\">added: n.py:2</li>\n"
                  "<li class=\"diff-del\">gone: g.py:3</li>\n</ul>\n") != std::string::npos);
  CHECK(html.find("<h3>Failures</h3>\n<ul>\n"
                  "<li class=\"diff-del\">new: [1/0] f (m.py:3): &lt;script&gt;TypeError</li>\n"
                  "<li class=\"diff-add\">fixed: [0/0] f (w.py:7): BackendCompilerFailed</li>\n"
                  "</ul>\n") != std::string::npos);
}

TEST_CASE("diff_lines: unified hunks, removals before additions, bounded on large inputs",
          "[tlparse][answers]") {
  using tlparse::answers::diff_lines;
  CHECK(diff_lines("a\nb\nc\n", "a\nb\nc\n").lines.empty());
  const auto d = diff_lines("a\nb\nc\nd\ne\nf\n", "a\nb\nX\nd\ne\nf\n", 1);
  CHECK(d.removed == 1);
  CHECK(d.added == 1);
  CHECK(d.lines == std::vector<std::string>{"@@ -2,3 +2,3 @@", " b", "-c", "+X", " d"});
  // 3,000 x 3,000 lines that all differ: past the LCS bound, shown as replaced, still counted.
  std::string a, b;
  for (int i = 0; i < 3000; ++i) {
    a += "a" + std::to_string(i) + "\n";
    b += "b" + std::to_string(i) + "\n";
  }
  const auto big = diff_lines(a, b, 2, 100);
  CHECK(big.removed == 3000);
  CHECK(big.added == 3000);
  CHECK(big.truncated);
  CHECK(big.lines.size() == 100);
}
