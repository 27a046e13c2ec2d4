// The compiler samples' traces against PyTorch 2.11's logs of the matching workloads: each
// sample runs with TORCH_TRACE into a temporary folder, and what a PyTorch user reads in
// tlparse (the compile ids in order, the frame each compiles, the recompile reasons, the graph
// breaks, the symbols and size guards Dynamo adds, the compile metrics' cache sizes, restarts
// and failures) must be the same as in PyTorch's log. Every sample log must also read with no
// failed line, by tlparse 0.4.3's rules and (when it is built) by our tlparse, whose report
// must have the compile directories and Dynamo artifacts tlparse 0.4.3 wrote for PyTorch's.
#include "sample_log_checks.h"
#include "support/test_paths.h"
#include "support/tlparse_rules.h"
#include "support/trace_runs.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <simdjson.h>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

using sample_logs::check_reads_cleanly;
using sample_logs::reference_files;
using test_support::pytorch_log;

fs::path run_sample(const std::string& exe, const fs::path& dir) {
  return test_support::run_traced_program(exe, dir);
}

std::string text_of(simdjson::dom::element e) {
  if (e.is_string()) {
    return std::string(std::string_view(e));
  }
  if (e.is_null()) {
    return "null";
  }
  return simdjson::minify(e);
}

// "torch_dynamo_resume_in_g_at_15" -> "torch_dynamo_resume_in_g_at_N": lines differ between a
// Python workload and its C++ sample.
std::string without_line(const std::string& name) {
  static const std::regex at_line("_at_\\d+$");
  return std::regex_replace(name, at_line, "_at_N");
}

// A guard or recompile reason without its location comment and user stack: what it says, not
// where (PyTorch points into a .py file, we into a .cpp one).
std::string reason_text(const std::string& r) {
  std::string out = r.substr(0, std::min(r.find("  #"), r.find('\n')));
  while (!out.empty() && out.back() == ' ') {
    out.pop_back();
  }
  return out;
}

// Renames each symbol of `expr` ("s77") to its source ("L['x'].size()[0]"): symbol names
// differ (PyTorch hashes the source), sources do not.
std::string with_sources(const std::string& expr, const std::map<std::string, std::string>& syms) {
  static const std::regex symbol("\\bs\\d+\\b");
  std::string out;
  auto begin = std::sregex_iterator(expr.begin(), expr.end(), symbol);
  std::size_t last = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    out += expr.substr(last, static_cast<std::size_t>(it->position()) - last);
    auto found = syms.find(it->str());
    out += found != syms.end() ? found->second : it->str();
    last = static_cast<std::size_t>(it->position() + it->length());
  }
  return out + expr.substr(last);
}

// What a PyTorch user sees of the compiles in a log, one line per fact, in log order.
std::vector<std::string> summarize(const fs::path& log) {
  const test_support::TlparseRuleCounts counts = test_support::parse_file_by_tlparse_rules(log);
  simdjson::dom::parser parser;
  std::vector<std::string> out;
  std::vector<std::string> ids;
  std::map<std::string, std::string> symbols; // symbol -> source, for the current compile
  static const std::regex simple_guard("^\\S+ (<|<=|>|>=|==|!=) -?\\d+$");
  for (const test_support::ParsedEvent& ev : counts.events) {
    if (ev.kind == "str" || ev.kind == "chromium_event") {
      continue;
    }
    simdjson::dom::element env;
    if (parser.parse(ev.envelope).get(env) != simdjson::SUCCESS) {
      out.push_back("unparsable envelope: " + ev.envelope);
      continue;
    }
    std::string id = "[-]";
    int64_t frame = 0;
    int64_t compile = 0;
    int64_t attempt = 0;
    if (env["frame_id"].get(frame) == simdjson::SUCCESS &&
        env["frame_compile_id"].get(compile) == simdjson::SUCCESS) {
      if (env["attempt"].get(attempt) != simdjson::SUCCESS) {
        attempt = 0; // compilation_metrics carries no attempt when it is 0
      }
      id = "[" + std::to_string(frame) + "/" + std::to_string(compile) +
           (attempt != 0 ? "_" + std::to_string(attempt) : "") + "]";
    }
    if (ids.empty() || ids.back() != id) {
      bool seen = false;
      for (const std::string& s : ids) {
        seen = seen || s == id;
      }
      if (!seen) {
        ids.push_back(id);
        symbols.clear();
      }
    }
    simdjson::dom::element body = env[ev.kind];
    if (ev.kind == "dynamo_start") {
      // The frame being compiled is the last of the user stack.
      simdjson::dom::array stack = body["stack"];
      std::string name = "?";
      for (simdjson::dom::element f : stack) {
        name = text_of(f["name"]);
      }
      out.push_back(id + " dynamo_start " + without_line(name));
    } else if (ev.kind == "artifact") {
      const std::string name = text_of(body["name"]);
      if (name == "recompile_reasons") {
        // A JSON list of strings; PyTorch writes a lone reason as the bare string.
        simdjson::dom::element reasons;
        if (parser.parse(ev.payload).get(reasons) == simdjson::SUCCESS && reasons.is_array()) {
          for (simdjson::dom::element r : simdjson::dom::array(reasons)) {
            out.push_back(id + " recompile_reason " + reason_text(text_of(r)));
          }
        } else {
          out.push_back(id + " recompile_reason " + reason_text(ev.payload));
        }
      } else if (name == "dynamo_graph_break_reason" || name == "dynamo_error") {
        out.push_back(id + " " + name);
      }
    } else if (ev.kind == "create_symbol") {
      const std::string source = text_of(body["source"]);
      symbols[text_of(body["symbol"])] = source;
      // Size symbols only: PyTorch also makes a changed float argument a symbol (zf69), which
      // we specialise instead (docs/COMPILER.md).
      if (source.find(".size()") != std::string::npos) {
        out.push_back(id + " create_symbol " + source + " " + text_of(body["vr"]));
      }
    } else if (ev.kind == "guard_added_fast") {
      // Dynamo's own size guards (with a user stack) of the simple form `s0 > 16`; backend
      // guards (int32 indexing) have an empty user stack.
      const std::string expr = text_of(body["expr"]);
      simdjson::dom::array user_stack;
      if (body["user_stack"].get(user_stack) == simdjson::SUCCESS && user_stack.size() > 0 &&
          std::regex_match(expr, simple_guard)) {
        out.push_back(id + " guard " + with_sources(expr, symbols));
      }
    } else if (ev.kind == "compilation_metrics") {
      int64_t restarts = 0;
      simdjson::dom::array restart_reasons;
      if (body["restart_reasons"].get(restart_reasons) == simdjson::SUCCESS) {
        restarts = static_cast<int64_t>(restart_reasons.size());
      }
      std::string recompile_reason = text_of(body["recompile_reason"]);
      out.push_back(id + " compilation_metrics compile_id=" + text_of(body["compile_id"]) +
                    " co_name=" + without_line(text_of(body["co_name"])) +
                    " cache_size=" + text_of(body["cache_size"]) +
                    " accumulated_cache_size=" + text_of(body["accumulated_cache_size"]) +
                    " has_guarded_code=" + text_of(body["has_guarded_code"]) + " fail_type=" +
                    text_of(body["fail_type"]) + " restart_reasons=" + std::to_string(restarts) +
                    " recompile_reason=" + reason_text(recompile_reason));
    }
  }
  std::string all = "compile ids:";
  for (const std::string& id : ids) {
    all += " " + id;
  }
  out.insert(out.begin(), all);
  return out;
}

// The Dynamo-level artifacts tlparse writes per compile directory ("-_1_0_1/
// dynamo_output_graph.txt", numbering dropped), from a files.txt listing (one path a line).
std::vector<std::string> dynamo_artifacts(const std::vector<std::string>& paths) {
  static const std::regex artifact(
      "^(-_\\d+_\\d+_\\d+)/(dynamo_output_graph|dynamo_cpp_guards_str|compilation_metrics|"
      "recompile_reasons|dynamo_graph_break_reason|dynamo_error)_\\d+\\.(\\w+)$");
  std::vector<std::string> out;
  for (const std::string& p : paths) {
    std::smatch m;
    if (std::regex_match(p, m, artifact)) {
      out.push_back(m.str(1) + "/" + m.str(2) + "." + m.str(3));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Our tlparse's report of `log` has the compile directories and Dynamo artifacts that tlparse
// 0.4.3 wrote for PyTorch's log of `workload` (backend artifacts aside: we have no Inductor).
void compare_report_with_reference(const fs::path& log, const std::string& workload) {
  std::optional<std::vector<std::string>> reference = reference_files(workload);
  if (!reference) {
    WARN("SKIPPED: no tlparse 0.4.3 reference for " << workload);
    return;
  }
  const std::optional<std::vector<std::string>> ours = sample_logs::report_listing(log);
  if (!ours) {
    WARN("SKIPPED: the tlparse binary is not built");
    return;
  }
  CHECK_FALSE(dynamo_artifacts(*reference).empty());
  CHECK(dynamo_artifacts(*ours) == dynamo_artifacts(*reference));
}

void compare_with_pytorch(const std::string& exe, const std::string& workload) {
  std::optional<fs::path> theirs = test_support::pytorch_log(workload);
  if (!theirs) {
    TORCHSCOPE_SKIP("no PyTorch log of " << workload << " (../shared nor tests/data)");
  }
  test_support::TempDir dir("sample-logs");
  const fs::path ours = run_sample(exe, dir.path());
  check_reads_cleanly(ours);
  const std::vector<std::string> expected = summarize(*theirs);
  const std::vector<std::string> actual = summarize(ours);
  INFO("PyTorch's log: " << *theirs);
  CHECK(actual == expected);
  compare_report_with_reference(ours, workload);
}

} // namespace

TEST_CASE("sample_recompile logs the compile ids, recompile reasons and graph break of "
          "PyTorch's w02 log",
          "[compiler][samples]") {
  compare_with_pytorch(SAMPLE_RECOMPILE, "w02_recompile");
}

TEST_CASE("sample_data_dependent logs the branch break and resume frame of PyTorch's w03 log",
          "[compiler][samples]") {
  compare_with_pytorch(SAMPLE_DATA_DEPENDENT, "w03_data_dependent");
}

TEST_CASE("sample_dynamic_shapes logs the symbols, size guard and recompiles of PyTorch's w16 "
          "log",
          "[compiler][samples]") {
  compare_with_pytorch(SAMPLE_DYNAMIC_SHAPES, "w16_dynamic");
}

TEST_CASE("sample_fullgraph_error logs the failed compile of PyTorch's w19 log",
          "[compiler][samples]") {
  compare_with_pytorch(SAMPLE_FULLGRAPH_ERROR, "w19_fullgraph_error");
}

TEST_CASE("sample_mlp writes a log that reads with no failed line", "[compiler][samples]") {
  test_support::TempDir dir("sample-logs");
  check_reads_cleanly(run_sample(SAMPLE_MLP, dir.path()));
}

TEST_CASE("the sample log summary sees a missing recompile reason", "[compiler][samples]") {
  // The comparison above can fail: drop one recompile reason from a copy of PyTorch's w16 log
  // and the summaries differ.
  std::optional<fs::path> theirs = test_support::pytorch_log("w16_dynamic");
  if (!theirs) {
    TORCHSCOPE_SKIP("no PyTorch log of w16_dynamic");
  }
  const std::string text = test_support::read_file(*theirs);
  const std::size_t at = text.find("{\"artifact\": {\"name\": \"recompile_reasons\"");
  REQUIRE(at != std::string::npos);
  const std::size_t line_start = text.rfind('\n', at) + 1;
  std::size_t line_end = text.find('\n', at);
  // The envelope and its payload lines (they start with a tab).
  while (line_end + 1 < text.size() && text[line_end + 1] == '\t') {
    line_end = text.find('\n', line_end + 1);
  }
  test_support::TempDir dir("sample-logs");
  const fs::path edited = dir.path() / "edited.log";
  {
    std::ofstream out(edited);
    out << text.substr(0, line_start) << text.substr(line_end + 1);
  }
  CHECK(summarize(edited) != summarize(*theirs));
}
