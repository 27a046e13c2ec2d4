// The trace a compiled function writes under TORCH_TRACE: every envelope is valid JSON of a
// catalogued kind, payloads are announced, compile ids follow Dynamo's numbering, chromium
// spans pair up, and the compile events carry what tlparse reads from them.
#include "compiler/capture/compile.h"
#include "compiler/ops/ops.h"
#include "schemas/event_kinds.gen.h"
#include "support/test_paths.h"
#include "tracer/trace.h"

#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <simdjson.h>
#include <sstream>
#include <string>
#include <vector>

using namespace compiler;

namespace {

struct Event {
  std::string kind;     // the envelope's one non-context key
  std::string compile;  // "frame/compile[_attempt]" or ""
  std::string envelope; // the JSON text
  std::string payload;  // payload lines, tab stripped, joined by '\n'
  bool has_payload = false;
};

const std::set<std::string>& catalogue() {
  static const std::set<std::string> kinds = {
#define TORCHSCOPE_TEST_KIND(identifier, key, payload, context, known, output, emitted, desc) key,
      TORCHSCOPE_EVENT_KINDS(TORCHSCOPE_TEST_KIND)
#undef TORCHSCOPE_TEST_KIND
  };
  return kinds;
}

std::vector<Event> parse_log(const std::string& text) {
  std::vector<Event> out;
  std::istringstream in(text);
  std::string line;
  simdjson::dom::parser parser;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] == '\t') {
      REQUIRE(!out.empty());
      Event& e = out.back();
      if (!e.payload.empty() || e.has_payload) {
        if (!e.payload.empty()) {
          e.payload += '\n';
        }
      }
      e.payload += line.substr(1);
      continue;
    }
    std::size_t brace = line.find("] {");
    INFO(line);
    REQUIRE(brace != std::string::npos);
    Event e;
    e.envelope = line.substr(brace + 2);
    simdjson::dom::element doc;
    REQUIRE(parser.parse(e.envelope).get(doc) == simdjson::SUCCESS);
    simdjson::dom::object obj;
    REQUIRE(doc.get(obj) == simdjson::SUCCESS);
    std::string frame;
    std::string compile;
    std::string attempt;
    for (auto field : obj) {
      std::string key(field.key);
      if (key == "frame_id") {
        frame = std::to_string(int64_t(field.value));
      } else if (key == "frame_compile_id") {
        compile = std::to_string(int64_t(field.value));
      } else if (key == "attempt") {
        attempt = std::to_string(int64_t(field.value));
      } else if (key == "has_payload") {
        e.has_payload = true;
      } else if (key != "rank" && key != "compiled_autograd_id") {
        CHECK(e.kind.empty()); // one kind key per envelope
        e.kind = key;
      }
    }
    if (!frame.empty()) {
      e.compile = frame + "/" + compile + (attempt.empty() || attempt == "0" ? "" : "_" + attempt);
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<const Event*> of_kind(const std::vector<Event>& events, const std::string& kind) {
  std::vector<const Event*> out;
  for (const Event& e : events) {
    if (e.kind == kind) {
      out.push_back(&e);
    }
  }
  return out;
}

const Event* artifact(const std::vector<Event>& events, const std::string& name) {
  for (const Event& e : events) {
    if (e.kind == "artifact" &&
        e.envelope.find("\"name\": \"" + name + "\"") != std::string::npos) {
      return &e;
    }
  }
  return nullptr;
}

Tensor ramp(std::vector<std::int64_t> sizes, DType dtype = DType::Float32) {
  std::int64_t n = 1;
  for (std::int64_t s : sizes) {
    n *= s;
  }
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i] = 0.01 * static_cast<double>(i) - 0.3;
  }
  return Tensor::from_values(v, std::move(sizes), dtype);
}

// Runs the w02-like workload with tracing into `dir` and returns the parsed log.
std::vector<Event> traced_workload(const std::filesystem::path& dir) {
  tracer::Options o;
  o.directory = dir.string();
  REQUIRE(tracer::start(o));
  auto f = compile(
      [](const Tensor& x, double scale) {
        Tensor y = mul(sin(x), scale);
        return add(relu(y), mean(x, {-1}, true));
      },
      {.name = "f", .arg_names = {"x", "scale"}});
  for (std::int64_t n : {8, 16, 32}) {
    f(ramp({n, 4}), 2.0);
  }
  f(ramp({8, 4}, DType::Float16), 2.0);
  auto g = compile(
      [](const Tensor& x) {
        Tensor a = cos(x);
        // item() is a call Dynamo cannot trace: a graph break with a restart.
        double total = sum(a).item_double();
        return mul(a, total > 0.0 ? 2.0 : 1.0);
      },
      {.name = "g", .arg_names = {"x"}});
  g(ramp({4, 4}));
  std::string path = tracer::log_path();
  tracer::stop();
  return parse_log(test_support::read_file(path));
}

} // namespace

TEST_CASE("every traced line is a catalogued event and payloads are announced",
          "[compiler][capture][trace]") {
  test_support::TempDir dir("capture-trace");
  std::vector<Event> events = traced_workload(dir.path());
  REQUIRE(events.size() > 50);
  for (const Event& e : events) {
    INFO(e.envelope);
    CHECK(catalogue().count(e.kind) == 1);
    if (!e.has_payload) {
      CHECK(e.payload.empty());
    }
  }
}

TEST_CASE("compile ids, recompile reasons and symbols follow Dynamo's numbering",
          "[compiler][capture][trace]") {
  test_support::TempDir dir("capture-trace");
  std::vector<Event> events = traced_workload(dir.path());
  std::vector<const Event*> starts = of_kind(events, "dynamo_start");
  std::vector<std::string> ids;
  for (const Event* e : starts) {
    ids.push_back(e->compile);
  }
  // f: 8 static, 16 dynamic, 32 hit, fp16 recompile; g: frame + restart, then its resume frame.
  REQUIRE(ids.size() == 5);
  std::string f0 = ids[0].substr(0, ids[0].find('/'));
  CHECK(ids[1] == f0 + "/1");
  CHECK(ids[2] == f0 + "/2");
  std::string g0 = ids[3].substr(0, ids[3].find('/'));
  CHECK(ids[3] == g0 + "/0");
  CHECK(ids[4] == std::to_string(std::stoll(g0) + 1) + "/0");

  const Event* reasons = artifact(events, "recompile_reasons");
  REQUIRE(reasons != nullptr);
  CHECK(reasons->compile == f0 + "/1");
  CHECK(reasons->payload ==
        "[\n\"" + f0 + "/0: tensor 'x' size mismatch at index 0. expected 8, actual 16\"\n]");

  std::vector<const Event*> symbols = of_kind(events, "create_symbol");
  REQUIRE(!symbols.empty());
  CHECK(symbols[0]->compile == f0 + "/1");
  CHECK(symbols[0]->envelope.find("\"symbol\": \"s0\", \"val\": \"16\", \"vr\": \"[2, int_oo]\", "
                                  "\"source\": \"L['x'].size()[0]\"") != std::string::npos);
}

TEST_CASE("graphs, guards, metrics and the graph break carry their payloads",
          "[compiler][capture][trace]") {
  test_support::TempDir dir("capture-trace");
  std::vector<Event> events = traced_workload(dir.path());
  std::vector<const Event*> graphs = of_kind(events, "dynamo_output_graph");
  REQUIRE(graphs.size() == 5);
  CHECK(graphs[1]->envelope.find("\"sizes\": {\"l_x_\": [\"s0\", 4]") != std::string::npos);
  CHECK(graphs[1]->payload.find(
            "def forward(self, s0: \"Sym(s0)\", L_x_: \"f32[s0, 4][4, 1]cpu\")") !=
        std::string::npos);
  CHECK(graphs[1]->payload.find("code: Tensor y = mul(sin(x), scale);") != std::string::npos);

  std::vector<const Event*> guards = of_kind(events, "dynamo_cpp_guards_str");
  REQUIRE(guards.size() == 5);
  CHECK(guards[0]->payload.find("TREE_GUARD_MANAGER:") != std::string::npos);
  CHECK(guards[0]->payload.find("Guard latency = ") != std::string::npos);

  const Event* brk = artifact(events, "dynamo_graph_break_reason");
  REQUIRE(brk != nullptr);
  CHECK(brk->payload.rfind("Graph break in user code at ", 0) == 0);
  CHECK(brk->payload.find("capture_trace_test.cpp") != std::string::npos);
  // The restarted attempt compiles the prefix: its graph carries attempt 1.
  CHECK(graphs[3]->compile == brk->compile + "_1");

  std::vector<const Event*> metrics = of_kind(events, "compilation_metrics");
  REQUIRE(metrics.size() == 5);
  simdjson::dom::parser parser;
  for (const Event* m : metrics) {
    simdjson::dom::element doc;
    REQUIRE(parser.parse(m->envelope).get(doc) == simdjson::SUCCESS);
    simdjson::dom::element cm = doc["compilation_metrics"];
    CHECK(cm["graph_op_count"].is_int64());
    CHECK(cm["guard_count"].is_int64());
    CHECK(cm["entire_frame_compile_time_s"].is_double());
    CHECK(cm["has_guarded_code"].get_bool().value());
  }
  simdjson::dom::element g_metrics;
  REQUIRE(parser.parse(metrics[3]->envelope).get(g_metrics) == simdjson::SUCCESS);
  CHECK(g_metrics["compilation_metrics"]["restart_reasons"].get_array().size() == 1);
}

TEST_CASE("chromium spans open and close in pairs within each compile",
          "[compiler][capture][trace]") {
  test_support::TempDir dir("capture-trace");
  std::vector<Event> events = traced_workload(dir.path());
  std::map<std::string, int> open;
  simdjson::dom::parser parser;
  for (const Event* e : of_kind(events, "chromium_event")) {
    simdjson::dom::element doc;
    REQUIRE(parser.parse(e->payload).get(doc) == simdjson::SUCCESS);
    std::string_view name_view;
    std::string_view ph_view;
    REQUIRE(doc["name"].get(name_view) == simdjson::SUCCESS);
    REQUIRE(doc["ph"].get(ph_view) == simdjson::SUCCESS);
    const std::string name(name_view);
    const std::string ph(ph_view);
    if (ph == "B") {
      ++open[name];
    } else if (ph == "E") {
      INFO(name);
      CHECK(open[name] > 0);
      --open[name];
    }
  }
  for (const auto& [name, count] : open) {
    INFO(name);
    CHECK(count == 0);
  }
  CHECK(open.count("entire_frame_compile") == 1);
  CHECK(open.count("bytecode_tracing") == 1);
  CHECK(open.count("build_guards") == 1);
}

TEST_CASE("each cache entry says at its compiled function's end how many calls it served",
          "[compiler][capture][trace]") {
  test_support::TempDir dir("capture-runtime-facts");
  tracer::Options o;
  o.directory = dir.path().string();
  REQUIRE(tracer::start(o));
  {
    auto f = compile([](const Tensor& x) { return relu(mul(x, 2.0)); }, {.name = "f"});
    for (int i = 0; i < 10; ++i) {
      f(ramp({8, 4}));
    }
    f(ramp({3, 3})); // a recompile: its own entry, one call
    auto g = compile(
        [](const Tensor& x) {
          Tensor a = cos(x);
          double total = sum(a).item_double(); // a graph break: two entries per call
          return mul(a, total > 0.0 ? 2.0 : 1.0);
        },
        {.name = "g"});
    for (int i = 0; i < 3; ++i) {
      g(ramp({4, 4}));
    }
  } // f and g end here: their entries write runtime_facts
  std::string path = tracer::log_path();
  tracer::stop();
  const std::vector<Event> events = parse_log(test_support::read_file(path));
  std::map<std::string, std::string> facts; // compile id -> payload
  for (const Event& e : events) {
    if (e.kind == "artifact" && e.envelope.find("\"runtime_facts\"") != std::string::npos) {
      facts[e.compile] = e.payload;
    }
  }
  REQUIRE(facts.size() == 4);
  CHECK(facts.begin()->second.find("\"calls\": 10") != std::string::npos);
  CHECK(facts.begin()->second.find("\"timed_calls\": 8") != std::string::npos);
  std::size_t three = 0;
  std::size_t one = 0;
  for (const auto& [id, payload] : facts) {
    INFO(id << ": " << payload);
    CHECK(payload.find("\"mean_run_ms\": ") != std::string::npos);
    three += payload.find("\"calls\": 3,") != std::string::npos ? 1 : 0;
    one += payload.find("\"calls\": 1,") != std::string::npos ? 1 : 0;
  }
  CHECK(three == 2); // g's graph and its resume frame
  CHECK(one == 1);   // f's recompile
}
