// Inductor's trace against PyTorch 2.11's logs: the per-compile artifact kinds of our MLP sample
// (the Inductor part, in order) against w01's and w08's, the whole pipeline of our training
// sample (pre-grad, the AOT stage, the forward's and the backward's Inductor compiles) against
// w01's, a second process's cache hit against w13's second run, and the provenance artifacts'
// shape against w11's. Kinds PyTorch writes only for GPUs (triton_kernel_info) are left out of
// the comparison, and so are the artifacts we write beyond PyTorch (the graph after each pass,
// inductor_llvm_ir); docs/COMPILER.md lists them.
#include "compiler/capture/compile.h"
#include "compiler/inductor/inductor.h"
#include "compiler/ops/ops.h"
#include "sample_log_checks.h"
#include "support/test_paths.h"
#include "support/trace_runs.h"
#include "tracer/trace.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <simdjson.h>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

using sample_logs::check_reads_cleanly;

// The kinds Inductor's part of a compile writes (artifact names and event keys).
const std::set<std::string>& inductor_kinds() {
  static const std::set<std::string> kinds = {
      "before_pre_grad_graph",  "after_pre_grad_graph",     "fx_graph_runnable",
      "before_post_grad_graph", "inductor_post_grad_graph", "inductor_output_code",
      "fx_graph_cache_miss",    "fx_graph_cache_hit",       "fx_graph_cache_bypass"};
  return kinds;
}

// The kinds of one compile of a training graph in PyTorch's order (w01): pre-grad, the AOT
// stage, then an Inductor compile of the forward and, when backward first runs, of the backward.
const std::set<std::string>& pipeline_kinds() {
  static const std::set<std::string> kinds = [] {
    std::set<std::string> k = inductor_kinds();
    k.insert({"aotautograd_cache_miss", "aotautograd_cache_hit", "aot_joint_graph",
              "torch._functorch.config", "aot_forward_graph_fw_metadata", "aot_forward_graph",
              "aot_backward_graph", "aot_inference_graph", "compilation_metrics",
              "bwd_compilation_metrics"});
    return k;
  }();
  return kinds;
}

// Per compile id ("0/0"), the kinds of `wanted` in log order.
std::map<std::string, std::vector<std::string>>
kinds_by_compile(const fs::path& log, const std::set<std::string>& wanted = inductor_kinds()) {
  std::map<std::string, std::vector<std::string>> out;
  simdjson::dom::parser parser;
  std::istringstream lines(test_support::read_file(log));
  std::string line;
  while (std::getline(lines, line)) {
    const std::size_t brace = line.find("] {");
    if (line.empty() || line[0] == '\t' || brace == std::string::npos) {
      continue;
    }
    simdjson::dom::object obj;
    if (parser.parse(line.substr(brace + 2)).get(obj)) {
      continue;
    }
    std::string kind;
    std::string id;
    std::int64_t frame = -1;
    std::int64_t compile = -1;
    for (auto field : obj) {
      const std::string key(field.key);
      if (key == "frame_id") {
        frame = field.value.get_int64().value_unsafe();
      } else if (key == "frame_compile_id") {
        compile = field.value.get_int64().value_unsafe();
      } else if (kind.empty() && key != "attempt" && key != "has_payload" && key != "rank" &&
                 key != "compiled_autograd_id") {
        kind = key;
        if (key == "artifact") {
          std::string_view name;
          if (!field.value["name"].get(name)) {
            kind = std::string(name);
          }
        }
      }
    }
    if (frame >= 0 && compile >= 0 && wanted.count(kind) != 0) {
      out[std::to_string(frame) + "/" + std::to_string(compile)].push_back(kind);
    }
  }
  return out;
}

// Runs a sample with TORCH_TRACE=`trace` and the cache in `cache`; its one log.
fs::path run_sample(const char* exe, const fs::path& trace, const fs::path& cache) {
  const std::string cmd = "TORCH_TRACE='" + trace.string() + "' TORCHINDUCTOR_CACHE_DIR='" +
                          cache.string() + "' '" + exe + "' > '" + (trace.string() + ".out") +
                          "' 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  for (const fs::path& p : test_support::trace_files_under(trace)) {
    if (p.extension() == ".log") {
      return p;
    }
  }
  FAIL("the sample wrote no log");
  return {};
}

fs::path run_mlp(const fs::path& trace, const fs::path& cache) {
  return run_sample(SAMPLE_MLP, trace, cache);
}

// The first compile_fx_inner group of a compile: its kinds up to the first fx_graph_cache_*.
std::vector<std::string> first_group(const std::vector<std::string>& kinds) {
  std::vector<std::string> out;
  for (const std::string& k : kinds) {
    out.push_back(k);
    if (k.starts_with("fx_graph_cache_")) {
      break;
    }
  }
  return out;
}

} // namespace

TEST_CASE("inductor logs: the MLP sample's Inductor artifacts follow PyTorch's w01 and w08",
          "[inductor][logs]") {
  test_support::TempDir dir;
  const fs::path ours = run_mlp(dir.path() / "trace", dir.path() / "cache");
  check_reads_cleanly(ours);
  const auto our_kinds = kinds_by_compile(ours);
  REQUIRE(our_kinds.count("0/0") == 1);
  const std::vector<std::string> mine = first_group(our_kinds.at("0/0"));
  for (const char* workload : {"w01_mlp_train", "w08_transformer"}) {
    INFO("PyTorch workload " << workload);
    const std::optional<fs::path> log = test_support::pytorch_log(workload);
    REQUIRE(log);
    const auto theirs = kinds_by_compile(*log);
    REQUIRE(theirs.count("0/0") == 1);
    CHECK(mine == first_group(theirs.at("0/0")));
  }
  // Every compile of the sample (a recompile, a dynamic batch) has the same sequence.
  for (const auto& [id, kinds] : our_kinds) {
    INFO("compile " << id);
    CHECK(first_group(kinds) == mine);
  }
}

TEST_CASE("inductor logs: the training sample's pipeline follows PyTorch's w01 (pre-grad, AOT, "
          "forward and backward compiles)",
          "[inductor][logs]") {
  test_support::TempDir dir;
  const fs::path ours = run_sample(SAMPLE_TRAIN_MLP, dir.path() / "trace", dir.path() / "cache");
  check_reads_cleanly(ours);
  const std::optional<fs::path> log = test_support::pytorch_log("w01_mlp_train");
  REQUIRE(log);
  const auto theirs = kinds_by_compile(*log, pipeline_kinds());
  const auto mine = kinds_by_compile(ours, pipeline_kinds());
  REQUIRE(theirs.count("0/0") == 1);
  REQUIRE(mine.count("0/0") == 1);
  CHECK(mine.at("0/0") == theirs.at("0/0"));
}

TEST_CASE("inductor logs: a second process with the same cache hits as w13's second run",
          "[inductor][logs][cache]") {
  test_support::TempDir dir;
  run_mlp(dir.path() / "first", dir.path() / "cache");
  const fs::path second = run_mlp(dir.path() / "second", dir.path() / "cache");
  check_reads_cleanly(second);
  const std::vector<std::string> mine = first_group(kinds_by_compile(second).at("0/0"));
  const std::optional<fs::path> log = test_support::pytorch_log("w13_cache_run2");
  REQUIRE(log);
  CHECK(mine == first_group(kinds_by_compile(*log).at("0/0")));
  CHECK(mine.back() == "fx_graph_cache_hit");
}

TEST_CASE("inductor logs: provenance artifacts have w11's shape", "[inductor][logs][trace]") {
  const std::optional<fs::path> w11 = test_support::pytorch_log("w11_provenance");
  REQUIRE(w11);
  test_support::TempDir dir;
  const compiler::inductor::Config saved = compiler::inductor::config();
  compiler::inductor::config().provenance_tracking = true;
  compiler::inductor::config().cache_dir = (dir.path() / "cache").string();
  REQUIRE(tracer::start({.directory = (dir.path() / "trace").string()}));
  // w11's function: (x @ w).relu().sum(0) + x.mean().
  auto f = [](const compiler::Tensor& x, const compiler::Tensor& w) {
    return compiler::add(compiler::sum(compiler::relu(compiler::matmul(x, w)), {0}),
                         compiler::mean(x));
  };
  const compiler::Tensor x = compiler::randn({64, 64}, 1);
  compiler::compile(f)(x, x);
  const std::string path = tracer::log_path();
  tracer::stop();
  compiler::inductor::config() = saved;
  // The payload of the first artifact `name` in a log, parsed.
  auto payload = [](const std::string& log, const std::string& name) {
    const std::size_t at = log.find("\"name\": \"" + name + "\"");
    REQUIRE(at != std::string::npos);
    const std::size_t start = log.find("\n\t", at) + 2;
    return log.substr(start, log.find('\n', start) - start);
  };
  const std::string ours = test_support::read_file(path);
  const std::string theirs = test_support::read_file(*w11);
  simdjson::dom::parser p1;
  simdjson::dom::parser p2;
  for (const char* name : {"inductor_provenance_tracking_node_mappings",
                           "inductor_provenance_tracking_kernel_stack_traces"}) {
    INFO(name);
    simdjson::dom::object mine;
    simdjson::dom::object pytorch;
    REQUIRE(!p1.parse(payload(ours, name)).get(mine));
    REQUIRE(!p2.parse(payload(theirs, name)).get(pytorch));
    if (std::string(name).ends_with("node_mappings")) {
      for (const char* key : {"preToPost", "postToPre", "cppCodeToPost", "postToCppCode"}) {
        simdjson::dom::object a;
        simdjson::dom::object b;
        CHECK(!mine[key].get(a));
        CHECK(!pytorch[key].get(b));
      }
      double version = 0;
      CHECK(!mine["version"].get(version));
      CHECK(version == 2.0);
      // The kernels are named "name:handle", and the user's nodes map to them.
      simdjson::dom::object code;
      REQUIRE(!mine["cppCodeToPost"].get(code));
      bool extern_mm = false;
      for (auto kv : code) {
        const std::string k(kv.key);
        CHECK(k.find(':') != std::string::npos);
        extern_mm = extern_mm || k.starts_with("extern_kernels.mm:");
      }
      CHECK(extern_mm);
    } else {
      // Each kernel's user lines: a Python-style traceback frame per line.
      for (auto kv : mine) {
        simdjson::dom::array frames;
        REQUIRE(!kv.value.get(frames));
        for (auto frame : frames) {
          std::string_view text;
          REQUIRE(!frame.get(text));
          CHECK(text.starts_with("  File \""));
        }
      }
    }
  }
}
