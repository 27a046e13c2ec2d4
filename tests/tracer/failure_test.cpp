// The traced program never fails because of tracing: an unwritable folder or a full disk turns
// tracing off with exactly one warning, delivered to the host's handler (by default one line on
// stderr, with control characters escaped).
#include "support/test_paths.h"
#include "support/tlparse_rules.h"
#include "tracer/trace.h"

#include <catch2/catch.hpp>
#include <csignal>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

struct ChildResult {
  int exit_code = -1;
  std::string err;
};

// Runs `body` in a child process with stderr captured.
template <class Body>
ChildResult run_in_child(Body body) {
  int pipefd[2];
  REQUIRE(::pipe(pipefd) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(pipefd[1], 2);
    ::close(pipefd[0]);
    ::close(pipefd[1]);
    body();
    std::fflush(stderr);
    std::_Exit(0);
  }
  ::close(pipefd[1]);
  ChildResult r;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(pipefd[0], buf, sizeof buf)) > 0) {
    r.err.append(buf, static_cast<std::size_t>(n));
  }
  ::close(pipefd[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

std::size_t count(const std::string& s, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t p = s.find(needle); p != std::string::npos; p = s.find(needle, p + 1)) {
    ++n;
  }
  return n;
}

} // namespace

TEST_CASE("an unwritable folder turns tracing off with one warning", "[tracer][failure]") {
  test_support::TempDir dir("tracer-unwritable");
  const std::string blocker = (dir.path() / "file").string();
  ::close(::open(blocker.c_str(), O_CREAT | O_WRONLY, 0644));
  const auto r = run_in_child([&] {
    // A path under a regular file can never be created, whoever runs the test (even root).
    const bool ok = tracer::start({.directory = blocker + "/trace"});
    for (int i = 0; i < 100; ++i) {
      tracer::event("dynamo_start", tracer::no_metadata);
    }
    std::_Exit(ok || tracer::enabled() ? 3 : 0);
  });
  CHECK(r.exit_code == 0);
  CHECK(count(r.err, "warning: torchscope tracer") == 1);
  CHECK(r.err.find("cannot create directory") != std::string::npos);
}

TEST_CASE("a full disk turns tracing off with one warning and the program goes on",
          "[tracer][failure]") {
  test_support::TempDir dir("tracer-full");
  const auto r = run_in_child([&] {
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit {
      64 * 1024, 64 * 1024
    };
    ::setrlimit(RLIMIT_FSIZE, &limit); // writes past 64 KiB fail with EFBIG, like ENOSPC
    tracer::start({.directory = dir.path().string()});
    tracer::CompileScope scope({.frame_id = 0, .frame_compile_id = 0, .attempt = 0});
    for (int i = 0; i < 5000; ++i) {
      tracer::event_with_payload("dynamo_output_graph", tracer::no_metadata,
                                 [&](std::string& out) { out.append(100, 'g'); });
    }
    std::_Exit(tracer::enabled() ? 3 : 0);
  });
  CHECK(r.exit_code == 0);
  CHECK(count(r.err, "warning: torchscope tracer") == 1);
  auto logs = test_support::trace_files_under(dir.path());
  REQUIRE(logs.size() == 1);
  const auto counts = test_support::parse_file_by_tlparse_rules(logs[0]);
  CHECK(counts.ok > 100);
  // Only the event cut by the limit can be incomplete; everything before it is whole.
  CHECK(counts.failed_events() <= 1);
}

TEST_CASE("the default warning handler escapes control characters", "[tracer][failure]") {
  test_support::TempDir dir("tracer-escape");
  const std::string blocker = (dir.path() / "file").string();
  ::close(::open(blocker.c_str(), O_CREAT | O_WRONLY, 0644));
  const auto r = run_in_child([&] {
    tracer::start({.directory = blocker + "/\x1b[31mred\nline"});
    std::_Exit(0);
  });
  CHECK(count(r.err, "warning: torchscope tracer") == 1);
  CHECK(r.err.find('\x1b') == std::string::npos);
  CHECK(r.err.find("\\x1b[31mred\\x0aline") != std::string::npos);
  CHECK(count(r.err, "\n") == 1);
}

TEST_CASE("a warning handler may call the tracer, and a null one silences it",
          "[tracer][failure]") {
  test_support::TempDir dir("tracer-reentrant");
  const std::string blocker = (dir.path() / "file").string();
  ::close(::open(blocker.c_str(), O_CREAT | O_WRONLY, 0644));
  const auto r = run_in_child([&] {
    static int calls = 0;
    // The handler runs outside the tracer's locks: calling back in must not deadlock.
    tracer::set_warning_handler(
        [](const char*, void*) {
          ++calls;
          (void)tracer::log_path();
          tracer::event("from_handler", tracer::no_metadata);
        },
        nullptr);
    tracer::start({.directory = blocker + "/a"});
    tracer::set_warning_handler(nullptr);
    tracer::start({.directory = blocker + "/b"});
    std::_Exit(calls == 1 ? 0 : 4);
  });
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
}
