// Events from many threads never interleave, and a killed process leaves whole events.
#include "support/test_paths.h"
#include "support/tlparse_rules.h"
#include "tracer/trace.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <map>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

TEST_CASE("N threads x M events are all well-formed and complete", "[tracer][threads]") {
  test_support::TempDir dir("tracer-threads");
  REQUIRE(tracer::start({.directory = dir.path().string()}));
  constexpr int kThreads = 8;
  constexpr int kEvents = 1500;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t] {
      tracer::CompileScope scope({.frame_id = t, .frame_compile_id = 0, .attempt = 0});
      for (int i = 0; i < kEvents; ++i) {
        tracer::event_with_payload(
            "dynamo_output_graph",
            [&](tracer::JsonWriter& w) { w.member("thread", t).member("seq", i); },
            [&](std::string& out) {
              for (int l = 0; l < 1 + (i % 7); ++l) {
                out += "line " + std::to_string(l) + " of event " + std::to_string(i) + "\n";
              }
              out += "end";
            });
      }
    });
  }
  for (auto& th : threads) {
    th.join();
  }
  const std::string path = tracer::log_path();
  tracer::stop();
  const auto counts = test_support::parse_file_by_tlparse_rules(path);
  CHECK(counts.failures() == 0);
  CHECK(counts.ok == kThreads * kEvents);
  std::map<int, int> next_seq;
  for (const auto& ev : counts.events) {
    if (ev.kind != "dynamo_output_graph") {
      continue;
    }
    const auto tpos = ev.envelope.find("\"thread\": ");
    const auto spos = ev.envelope.find("\"seq\": ");
    REQUIRE(tpos != std::string::npos);
    const int t = std::stoi(ev.envelope.substr(tpos + 10));
    const int seq = std::stoi(ev.envelope.substr(spos + 7));
    CHECK(seq == next_seq[t]); // each thread's events appear whole and in order
    next_seq[t] = seq + 1;
    CHECK(ev.payload.size() > 3);
    CHECK(ev.payload.substr(ev.payload.size() - 3) == "end");
  }
  CHECK(next_seq.size() == kThreads);
}

TEST_CASE("a child killed mid-run leaves a log that parses up to its last whole event",
          "[tracer][crash]") {
  test_support::TempDir dir("tracer-kill");
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::close(ready[0]);
    tracer::start({.directory = dir.path().string()});
    tracer::CompileScope scope({.frame_id = 0, .frame_compile_id = 0, .attempt = 0});
    for (long i = 0;; ++i) {
      tracer::event_with_payload(
          "inductor_output_code", [&](tracer::JsonWriter& w) { w.member("seq", i); },
          [&](std::string& out) { out.append(static_cast<std::size_t>(1000 + i % 5000), 'k'); });
      if (i == 100) {
        (void)!::write(ready[1], "r", 1);
      }
    }
  }
  ::close(ready[1]);
  char c;
  REQUIRE(::read(ready[0], &c, 1) == 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ::close(ready[0]);
  CHECK(WIFSIGNALED(status));
  auto logs = test_support::trace_files_under(dir.path());
  REQUIRE(logs.size() == 1);
  // SIGKILL can land inside the final write(2) (Linux stops a large write between pages), so
  // the last event may be torn; every event before it must be whole.
  const std::string text = test_support::read_file(logs[0]);
  const std::size_t last_event = text.rfind("\nV");
  REQUIRE(last_event != std::string::npos);
  const auto counts = test_support::parse_by_tlparse_rules(text.substr(0, last_event + 1));
  CHECK(counts.ok > 100);
  CHECK(counts.failures() == 0);
}
