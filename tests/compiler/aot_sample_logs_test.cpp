// The training samples' traces against PyTorch 2.11's log of w01 (an MLP trained with a
// compiled model): the same per-compile event and artifact kinds up to the end of the AOT stage
// (Inductor's arrive with code generation), the AOT events and phases in PyTorch's order,
// graph printouts that read like PyTorch's (primals_1: "f32[512, 256][256, 1]cpu", tangents,
// descriptors, "# File:" comments at the user's lines) with the same primal and tangent shapes,
// the AOT stage's compilation_metrics fields with PyTorch's values where they are facts of the
// model, and bwd_compilation_metrics under the forward's compile id. Every log must read with
// no failed line by tlparse 0.4.3's rules and by our tlparse, whose report must hold the AOT
// artifacts tlparse 0.4.3 wrote for PyTorch's log.
#include "sample_log_checks.h"
#include "support/test_paths.h"
#include "support/tlparse_rules.h"
#include "support/trace_runs.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <regex>
#include <set>
#include <simdjson.h>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using sample_logs::check_reads_cleanly;

// One event as this test reads it: its compile id and a label ("aot_joint_graph",
// "artifact:torch._functorch.config", "chromium:B:min_cut_rematerialization_partition").
struct Event {
  std::string compile;
  std::string label;
  std::string envelope;
  std::string payload;
};

std::vector<Event> events_of(const fs::path& log) {
  const test_support::TlparseRuleCounts counts = test_support::parse_file_by_tlparse_rules(log);
  std::vector<Event> out;
  simdjson::dom::parser parser;
  for (const test_support::ParsedEvent& e : counts.events) {
    if (e.kind == "str") {
      continue;
    }
    Event ev;
    ev.envelope = e.envelope;
    ev.payload = e.payload;
    simdjson::dom::element env = parser.parse(e.envelope);
    std::int64_t frame = -1;
    std::int64_t compile = -1;
    if (env["frame_id"].get(frame) != simdjson::SUCCESS) {
      frame = -1;
    }
    if (env["frame_compile_id"].get(compile) != simdjson::SUCCESS) {
      compile = -1;
    }
    ev.compile = std::to_string(frame) + "/" + std::to_string(compile);
    ev.label = e.kind;
    if (e.kind == "artifact") {
      std::string_view name;
      REQUIRE(env["artifact"]["name"].get(name) == simdjson::SUCCESS);
      ev.label = "artifact:" + std::string(name);
    } else if (e.kind == "chromium_event") {
      simdjson::dom::parser payload_parser;
      simdjson::dom::element p = payload_parser.parse(e.payload);
      std::string_view name;
      std::string_view ph;
      REQUIRE(p["name"].get(name) == simdjson::SUCCESS);
      REQUIRE(p["ph"].get(ph) == simdjson::SUCCESS);
      ev.label = "chromium:" + std::string(ph) + ":" + std::string(name);
    }
    out.push_back(std::move(ev));
  }
  return out;
}

// Kinds Inductor writes (pre-grad passes, code generation), PyTorch's and ours beyond them (the
// graph after each pass, the LLVM IR): not this stage's (inductor_logs_test.cpp checks them).
bool is_inductor_kind(const std::string& label) {
  static const std::set<std::string> kInductor = {
      "artifact:before_pre_grad_graph",
      "artifact:after_pre_grad_graph",
      "artifact:fx_graph_runnable",
      "artifact:before_post_grad_graph",
      "artifact:inductor_post_grad_graph",
      "inductor_output_code",
      "artifact:triton_kernel_info",
      "artifact:fx_graph_cache_miss",
      "artifact:fx_graph_cache_hit",
      "artifact:fx_graph_cache_bypass",
      "artifact:inductor_llvm_ir",
      "inductor_post_grad_graph" /* an event on a cache hit */};
  return kInductor.count(label) > 0 ||
         (label.starts_with("artifact:after_") && label.find("_pass_") != std::string::npos);
}

// The event and artifact kinds of each compile (chromium events apart).
std::map<std::string, std::set<std::string>> kinds_per_compile(const std::vector<Event>& events,
                                                               bool drop_inductor) {
  std::map<std::string, std::set<std::string>> out;
  for (const Event& e : events) {
    if (e.label.rfind("chromium:", 0) == 0 || (drop_inductor && is_inductor_kind(e.label))) {
      continue;
    }
    if (e.label == "artifact:runtime_facts") {
      continue; // ours alone: how each entry served its calls (PyTorch writes no such artifact)
    }
    if (e.label == "artifact:min_cut_information") {
      continue; // PyTorch 2.11 writes it only from its activation-memory-budget solver; we always
                // do
    }
    out[e.compile].insert(e.label);
  }
  return out;
}

// The AOT stage's events and phases, in log order.
std::vector<std::string> aot_sequence(const std::vector<Event>& events) {
  static const std::set<std::string> kAot = {"chromium:i:autograd_cache_miss",
                                             "artifact:aotautograd_cache_miss",
                                             "chromium:B:create_aot_dispatcher_function",
                                             "chromium:B:aot_collect_metadata",
                                             "chromium:B:aot_trace_joint_graph",
                                             "aot_joint_graph",
                                             "chromium:B:_recursive_joint_graph_passes",
                                             "chromium:B:min_cut_rematerialization_partition",
                                             "artifact:torch._functorch.config",
                                             "artifact:aot_forward_graph_fw_metadata",
                                             "aot_forward_graph",
                                             "aot_backward_graph",
                                             "chromium:B:compile_fx.<locals>.fw_compiler_base",
                                             "chromium:E:create_aot_dispatcher_function",
                                             "compilation_metrics",
                                             "chromium:B:entire_backward_compile",
                                             "chromium:B:compile_fx.<locals>.bw_compiler",
                                             "chromium:E:entire_backward_compile",
                                             "bwd_compilation_metrics"};
  std::vector<std::string> out;
  for (const Event& e : events) {
    if (kAot.count(e.label) > 0) {
      out.push_back(e.label);
    }
  }
  return out;
}

const Event& find(const std::vector<Event>& events, const std::string& label) {
  for (const Event& e : events) {
    if (e.label == label) {
      return e;
    }
  }
  FAIL("no " << label << " event");
  static const Event kNone;
  return kNone;
}

// The type annotations of a graph's inputs named `prefix`N, without the device, sorted.
std::vector<std::string> input_types(const std::string& payload, const std::string& prefix) {
  static const std::regex line("^\\s+(\\w+): \"(\\w+\\[[^\"]*\\])(cpu|cuda:\\d+)\"");
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < payload.size()) {
    std::size_t end = payload.find('\n', start);
    end = end == std::string::npos ? payload.size() : end;
    const std::string l = payload.substr(start, end - start);
    std::smatch m;
    if (std::regex_search(l, m, line) && m.str(1).rfind(prefix, 0) == 0) {
      out.push_back(m.str(2));
    }
    start = end + 1;
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::map<std::string, std::string> metrics_of(const Event& e, const char* key) {
  simdjson::dom::parser parser;
  simdjson::dom::element env = parser.parse(e.envelope);
  std::map<std::string, std::string> out;
  simdjson::dom::object fields;
  if (env[key].get(fields) != simdjson::SUCCESS) {
    return out;
  }
  for (auto field : fields) {
    out[std::string(field.key)] = simdjson::minify(field.value);
  }
  return out;
}

// The per-compile artifacts of this stage in a tlparse report listing, numbering dropped.
std::set<std::string> aot_report_files(const std::vector<std::string>& paths) {
  static const std::regex artifact("^(-_\\d+_\\d+_\\d+)/(aot_\\w+|aotautograd_cache_\\w+|"
                                   "torch\\._functorch\\.config|bwd_compilation_metrics)_\\d+\\."
                                   "(\\w+)$");
  std::set<std::string> out;
  for (const std::string& p : paths) {
    std::smatch m;
    if (std::regex_match(p, m, artifact)) {
      out.insert(m.str(1) + "/" + m.str(2) + "." + m.str(3));
    }
  }
  return out;
}

// Our tlparse's report of our log has the AOT artifacts tlparse 0.4.3 wrote for w01.
void compare_report(const fs::path& log) {
  const std::optional<std::vector<std::string>> reference =
      sample_logs::reference_files("w01_mlp_train");
  REQUIRE(reference.has_value());
  const std::optional<std::vector<std::string>> ours = sample_logs::report_listing(log);
  if (!ours) {
    WARN("SKIPPED: the tlparse binary is not built");
    return;
  }
  CHECK(aot_report_files(*reference).size() == 7);
  CHECK(aot_report_files(*ours) == aot_report_files(*reference));
}

} // namespace

TEST_CASE("train_mlp's trace has PyTorch's w01 events, order, graphs and metrics up to the end "
          "of the AOT stage",
          "[compiler][samples][aot]") {
  const std::optional<fs::path> theirs_log = test_support::pytorch_log("w01_mlp_train");
  if (!theirs_log) {
    TORCHSCOPE_SKIP("no PyTorch log of w01_mlp_train (../shared nor tests/data)");
  }
  test_support::TempDir dir("aot-sample-logs");
  const fs::path ours_log = test_support::run_traced_program(SAMPLE_TRAIN_MLP, dir.path());
  check_reads_cleanly(ours_log);
  const std::vector<Event> ours = events_of(ours_log);
  const std::vector<Event> theirs = events_of(*theirs_log);

  {
    INFO("the same per-compile event and artifact kinds, Inductor's aside");
    const auto expected = kinds_per_compile(theirs, true);
    const auto actual = kinds_per_compile(ours, true);
    CHECK(expected.count("0/0") == 1);
    CHECK(actual == expected);
  }
  {
    INFO("the AOT stage's events and phases in PyTorch's order");
    const std::vector<std::string> expected = aot_sequence(theirs);
    CHECK(expected.size() >= 15);
    CHECK(aot_sequence(ours) == expected);
  }
  {
    INFO("graph printouts that read like PyTorch's, with w01's shapes");
    const std::string& joint = find(ours, "aot_joint_graph").payload;
    const std::string& forward = find(ours, "aot_forward_graph").payload;
    const std::string& backward = find(ours, "aot_backward_graph").payload;
    CHECK(joint.rfind("class inner_f(torch.nn.Module):", 0) == 0);
    CHECK(std::regex_search(joint, std::regex("primals_1: \"f32\\[\\d+(, \\d+)*\\]\\[\\d+(, "
                                              "\\d+)*\\]cpu\"  # PlainAOTInput\\(idx=0\\)")));
    CHECK(std::regex_search(joint,
                            std::regex("tangents_1: \"f32\\[64, 10\\]\\[10, 1\\]cpu\"  # "
                                       "TangentAOTInput\\(output=PlainAOTOutput\\(idx=0\\)\\)")));
    CHECK(std::regex_search(joint, std::regex("GradAOTOutput\\(grad_of=PlainAOTInput")));
    CHECK(std::regex_search(forward, std::regex("# SavedForBackwardsAOTOutput\\(idx=0\\)")));
    // "# File:" comments point at the user's line, in the backward too (the forward op's).
    const std::regex file("# File: \\S*train_mlp\\.cpp:\\d+ in \\S+, code: ");
    CHECK(std::regex_search(forward, file));
    CHECK(std::regex_search(backward, file));
    CHECK(std::regex_search(joint, std::regex("torch\\.ops\\.aten\\.mm\\.default\\(")));
    CHECK(std::regex_search(joint, std::regex("torch\\.ops\\.aten\\.mul\\.Tensor\\(")));
    // The same model and batch as w01: the same primal and tangent shapes.
    const std::string& their_forward = find(theirs, "aot_forward_graph").payload;
    const std::string& their_joint = find(theirs, "aot_joint_graph").payload;
    CHECK(input_types(forward, "primals_") == input_types(their_forward, "primals_"));
    CHECK(input_types(joint, "tangents_") == input_types(their_joint, "tangents_"));
    CHECK(input_types(forward, "primals_").size() == 7);
  }
  {
    INFO("compilation_metrics carries the AOT stage's fields, with w01's facts");
    const auto mine = metrics_of(find(ours, "compilation_metrics"), "compilation_metrics");
    const auto pytorch = metrics_of(find(theirs, "compilation_metrics"), "compilation_metrics");
    for (const char* key :
         {"aot_autograd_cumulative_compile_time_us", "joint_graph_pass_time_us",
          "aotautograd_local_cache_hit_count", "aotautograd_local_cache_miss_count",
          "aotautograd_remote_cache_hit_count", "aotautograd_remote_cache_miss_count",
          "param_count", "param_numel", "param_bytes"}) {
      INFO(key);
      REQUIRE(mine.count(key) == 1);
      REQUIRE(pytorch.count(key) == 1);
    }
    for (const char* fact :
         {"aotautograd_local_cache_hit_count", "aotautograd_local_cache_miss_count", "param_count",
          "param_numel", "param_bytes"}) {
      INFO(fact);
      CHECK(mine.at(fact) == pytorch.at(fact));
    }
    const auto bwd = metrics_of(find(ours, "bwd_compilation_metrics"), "bwd_compilation_metrics");
    CHECK(bwd.at("compile_id") == "\"0/0\"");
    CHECK(bwd.at("is_forward") == "false");
    CHECK(bwd.at("backward_cumulative_compile_time_us") != "null");
  }
  compare_report(ours_log);
}

TEST_CASE("sample_data_dependent's inference compiles have PyTorch's w03 AOT events in order",
          "[compiler][samples][aot]") {
  const std::optional<fs::path> theirs_log = test_support::pytorch_log("w03_data_dependent");
  if (!theirs_log) {
    TORCHSCOPE_SKIP("no PyTorch log of w03_data_dependent (../shared nor tests/data)");
  }
  test_support::TempDir dir("aot-sample-logs");
  const fs::path ours_log = test_support::run_traced_program(SAMPLE_DATA_DEPENDENT, dir.path());
  check_reads_cleanly(ours_log);
  // The inference path, compile by compile: cache miss, metadata, the inference graph, the
  // config, and the joint-graph passes with their before/after graphs inside the compile.
  static const std::set<std::string> kInference = {
      "artifact:aotautograd_cache_miss",
      "chromium:B:create_aot_dispatcher_function",
      "chromium:B:aot_collect_metadata",
      "artifact:aot_forward_graph_fw_metadata",
      "aot_inference_graph",
      "artifact:torch._functorch.config",
      "chromium:B:compile_fx.<locals>.fw_compiler_base",
      "artifact:before_joint_graph",
      "chromium:B:_recursive_joint_graph_passes",
      "artifact:after_joint_graph",
      "chromium:E:create_aot_dispatcher_function"};
  auto sequence = [](const std::vector<Event>& events) {
    std::vector<std::string> out;
    for (const Event& e : events) {
      if (kInference.count(e.label) > 0) {
        out.push_back(e.compile + " " + e.label);
      }
    }
    return out;
  };
  const std::vector<std::string> expected = sequence(events_of(*theirs_log));
  CHECK(expected.size() >= 30);
  CHECK(sequence(events_of(ours_log)) == expected);
}

TEST_CASE("train_transformer's trace has the training compile's events and reads cleanly",
          "[compiler][samples][aot]") {
  test_support::TempDir dir("aot-sample-logs");
  const fs::path log = test_support::run_traced_program(SAMPLE_TRAIN_TRANSFORMER, dir.path());
  check_reads_cleanly(log);
  const std::vector<Event> events = events_of(log);
  const auto kinds = kinds_per_compile(events, false);
  REQUIRE(kinds.count("0/0") == 1);
  for (const char* kind : {"aot_joint_graph", "aot_forward_graph", "aot_backward_graph",
                           "bwd_compilation_metrics", "artifact:aotautograd_cache_miss"}) {
    INFO(kind);
    CHECK(kinds.at("0/0").count(kind) == 1);
  }
  // The attention's ops are attributed to the block's lines in the sample.
  CHECK(std::regex_search(find(events, "aot_joint_graph").payload,
                          std::regex("# File: \\S*train_transformer\\.cpp:\\d+ in forward, "
                                     "code: .*softmax")));
}

TEST_CASE("train_llama trains its compiled step beside eager, and its trace holds the partition",
          "[compiler][samples][aot]") {
  // The sample exits non-zero when compiled and eager losses or gradients disagree.
  test_support::TempDir dir("aot-sample-logs");
  const fs::path log = test_support::run_traced_program(SAMPLE_TRAIN_LLAMA, dir.path());
  check_reads_cleanly(log);
  const std::vector<Event> events = events_of(log);
  const auto kinds = kinds_per_compile(events, false);
  REQUIRE(kinds.count("0/0") == 1);
  for (const char* kind : {"aot_joint_graph", "aot_forward_graph", "aot_backward_graph"}) {
    INFO(kind);
    CHECK(kinds.at("0/0").count(kind) == 1);
  }
  CHECK(std::count_if(events.begin(), events.end(), [](const Event& e) {
          return e.label == "artifact:min_cut_information" && e.compile == "0/0";
        }) == 1);
  // The rotary embedding and SwiGLU are attributed to the sample's lines.
  CHECK(std::regex_search(find(events, "aot_joint_graph").payload,
                          std::regex("# File: \\S*train_llama\\.cpp:\\d+ in \\w+, code: .*silu")));
}
