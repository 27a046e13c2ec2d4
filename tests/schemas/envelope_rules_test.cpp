// The schemas against the envelope shapes tlparse 0.4.3 refuses (docs/TLPARSE-INGEST.md, "The
// envelope": a wrong type on a recognised key or a missing required field fails its whole line) and
// the shapes it takes (new fields, unknown kinds, null compiled-autograd ids).
#include "schemas/trace_scan.h"

#include <catch2/catch.hpp>
#include <string>

namespace {

using torchscope::test::ScanCounts;
using torchscope::test::TraceScanner;

// Checks one envelope; returns all violation messages joined ("" when it is valid).
std::string violations_of(TraceScanner& scanner, const std::string& json,
                          const std::string* payload = nullptr) {
  ScanCounts counts;
  scanner.check_envelope(json, payload, "inline", 1, &counts);
  REQUIRE(counts.invalid_json == 0);
  std::string out;
  for (const auto& v : counts.violations) {
    out += v.what + "\n";
  }
  return out;
}

} // namespace

TEST_CASE("schemas reject the envelope shapes tlparse 0.4.3 fails to deserialize", "[schemas]") {
  TraceScanner scanner;
  REQUIRE(scanner.ok());
  struct Case {
    const char* json;
    const char* expected;
  };
  const Case cases[] = {
      {R"({"dynamo_start": {"stack": []}, "rank": "0"})", "/rank: expected integer, got string"},
      {R"({"dynamo_start": {"stack": []}, "frame_id": -1})", "/frame_id: -1 is below 0"},
      {R"({"dynamo_start": {"stack": []}, "attempt": 1.5})", "/attempt: expected integer"},
      {R"({"str": ["x"]})", "array has 1 items, minItems is 2"},
      {R"({"str": ["x", 1, 2]})", "/2: no value is allowed here"},
      {R"({"dynamo_start": {"stack": [{"line": 1, "name": "f", "filename": -1}]}})",
       "/stack/0/filename: -1 is below 0"},
      {R"({"dynamo_start": {"stack": [{"line": 1, "name": "f"}]}})",
       "missing required property 'filename'"},
      {R"({"dynamo_start": {}})", "missing required property 'stack'"},
      {R"({"describe_storage": {"id": 0, "describer_id": 0}})", "missing required property 'size'"},
      {R"({"describe_tensor": {"id": 0, "describer_id": 0, "ndim": 1, "dtype": "f32", "device": "cpu"}})",
       "missing required property 'size'"},
      {R"({"describe_source": {"id": 0, "describer_id": 0, "source": 3}})",
       "/source: expected string"},
      {R"({"artifact": {"name": "x"}})", "missing required property 'encoding'"},
      {R"({"link": {"url": "https://example.invalid"}})", "missing required property 'name'"},
      {R"({"graph_dump": {"type": "fx"}})", "missing required property 'name'"},
      {R"({"dump_file": {"name": 1}})", "/name: expected string"},
      {R"({"compilation_metrics": {"co_firstlineno": "12"}})",
       "/co_firstlineno: expected integer or null, got string"},
      {R"({"guard_added_fast": {"expr": "s0 > 1", "stack": "no"}})", "anyOf: 0 of 2"},
      {R"({"inductor_output_code": {"filename": 7}, "has_payload": "d41d8cd98f00b204e9800998ecf8427e"})",
       "/filename: expected string or null"},
      {R"({"aot_forward_graph": [], "has_payload": "d41d8cd98f00b204e9800998ecf8427e"})",
       "expected object, got array"},
      {R"({"chromium_event": "x"})", "expected object or array, got string"},
  };
  for (const auto& c : cases) {
    INFO(c.json);
    std::string found = violations_of(scanner, c.json);
    INFO(found);
    CHECK(found.find(c.expected) != std::string::npos);
  }
}

TEST_CASE("schemas accept what tlparse 0.4.3 accepts: new fields, unknown kinds, null ids",
          "[schemas]") {
  TraceScanner scanner;
  REQUIRE(scanner.ok());
  const char* const accepted[] = {
      R"({"dynamo_start": {"stack": [], "new_field": 1}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0, "compiled_autograd_id": null})",
      R"({"dynamo_start": {"stack": [{"line": 1, "name": "f", "filename": 0, "loc": "x = 1", "new": true}]}, "compiled_autograd_id": 2, "rank": 1})",
      R"j({"describe_tensor": {"id": 0, "describer_id": 0, "ndim": 1, "dtype": "torch.float32", "device": "device(type='cpu')", "size": [4], "is_brand_new_flag": true}})j",
      R"({"compilation_metrics": {"fail_type": null, "restart_reasons": [], "some_future_metric_us": 12}})",
      R"({"artifact": {"name": "a_third_party_artifact", "encoding": "json"}, "stack": [{"line": 3, "name": "g", "filename": 2}]})",
      R"({"vllm_custom_event": {"whatever": [1, 2]}, "frame_id": 0})",
      R"({"stack": [{"line": 3, "name": "g", "filename": 2}]})",
  };
  for (const char* json : accepted) {
    INFO(json);
    CHECK(violations_of(scanner, json).empty());
  }
}

TEST_CASE("fixed-shape payloads are checked against their schemas", "[schemas]") {
  TraceScanner scanner;
  REQUIRE(scanner.ok());
  const std::string envelope_md5 = R"(, "has_payload": "d41d8cd98f00b204e9800998ecf8427e"})";
  auto with_payload = [&](const std::string& head, const std::string& payload) {
    return violations_of(scanner, head + envelope_md5, &payload);
  };
  const std::string chromium = R"({"chromium_event": {})";
  CHECK(with_payload(chromium, R"({"name": "dynamo", "ts": 1.5, "ph": "B", "pid": 0, "tid": 0,
                                   "cat": "dynamo_timed", "args": {"compile_id": "0/0"}})")
            .empty());
  CHECK(with_payload(chromium, R"({"name": "dynamo", "ts": 1.5, "ph": "Q", "pid": 0, "tid": 0})")
            .find("/ph:") != std::string::npos);
  CHECK(with_payload(chromium, R"({"name": "x", "ts": 1, "ph": "i", "pid": 0, "tid": 0,
                                   "args": {"compile_id": 3}})")
            .find("/args/compile_id") != std::string::npos);
  const std::string reasons = R"({"artifact": {"name": "recompile_reasons", "encoding": "json"})";
  CHECK(with_payload(reasons, R"(["0/0: tensor 'x' size mismatch"])").empty());
  CHECK(with_payload(reasons, R"([1])").find("/0: expected string") != std::string::npos);
  const std::string guards = R"({"dynamo_guards": {})";
  CHECK(with_payload(guards, R"([{"code": "x.size(0) == 8", "stack": null, "user_stack": null}])")
            .empty());
  CHECK(with_payload(guards, R"([{"stack": null}])").find("missing required property 'code'") !=
        std::string::npos);
  // A payload that is not JSON is counted, not a violation.
  ScanCounts counts;
  std::string text = "0/0: a lone reason";
  scanner.check_envelope(reasons + envelope_md5, &text, "inline", 1, &counts);
  CHECK(counts.violations.empty());
  CHECK(counts.payload_not_json["artifact:recompile_reasons"] == 1);
  // A string-encoded artifact's payload is text: no JSON check.
  counts = ScanCounts{};
  scanner.check_envelope(R"({"artifact": {"name": "recompile_reasons", "encoding": "string"})" +
                             envelope_md5,
                         &text, "inline", 1, &counts);
  CHECK(counts.payload_not_json.empty());
  CHECK(counts.payloads_checked == 0);
}
