// Keeps the schema files and the event-kind catalogue in step: every kind has a schema file and
// every schema file has a kind, so no second list of kinds can drift from the catalogue. Also
// keeps compiler/ from spelling a catalogued name as a literal: its emit sites name events and
// artifacts through the generated keys (compiler/src/tracing/event_keys.h).
#include "schemas/trace_scan.h"
#include "support/test_paths.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <schemas/event_kinds.gen.h>
#include <set>
#include <sstream>
#include <string>
#include <vector>

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

// The string literals of C++ source `text`, skipping comments, character literals and raw strings
// (no emit site spells a name as a raw string), each with its line.
std::vector<std::pair<std::string, size_t>> string_literals(const std::string& text) {
  std::vector<std::pair<std::string, size_t>> out;
  size_t line = 1;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
    } else if (text.compare(i, 2, "//") == 0) {
      i = text.find('\n', i) - 1; // the newline is counted on the next turn
    } else if (text.compare(i, 2, "/*") == 0) {
      const size_t end = std::min(text.find("*/", i + 2), text.size());
      for (; i < end; ++i) {
        line += text[i] == '\n' ? 1 : 0;
      }
      ++i;
    } else if (c == 'R' && i + 1 < text.size() && text[i + 1] == '"') {
      const size_t open = text.find('(', i);
      const std::string close = ")" + text.substr(i + 2, open - i - 2) + "\"";
      const size_t end = std::min(text.find(close, open), text.size());
      for (; i < end + close.size() - 1; ++i) {
        line += text[i] == '\n' ? 1 : 0;
      }
    } else if (c == '\'' || c == '"') {
      std::string literal;
      for (++i; i < text.size() && text[i] != c; ++i) {
        if (text[i] == '\\') {
          literal += text[i++];
        }
        literal += text[i];
      }
      if (c == '"') {
        out.emplace_back(literal, line);
      }
    }
  }
  return out;
}

// Every catalogued event kind and artifact name, less the two that are also ordinary words of
// the compiler: "str" (Python's type name) and "stack" (torch.stack, and the metadata field of
// dynamo_start). The compiler never emits those two kinds; the tracer writes `str` itself.
std::set<std::string> catalogued_names() {
  std::set<std::string> names;
#define TORCHSCOPE_COLLECT_KIND(id, key, ...) names.insert(key);
  TORCHSCOPE_EVENT_KINDS(TORCHSCOPE_COLLECT_KIND)
#undef TORCHSCOPE_COLLECT_KIND
#define TORCHSCOPE_COLLECT_ARTIFACT(id, name, encoding) names.insert(name);
  TORCHSCOPE_KNOWN_ARTIFACTS(TORCHSCOPE_COLLECT_ARTIFACT)
#undef TORCHSCOPE_COLLECT_ARTIFACT
  names.erase("str");
  names.erase("stack");
  return names;
}

// "file:line: "name"" for each literal of `text` that spells a catalogued name.
std::vector<std::string> catalogue_literals(const std::string& file, const std::string& text) {
  static const std::set<std::string> names = catalogued_names();
  std::vector<std::string> out;
  for (const auto& [literal, line] : string_literals(text)) {
    if (names.count(literal) != 0) {
      out.push_back(file + ":" + std::to_string(line) + ": \"" + literal + "\"");
    }
  }
  return out;
}

} // namespace

TEST_CASE("the literal check finds catalogued names in code and skips comments and raw strings",
          "[schemas]") {
  const std::string text = "// tracer::event(\"dynamo_start\")\n"
                           "/* \"dynamo_start\" */ char q = '\"';\n"
                           "auto r = R\"x(\"dynamo_start\")x\";\n"
                           "tracer::artifact(\"fx_graph_cache_hit\", enc);\n"
                           "w.key(\"stack\"); s = \"a\\\"compilation_metrics\";\n"
                           "tracer::event(\n    \"inductor_output_code\", f);\n";
  CHECK(catalogue_literals("t.cpp", text) ==
        std::vector<std::string>{"t.cpp:4: \"fx_graph_cache_hit\"",
                                 "t.cpp:7: \"inductor_output_code\""});
}

TEST_CASE("no compiler source spells a catalogued event or artifact name as a literal",
          "[schemas]") {
  size_t files = 0;
  for (const char* folder : {"compiler/src", "compiler/include"}) {
    const auto root = test_support::source_dir() / folder;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
      const std::string ext = entry.path().extension().string();
      if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".h")) {
        continue;
      }
      ++files;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      for (const std::string& offence : catalogue_literals(
               std::filesystem::relative(entry.path(), test_support::source_dir()).string(),
               text.str())) {
        FAIL_CHECK(offence << " (use tracing::keys:: or tracing::artifacts::)");
      }
    }
  }
  CHECK(files > 100);
}

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
