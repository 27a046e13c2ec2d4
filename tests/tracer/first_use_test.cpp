// Tracing starts explicitly or from TORCH_TRACE on first use, never from a static initializer;
// the library prints nothing itself: its warnings go to the host's handler.
#include "support/test_paths.h"
#include "support/tlparse_rules.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fcntl.h>
#include <string>
#include <unistd.h>

namespace {

struct Run {
  std::string out;
  std::string err;
};

// Runs first_use_program with `env` prepended (VAR=value ...) and the given arguments.
Run run_program(const test_support::TempDir& dir, const std::string& env, const std::string& args) {
  const std::string out = (dir.path() / "stdout.txt").string();
  const std::string err = (dir.path() / "stderr.txt").string();
  const std::string cmd =
      env + " '" TORCHSCOPE_FIRST_USE_PROGRAM "' " + args + " > '" + out + "' 2> '" + err + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  return {test_support::read_file(out), test_support::read_file(err)};
}

bool has_line(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

} // namespace

TEST_CASE("TORCH_TRACE starts tracing at the first event, not at program start",
          "[tracer][first_use]") {
  test_support::TempDir dir("tracer-first-use");
  const std::string trace = (dir.path() / "trace").string();
  std::filesystem::create_directories(trace);
  const Run r = run_program(dir, "TORCH_TRACE='" + trace + "' RANK=2", "env");
  INFO(r.out << r.err);
  CHECK(has_line(r.out, "files before first use: 0"));
  CHECK(has_line(r.out, "enabled: 1"));
  CHECK(has_line(r.out, "files in TORCH_TRACE: 1"));
  CHECK(r.err.empty());
  const auto logs = test_support::trace_files_under(trace);
  REQUIRE(logs.size() == 1);
  CHECK(logs[0].filename().string().rfind("dedicated_log_torch_trace_rank_2_", 0) == 0);
  const auto counts = test_support::parse_file_by_tlparse_rules(logs[0]);
  CHECK(counts.failures() == 0);
  CHECK(counts.kinds.at("first_event") == 1);
  CHECK(counts.kinds.at("second_event") == 1);
}

TEST_CASE("an explicit start before first use wins over TORCH_TRACE", "[tracer][first_use]") {
  test_support::TempDir dir("tracer-explicit");
  const std::string trace = (dir.path() / "env").string();
  const std::string chosen = (dir.path() / "chosen").string();
  std::filesystem::create_directories(trace);
  const Run r = run_program(dir, "TORCH_TRACE='" + trace + "'", "explicit '" + chosen + "'");
  INFO(r.out << r.err);
  CHECK(has_line(r.out, "started: 1"));
  CHECK(has_line(r.out, "files in TORCH_TRACE: 0"));
  CHECK(test_support::trace_files_under(chosen).size() == 1);
}

TEST_CASE("stop() before first use keeps TORCH_TRACE from starting anything",
          "[tracer][first_use]") {
  test_support::TempDir dir("tracer-stopped");
  const std::string trace = (dir.path() / "trace").string();
  std::filesystem::create_directories(trace);
  const Run r = run_program(dir, "TORCH_TRACE='" + trace + "'", "stopped");
  INFO(r.out << r.err);
  CHECK(has_line(r.out, "enabled: 0"));
  CHECK(has_line(r.out, "log: "));
  CHECK(has_line(r.out, "files in TORCH_TRACE: 0"));
}

TEST_CASE("without TORCH_TRACE nothing is written and nothing printed", "[tracer][first_use]") {
  test_support::TempDir dir("tracer-no-env");
  const Run r = run_program(dir, "env -u TORCH_TRACE", "env");
  CHECK(has_line(r.out, "enabled: 0"));
  CHECK(has_line(r.out, "warnings: 0"));
  CHECK(r.err.empty());
}

TEST_CASE("an unwritable TORCH_TRACE gives one warning, to the host's handler only",
          "[tracer][first_use]") {
  test_support::TempDir dir("tracer-handler");
  const std::string blocker = (dir.path() / "file").string();
  ::close(::open(blocker.c_str(), O_CREAT | O_WRONLY, 0644));
  // A folder under a regular file can never be created, whoever runs the test.
  const Run r = run_program(dir, "TORCH_TRACE='" + blocker + "/trace'", "handler");
  INFO(r.out << r.err);
  CHECK(has_line(r.out, "enabled: 0"));
  CHECK(has_line(r.out, "warnings: 1"));
  CHECK(r.out.find("warning: cannot create directory") != std::string::npos);
  CHECK(r.err.empty()); // the library printed nothing itself
}
