// serde_json-compatible printing: the JSON files tlparse users script against must come out
// byte-for-byte as tlparse 0.4.3 wrote them.
#include "support/test_paths.h"
#include "tlparse/report/serde_json.h"

#include <catch2/catch.hpp>
#include <filesystem>

using tlparse::report::JsonValue;

namespace {

std::string pretty(std::string_view text) {
  auto p = tlparse::report::pretty_print_json(text);
  REQUIRE(p.has_value());
  return *p;
}

std::string compact(std::string_view text) {
  auto v = tlparse::report::parse_json(text);
  REQUIRE(v.has_value());
  std::string out;
  tlparse::report::write_compact(out, *v);
  return out;
}

std::string f64(double d) {
  std::string out;
  tlparse::report::write_f64(out, d);
  return out;
}

} // namespace

TEST_CASE("pretty printer sorts keys and indents by two spaces like serde_json") {
  CHECK(pretty(R"({"b": 1, "a": [true, null, "x"], "c": {}, "d": []})") ==
        "{\n  \"a\": [\n    true,\n    null,\n    \"x\"\n  ],\n  \"b\": 1,\n  \"c\": {},\n"
        "  \"d\": []\n}");
  CHECK(pretty("[]") == "[]");
  CHECK(pretty("  3  ") == "3");
}

TEST_CASE("duplicate object keys keep the last value, as a BTreeMap insert does") {
  CHECK(compact(R"({"a": 1, "b": 2, "a": 3})") == R"({"a":3,"b":2})");
}

TEST_CASE("floats print with ryu's shortest layout and integers stay integers") {
  CHECK(f64(1.0) == "1.0");
  CHECK(f64(0.1) == "0.1");
  CHECK(f64(-2.5) == "-2.5");
  CHECK(f64(0.0) == "0.0");
  CHECK(f64(-0.0) == "-0.0");
  CHECK(f64(1e15) == "1000000000000000.0");
  CHECK(f64(1e16) == "1e16");
  CHECK(f64(1.5e20) == "1.5e20");
  CHECK(f64(0.0001) == "0.0001");
  CHECK(f64(0.00001) == "0.00001");
  CHECK(f64(0.000001) == "1e-6");
  CHECK(f64(1.234e-7) == "1.234e-7");
  CHECK(f64(123456.789) == "123456.789");
  CHECK(f64(1732243590.969) == "1732243590.969");
  CHECK(compact("[1, -1, 1.0, 1.50, 1E3, 18446744073709551615, 18446744073709551616, -0]") ==
        "[1,-1,1.0,1.5,1000.0,18446744073709551615,1.8446744073709552e19,-0.0]");
  CHECK(compact("[-9223372036854775808, -9223372036854775809]") ==
        "[-9223372036854775808,-9.223372036854776e18]");
  CHECK(compact("1e-400") == "0.0");
}

TEST_CASE("floats are read the way serde_json reads them, last-bit rounding included") {
  // A u64 significand divided once by a power of ten: two roundings, so this value comes back
  // one unit in the last place above the correctly rounded one, in tlparse's outputs and ours.
  CHECK(compact("1715885247.9018195") == "1715885247.9018197");
  CHECK(compact("0.1") == "0.1");
  CHECK(compact("123456789012345678901234567890") == "1.2345678901234568e29");
  CHECK(compact("1.23456789012345678901234567890") == "1.2345678901234567");
  CHECK(compact("-0.0") == "-0.0");
  CHECK(compact("2.5e-3") == "0.0025");
}

TEST_CASE(
    "strings are escaped like serde_json: short escapes, lowercase u00xx escapes, raw UTF-8") {
  CHECK(compact(R"(["a\"b\\c\/d", "\u0001\b\f\n\r\t", "\u00e9\ud83d\ude00", "\u007f"])") ==
        "[\"a\\\"b\\\\c/d\",\"\\u0001\\b\\f\\n\\r\\t\",\"\xC3\xA9\xF0\x9F\x98\x80\",\"\x7f\"]");
}

TEST_CASE("documents serde_json rejects are rejected so callers keep the raw text") {
  using tlparse::report::parse_json;
  CHECK_FALSE(parse_json("").has_value());
  CHECK_FALSE(parse_json("[1,]").has_value());
  CHECK_FALSE(parse_json("{\"a\":1,}").has_value());
  CHECK_FALSE(parse_json("01").has_value());
  CHECK_FALSE(parse_json("1.").has_value());
  CHECK_FALSE(parse_json("\"a\tb\"").has_value());
  CHECK_FALSE(parse_json("\"\\ud800\"").has_value());
  CHECK_FALSE(parse_json("\"\\udc00\"").has_value());
  CHECK_FALSE(parse_json("[1] x").has_value());
  CHECK_FALSE(parse_json("1e400").has_value());
  CHECK_FALSE(parse_json("{'a': 1}").has_value());
  CHECK_FALSE(parse_json(std::string(200, '[') + std::string(200, ']')).has_value());
  CHECK(parse_json(std::string(100, '[') + std::string(100, ']')).has_value());
}

TEST_CASE("invalid UTF-8 inside JSON strings is replaced, never fatal") {
  CHECK(compact("[\"a\xFF"
                "b\"]") == "[\"a\xEF\xBF\xBD"
                           "b\"]");
}

TEST_CASE("re-printing every reference compile_directory.json reproduces its bytes") {
  const auto shared = test_support::shared_dir();
  if (!shared) {
    TORCHSCOPE_SKIP("the shared corpus is absent (docs/BUILDING.md, Test data)");
  }
  int checked = 0;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(*shared / "reference" / "tlparse-0.4.3")) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || !name.ends_with("compile_directory.json")) {
      continue;
    }
    const std::string original = test_support::read_file(entry.path());
    INFO(entry.path().string());
    CHECK(pretty(original) == original);
    ++checked;
  }
  CHECK(checked > 10);
}

TEST_CASE("a repo-committed reference compile_directory.json also round-trips") {
  const auto data = test_support::source_dir() / "tests" / "data" / "pytorch-2.11";
  if (!std::filesystem::is_directory(data)) {
    TORCHSCOPE_SKIP("tests/data/pytorch-2.11 is absent");
  }
  int checked = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(data)) {
    if (entry.is_regular_file() && entry.path().filename() == "compile_directory.json") {
      const std::string original = test_support::read_file(entry.path());
      CHECK(pretty(original) == original);
      ++checked;
    }
  }
  WARN("round-tripped " << checked << " committed compile_directory.json files");
}

namespace {

// The streamed printer against the tree printer: same bytes, or both refuse.
void check_streamed_like_tree(std::string_view text) {
  INFO("text: " << text.substr(0, 200));
  std::string streamed = "prefix";
  const bool ok = tlparse::report::write_compact_json(streamed, text);
  const auto tree = tlparse::report::parse_json(text);
  REQUIRE(ok == tree.has_value());
  if (!ok) {
    CHECK(streamed == "prefix"); // left as it was
    CHECK_FALSE(tlparse::report::compact_json_members(text).has_value());
    return;
  }
  std::string expected = "prefix";
  tlparse::report::write_compact(expected, *tree);
  CHECK(streamed == expected);
  const auto members = tlparse::report::compact_json_members(text);
  REQUIRE(members.has_value() == tree->is_object());
  if (members) {
    REQUIRE(members->size() == tree->members().size());
    for (std::size_t i = 0; i < members->size(); ++i) {
      std::string value;
      tlparse::report::write_compact(value, tree->members()[i].second);
      CHECK((*members)[i].first == tree->members()[i].first);
      CHECK((*members)[i].second == value);
    }
  }
}

// A random JSON-ish text: valid most of the time, with unsorted and duplicate keys, escapes,
// numbers of every kind, nesting, and now and then a broken byte.
std::string random_json(std::uint32_t& seed, int depth) {
  const auto next = [&] {
    seed = seed * 1664525u + 1013904223u;
    return seed >> 8;
  };
  static const char* const kScalars[] = {"null",
                                         "true",
                                         "false",
                                         "0",
                                         "-0",
                                         "1.5",
                                         "-2e-7",
                                         "18446744073709551615",
                                         "18446744073709551616",
                                         "-9223372036854775808",
                                         "1715885247.9018195",
                                         "\"\"",
                                         "\"a\\u00e9\\n\\\"q\\\\\"",
                                         "\"\\ud83d\\ude00\"",
                                         "\"tab\\tctl\\u0001\"",
                                         "1e400",
                                         "[1,]"};
  static const char* const kKeys[] = {"b", "a", "aa", "", "\\u0000", "\\\"", "z", "A", "\xc3\xa9"};
  const std::uint32_t pick = next() % 10;
  if (depth > 5 || pick < 4) {
    return kScalars[next() % (sizeof kScalars / sizeof *kScalars)];
  }
  std::string out;
  const std::uint32_t n = next() % 6;
  if (pick < 7) {
    out = "[";
    for (std::uint32_t i = 0; i < n; ++i) {
      out += (i ? ", " : " ") + random_json(seed, depth + 1);
    }
    return out + " ]";
  }
  out = "{";
  for (std::uint32_t i = 0; i < n; ++i) {
    out += std::string(i ? "," : "") + " \"" + kKeys[next() % (sizeof kKeys / sizeof *kKeys)] +
           "\" : " + random_json(seed, depth + 1);
  }
  return out + "}";
}

} // namespace

TEST_CASE("the streamed compact printer writes the tree printer's bytes") {
  for (const char* text :
       {R"({"b": 1, "a": [true, null, "x"], "c": {}, "d": []})", R"({"a": 1, "b": 2, "a": 3})",
        R"({"z": {"y": 1, "x": {"w": [1, {"v": 2, "u": 3}]}}, "a": 0})", "[]", "  3  ", "\"s\"",
        R"({"a": 1,})", "[1,]", "{\"a\" 1}", "", "nul", "[1] x", "{\"k\": \"\xff\xfe\"}",
        R"({"a": {"b": 1, "b": {"c": 2}}, "a": {"d": 3}})", "{\"\xc3\xa9\": 1, \"z\": 2}"}) {
    check_streamed_like_tree(text);
  }
  std::uint32_t seed = 17;
  for (int i = 0; i < 3000; ++i) {
    check_streamed_like_tree(random_json(seed, 0));
  }
}

TEST_CASE("the streamed compact printer keeps serde's depth limit and handles wide input") {
  for (const int depth : {127, 128, 129}) {
    check_streamed_like_tree(std::string(static_cast<std::size_t>(depth), '[') +
                             std::string(static_cast<std::size_t>(depth), ']'));
    std::string nested;
    for (int i = 0; i < depth; ++i) {
      nested += "{\"b\": 1, \"a\": ";
    }
    nested += "0" + std::string(static_cast<std::size_t>(depth), '}');
    check_streamed_like_tree(nested);
  }
  // A wide object of unsorted keys and a long array of small objects (the 100k-frame stack).
  std::string wide = "{";
  for (int i = 5000; i > 0; --i) {
    wide += "\"k" + std::to_string(i) + "\": " + std::to_string(i) + (i > 1 ? ", " : "}");
  }
  check_streamed_like_tree(wide);
  std::string frames = "{\"dynamo_start\": {\"stack\": [";
  for (int i = 0; i < 20000; ++i) {
    frames += (i ? ", " : "") + std::string("{\"line\": ") + std::to_string(i) +
              ", \"name\": \"f\", \"filename\": 0}";
  }
  check_streamed_like_tree(frames + "]}, \"frame_id\": 0}");
}
