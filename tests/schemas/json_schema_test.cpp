// Unit tests of the test-only JSON Schema validator: each keyword accepts what it should and,
// above all, rejects what it should, so that a passing corpus scan means something.
#include "schemas/json_schema.h"
#include "support/test_paths.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

using torchscope::test::SchemaError;
using torchscope::test::SchemaSet;

// Validates `instance_json` against the in-memory schema `schema_json`; returns the errors.
std::vector<SchemaError> errors_for(const std::string& schema_json,
                                    const std::string& instance_json) {
  SchemaSet set;
  std::string error;
  REQUIRE(set.add_document("mem/s.schema.json", schema_json, &error));
  simdjson::dom::parser parser;
  simdjson::dom::element instance;
  REQUIRE(parser.parse(instance_json).get(instance) == simdjson::SUCCESS);
  std::vector<SchemaError> errors;
  bool ok = set.validate(instance, "mem/s.schema.json", &errors);
  CHECK(ok == errors.empty());
  return errors;
}

bool valid(const std::string& schema_json, const std::string& instance_json) {
  return errors_for(schema_json, instance_json).empty();
}

bool mentions(const std::vector<SchemaError>& errors, const std::string& text) {
  for (const auto& e : errors) {
    if (to_string(e).find(text) != std::string::npos) {
      return true;
    }
  }
  return false;
}

} // namespace

TEST_CASE("validator checks a single type and rejects every other type", "[schemas]") {
  CHECK(valid(R"({"type": "string"})", R"("x")"));
  CHECK_FALSE(valid(R"({"type": "string"})", "1"));
  CHECK_FALSE(valid(R"({"type": "object"})", "[]"));
  CHECK_FALSE(valid(R"({"type": "array"})", "{}"));
  CHECK_FALSE(valid(R"({"type": "boolean"})", "0"));
  CHECK_FALSE(valid(R"({"type": "null"})", "false"));
  CHECK(valid(R"({"type": "null"})", "null"));
  auto errors = errors_for(R"({"type": "string"})", "1");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].message == "expected string, got integer");
}

TEST_CASE("validator counts whole numbers as integers and fractions as numbers only", "[schemas]") {
  CHECK(valid(R"({"type": "integer"})", "3"));
  CHECK(valid(R"({"type": "integer"})", "-3"));
  CHECK(valid(R"({"type": "integer"})", "18446744073709551615"));
  CHECK(valid(R"({"type": "integer"})", "2.0"));
  CHECK_FALSE(valid(R"({"type": "integer"})", "2.5"));
  CHECK(valid(R"({"type": "number"})", "2.5"));
  CHECK(valid(R"({"type": "number"})", "7"));
  CHECK_FALSE(valid(R"({"type": "number"})", R"("7")"));
}

TEST_CASE("validator accepts any type of a type array and names them all when none fits",
          "[schemas]") {
  CHECK(valid(R"({"type": ["integer", "null"]})", "null"));
  CHECK(valid(R"({"type": ["integer", "null"]})", "4"));
  auto errors = errors_for(R"({"type": ["integer", "null"]})", R"("4")");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].message == "expected integer or null, got string");
}

TEST_CASE("validator reports a missing required property by name", "[schemas]") {
  const char* schema = R"({"type": "object", "required": ["name", "url"]})";
  CHECK(valid(schema, R"({"name": "a", "url": "b", "extra": 1})"));
  auto errors = errors_for(schema, R"({"name": "a"})");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].message == "missing required property 'url'");
  // required says nothing about non-objects: type does.
  CHECK(valid(R"({"required": ["x"]})", "[]"));
}

TEST_CASE("validator checks properties and points at the failing member", "[schemas]") {
  const char* schema =
      R"({"properties": {"a": {"type": "array", "items": {"properties": {"b": {"type": "integer"}}}}}})";
  CHECK(valid(schema, R"({"a": [{"b": 1}, {"c": "x"}]})"));
  auto errors = errors_for(schema, R"({"a": [{"b": 1}, {"b": "x"}]})");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].instance_path == "/a/1/b");
  CHECK(errors[0].schema_path.find("#/properties/a/items/properties/b/type") != std::string::npos);
}

TEST_CASE("validator applies additionalProperties only to undeclared members", "[schemas]") {
  const char* closed = R"({"properties": {"a": {}}, "additionalProperties": false})";
  CHECK(valid(closed, R"({"a": 1})"));
  auto errors = errors_for(closed, R"({"a": 1, "b": 2})");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].instance_path == "/b");
  const char* typed = R"({"properties": {"n": {"type": "integer"}},
                          "additionalProperties": {"type": ["object", "array"]}})";
  CHECK(valid(typed, R"({"n": 1, "kind": {}})"));
  CHECK_FALSE(valid(typed, R"({"n": 1, "kind": "text"})"));
  CHECK(valid(R"({"additionalProperties": true})", R"({"anything": 1})"));
}

TEST_CASE("validator checks prefixItems position by position and items after the prefix",
          "[schemas]") {
  const char* pair = R"({"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}],
                         "minItems": 2, "items": false})";
  CHECK(valid(pair, R"(["file.py", 3])"));
  CHECK_FALSE(valid(pair, R"([3, "file.py"])"));
  CHECK_FALSE(valid(pair, R"(["file.py"])"));
  CHECK_FALSE(valid(pair, R"(["file.py", 3, 4])"));
  const char* rest = R"({"prefixItems": [{"type": "string"}], "items": {"type": "integer"}})";
  CHECK(valid(rest, R"(["a", 1, 2])"));
  CHECK_FALSE(valid(rest, R"(["a", 1, "b"])"));
}

TEST_CASE("validator enforces minItems maxItems minProperties and maxProperties", "[schemas]") {
  CHECK_FALSE(valid(R"({"maxItems": 1})", "[1, 2]"));
  CHECK(valid(R"({"maxItems": 1})", "[1]"));
  CHECK_FALSE(valid(R"({"minProperties": 1})", "{}"));
  CHECK(valid(R"({"minProperties": 1})", R"({"a": 1})"));
  CHECK_FALSE(valid(R"({"maxProperties": 1})", R"({"a": 1, "b": 2})"));
}

TEST_CASE("validator compares enum and const values as JSON, not as text", "[schemas]") {
  CHECK(valid(R"({"enum": ["string", "json"]})", R"("json")"));
  CHECK_FALSE(valid(R"({"enum": ["string", "json"]})", R"("binary")"));
  CHECK(valid(R"({"const": 1})", "1.0"));
  CHECK_FALSE(valid(R"({"const": 1})", R"("1")"));
  CHECK(valid(R"({"const": {"a": [1, null]}})", R"({"a": [1, null]})"));
  CHECK_FALSE(valid(R"({"const": {"a": [1, null]}})", R"({"a": [1, null], "b": 0})"));
  CHECK_FALSE(valid(R"({"const": [1, 2]})", "[1, 2, 3]"));
}

TEST_CASE("validator requires exactly one oneOf branch and at least one anyOf branch",
          "[schemas]") {
  const char* one = R"({"oneOf": [{"type": "integer"}, {"type": "number"}]})";
  CHECK(valid(one, "1.5"));
  auto errors = errors_for(one, "1");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].message.find("2 of 2 subschemas matched") != std::string::npos);
  CHECK_FALSE(valid(one, R"("x")"));
  const char* any = R"({"anyOf": [{"type": "integer"}, {"type": "number"}]})";
  CHECK(valid(any, "1"));
  CHECK_FALSE(valid(any, "null"));
  CHECK_FALSE(valid(R"({"allOf": [{"type": "integer"}, {"minimum": 5}]})", "4"));
  CHECK_FALSE(valid(R"({"not": {"type": "null"}})", "null"));
}

TEST_CASE("validator enforces minimum and maximum on numbers only", "[schemas]") {
  CHECK(valid(R"({"minimum": 0})", "0"));
  CHECK_FALSE(valid(R"({"minimum": 0})", "-1"));
  CHECK_FALSE(valid(R"({"minimum": 0})", "-0.5"));
  CHECK(valid(R"({"minimum": 0})", R"("-1")"));
  CHECK_FALSE(valid(R"({"maximum": 10})", "10.5"));
}

TEST_CASE("validator matches pattern anywhere in the string unless anchored", "[schemas]") {
  const char* md5 = R"({"pattern": "^[0-9a-f]{32}$"})";
  CHECK(valid(md5, R"("e68b47b4902f78a13d5519c8a52f9cb5")"));
  CHECK_FALSE(valid(md5, R"("E68B47B4902F78A13D5519C8A52F9CB5")"));
  CHECK_FALSE(valid(md5, R"("e68b47b4902f78a13d5519c8a52f9cb")"));
  CHECK(valid(R"({"pattern": "b+"})", R"("abbc")"));
}

TEST_CASE("validator false schema rejects everything and true schema accepts everything",
          "[schemas]") {
  CHECK_FALSE(valid("false", "null"));
  CHECK(valid("true", R"({"a": [1]})"));
}

TEST_CASE("validator follows $ref inside the document and into sibling files", "[schemas]") {
  SchemaSet set;
  std::string error;
  REQUIRE(set.add_document("mem/common.schema.json",
                           R"({"$defs": {"count": {"type": "integer", "minimum": 0},
                               "a~b/c": {"type": "string"}}})",
                           &error));
  REQUIRE(set.add_document("mem/events/e.schema.json",
                           R"({"type": "object",
                               "properties": {
                                 "n": {"$ref": "../common.schema.json#/$defs/count"},
                                 "s": {"$ref": "../common.schema.json#/$defs/a~0b~1c"},
                                 "m": {"$ref": "#/$defs/local"}},
                               "$defs": {"local": {"type": "boolean"}}})",
                           &error));
  simdjson::dom::parser parser;
  auto check_instance = [&](const char* json) {
    simdjson::dom::element instance;
    REQUIRE(parser.parse(json, std::strlen(json)).get(instance) == simdjson::SUCCESS);
    std::vector<SchemaError> errors;
    return set.validate(instance, "mem/events/e.schema.json", &errors);
  };
  CHECK(check_instance(R"({"n": 3, "s": "x", "m": true})"));
  CHECK_FALSE(check_instance(R"({"n": -3})"));
  CHECK_FALSE(check_instance(R"({"s": 1})"));
  CHECK_FALSE(check_instance(R"({"m": 1})"));
}

TEST_CASE("validator reports an unresolvable $ref as a schema error, never as valid", "[schemas]") {
  auto errors = errors_for(R"({"$ref": "#/$defs/missing"})", "1");
  REQUIRE(errors.size() == 1);
  CHECK(mentions(errors, "schema error: $ref does not resolve"));
  CHECK(mentions(errors_for(R"({"$ref": "nowhere.schema.json"})", "1"), "cannot read"));
  // A broken branch of anyOf is still a broken schema even though another branch matches.
  CHECK_FALSE(valid(R"({"anyOf": [{"type": "integer"}, {"$ref": "#/nope"}]})", "1"));
}

TEST_CASE("validator refuses keywords it does not implement", "[schemas]") {
  auto errors = errors_for(R"({"type": "string", "maxLength": 3})", R"("abcdef")");
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].message == "schema error: unsupported keyword 'maxLength'");
  CHECK_FALSE(valid(R"({"type": "strin"})", R"("a")"));
}

TEST_CASE("validator lint finds bad keywords and dangling refs in branches no instance reaches",
          "[schemas]") {
  torchscope::test::SchemaSet set;
  std::string error;
  test_support::TempDir temp("torchscope-schemas-lint");
  const auto& dir = temp.path();
  auto write = [&](const char* name, const char* text) {
    std::FILE* f = std::fopen((dir / name).c_str(), "w");
    REQUIRE(f != nullptr);
    std::fputs(text, f);
    std::fclose(f);
  };
  write("good.schema.json",
        R"({"$defs": {"x": {"type": "integer"}},
            "oneOf": [{"$ref": "#/$defs/x"}, {"type": "null"}]})");
  write("bad.schema.json",
        R"({"$defs": {"x": {"format": "uri"}},
            "anyOf": [{"$ref": "#/$defs/y"}, {"type": ["string", 3]}],
            "required": "name"})");
  CHECK(set.lint((dir / "good.schema.json").string()).empty());
  auto errors = set.lint((dir / "bad.schema.json").string());
  CHECK(mentions(errors, "unsupported keyword 'format'"));
  CHECK(mentions(errors, "$ref does not resolve: #/$defs/y"));
  CHECK(mentions(errors, "type arrays hold type names"));
  CHECK(mentions(errors, "required must be an array"));
}
