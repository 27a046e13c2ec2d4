// serde_json-compatible printing: the JSON files tlparse users script against must come out
// byte-for-byte as tlparse 0.4.3 wrote them.
#include "support/test_paths.h"
#include "tlparse/highlight/html.h"
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
    std::string pretty_streamed = "prefix";
    CHECK_FALSE(tlparse::report::write_pretty_json(pretty_streamed, text));
    CHECK(pretty_streamed == "prefix");
    CHECK_FALSE(tlparse::report::pretty_print_json(text).has_value());
    tlparse::report::JsonStringMemo memo(1u << 20, 1);
    CHECK_FALSE(tlparse::report::write_pretty_json_html(pretty_streamed, text, &memo));
    CHECK(pretty_streamed == "prefix");
    CHECK_FALSE(tlparse::report::compact_json_members(text).has_value());
    return;
  }
  std::string expected = "prefix";
  tlparse::report::write_compact(expected, *tree);
  CHECK(streamed == expected);
  std::string pretty_streamed = "prefix";
  REQUIRE(tlparse::report::write_pretty_json(pretty_streamed, text));
  std::string pretty_tree = "prefix";
  tlparse::report::write_pretty(pretty_tree, *tree);
  CHECK(pretty_streamed == pretty_tree);
  // Escaped for HTML in the same pass, with and without the memo of long literals (tiny here,
  // so that every string literal goes through it, the second printing from the memo).
  const std::string escaped = "prefix" + tlparse::highlight::html_escape(pretty_tree.substr(6));
  std::string html = "prefix";
  REQUIRE(tlparse::report::write_pretty_json_html(html, text));
  CHECK(html == escaped);
  tlparse::report::JsonStringMemo memo(1u << 20, 1);
  for (int pass = 0; pass < 2; ++pass) {
    html = "prefix";
    REQUIRE(tlparse::report::write_pretty_json_html(html, text, &memo));
    CHECK(html == escaped);
  }
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

TEST_CASE("the streamed printers write the tree printers' bytes") {
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

TEST_CASE("the streamed printers keep serde's depth limit and handle wide input") {
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

TEST_CASE("the streamed printers match the tree printers on hostile JSON") {
  // Escapes of every kind, written back as serde_json writes the decoded string: \/ loses its
  // backslash, \u escapes of printable ASCII and of non-ASCII are decoded, controls stay escaped.
  for (const char* text :
       {R"(["\/\"\\\b\f\n\r\t", "\u0041\u007f\u0000\u001f\u0022\u005c\u00e9\u20ac"])",
        R"({"\u0062": 1, "a": 2, "\u0061": 3})", R"(["\ud83d\ude00", "\uD83D\uDE00x"])",
        R"(["\ud83d"])", R"(["\ude00"])", R"(["\ud83d\u0041"])", R"(["\u00zz"])", R"(["\q"])",
        "[\"raw\ttab\"]", "[\"\x7f del\"]",
        // Invalid UTF-8 is repaired (as parse_json does), in keys and values.
        "{\"\xff\": \"\xc3\", \"\xed\xa0\x80\": [\"\xf4\x90\x80\x80\"]}",
        // Numbers: huge integers fall back to f64, -0 is a float, exponents at the edges.
        "[18446744073709551615, 18446744073709551616, -9223372036854775808, "
        "-9223372036854775809, -0, 0.0, 1e308, 1e309, 1e-400, 123456789012345678901234567890, "
        "1.7976931348623157e308, 5e-324, 0.1, -1.5E+3, 1715885247.9018195]",
        "[01]", "[1.]", "[.5]", "[1e]", "[-]", "[+1]",
        // Whitespace of every allowed kind, and what serde refuses around it.
        " \t\r\n{ \"a\" \t: \n[ 1 ,\r2 ] } \n", "{\"a\":1}\f", "\xef\xbb\xbf{}",
        R"({"a": [{"c": 1, "b": {"e": [], "d": {}}}, {}], "a": {"z": [[[]]]}})", "{}", "[[]]",
        "[{}]", R"({"":{"":{"":""}}})", "tru", "nulll", "\"unterminated",
        // Ending inside an escape (the memo looks for a literal's end before printing it).
        "\"\\", "[\"abc\\", "{\"k\": \"abc\\", "[\"\\u12", "[\"\\ud83d\\", "[\"a\"", "{\"a\":}"}) {
    check_streamed_like_tree(text);
  }
  // Nesting at and past serde's limit, mixed arrays and objects, in the pretty layout too.
  for (const int depth : {64, 128, 129, 400}) {
    std::string mixed;
    for (int i = 0; i < depth; ++i) {
      mixed += i % 2 == 0 ? "[" : "{\"z\": 0, \"k\":";
    }
    mixed += "\"leaf\"";
    for (int i = depth - 1; i >= 0; --i) {
      mixed += i % 2 == 0 ? "]" : "}";
    }
    check_streamed_like_tree(mixed);
  }
  std::uint32_t seed = 4242;
  for (int i = 0; i < 3000; ++i) {
    std::string text = random_json(seed, 0);
    if (i % 7 == 0 && !text.empty()) {
      text[seed % text.size()] = static_cast<char>(0x80 + seed % 0x7f); // a broken byte
    }
    check_streamed_like_tree(text);
  }
}

TEST_CASE("JsonMembers reuses its buffers and reads each document afresh") {
  tlparse::report::JsonMembers members;
  REQUIRE(members.read(R"({"b": [1, 2], "a": "x", "b": {"y": 1, "x": 2}})"));
  REQUIRE(members.size() == 2);
  CHECK(members[0].key == "a");
  CHECK(members[0].member == R"("a":"x")");
  CHECK(members[0].value == R"("x")");
  CHECK(members[1].key == "b");
  CHECK(members[1].value == R"({"x":2,"y":1})");
  REQUIRE(members.read("{\"\\n\": null}"));
  REQUIRE(members.size() == 1);
  CHECK(members[0].key == "\n");
  CHECK(members[0].member == "\"\\n\":null");
  CHECK_FALSE(members.read("[1]"));
  REQUIRE(members.read("{}"));
  CHECK(members.size() == 0);
  REQUIRE(members.read("{\"\xff\": 1}")); // repaired, as parse_json repairs
  REQUIRE(members.size() == 1);
  CHECK(members[0].key == "\xEF\xBF\xBD");
}

TEST_CASE("the memo of long literals keeps to its bound and serves only equal literals") {
  const std::string config = "\"" + std::string(3000, 'x') + "<&>\\\"\\u0041\"";
  const std::string doc = "{\"b\": " + config + ", \"a\": " + config + ", \"c\": \"<short>\"}";
  tlparse::report::JsonStringMemo memo(1u << 20);
  std::string html;
  REQUIRE(tlparse::report::write_pretty_json_html(html, doc, &memo));
  CHECK(memo.hits() == 1); // the second member's literal
  const auto pretty = tlparse::report::pretty_print_json(doc);
  REQUIRE(pretty.has_value());
  CHECK(html == tlparse::highlight::html_escape(*pretty));
  // A literal that differs in one byte is printed afresh, not taken from the memo.
  std::string other = config;
  other[10] = 'y';
  html.clear();
  REQUIRE(tlparse::report::write_pretty_json_html(html, "[" + other + "]", &memo));
  CHECK(memo.hits() == 1);
  CHECK(html.find("xxxxxxxxy") != std::string::npos);
  const auto other_pretty = tlparse::report::pretty_print_json("[" + other + "]");
  REQUIRE(other_pretty.has_value());
  CHECK(html == tlparse::highlight::html_escape(*other_pretty));
  // Full: nothing more is kept, and printing stays right.
  tlparse::report::JsonStringMemo small(100);
  html.clear();
  REQUIRE(tlparse::report::write_pretty_json_html(html, doc, &small));
  CHECK(small.hits() == 0);
  CHECK(html == tlparse::highlight::html_escape(*pretty));
}
