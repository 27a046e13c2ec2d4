// The sample program's log follows tlparse 0.4.3's parsing rules (docs/TLPARSE-INGEST.md) with no
// failed line, and has the frames, compiles, recompile and graph break it claims to have.
#include "support/test_paths.h"
#include "support/tlparse_rules.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <regex>
#include <set>

TEST_CASE("sample_tracer_demo writes a log that tlparse's rules read with no failed line",
          "[samples]") {
  test_support::TempDir dir("sample-demo");
  const std::string cmd = "TORCH_TRACE='" + dir.path().string() + "' '" SAMPLE_TRACER_DEMO "' > '" +
                          (dir.path() / "stdout.txt").string() + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  const auto logs = test_support::trace_files_under(dir.path());
  REQUIRE(logs.size() == 2); // the log and stdout.txt
  const auto& log = logs[0].extension() == ".log" ? logs[0] : logs[1];
  const auto counts = test_support::parse_file_by_tlparse_rules(log);
  INFO("ok=" << counts.ok << " fail_glog=" << counts.fail_glog << " fail_json=" << counts.fail_json
             << " md5=" << counts.fail_payload_md5);
  CHECK(counts.failures() == 0);
  CHECK(counts.ok > 60);
  CHECK(counts.kinds.at("dynamo_start") == 4);
  CHECK(counts.kinds.at("compilation_metrics") == 4);
  CHECK(counts.kinds.at("dynamo_output_graph") == 4);
  CHECK(counts.kinds.at("inductor_output_code") == 4);
  CHECK(counts.kinds.at("chromium_event") >= 16);
  const std::regex id_pattern(R"("frame_id": \d+, "frame_compile_id": \d+, "attempt": \d+)");
  std::set<std::string> ids;
  int recompile_reasons = 0;
  int graph_breaks = 0;
  for (const auto& ev : counts.events) {
    std::smatch m;
    if (std::regex_search(ev.envelope, m, id_pattern)) {
      ids.insert(m.str(0));
    }
    recompile_reasons += ev.envelope.find("\"recompile_reasons\"") != std::string::npos;
    graph_breaks += ev.envelope.find("\"dynamo_graph_break_reason\"") != std::string::npos;
  }
  CHECK(recompile_reasons == 2);
  CHECK(graph_breaks == 1);
  // [0/0], [0/0_1] (the restart after the graph break), [1/0], [0/1], [1/1].
  CHECK(ids.size() == 5);
}
