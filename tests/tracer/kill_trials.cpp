// Kill trials (docs/TRACER.md, "Guarantees"): a child process with several threads writing events
// of random sizes (with and without payloads, in and out of compile scopes) is killed with SIGKILL
// at a random moment, TRIALS times. After every kill the log must
//  - read with our tlparse (the ingest succeeds on the whole file),
//  - up to its last complete event, follow tlparse 0.4.3's line rules with no failed line, and be
//    read by ours with no strict failure and the same number of events,
//  - hold every thread's events in sequence with none missing before the last complete one,
//  - have at most its final event torn (one failure at most over the whole file).
//   tracer_kill_trials [TRIALS] [SEED]      (CTest runs 50; the full run is 1000)
#include "support/test_paths.h"
#include "support/tlparse_rules.h"
#include "tlparse/ingest/ingest.h"
#include "tracer/trace.h"

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace {

constexpr int kThreads = 4;

// The child: kThreads threads writing until killed. Never returns.
[[noreturn]] void write_until_killed(const fs::path& dir, uint32_t seed) {
  tracer::start({.directory = dir.string()});
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, seed] {
      std::mt19937 rng(seed * 31u + static_cast<uint32_t>(t));
      tracer::CompileScope scope({.frame_id = t, .frame_compile_id = 0, .attempt = 0});
      for (long seq = 0;; ++seq) {
        const auto size = static_cast<std::size_t>(rng() % 4 == 0 ? rng() % 300000 : rng() % 2000);
        const auto meta = [&](tracer::JsonWriter& w) {
          w.member("thread", t);
          w.member("seq", seq);
        };
        if (rng() % 3 == 0) {
          tracer::event("kill_trial_event", meta);
        } else {
          tracer::event_with_payload("kill_trial_payload", meta, [&](std::string& out) {
            out.append(size, static_cast<char>('a' + seq % 26));
            out.append("\nend");
          });
        }
      }
    });
  }
  for (std::thread& th : threads) {
    th.join();
  }
  std::_Exit(0);
}

// The seq of `"seq": N` in an envelope, or -1.
long member(const std::string& envelope, const std::string& name) {
  const std::string key = "\"" + name + "\": ";
  const std::size_t at = envelope.find(key);
  return at == std::string::npos ? -1
                                 : std::strtol(envelope.c_str() + at + key.size(), nullptr, 10);
}

// Checks one killed child's log; returns the problem, or "" when it holds every rule.
std::string check_log(const fs::path& dir, long& events) {
  std::vector<fs::path> logs;
  for (const auto& e : fs::directory_iterator(dir)) {
    logs.push_back(e.path());
  }
  if (logs.empty()) {
    return {}; // killed before the log was created
  }
  if (logs.size() != 1) {
    return "more than one log";
  }
  const std::string text = test_support::read_file(logs[0]);
  const auto whole = test_support::parse_by_tlparse_rules(text);
  // Counted in events: a kill inside the last envelope's JSON is one event but two fail_json.
  if (whole.failed_events() > 1) {
    return "more than the final event failed: " + std::to_string(whole.failed_events());
  }
  const auto ours_whole = tlparse::ingest::ingest_files({logs[0]}, dir / "whole.sqlite", {});
  if (!ours_whole.ok) {
    return "our tlparse cannot read the log: " + ours_whole.error;
  }
  // Up to the last complete event: cut before the last envelope (it may be torn).
  const std::size_t last = text.rfind("\nV");
  const std::string prefix = last == std::string::npos ? std::string() : text.substr(0, last + 1);
  const auto rules = test_support::parse_by_tlparse_rules(prefix);
  if (rules.failures() != 0) {
    return "a failed line before the last event";
  }
  const fs::path cut = dir / "prefix.txt";
  std::ofstream(cut, std::ios::binary) << prefix;
  const auto ours = tlparse::ingest::ingest_files({cut}, dir / "prefix.sqlite", {});
  if (!ours.ok || ours.files.size() != 1) {
    return "our tlparse cannot read the prefix: " + ours.error;
  }
  const auto& stats = ours.files[0].stats;
  if (stats.strict_failures() != 0 || static_cast<int64_t>(stats.ok) != rules.ok) {
    return "our tlparse and tlparse's rules disagree on the prefix (ok " +
           std::to_string(stats.ok) + " vs " + std::to_string(rules.ok) + ")";
  }
  std::map<long, long> next;
  for (const auto& ev : rules.events) {
    if (ev.kind != "kill_trial_event" && ev.kind != "kill_trial_payload") {
      continue;
    }
    const long t = member(ev.envelope, "thread");
    const long seq = member(ev.envelope, "seq");
    if (seq != next[t]) {
      return "thread " + std::to_string(t) + " lost an event before seq " + std::to_string(seq);
    }
    next[t] = seq + 1;
    if (ev.kind == "kill_trial_payload" &&
        (ev.payload.size() < 4 || ev.payload.compare(ev.payload.size() - 4, 4, "\nend") != 0)) {
      return "a payload before the last event is not whole";
    }
    ++events;
  }
  return {};
}

} // namespace

int main(int argc, char** argv) {
  const int trials = argc > 1 ? std::atoi(argv[1]) : 50;
  const uint32_t seed = argc > 2 ? static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10))
                                 : static_cast<uint32_t>(std::random_device{}());
  std::printf("%d kill trials, %d threads, seed %u\n", trials, kThreads, seed);
  std::mt19937 rng(seed);
  // In memory where there is a tmpfs: each trial writes two small indexes, which on a busy disk
  // cost seconds of syncing and would make the trials measure the disk.
  std::error_code ec;
  const fs::path tmp =
      fs::is_directory("/dev/shm", ec) ? fs::path("/dev/shm") : fs::temp_directory_path();
  const fs::path root = tmp / ("torchscope-kill-" + std::to_string(::getpid()));
  long total_events = 0;
  long empty_logs = 0;
  int failures = 0;
  const auto started = std::chrono::steady_clock::now();
  for (int trial = 0; trial < trials; ++trial) {
    const fs::path dir = root / std::to_string(trial);
    fs::create_directories(dir);
    const uint32_t child_seed = rng();
    // Anywhere from before the first write to well into the run.
    const auto delay = std::chrono::microseconds(rng() % 40000);
    const pid_t child = ::fork();
    if (child < 0) {
      std::perror("fork");
      return 1;
    }
    if (child == 0) {
      write_until_killed(dir, child_seed);
    }
    std::this_thread::sleep_for(delay);
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    long events = 0;
    const std::string problem = check_log(dir, events);
    if (!problem.empty()) {
      ++failures;
      std::printf("trial %d (child seed %u, kill after %lld us): %s; log kept in %s\n", trial,
                  child_seed, static_cast<long long>(delay.count()), problem.c_str(), dir.c_str());
      continue;
    }
    empty_logs += events == 0 ? 1 : 0;
    total_events += events;
    fs::remove_all(dir);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("%d trials in %.1f s: %d failed, %ld events checked, %ld logs with no complete "
              "event\n",
              trials, seconds, failures, total_events, empty_logs);
  if (failures == 0) {
    fs::remove_all(root);
  }
  return failures == 0 ? 0 : 1;
}
