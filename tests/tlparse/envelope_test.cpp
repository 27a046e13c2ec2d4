// Envelope decoding follows tlparse 0.4.3's serde typing (docs/TLPARSE-INGEST.md, "The
// envelope" and "Compile ids").
#include "ingest/envelope/envelope.h"

#include <catch2/catch.hpp>

using tlparse::ingest::Envelope;
using tlparse::ingest::EnvelopeParser;

namespace {
Envelope parse(const std::string& text) {
  static EnvelopeParser parser;
  static std::string buf;
  buf = text;
  buf.reserve(text.size() + simdjson::SIMDJSON_PADDING);
  Envelope env;
  parser.parse(std::string_view(buf.data(), buf.size()), env);
  return env;
}
} // namespace

TEST_CASE("envelope decodes context keys and keeps the event keys in order",
          "[tlparse][envelope]") {
  const auto env = parse(R"({"artifact": {"name": "x", "encoding": "string"}, "frame_id": 1, )"
                         R"("frame_compile_id": 0, "attempt": 2, "rank": 3, "has_payload": "ab"})");
  REQUIRE(env.is_object);
  CHECK_FALSE(env.type_error);
  CHECK(env.cid_valid);
  CHECK(env.cid.frame_id == 1u);
  CHECK(env.cid.frame_compile_id == 0u);
  CHECK(env.cid.attempt == 2u);
  CHECK_FALSE(env.cid.compiled_autograd_id);
  CHECK(env.rank == 3u);
  REQUIRE(env.has_payload);
  CHECK(*env.has_payload == "ab");
  REQUIRE(env.fields.size() == 1);
  CHECK(env.fields[0].key == "artifact");
  CHECK(env.fields[0].raw_value == R"({"name": "x", "encoding": "string"})");
}

TEST_CASE("envelope with a wrong-typed compile id key gets an unknown compile id, not an error",
          "[tlparse][envelope]") {
  const auto env = parse(R"({"dynamo_start": {}, "frame_id": -1, "frame_compile_id": 0})");
  REQUIRE(env.is_object);
  CHECK_FALSE(env.type_error);
  CHECK_FALSE(env.cid_valid);
}

TEST_CASE("envelope with a wrong-typed rank or has_payload is a type error",
          "[tlparse][envelope]") {
  CHECK(parse(R"({"str": ["a", 0], "rank": "0"})").type_error);
  CHECK(parse(R"({"str": ["a", 0], "has_payload": 5})").type_error);
  const auto null_payload = parse(R"({"dynamo_start": {}, "has_payload": null})");
  CHECK_FALSE(null_payload.type_error);
  CHECK_FALSE(null_payload.has_payload);
}

TEST_CASE("envelope rejects broken JSON and non-objects", "[tlparse][envelope]") {
  CHECK_FALSE(parse(R"({"chromium_event": {}, "frame_id": 0, "has_pay)").is_object);
  const auto arr = parse("[1, 2]");
  CHECK_FALSE(arr.is_object);
  CHECK(arr.is_json);
  CHECK_FALSE(parse("not json").is_json);
}

TEST_CASE("envelope flags keys that would conflict with raw.jsonl columns", "[tlparse][envelope]") {
  CHECK(parse(R"({"dynamo_start": {}, "timestamp": 1})").key_conflict);
  CHECK_FALSE(parse(R"({"dynamo_start": {}})").key_conflict);
}

// Regression: text after the object's closing brace used to pass when the line still ended
// with '}' (`{"a": 1}}`); tlparse 0.4.3 rejects any trailing token.
TEST_CASE("envelope rejects text after the object", "[tlparse][envelope]") {
  CHECK_FALSE(parse(R"({"dynamo_start": {}} x)").is_object);
  CHECK_FALSE(parse(R"({"dynamo_start": {}}})").is_object);
  CHECK_FALSE(parse(R"({"dynamo_start": {}} {"str": ["a", 0]})").is_object);
  CHECK(parse("{\"dynamo_start\": {}}  \t").is_object);
}
