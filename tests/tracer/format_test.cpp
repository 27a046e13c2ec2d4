// The tracer writes lines byte-for-byte as PyTorch 2.11 does. Expected envelopes and payloads
// below are real lines of ../shared/corpus/pytorch-2.11/w02_recompile (PyTorch's own output).
#include "support/test_paths.h"
#include "support/tlparse_rules.h"
#include "tracer/trace.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <regex>

namespace {

// Starts a fresh trace in a temporary folder and stops it when done.
struct TraceSession {
  test_support::TempDir dir{"tracer-format"};
  explicit TraceSession(std::optional<std::int64_t> rank = std::nullopt) {
    tracer::Options o;
    o.directory = dir.path().string();
    o.rank = rank;
    REQUIRE(tracer::start(o));
  }
  ~TraceSession() { tracer::stop(); }
  std::string text() const { return test_support::read_file(tracer::log_path()); }
  std::vector<std::string> lines() const {
    std::vector<std::string> out;
    std::string t = text();
    std::size_t pos = 0;
    while (pos < t.size()) {
      std::size_t nl = t.find('\n', pos);
      out.push_back(t.substr(pos, nl - pos));
      pos = nl + 1;
    }
    return out;
  }
};

std::string envelope_of(const std::string& line) {
  return line.substr(line.find("] ") + 2);
}

} // namespace

TEST_CASE("the glog prefix has PyTorch's shape with the caller's file and line", "[tracer]") {
  TraceSession s;
  const int line = __LINE__ + 1;
  tracer::event("dynamo_start", tracer::no_metadata);
  const auto lines = s.lines();
  REQUIRE(lines.size() >= 1);
  const std::regex prefix(
      R"(^V\d{4} \d{2}:\d{2}:\d{2}\.\d{6} \d+ tests/tracer/format_test\.cpp:(\d+)\] \{)");
  std::smatch m;
  const std::string& last = lines.back();
  REQUIRE(std::regex_search(last, m, prefix));
  CHECK(std::stoi(m.str(1)) == line);
}

TEST_CASE("a chromium event envelope and payload equal PyTorch's bytes", "[tracer]") {
  TraceSession s;
  {
    tracer::CompileScope scope({.frame_id = 0, .frame_compile_id = 0, .attempt = 0});
    tracer::event_with_json_payload("chromium_event", tracer::no_metadata,
                                    [](tracer::JsonWriter& w) {
                                      w.begin_object()
                                          .member("name", "dynamo")
                                          .member("ts", 1795316326084826.8)
                                          .key("args")
                                          .begin_object()
                                          .member("compile_id", "0/0")
                                          .end_object()
                                          .member("ph", "B")
                                          .member("cat", "dynamo_timed")
                                          .member("tid", 0)
                                          .member("pid", 0)
                                          .end_object();
                                    });
  }
  const auto lines = s.lines();
  REQUIRE(lines.size() == 12);
  CHECK(
      envelope_of(lines[0]) ==
      R"({"chromium_event": {}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0, "has_payload": "d8cb00c210c15909906079806f233f9a"})");
  CHECK(lines[1] == "\t{");
  CHECK(lines[2] == "\t\"name\": \"dynamo\",");
  CHECK(lines[3] == "\t\"ts\": 1795316326084826.8,");
  CHECK(lines[5] == "\t\"compile_id\": \"0/0\"");
  CHECK(lines[6] == "\t},");
  CHECK(lines[10] == "\t\"pid\": 0");
  CHECK(lines[11] == "\t}");
}

TEST_CASE("an artifact, interned strings and a dynamo_start stack equal PyTorch's bytes",
          "[tracer]") {
  TraceSession s;
  CHECK(tracer::intern_string("/opt/torch/.venv/lib/python3.12/site-packages/torch/_dynamo/"
                              "convert_frame.py") == 0);
  {
    tracer::CompileScope scope({.frame_id = 0, .frame_compile_id = 1, .attempt = 0});
    tracer::artifact("recompile_reasons", tracer::Encoding::Json, [](std::string& out) {
      out += "0/0: tensor 'x' size mismatch at index 0. expected 8, actual 16";
    });
    tracer::event("dynamo_start", [](tracer::JsonWriter& w) {
      const tracer::StackFrame frames[] = {{"/root/pt2-workloads/w02_recompile.py", 4, "f", {}}};
      w.key("stack");
      tracer::write_stack(w, frames);
    });
  }
  const auto lines = s.lines();
  REQUIRE(lines.size() == 5);
  CHECK(
      envelope_of(lines[0]) ==
      R"({"str": ["/opt/torch/.venv/lib/python3.12/site-packages/torch/_dynamo/convert_frame.py", 0]})");
  CHECK(
      envelope_of(lines[1]) ==
      R"({"artifact": {"name": "recompile_reasons", "encoding": "json"}, "frame_id": 0, "frame_compile_id": 1, "attempt": 0, "has_payload": "2f7537b147f8206c1809e72fcb108dce"})");
  CHECK(lines[2] == "\t0/0: tensor 'x' size mismatch at index 0. expected 8, actual 16");
  CHECK(envelope_of(lines[3]) == R"({"str": ["/root/pt2-workloads/w02_recompile.py", 1]})");
  CHECK(
      envelope_of(lines[4]) ==
      R"({"dynamo_start": {"stack": [{"line": 4, "name": "f", "filename": 1}]}, "frame_id": 0, "frame_compile_id": 1, "attempt": 0})");
  // Interning is once per process: a second use writes no new `str` line.
  CHECK(tracer::intern_string("/root/pt2-workloads/w02_recompile.py") == 1);
  CHECK(s.lines().size() == 5);
}

TEST_CASE("describe and create_symbol metadata equal PyTorch's bytes", "[tracer]") {
  TraceSession s;
  {
    tracer::CompileScope scope({.frame_id = 0, .frame_compile_id = 0, .attempt = 0});
    tracer::event("describe_storage", [](tracer::JsonWriter& w) {
      w.member("id", 0).member("describer_id", 0).member("size", 4096);
    });
    tracer::event("describe_source", [](tracer::JsonWriter& w) {
      w.member("describer_id", 0).member("id", 0).member("source", "L['x']");
    });
  }
  const auto lines = s.lines();
  REQUIRE(lines.size() == 2);
  CHECK(
      envelope_of(lines[0]) ==
      R"({"describe_storage": {"id": 0, "describer_id": 0, "size": 4096}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0})");
  CHECK(
      envelope_of(lines[1]) ==
      R"({"describe_source": {"describer_id": 0, "id": 0, "source": "L['x']"}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0})");
}

TEST_CASE("compile ids print and nest as PyTorch's do", "[tracer]") {
  CHECK(tracer::CompileId{.frame_id = 0, .frame_compile_id = 0, .attempt = 0}.to_string() ==
        "[0/0]");
  CHECK(tracer::CompileId{.frame_id = 1, .frame_compile_id = 0, .attempt = 1}.to_string() ==
        "[1/0_1]");
  CHECK(tracer::CompileId{.compiled_autograd_id = 0, .frame_id = 1, .frame_compile_id = 0}
            .to_string() == "[!0/1/0]");
  CHECK(tracer::CompileId{}.to_string() == "[-/-]");
  CHECK(tracer::current_compile_id() == nullptr);
  {
    tracer::CompileScope outer({.frame_id = 0, .frame_compile_id = 0, .attempt = 0});
    {
      tracer::CompileScope inner({.frame_id = 1, .frame_compile_id = 2, .attempt = 1});
      CHECK(tracer::current_compile_id()->to_string() == "[1/2_1]");
    }
    CHECK(tracer::current_compile_id()->to_string() == "[0/0]");
  }
  CHECK(tracer::current_compile_id() == nullptr);
}

TEST_CASE("compile ids have one spelling per use, each PyTorch's", "[tracer]") {
  const tracer::CompileId first{.frame_id = 0, .frame_compile_id = 0, .attempt = 0};
  const tracer::CompileId restarted{.frame_id = 1, .frame_compile_id = 0, .attempt = 1};
  const tracer::CompileId autograd{.compiled_autograd_id = 0, .frame_id = 1, .frame_compile_id = 0};
  const tracer::CompileId none{};
  // Chromium event args: str(TraceId), the attempt kept.
  CHECK(first.trace_id_text() == "0/0");
  CHECK(restarted.trace_id_text() == "1/0_1");
  CHECK(autograd.trace_id_text() == "!0/1/0");
  CHECK(none.trace_id_text() == "-/-");
  // compilation_metrics, recompile reasons, cache events: str(CompileId), no attempt.
  CHECK(first.compile_id_text() == "0/0");
  CHECK(restarted.compile_id_text() == "1/0");
  CHECK(autograd.compile_id_text() == "!0/1/0");
  CHECK(tracer::CompileId{.frame_id = 12, .frame_compile_id = 3, .attempt = 2}.compile_id_text() ==
        "12/3");
  // Outside any compile (the AOT cache's artifact written with no scope).
  CHECK(none.compile_id_text() == "-/-");
}

TEST_CASE("an event with no compile context carries a stack, chromium events do not", "[tracer]") {
  TraceSession s;
  tracer::event("describe_storage", [](tracer::JsonWriter& w) { w.member("id", 1); });
  tracer::chromium_event("CachingAutotuner.benchmark_all_configs", "B");
  const auto counts = test_support::parse_by_tlparse_rules(s.text());
  CHECK(counts.failures() == 0);
  REQUIRE(counts.events.size() == 3); // str (the file), describe_storage, chromium_event
  CHECK(counts.events[0].kind == "str");
  CHECK(counts.events[1].envelope.find(R"("stack": [{"line": )") != std::string::npos);
  CHECK(counts.events[2].envelope.find("stack") == std::string::npos);
  CHECK(counts.events[2].envelope.find("frame_id") == std::string::npos);
}

TEST_CASE("the rank goes into the file name and every envelope", "[tracer]") {
  TraceSession s(3);
  CHECK(std::filesystem::path(tracer::log_path())
            .filename()
            .string()
            .rfind("dedicated_log_torch_trace_rank_3_", 0) == 0);
  tracer::CompileScope scope({.frame_id = 0, .frame_compile_id = 0, .attempt = 0});
  tracer::event("dynamo_start", tracer::no_metadata);
  CHECK(envelope_of(s.lines().back()) ==
        R"({"dynamo_start": {}, "rank": 3, "frame_id": 0, "frame_compile_id": 0, "attempt": 0})");
}

TEST_CASE("file names follow dedicated_log_torch_trace_XXXXXXXX.log", "[tracer]") {
  TraceSession s;
  const std::string name = std::filesystem::path(tracer::log_path()).filename().string();
  CHECK(std::regex_match(name, std::regex(R"(dedicated_log_torch_trace_[a-z0-9_]{8}\.log)")));
}

TEST_CASE("payloads round-trip: written, parsed back by tlparse's rules, equal", "[tracer]") {
  TraceSession s;
  const std::vector<std::string> payloads = {"",
                                             "one line",
                                             "two\nlines",
                                             "trailing newline\n",
                                             "\n\nleading blanks",
                                             "tabs\tinside\n\tand at line start",
                                             "unicode caf\xc3\xa9 \xf0\x9f\x98\x80",
                                             std::string(100000, 'x') + "\n" +
                                                 std::string(5000, 'y')};
  {
    tracer::CompileScope scope({.frame_id = 2, .frame_compile_id = 1, .attempt = 1});
    for (const std::string& p : payloads) {
      tracer::artifact("fx_graph_runnable", tracer::Encoding::String,
                       [&](std::string& out) { out += p; });
    }
    tracer::ChromiumSpan span("entire_frame_compile");
    span.add_end_arg("frames", 2.0);
  }
  const auto counts = test_support::parse_by_tlparse_rules(s.text());
  CHECK(counts.failures() == 0);
  REQUIRE(counts.kinds.at("artifact") == static_cast<std::int64_t>(payloads.size()));
  CHECK(counts.kinds.at("chromium_event") == 2);
  std::size_t i = 0;
  for (const auto& ev : counts.events) {
    if (ev.kind != "artifact") {
      continue;
    }
    // tlparse drops blank lines before attaching payload lines; blank payload lines are
    // written as a lone TAB, so nothing is lost.
    CHECK(ev.payload == payloads[i]);
    CHECK(ev.envelope.find(R"("frame_id": 2, "frame_compile_id": 1, "attempt": 1)") !=
          std::string::npos);
    ++i;
  }
}

TEST_CASE("when off, no callable runs and nothing is written", "[tracer]") {
  tracer::stop();
  bool ran = false;
  tracer::event("dynamo_start", [&](tracer::JsonWriter&) { ran = true; });
  tracer::event_with_payload(
      "dynamo_output_graph", [&](tracer::JsonWriter&) { ran = true; },
      [&](std::string&) { ran = true; });
  { tracer::ChromiumSpan span("x"); }
  CHECK_FALSE(ran);
  CHECK(tracer::log_path().empty());
}

TEST_CASE("tlparse's rules count a log torn inside its last envelope as one failed event",
          "[tracer]") {
  // The kill trials' case: SIGKILL landed inside the JSON of the last envelope, which tlparse
  // counts twice in fail_json (the envelope and raw.jsonl's re-parse) but is one event.
  const std::string log =
      "V1124 00:22:28.168569 14550 a.cpp:52] {\"kill_trial_event\": {\"seq\": 1}}\n"
      "V1124 00:22:28.168724 14550 a.cpp:52] {\"kill_trial_payl";
  const auto counts = test_support::parse_by_tlparse_rules(log);
  CHECK(counts.ok == 1);
  CHECK(counts.fail_json == 2);
  CHECK(counts.failures() == 2);
  CHECK(counts.failed_events() == 1);
}
