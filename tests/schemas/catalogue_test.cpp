// Keeps the schema files and the event-kind catalogue in step: every kind has a schema file and
// every schema file has a kind, so no second list of kinds can drift from the catalogue.
#include "schemas/trace_scan.h"

#include <catch2/catch.hpp>
#include <schemas/event_kinds.gen.h>
#include <set>
#include <string>

namespace {

using torchscope::test::Catalogue;
using torchscope::test::trace_schema_dir;

Catalogue catalogue() {
  std::string error;
  auto c = torchscope::test::load_catalogue(trace_schema_dir() / "event_kinds.json", &error);
  INFO(error);
  REQUIRE(c.has_value());
  return *c;
}

// Stems of the *.schema.json files directly in `dir` ("events/str.schema.json" -> "str").
std::set<std::string> schema_stems(const std::filesystem::path& dir) {
  std::set<std::string> out;
  const std::string suffix = ".schema.json";
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (name.size() > suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      out.insert(name.substr(0, name.size() - suffix.size()));
    }
  }
  return out;
}

} // namespace

TEST_CASE("every catalogued kind has a schema file and every schema file has a kind", "[schemas]") {
  Catalogue c = catalogue();
  REQUIRE_FALSE(c.kinds.empty());
  auto files = schema_stems(trace_schema_dir() / "events");
  for (const auto& [key, kind] : c.kinds) {
    INFO("kind " << key);
    CHECK(kind.schema == "events/" + key + ".schema.json");
    CHECK(files.count(key) == 1);
  }
  for (const auto& stem : files) {
    INFO("schema file events/" << stem << ".schema.json");
    CHECK(c.kinds.count(stem) == 1);
  }
}

TEST_CASE("the generated kind header lists exactly the kinds that have schema files", "[schemas]") {
  std::set<std::string> generated;
#define TORCHSCOPE_COLLECT_KEY(id, key, ...) generated.insert(key);
  TORCHSCOPE_EVENT_KINDS(TORCHSCOPE_COLLECT_KEY)
#undef TORCHSCOPE_COLLECT_KEY
  CHECK(generated.size() == TORCHSCOPE_EVENT_KIND_COUNT);
  CHECK(generated == schema_stems(trace_schema_dir() / "events"));
}

TEST_CASE("every payload schema is referenced by the catalogue and every json payload kind has one",
          "[schemas]") {
  Catalogue c = catalogue();
  std::set<std::string> referenced;
  for (const auto& [key, kind] : c.kinds) {
    if (!kind.payload_schema.empty()) {
      referenced.insert(kind.payload_schema);
    }
    // A kind whose payload is always JSON has a fixed shape worth checking.
    if (kind.payload == "json") {
      INFO("kind " << key);
      CHECK_FALSE(kind.payload_schema.empty());
    }
  }
  for (const auto& [name, schema] : c.artifact_payload_schemas) {
    referenced.insert(schema);
  }
  for (const auto& ref : referenced) {
    INFO(ref);
    CHECK(std::filesystem::is_regular_file(trace_schema_dir() / ref));
  }
  for (const auto& stem : schema_stems(trace_schema_dir() / "payloads")) {
    INFO("payloads/" << stem << ".schema.json");
    CHECK(referenced.count("payloads/" + stem + ".schema.json") == 1);
  }
}

TEST_CASE("the envelope schema declares the catalogue's context keys and stack, no more",
          "[schemas]") {
  Catalogue c = catalogue();
  torchscope::test::TraceScanner scanner;
  REQUIRE(scanner.ok());
  std::set<std::string> expected(c.context_keys.begin(), c.context_keys.end());
  expected.insert("stack");
  CHECK(scanner.context_keys() == expected);
}

TEST_CASE("every schema file uses only keywords the validator implements and its refs resolve",
          "[schemas]") {
  torchscope::test::SchemaSet set;
  size_t linted = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(trace_schema_dir())) {
    std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || name.find(".schema.json") == std::string::npos) {
      continue;
    }
    ++linted;
    auto errors = set.lint(entry.path().string());
    for (const auto& e : errors) {
      FAIL_CHECK(to_string(e));
    }
  }
  // envelope, common, one per kind, the payload schemas: nothing was left out of the walk.
  CHECK(linted ==
        2 + catalogue().kinds.size() + schema_stems(trace_schema_dir() / "payloads").size());
}
