// The tlparse binary: 0.4.3's flags, exit codes and messages, plus the safer output handling.
#include "ingest_test_util.h"
#include "support/test_paths.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <thread>

using namespace tlparse_test;
namespace fs = std::filesystem;

TEST_CASE("cli prints help and a version that names tlparse 0.4.3", "[tlparse][cli]") {
  test_support::TempDir tmp;
  const auto help = run_tlparse({"--help"}, tmp.path());
  CHECK(help.code == 0);
  CHECK(help.out.find("--overwrite") != std::string::npos);
  const auto version = run_tlparse({"-V"}, tmp.path());
  CHECK(version.code == 0);
  CHECK(version.out.rfind("tlparse 0.4.3 (torchscope ", 0) == 0);
}

TEST_CASE("cli usage errors exit 2", "[tlparse][cli]") {
  test_support::TempDir tmp;
  const auto missing = run_tlparse({}, tmp.path());
  CHECK(missing.code == 2);
  CHECK(missing.err.find("<PATH>") != std::string::npos);
  CHECK(run_tlparse({"x.log", "--bogus"}, tmp.path()).code == 2);
}

TEST_CASE("cli on a missing file exits 1 and leaves no output folder", "[tlparse][cli]") {
  test_support::TempDir tmp;
  const auto r = run_tlparse({"nope.log", "-o", "out"}, tmp.path());
  CHECK(r.code == 1);
  CHECK(r.err.find("Error: nope.log is not a file") != std::string::npos);
  CHECK_FALSE(fs::exists(tmp.path() / "out"));
}

TEST_CASE("cli writes the report and the Stats line, with -o and --out", "[tlparse][cli]") {
  test_support::TempDir tmp;
  const auto r =
      run_tlparse({data_log("w19_fullgraph_error").string(), "--out", "out"}, tmp.path());
  CHECK(r.code == 0);
  CHECK(r.err.find("Stats { ok: 16 }") != std::string::npos);
  CHECK(fs::exists(tmp.path() / "out/index.sqlite"));
  CHECK(fs::exists(tmp.path() / "out/index.html"));
  CHECK(fs::exists(tmp.path() / "out/compile_directory.json"));
  // No staging folder is left behind.
  for (const auto& e : fs::directory_iterator(tmp.path())) {
    CHECK(e.path().filename().string().find("tlparse-tmp") == std::string::npos);
  }
}

TEST_CASE("cli refuses an existing output folder without --overwrite", "[tlparse][cli]") {
  test_support::TempDir tmp;
  fs::create_directory(tmp.path() / "out");
  const auto r = run_tlparse({data_log("w19_fullgraph_error").string(), "-o", "out"}, tmp.path());
  CHECK(r.code == 1);
  CHECK(r.err.find("already exists; pass --overwrite") != std::string::npos);
}

TEST_CASE("cli --overwrite refuses a folder that is not a report", "[tlparse][cli]") {
  test_support::TempDir tmp;
  fs::create_directory(tmp.path() / "precious");
  write_file(tmp.path() / "precious/thesis.tex", "keep me");
  const auto r = run_tlparse(
      {data_log("w19_fullgraph_error").string(), "-o", "precious", "--overwrite"}, tmp.path());
  CHECK(r.code == 1);
  CHECK(fs::exists(tmp.path() / "precious/thesis.tex"));
  // A previous report is replaced.
  REQUIRE(run_tlparse({data_log("w19_fullgraph_error").string(), "-o", "out"}, tmp.path()).code ==
          0);
  CHECK(run_tlparse({data_log("w19_fullgraph_error").string(), "-o", "out", "--overwrite"},
                    tmp.path())
            .code == 0);
}

TEST_CASE("cli --strict fails and writes nothing when a line failed", "[tlparse][cli]") {
  test_support::TempDir tmp;
  write_file(tmp.path() / "bad.log", glog_line("{not json") + "\n");
  const auto r = run_tlparse({"bad.log", "-o", "out", "--strict"}, tmp.path());
  CHECK(r.code == 1);
  CHECK(r.err.find("Something went wrong") != std::string::npos);
  CHECK_FALSE(fs::exists(tmp.path() / "out"));
  CHECK(run_tlparse({"bad.log", "-o", "out2"}, tmp.path()).code == 0);
}

TEST_CASE("cli --latest and a folder PATH pick the newest log", "[tlparse][cli]") {
  test_support::TempDir tmp;
  fs::create_directory(tmp.path() / "logs");
  write_file(tmp.path() / "logs/old.log", glog_line(R"({"str": ["a", 0]})") + "\n");
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  fs::copy_file(data_log("w19_fullgraph_error"), tmp.path() / "logs/new.log");
  fs::last_write_time(tmp.path() / "logs/new.log",
                      fs::last_write_time(tmp.path() / "logs/old.log") + std::chrono::seconds(5));
  const auto latest = run_tlparse({"logs", "--latest", "-o", "a"}, tmp.path());
  CHECK(latest.code == 0);
  CHECK(latest.err.find("Stats { ok: 16 }") != std::string::npos);
  const auto folder = run_tlparse({"logs", "-o", "b"}, tmp.path());
  CHECK(folder.code == 0);
  CHECK(folder.err.find("Stats { ok: 16 }") != std::string::npos);
  fs::create_directory(tmp.path() / "empty");
  const auto none = run_tlparse({"empty", "--latest"}, tmp.path());
  CHECK(none.code == 1);
  CHECK(none.err.find("No files found in directory") != std::string::npos);
  const auto not_dir = run_tlparse({"logs/new.log", "--latest"}, tmp.path());
  CHECK(not_dir.code == 1);
}

TEST_CASE("cli index then render writes the same files as a direct run", "[tlparse][cli]") {
  test_support::TempDir tmp;
  const std::string log = data_log("w19_fullgraph_error").string();
  REQUIRE(run_tlparse({log, "-o", "direct"}, tmp.path()).code == 0);
  const auto idx = run_tlparse({"index", log, "-o", "i.sqlite"}, tmp.path());
  REQUIRE(idx.code == 0);
  CHECK(idx.err.find("Stats { ok: 16 }") != std::string::npos);
  // The log is named on the command line: a path stored in an index is never read.
  REQUIRE(
      run_tlparse({"render", "i.sqlite", "-o", "rendered", "--raw-log", log}, tmp.path()).code ==
      0);
  const auto a = files_under(tmp.path() / "direct");
  const auto b = files_under(tmp.path() / "rendered");
  REQUIRE(a == b);
  for (const auto& f : a) {
    INFO(f);
    CHECK(test_support::read_file(tmp.path() / "direct" / f) ==
          test_support::read_file(tmp.path() / "rendered" / f));
  }
}

TEST_CASE("cli index accepts a folder of mixed files and counts the junk", "[tlparse][cli]") {
  test_support::TempDir tmp;
  fs::create_directory(tmp.path() / "mixed");
  fs::copy_file(data_log("w19_fullgraph_error"), tmp.path() / "mixed/a.log");
  write_file(tmp.path() / "mixed/b.log", std::string("\x7f"
                                                     "ELF\x02\x01\x01\0\0\0garbage\n",
                                                     18));
  write_file(tmp.path() / "mixed/notes.txt", "not a log");
  fs::create_directory(tmp.path() / "mixed/sub");
  const auto r = run_tlparse({"index", "mixed", "-o", "m.sqlite"}, tmp.path());
  CHECK(r.code == 0);
  CHECK(r.err.find("Stats { ok: 16 }") != std::string::npos);
  CHECK(fs::exists(tmp.path() / "m.sqlite"));
}

TEST_CASE("cli -v names every unknown key and a data-health line follows the Stats line",
          "[tlparse][cli]") {
  test_support::TempDir tmp;
  write_file(tmp.path() / "a.log",
             glog_line(R"({"my_custom_event": {}, "frame_id": 0, "frame_compile_id": 0})") + "\n" +
                 glog_line(R"({"my_custom_event": {}, "frame_id": 0, "frame_compile_id": 0})") +
                 "\n\tstray payload line\n");
  const auto r = run_tlparse({"a.log", "-o", "out", "-v"}, tmp.path());
  CHECK(r.code == 0);
  CHECK(r.err.find("Unknown field my_custom_event") != std::string::npos);
  CHECK(r.err.find("Stats { ok: 2, fail_glog: 1, unknown: 2 }") != std::string::npos);
  CHECK(r.err.find("Unknown fields: {\"my_custom_event\"}") != std::string::npos);
  CHECK(r.err.find("Data health: fail_glog: 1") != std::string::npos);
}

TEST_CASE("cli --strict-compile-id fails only on an invalid compile id", "[tlparse][cli]") {
  test_support::TempDir tmp;
  write_file(
      tmp.path() / "bad_id.log",
      glog_line(R"({"dynamo_start": {"stack": []}, "frame_id": -1, "frame_compile_id": 0})") +
          "\n");
  const auto bad = run_tlparse({"bad_id.log", "-o", "out", "--strict-compile-id"}, tmp.path());
  CHECK(bad.code == 1);
  CHECK(bad.err.find("did not have compile id") != std::string::npos);
  // Valid ids, and events with no compile id at all, pass (as in tlparse 0.4.3).
  write_file(
      tmp.path() / "good.log",
      glog_line(
          R"({"dynamo_start": {"stack": []}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0})") +
          "\n" + glog_line(R"({"str": ["torch/x.py", 0]})") + "\n");
  CHECK(run_tlparse({"good.log", "-o", "out2", "--strict-compile-id"}, tmp.path()).code == 0);
  CHECK(fs::exists(tmp.path() / "out2" / "index.html"));
}

TEST_CASE("cli -p writes inductor output code as plain text", "[tlparse][cli]") {
  test_support::TempDir tmp;
  const std::string code = "def call(args):\n    return (buf0, )";
  write_file(
      tmp.path() / "code.log",
      event_with_payload(
          R"({"inductor_output_code": {"filename": "/tmp/ab/cxyz.py"}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0)",
          code) +
          "\n");
  REQUIRE(run_tlparse({"code.log", "-o", "html"}, tmp.path()).code == 0);
  REQUIRE(run_tlparse({"code.log", "-o", "text", "-p"}, tmp.path()).code == 0);
  const fs::path html = tmp.path() / "html" / "-_0_0_0" / "inductor_output_code_cxyz_0.html";
  const fs::path text = tmp.path() / "text" / "-_0_0_0" / "inductor_output_code_cxyz_0.txt";
  CHECK(fs::exists(html));
  CHECK_FALSE(fs::exists(tmp.path() / "html" / "-_0_0_0" / "inductor_output_code_cxyz_0.txt"));
  REQUIRE(fs::exists(text));
  CHECK(test_support::read_file(text) == code);
}

TEST_CASE("cli run reports the logs its workload wrote and keeps the workload's exit status",
          "[tlparse][cli]") {
  test_support::TempDir tmp;
  // The workload sees TORCH_TRACE: it copies a real log there, then fails with status 5.
  const std::string workload = "test -d \"$TORCH_TRACE\" && cp '" +
                               data_log("w19_fullgraph_error").string() +
                               "' \"$TORCH_TRACE\"/dedicated_log_torch_trace_x.log && exit 5";
  const auto r = run_tlparse(
      {"run", "--trace-dir", "trace", "-o", "out", "--no-browser", "--", "/bin/sh", "-c", workload},
      tmp.path());
  CHECK(r.code == 5);
  CHECK(r.err.find("exited with status 5; 1 log in") != std::string::npos);
  CHECK(r.err.find("Stats { ok: 16 }") != std::string::npos);
  CHECK(fs::exists(tmp.path() / "trace/dedicated_log_torch_trace_x.log"));
  CHECK(fs::exists(tmp.path() / "out/index.html"));
}

TEST_CASE("cli run with rank logs writes the all-ranks report", "[tlparse][cli]") {
  test_support::TempDir tmp;
  const std::string log = data_log("w19_fullgraph_error").string();
  const std::string workload = "cp '" + log +
                               "' \"$TORCH_TRACE\"/dedicated_log_torch_trace_rank_0_a.log && cp '" +
                               log + "' \"$TORCH_TRACE\"/dedicated_log_torch_trace_rank_1_b.log";
  const auto r = run_tlparse(
      {"run", "--trace-dir", "trace", "-o", "out", "--no-browser", "--", "/bin/sh", "-c", workload},
      tmp.path());
  CHECK(r.code == 0);
  CHECK(fs::exists(tmp.path() / "out/rank_0/index.html"));
  CHECK(fs::exists(tmp.path() / "out/rank_1/index.html"));
  CHECK(fs::exists(tmp.path() / "out/index.html"));
}

TEST_CASE("cli run: no log, a missing program, a used trace folder, no workload",
          "[tlparse][cli]") {
  test_support::TempDir tmp;
  const auto silent =
      run_tlparse({"run", "--trace-dir", "t1", "--", "/bin/sh", "-c", "exit 0"}, tmp.path());
  CHECK(silent.code == 1);
  CHECK(silent.err.find("wrote no log into TORCH_TRACE=") != std::string::npos);
  const auto failed =
      run_tlparse({"run", "--trace-dir", "t2", "--", "/bin/sh", "-c", "exit 3"}, tmp.path());
  CHECK(failed.code == 3);
  const auto missing =
      run_tlparse({"run", "--trace-dir", "t3", "--", "/no/such/program"}, tmp.path());
  CHECK(missing.code == 127);
  CHECK(missing.err.find("cannot run /no/such/program") != std::string::npos);
  fs::create_directory(tmp.path() / "used");
  std::ofstream(tmp.path() / "used/old.log") << "x\n";
  const auto used = run_tlparse({"run", "--trace-dir", "used", "--", "true"}, tmp.path());
  CHECK(used.code == 1);
  CHECK(used.err.find("is not empty") != std::string::npos);
  CHECK(run_tlparse({"run", "-o", "out"}, tmp.path()).code == 2);
  CHECK(run_tlparse({"run", "--all-ranks-html", "--", "true"}, tmp.path()).code == 2);
  const auto help = run_tlparse({"run", "--help"}, tmp.path());
  CHECK(help.code == 0);
  CHECK(help.out.find("TORCH_TRACE") != std::string::npos);
}
