// The C API (tracer/tracer.h): the C test program's log reads with no failed line under tlparse
// 0.4.3's rules and our tlparse --strict; metadata in any layout is rewritten in PyTorch's;
// everything tlparse could not read is refused, counted and reported, and never written.
#include "support/test_paths.h"
#include "support/tlparse_rules.h"
#include "tracer/trace.h"
#include "tracer/tracer.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

// Starts a fresh trace in a temporary folder through the C API and stops it when done; collects
// what reaches the warning handler.
struct CTrace {
  test_support::TempDir dir{"tracer-c-api"};
  std::vector<std::string> warnings;

  CTrace() {
    torchscope_trace_set_warning_handler(
        [](const char* message, void* self) {
          static_cast<CTrace*>(self)->warnings.emplace_back(message);
        },
        this);
    torchscope_trace_options options = TORCHSCOPE_TRACE_OPTIONS_INIT;
    const std::string directory = dir.path().string();
    options.directory = directory.c_str();
    REQUIRE(torchscope_trace_start(&options) == TORCHSCOPE_TRACE_OK);
  }
  ~CTrace() {
    torchscope_trace_stop();
    torchscope_trace_set_warning_handler(torchscope_trace_print_warning_to_stderr, nullptr);
  }
  std::string text() const {
    char path[4096];
    REQUIRE(torchscope_trace_log_path(path, sizeof path) > 0);
    return test_support::read_file(path);
  }
  std::vector<std::string> envelopes() const {
    std::vector<std::string> out;
    for (const auto& ev : test_support::parse_by_tlparse_rules(text()).events) {
      out.push_back(ev.envelope);
    }
    return out;
  }
};

const torchscope_trace_location kHere = {"tests/tracer/c_api_test.cpp", 7, "test"};

// A compile id for the C API; -1 leaves a member absent.
torchscope_compile_id compile_id(std::int64_t frame, std::int64_t compile,
                                 std::int64_t attempt = -1) {
  torchscope_compile_id id = TORCHSCOPE_COMPILE_ID_INIT;
  id.frame_id = frame;
  id.frame_compile_id = compile;
  id.attempt = attempt;
  return id;
}

} // namespace

TEST_CASE("the C test program's log reads with no failed line in tlparse's rules and ours",
          "[tracer][c_api]") {
  test_support::TempDir dir("tracer-c-program");
  const std::string out = (dir.path() / "stdout.txt").string();
  const std::string trace = (dir.path() / "trace").string();
  const std::string cmd = "'" TORCHSCOPE_C_API_PROGRAM "' '" + trace + "' > '" + out + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  const auto logs = test_support::trace_files_under(trace);
  REQUIRE(logs.size() == 1);
  CHECK(test_support::read_file(out) == logs[0].string() + "\n");

  const auto counts = test_support::parse_file_by_tlparse_rules(logs[0]);
  INFO("fail_glog=" << counts.fail_glog << " fail_json=" << counts.fail_json
                    << " md5=" << counts.fail_payload_md5 << " other_rank=" << counts.other_rank);
  CHECK(counts.failures() == 0);
  CHECK(counts.kinds.at("dynamo_start") == 2);
  CHECK(counts.kinds.at("compilation_metrics") == 2);
  CHECK(counts.kinds.at("dynamo_output_graph") == 2);
  CHECK(counts.kinds.at("inductor_output_code") == 2);
  CHECK(counts.kinds.at("chromium_event") == 4);
  CHECK(counts.kinds.at("artifact") == 3);
  CHECK(counts.kinds.at("runtime_counters") == 1);
  CHECK(counts.kinds.count("bad_metadata") == 0);
  for (const auto& ev : counts.events) {
    if (ev.kind == "inductor_output_code") {
      CHECK(ev.payload.find('\r') == std::string::npos);
    }
    // The glog prefix names the C file and line of the call.
    if (ev.kind != "str") {
      CHECK(ev.pathname.find("c_api_program.c") != std::string::npos);
    }
  }

#ifdef TORCHSCOPE_TLPARSE_EXE
  const std::string report = (dir.path() / "report").string();
  const std::string tlparse = "'" TORCHSCOPE_TLPARSE_EXE "' '" + logs[0].string() + "' -o '" +
                              report + "' --strict --no-browser > '" +
                              (dir.path() / "tlparse.txt").string() + "' 2>&1";
  const int rc = std::system(tlparse.c_str());
  INFO(test_support::read_file(dir.path() / "tlparse.txt"));
  CHECK(rc == 0);
  CHECK(std::filesystem::exists(std::filesystem::path(report) / "-_0_1_0"));
#else
  WARN("tlparse is not built (TORCHSCOPE_BUILD_TLPARSE=OFF): only tlparse 0.4.3's rules checked");
#endif
}

TEST_CASE("metadata in any JSON layout is written on one line in PyTorch's layout",
          "[tracer][c_api]") {
  CTrace t;
  const torchscope_compile_id id = compile_id(3, 1);
  REQUIRE(torchscope_trace_push_compile_id(&id) == TORCHSCOPE_TRACE_OK);
  CHECK(torchscope_trace_event("my_pass",
                               "{\n  \"name\" : \"fuse\",\t\"ops\":[1,2 , 3],\r\n"
                               "  \"ratio\": 0.5e1, \"nested\": {\"a\": null, \"b\": true},\n"
                               "  \"text\": \"caf\xc3\xa9 \\u00e9 \\ud83d\\ude00 \\/\" }",
                               kHere) == TORCHSCOPE_TRACE_OK);
  CHECK(torchscope_trace_pop_compile_id() == TORCHSCOPE_TRACE_OK);
  const auto envelopes = t.envelopes();
  REQUIRE(envelopes.size() == 1);
  CHECK(envelopes[0] ==
        R"({"my_pass": {"name": "fuse", "ops": [1, 2, 3], "ratio": 0.5e1, )"
        R"("nested": {"a": null, "b": true}, "text": "caf\u00e9 \u00e9 \ud83d\ude00 /"}, )"
        R"("frame_id": 3, "frame_compile_id": 1})");
  CHECK(t.warnings.empty());
}

TEST_CASE("metadata tlparse could not read is refused, counted and reported, not written",
          "[tracer][c_api]") {
  CTrace t;
  const char* const bad[] = {
      "",
      "[]",
      "{\"a\": 1,}",
      "{\"a\": 1} {",
      "{\"a\": 01}",
      "{\"a\": NaN}",
      "{\"a\": 1e400}",
      "{\"a\": \"\x01\"}",
      "{\"a\": \"\xff\"}",
      "{\"a\": \"\\ud800\"}",
      "{\"a\": \"\\udc00x\"}",
      "{\"a\": 1, \"a\": 2}",
      "{'a': 1}",
      "{\"a\": tru}",
  };
  const std::uint64_t before = torchscope_trace_dropped_events();
  for (const char* metadata : bad) {
    INFO(metadata);
    CHECK(torchscope_trace_event("bad", metadata, kHere) == TORCHSCOPE_TRACE_INVALID_JSON);
  }
  std::string deep(200, '[');
  deep = "{\"a\": " + deep + std::string(200, ']') + "}";
  CHECK(torchscope_trace_event("bad", deep.c_str(), kHere) == TORCHSCOPE_TRACE_INVALID_JSON);
  CHECK(torchscope_trace_dropped_events() - before == std::size(bad) + 1);
  CHECK(t.text().empty());
  // The handler heard the first ones with their reason and place, then that the rest are only
  // counted.
  REQUIRE(t.warnings.size() == 10);
  CHECK(t.warnings[2] == "event refused: event: metadata expected a string key at byte 8");
  CHECK(t.warnings[9].find("further refused events are counted, not reported") !=
        std::string::npos);
  // Underflow reads as zero in tlparse: accepted.
  CHECK(torchscope_trace_event("ok", "{\"tiny\": 1e-400, \"big\": 123456789012345678901234}",
                               kHere) == TORCHSCOPE_TRACE_OK);
}

TEST_CASE("event kinds that are envelope keys are refused in both APIs", "[tracer][c_api]") {
  CTrace t;
  for (const char* kind : {"str", "stack", "rank", "frame_id", "frame_compile_id", "attempt",
                           "compiled_autograd_id", "has_payload", "pathname", "lineno", ""}) {
    INFO(kind);
    CHECK(torchscope_trace_event(kind, "{}", kHere) == TORCHSCOPE_TRACE_RESERVED_KIND);
  }
  const std::uint64_t before = tracer::dropped_events();
  tracer::event("rank", tracer::no_metadata);
  CHECK(tracer::dropped_events() == before + 1);
  CHECK(t.text().empty());
}

TEST_CASE("C pushes and C++ scopes nest, a pop out of order is refused", "[tracer][c_api]") {
  CTrace t;
  const torchscope_compile_id outer = compile_id(1, 0, 0);
  CHECK(torchscope_trace_pop_compile_id() == TORCHSCOPE_TRACE_SCOPE_MISMATCH);
  REQUIRE(torchscope_trace_push_compile_id(&outer) == TORCHSCOPE_TRACE_OK);
  CHECK(tracer::current_compile_id()->to_string() == "[1/0]");
  {
    tracer::CompileScope inner({.compiled_autograd_id = 0, .frame_id = 2, .frame_compile_id = 1});
    // The innermost id is the C++ scope's: popping the C push now would corrupt the stack.
    CHECK(torchscope_trace_pop_compile_id() == TORCHSCOPE_TRACE_SCOPE_MISMATCH);
    CHECK(torchscope_trace_event("inside", nullptr, kHere) == TORCHSCOPE_TRACE_OK);
  }
  CHECK(torchscope_trace_event("outside", nullptr, kHere) == TORCHSCOPE_TRACE_OK);
  CHECK(torchscope_trace_pop_compile_id() == TORCHSCOPE_TRACE_OK);
  CHECK(tracer::current_compile_id() == nullptr);

  const torchscope_compile_id too_big = compile_id(1LL << 32, 0);
  CHECK(torchscope_trace_push_compile_id(&too_big) == TORCHSCOPE_TRACE_INVALID_ARGUMENT);
  CHECK(torchscope_trace_push_compile_id(nullptr) == TORCHSCOPE_TRACE_INVALID_ARGUMENT);

  const auto envelopes = t.envelopes();
  REQUIRE(envelopes.size() == 2);
  CHECK(envelopes[0] ==
        R"({"inside": {}, "compiled_autograd_id": 0, "frame_id": 2, "frame_compile_id": 1})");
  CHECK(envelopes[1] == R"({"outside": {}, "frame_id": 1, "frame_compile_id": 0, "attempt": 0})");
}

TEST_CASE("payloads that tlparse would read differently are written as it reads them",
          "[tracer][c_api]") {
  CTrace t;
  const torchscope_compile_id id = compile_id(0, 0);
  REQUIRE(torchscope_trace_push_compile_id(&id) == TORCHSCOPE_TRACE_OK);
  const std::string payloads[] = {
      std::string("crlf\r\nlines\r\n"), std::string("bad \xff\xfe bytes\nand \xc3 cut"),
      std::string("nul \0 inside", 12), std::string("lone \r stays\r"),
      // Found by fuzz_c_api: tlparse strips one CR per line end, so a run of them must go.
      std::string("runs\r\r\nof\r\r\r")};
  const std::string expected[] = {"crlf\nlines\n",
                                  "bad \xef\xbf\xbd\xef\xbf\xbd bytes\nand \xef\xbf\xbd cut",
                                  std::string("nul \0 inside", 12), "lone \r stays", "runs\nof"};
  for (const std::string& p : payloads) {
    CHECK(torchscope_trace_event_with_payload("dynamo_output_graph", nullptr, p.data(), p.size(),
                                              kHere) == TORCHSCOPE_TRACE_OK);
  }
  CHECK(torchscope_trace_pop_compile_id() == TORCHSCOPE_TRACE_OK);
  const auto counts = test_support::parse_by_tlparse_rules(t.text());
  CHECK(counts.failures() == 0);
  REQUIRE(counts.events.size() == std::size(payloads));
  for (std::size_t i = 0; i < std::size(payloads); ++i) {
    CHECK(counts.events[i].payload == expected[i]);
  }
}

TEST_CASE("stacks, artifacts, chromium events and interning from C", "[tracer][c_api]") {
  CTrace t;
  const torchscope_stack_frame frames[] = {{"user.py", 3, "<module>", "f(x)"},
                                           {"user.py", 7, "f", nullptr}};
  CHECK(torchscope_trace_event_with_stack("dynamo_start", R"({"note": "x"})", frames, 2, kHere) ==
        TORCHSCOPE_TRACE_OK);
  CHECK(torchscope_trace_event_with_stack("dynamo_start", R"({"stack": []})", frames, 2, kHere) ==
        TORCHSCOPE_TRACE_INVALID_JSON);
  const torchscope_stack_frame no_file[] = {{nullptr, 3, "f", nullptr}};
  CHECK(torchscope_trace_event_with_stack("dynamo_start", nullptr, no_file, 1, kHere) ==
        TORCHSCOPE_TRACE_INVALID_ARGUMENT);
  // The frames' file was interned first, then the call site's (the event is outside a compile).
  CHECK(torchscope_trace_intern_string("user.py", 7, kHere) == 0);
  CHECK(torchscope_trace_artifact("ir", TORCHSCOPE_TRACE_ENCODING_STRING, "a\nb", 3, kHere) ==
        TORCHSCOPE_TRACE_OK);
  CHECK(torchscope_trace_artifact("ir", static_cast<torchscope_trace_encoding>(7), "", 0, kHere) ==
        TORCHSCOPE_TRACE_INVALID_ARGUMENT);
  CHECK(torchscope_trace_chromium_event("pass", "B", nullptr, kHere) == TORCHSCOPE_TRACE_OK);
  CHECK(torchscope_trace_chromium_event("pass", "E", R"({"nodes": 3})", kHere) ==
        TORCHSCOPE_TRACE_OK);
  CHECK(torchscope_trace_chromium_event("pass", "E", "{oops}", kHere) ==
        TORCHSCOPE_TRACE_INVALID_JSON);

  const auto counts = test_support::parse_by_tlparse_rules(t.text());
  CHECK(counts.failures() == 0);
  std::vector<std::string> envelopes;
  std::vector<std::string> payloads;
  for (const auto& ev : counts.events) {
    envelopes.push_back(ev.envelope);
    payloads.push_back(ev.payload);
  }
  REQUIRE(envelopes.size() == 6);
  CHECK(envelopes[0] == R"({"str": ["user.py", 0]})");
  CHECK(envelopes[1] == R"({"str": ["tests/tracer/c_api_test.cpp", 1]})");
  CHECK(envelopes[2] ==
        R"({"dynamo_start": {"note": "x", "stack": [{"line": 3, "name": )"
        R"j("<module>", "filename": 0, "loc": "f(x)"}, {"line": 7, "name": "f", )j"
        R"("filename": 0}]}, "stack": [{"line": 7, "name": "test", "filename": 1}]})");
  CHECK(envelopes[3].rfind(R"({"artifact": {"name": "ir", "encoding": "string"}, "stack": )", 0) ==
        0);
  CHECK(payloads[3] == "a\nb");
  CHECK(payloads[5].find("\"nodes\": 3") != std::string::npos);
  CHECK(payloads[5].find("\"ph\": \"E\"") != std::string::npos);
}

TEST_CASE("the C API checks its arguments", "[tracer][c_api]") {
  CTrace t;
  torchscope_trace_options options = TORCHSCOPE_TRACE_OPTIONS_INIT;
  CHECK(torchscope_trace_start(&options) == TORCHSCOPE_TRACE_INVALID_ARGUMENT); // no directory
  options.directory = "/tmp";
  options.struct_size = 8;
  CHECK(torchscope_trace_start(&options) == TORCHSCOPE_TRACE_INVALID_ARGUMENT);
  CHECK(torchscope_trace_start(nullptr) == TORCHSCOPE_TRACE_INVALID_ARGUMENT);
  CHECK(torchscope_trace_set_rank(1LL << 32) == TORCHSCOPE_TRACE_INVALID_ARGUMENT);
  CHECK(torchscope_trace_event(nullptr, nullptr, kHere) == TORCHSCOPE_TRACE_INVALID_ARGUMENT);
  CHECK(torchscope_trace_event_with_payload("k", nullptr, nullptr, 3, kHere) ==
        TORCHSCOPE_TRACE_INVALID_ARGUMENT);
  CHECK(torchscope_trace_intern_string(nullptr, 2, kHere) == TORCHSCOPE_TRACE_INVALID_ARGUMENT);
  CHECK(torchscope_trace_chromium_event("x", nullptr, nullptr, kHere) ==
        TORCHSCOPE_TRACE_INVALID_ARGUMENT);
  CHECK(std::strcmp(torchscope_trace_status_message(TORCHSCOPE_TRACE_RESERVED_KIND),
                    "the event kind is an envelope key") == 0);
  // The path is truncated to the buffer and its full length returned.
  char small[8];
  const std::size_t length = torchscope_trace_log_path(small, sizeof small);
  CHECK(length > sizeof small);
  CHECK(std::strlen(small) == sizeof small - 1);
  // Tracing is still on and the log untouched by all of the above.
  CHECK(torchscope_trace_enabled() == 1);
  CHECK(t.text().empty());
}

TEST_CASE("the glog prefix keeps one line and tlparse's path pattern whatever the file name",
          "[tracer][c_api]") {
  CTrace t;
  const torchscope_compile_id id = compile_id(0, 0);
  REQUIRE(torchscope_trace_push_compile_id(&id) == TORCHSCOPE_TRACE_OK);
  CHECK(torchscope_trace_event("a", nullptr, {"C:\\dir\nwith] \xff:odd", -5, nullptr}) ==
        TORCHSCOPE_TRACE_OK);
  CHECK(torchscope_trace_event("b", nullptr, {nullptr, 0, nullptr}) == TORCHSCOPE_TRACE_OK);
  CHECK(torchscope_trace_pop_compile_id() == TORCHSCOPE_TRACE_OK);
  const auto counts = test_support::parse_by_tlparse_rules(t.text());
  CHECK(counts.failures() == 0);
  REQUIRE(counts.events.size() == 2);
  CHECK(counts.events[0].pathname == " C_\\dir_with_ ?_odd");
  CHECK(counts.events[0].source_line == 0);
  CHECK(counts.events[1].pathname == " unknown");
}
