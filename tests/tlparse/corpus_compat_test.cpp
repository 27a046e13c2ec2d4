// On real PyTorch 2.11 logs, the ingest's counters equal tlparse 0.4.3's statistics line and its
// output decisions (paths, names, numbers, suffixes, readable urls) equal the reference
// compile_directory.json, checked through the read API. Uses the copies in tests/data (always)
// and the whole shared corpus (when it is present: docs/BUILDING.md, "Test data").
#include "ingest_test_util.h"
#include "support/must.h"
#include "support/test_paths.h"

#include <catch2/catch.hpp>
#include <map>
#include <regex>
#include <simdjson.h>
#include <sstream>

using namespace tlparse_test;
namespace fs = std::filesystem;

namespace {

struct Artifact {
  std::string name, url, suffix;
  int64_t number = 0;
  std::optional<std::string> readable_url;
  bool operator==(const Artifact&) const = default;
};
using Directory = std::map<std::string, std::vector<Artifact>>;

Directory reference_directory(const fs::path& json_path) {
  Directory out;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE_FALSE(parser.load(json_path.string()).get(doc));
  for (auto [key, value] : doc.get_object()) {
    auto& list = out[std::string(key)];
    for (auto a : value["artifacts"].get_array()) {
      Artifact art;
      art.name = std::string(std::string_view(a["name"]));
      art.url = std::string(std::string_view(a["url"]));
      art.suffix = std::string(std::string_view(a["suffix"]));
      art.number = int64_t(a["number"]);
      if (!a["readable_url"].is_null()) {
        art.readable_url = std::string(std::string_view(a["readable_url"]));
      }
      list.push_back(art);
    }
  }
  return out;
}

Directory our_directory(const tlparse::index::IndexReader& reader, int64_t file_id) {
  Directory out;
  std::map<int64_t, std::string> display;
  for (const auto& k : test_support::must(reader.compile_keys(file_id))) {
    display[k.id] = k.display;
    out[k.display];
  }
  for (const auto& o : test_support::must(reader.outputs(file_id))) {
    if (!o.in_directory) {
      continue;
    }
    REQUIRE(o.key_id);
    out[display.at(*o.key_id)].push_back(
        Artifact{o.name, o.path, o.suffix, o.number, o.readable_url});
  }
  return out;
}

// "Stats {...}" lines of a reference stderr, keyed by detected rank (-1 when none).
std::map<int64_t, std::pair<std::string, std::string>>
reference_stats(const fs::path& stderr_path) {
  std::map<int64_t, std::pair<std::string, std::string>> out;
  std::istringstream in(test_support::read_file(stderr_path));
  std::string line;
  int64_t rank = -1;
  while (std::getline(in, line)) {
    if (line.rfind("Detected rank: Some(", 0) == 0) {
      rank = std::stoll(line.substr(20));
    } else if (line.rfind("Stats {", 0) == 0) {
      out[rank].first = line;
    } else if (line.rfind("Unknown fields: ", 0) == 0) {
      out[rank].second = line;
    }
  }
  return out;
}

std::string unknown_line(const std::vector<std::string>& keys) {
  // 0.4.3 prints a HashSet (arbitrary order); compare as a sorted set.
  std::vector<std::string> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  std::string s;
  for (const auto& k : sorted) {
    s += k + ",";
  }
  return s;
}

std::vector<std::string> keys_of_unknown_line(const std::string& line) {
  std::vector<std::string> keys;
  std::regex re("\"([^\"]+)\"");
  for (auto it = std::sregex_iterator(line.begin(), line.end(), re); it != std::sregex_iterator();
       ++it) {
    keys.push_back((*it)[1]);
  }
  return keys;
}

// Checks one workload folder (its logs) against a reference folder.
void check_workload(const fs::path& logs_dir, const fs::path& ref_dir) {
  std::vector<fs::path> logs;
  for (const auto& e : fs::directory_iterator(logs_dir)) {
    if (e.path().extension() == ".log") {
      logs.push_back(e.path());
    }
  }
  std::sort(logs.begin(), logs.end());
  REQUIRE_FALSE(logs.empty());
  const auto ref = reference_stats(ref_dir / "stderr.txt");
  for (const auto& log : logs) {
    INFO(log.string());
    test_support::TempDir tmp;
    auto in = ingest(log, tmp.path());
    const auto files = test_support::must(in.reader->files());
    REQUIRE(files.size() == 1);
    const int64_t rank = files[0].rank ? int64_t(*files[0].rank) : -1;
    REQUIRE(ref.count(rank) == 1);
    CHECK(in.file().stats.to_tlparse_string() == ref.at(rank).first);
    CHECK(unknown_line(in.file().unknown_keys) ==
          unknown_line(keys_of_unknown_line(ref.at(rank).second)));
    CHECK(test_support::must(in.reader->stats(in.file().file_id)).to_tlparse_string() ==
          ref.at(rank).first);
    fs::path dir_json = ref_dir / "compile_directory.json";
    if (rank >= 0 &&
        fs::exists(ref_dir / ("rank_" + std::to_string(rank) + ".compile_directory.json"))) {
      dir_json = ref_dir / ("rank_" + std::to_string(rank) + ".compile_directory.json");
    }
    if (fs::exists(dir_json)) {
      const Directory expected = reference_directory(dir_json);
      const Directory actual = our_directory(*in.reader, in.file().file_id);
      CHECK(actual.size() == expected.size());
      for (const auto& [key, list] : expected) {
        INFO("compile id " << key);
        REQUIRE(actual.count(key) == 1);
        REQUIRE(actual.at(key).size() == list.size());
        for (size_t i = 0; i < list.size(); ++i) {
          INFO("artifact " << list[i].url);
          CHECK(actual.at(key)[i] == list[i]);
        }
      }
    }
  }
}

} // namespace

TEST_CASE("ingest decisions equal tlparse 0.4.3 on the logs committed in tests/data",
          "[tlparse][compat]") {
  const fs::path data = test_support::source_dir() / "tests/data/pytorch-2.11";
  int checked = 0;
  for (const auto& e : fs::directory_iterator(data)) {
    if (e.is_directory() && fs::exists(e.path() / "stderr.txt")) {
      INFO(e.path().string());
      check_workload(e.path(), e.path());
      ++checked;
    }
  }
  CHECK(checked >= 3);
}

TEST_CASE("ingest counters and outputs equal tlparse 0.4.3 on the whole PyTorch 2.11 corpus",
          "[tlparse][compat]") {
  const auto shared = test_support::shared_dir();
  if (!shared) {
    TORCHSCOPE_SKIP("the shared corpus is absent (docs/BUILDING.md, Test data)");
  }
  int checked = 0;
  for (const auto& e : fs::directory_iterator(*shared / "corpus/pytorch-2.11")) {
    const fs::path ref = *shared / "reference/tlparse-0.4.3" / e.path().filename();
    if (!fs::exists(ref / "stderr.txt")) {
      continue;
    }
    INFO(e.path().string());
    check_workload(e.path(), ref);
    ++checked;
  }
  CHECK(checked >= 10);
}

TEST_CASE("ingest counters and outputs equal tlparse 0.4.3 on tlparse's own test logs",
          "[tlparse][compat]") {
  const auto shared = test_support::shared_dir();
  if (!shared) {
    TORCHSCOPE_SKIP("the shared corpus is absent (docs/BUILDING.md, Test data)");
  }
  const fs::path inputs = *shared / "corpus/tlparse-tests/inputs";
  const fs::path refs = *shared / "reference/tlparse-0.4.3/tlparse-tests";
  int checked = 0;
  for (const auto& e : fs::directory_iterator(inputs)) {
    if (!e.is_regular_file()) {
      continue;
    }
    const fs::path ref = refs / e.path().stem();
    if (!fs::exists(ref / "stderr.txt") || !fs::exists(ref / "compile_directory.json")) {
      continue;
    }
    // Only default-mode references (the flags line is empty).
    if (test_support::read_file(ref / "stderr.txt").rfind("flags: \n", 0) != 0) {
      continue;
    }
    INFO(e.path().string());
    test_support::TempDir tmp;
    fs::copy_file(e.path(), tmp.path() / "input.log");
    check_workload(tmp.path(), ref);
    ++checked;
  }
  CHECK(checked >= 10);
}
