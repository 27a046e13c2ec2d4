// End-to-end compatibility with tlparse 0.4.3 (the acceptance test of the report): the `tlparse`
// binary is run with default flags on every single-rank log that has a reference, and must write
// every path tlparse 0.4.3 wrote, the same compile_directory.json bytes and the same statistics
// line. `tlparse render INDEX` must then reproduce the direct run byte for byte.
#include "support/test_paths.h"
#include "tlparse_cli.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace {

using test_support::kTlparse;
using test_support::quoted;

std::string stats_line(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("Stats {")) {
      return line;
    }
  }
  return "(no Stats line)";
}

std::string first_difference(const std::string& a, const std::string& b) {
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) {
    ++i;
  }
  const std::size_t from = i < 80 ? 0 : i - 80;
  return "at byte " + std::to_string(i) + ":\n  ours: " + a.substr(from, 160) +
         "\n  ref:  " + b.substr(from, 160);
}

std::map<std::string, std::string> read_tree(const fs::path& root) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file()) {
      files[fs::relative(e.path(), root).generic_string()] = test_support::read_file(e.path());
    }
  }
  return files;
}

struct Case {
  std::string name;
  fs::path log;
  fs::path reference; // folder with files.txt, compile_directory.json, stderr.txt
};

// Runs one log through the CLI and checks it against its reference; returns false if it could
// not run at all.
void check_case(const Case& c, bool also_render) {
  INFO("log: " << c.log.string());
  test_support::TempDir tmp("report-compat");
  const fs::path out = tmp.path() / "out";
  const fs::path err = tmp.path() / "stderr.txt";
  const std::string cmd = quoted(kTlparse) + " " + quoted(c.log) + " -o " + quoted(out) +
                          " --no-browser > /dev/null 2> " + quoted(err);
  const int rc = std::system(cmd.c_str());
  const std::string stderr_text = fs::exists(err) ? test_support::read_file(err) : "";
  INFO("stderr: " << stderr_text.substr(0, 2000));
  REQUIRE(rc == 0);

  std::istringstream listed(test_support::read_file(c.reference / "files.txt"));
  std::string path;
  int missing = 0;
  while (std::getline(listed, path)) {
    if (path.empty()) {
      continue;
    }
    if (!fs::exists(out / path)) {
      ++missing;
      if (missing <= 10) {
        UNSCOPED_INFO("missing: " << path);
      }
    }
  }
  CHECK(missing == 0);

  // Extra outputs only where documented (tlparse/src/report/README.md): the index.
  std::set<std::string> expected;
  {
    std::istringstream again(test_support::read_file(c.reference / "files.txt"));
    while (std::getline(again, path)) {
      expected.insert(path);
    }
  }
  for (const auto& e : fs::recursive_directory_iterator(out)) {
    const std::string rel = fs::relative(e.path(), out).generic_string();
    if (e.is_regular_file() && expected.count(rel) == 0) {
      INFO("extra output: " << rel);
      CHECK(rel == "index.sqlite");
    }
  }

  const fs::path ref_dir_json = c.reference / "compile_directory.json";
  if (fs::exists(ref_dir_json)) {
    REQUIRE(fs::exists(out / "compile_directory.json"));
    const std::string ours = test_support::read_file(out / "compile_directory.json");
    const std::string ref = test_support::read_file(ref_dir_json);
    INFO(first_difference(ours, ref));
    CHECK(ours == ref);
  }
  if (fs::exists(c.reference / "stderr.txt")) {
    CHECK(stats_line(stderr_text) ==
          stats_line(test_support::read_file(c.reference / "stderr.txt")));
  }

  if (!also_render) {
    return;
  }
  const fs::path index = out / "index.sqlite";
  REQUIRE(fs::exists(index));
  const fs::path out2 = tmp.path() / "out2";
  // The log is named: `tlparse render` never reads a path stored in an index.
  const std::string render_cmd = quoted(kTlparse) + " render " + quoted(index) + " -o " +
                                 quoted(out2) + " --raw-log " + quoted(c.log) + " > /dev/null 2> " +
                                 quoted(err);
  REQUIRE(std::system(render_cmd.c_str()) == 0);
  auto direct = read_tree(out);
  auto rendered = read_tree(out2);
  direct.erase("index.sqlite");
  rendered.erase("index.sqlite");
  CHECK(direct.size() == rendered.size());
  for (const auto& [p, bytes] : direct) {
    INFO("file: " << p);
    REQUIRE(rendered.count(p) == 1);
    CHECK(rendered.at(p) == bytes);
  }
}

bool is_multi_rank_dir(const fs::path& dir) {
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().find("_rank_") != std::string::npos) {
      return true;
    }
  }
  return false;
}

std::vector<Case> pytorch_cases(const fs::path& corpus, const fs::path& references) {
  std::vector<Case> cases;
  if (!fs::is_directory(corpus)) {
    return cases;
  }
  for (const auto& dir : fs::directory_iterator(corpus)) {
    if (!dir.is_directory() || is_multi_rank_dir(dir.path())) {
      continue;
    }
    const auto logs = test_support::trace_files_under(dir.path());
    std::vector<fs::path> log_files;
    for (const auto& l : logs) {
      if (l.extension() == ".log") {
        log_files.push_back(l);
      }
    }
    const fs::path ref = references / dir.path().filename();
    if (log_files.size() == 1 && fs::exists(ref / "files.txt")) {
      cases.push_back({dir.path().filename().string(), log_files[0], ref});
    }
  }
  std::sort(cases.begin(), cases.end(),
            [](const Case& a, const Case& b) { return a.name < b.name; });
  return cases;
}

} // namespace

TEST_CASE("tlparse matches 0.4.3's files, compile directory and stats on the PyTorch 2.11 logs") {
  if (kTlparse == nullptr) {
    TORCHSCOPE_SKIP("the tlparse binary is not built");
  }
  const auto shared = test_support::shared_dir();
  if (!shared) {
    TORCHSCOPE_SKIP("the shared corpus is absent (docs/BUILDING.md, Test data)");
  }
  const auto cases =
      pytorch_cases(*shared / "corpus" / "pytorch-2.11", *shared / "reference" / "tlparse-0.4.3");
  CHECK(cases.size() >= 10);
  for (const Case& c : cases) {
    SECTION(c.name) {
      check_case(c, true);
    }
  }
}

TEST_CASE("tlparse matches 0.4.3 on every single-file log of tlparse's own test inputs") {
  if (kTlparse == nullptr) {
    TORCHSCOPE_SKIP("the tlparse binary is not built");
  }
  const auto shared = test_support::shared_dir();
  if (!shared) {
    TORCHSCOPE_SKIP("the shared corpus is absent (docs/BUILDING.md, Test data)");
  }
  const fs::path inputs = *shared / "corpus" / "tlparse-tests" / "inputs";
  const fs::path refs = *shared / "reference" / "tlparse-0.4.3" / "tlparse-tests";
  std::vector<Case> cases;
  for (const auto& e : fs::directory_iterator(inputs)) {
    if (!e.is_regular_file()) {
      continue;
    }
    const fs::path ref = refs / e.path().stem();
    if (fs::exists(ref / "files.txt")) {
      cases.push_back({e.path().stem().string(), e.path(), ref});
    }
  }
  std::sort(cases.begin(), cases.end(),
            [](const Case& a, const Case& b) { return a.name < b.name; });
  CHECK(cases.size() >= 15);
  for (const Case& c : cases) {
    SECTION(c.name) {
      check_case(c, false);
    }
  }
}

TEST_CASE("tlparse matches 0.4.3 on the PyTorch 2.11 logs committed under tests/data") {
  if (kTlparse == nullptr) {
    TORCHSCOPE_SKIP("the tlparse binary is not built");
  }
  const fs::path data = test_support::source_dir() / "tests" / "data" / "pytorch-2.11";
  if (!fs::is_directory(data)) {
    TORCHSCOPE_SKIP("tests/data/pytorch-2.11 is absent");
  }
  std::vector<Case> cases;
  for (const auto& dir : fs::directory_iterator(data)) {
    if (!dir.is_directory() || !fs::exists(dir.path() / "files.txt") ||
        is_multi_rank_dir(dir.path())) {
      continue;
    }
    for (const auto& e : fs::directory_iterator(dir.path())) {
      if (e.path().extension() == ".log") {
        cases.push_back({dir.path().filename().string(), e.path(), dir.path()});
        break;
      }
    }
  }
  if (cases.empty()) {
    TORCHSCOPE_SKIP("no committed log with a reference under tests/data/pytorch-2.11");
  }
  for (const Case& c : cases) {
    SECTION(c.name) {
      check_case(c, true);
    }
  }
}
