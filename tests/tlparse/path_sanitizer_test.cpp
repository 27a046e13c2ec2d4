// Output names from log data never escape the output folder (docs/TLPARSE-INGEST.md, "Output names
// from log data").
#include "ingest/trackers/path_sanitizer.h"

#include <catch2/catch.hpp>

using tlparse::ingest::sanitise_output_name;

TEST_CASE("sanitiser keeps tlparse's name when it is safe", "[tlparse][sanitiser]") {
  CHECK(sanitise_output_name("fx_graph_cache_miss").name == "fx_graph_cache_miss");
  CHECK_FALSE(sanitise_output_name("torch._functorch.config").changed);
  CHECK(sanitise_output_name("sub/dir").name == "sub/dir");
}

TEST_CASE("sanitiser replaces names that could escape or break the folder",
          "[tlparse][sanitiser]") {
  for (const std::string& bad :
       {std::string("../../x"), std::string("/etc/x"), std::string(".."), std::string("a/../b"),
        std::string("a\0b", 3), std::string(""), std::string(10000, 'a'), std::string("a\\b"),
        std::string("x\n"), std::string("\xff\xfe")}) {
    const auto s = sanitise_output_name(bad);
    INFO(bad.size());
    CHECK(s.changed);
    CHECK(s.name.find('/') == std::string::npos);
    CHECK(s.name.find('\\') == std::string::npos);
    CHECK(s.name.find('\0') == std::string::npos);
    CHECK(s.name.front() != '.');
    CHECK(s.name.size() <= 110);
    CHECK_FALSE(s.name.empty());
  }
}

TEST_CASE("sanitiser maps different unsafe names to different names", "[tlparse][sanitiser]") {
  CHECK(sanitise_output_name("../a").name != sanitise_output_name("../b").name);
  CHECK(sanitise_output_name("../a").name == sanitise_output_name("../a").name);
}
