// `tlparse LOG --serve` (docs/TLPARSE-SERVE.md): pages rendered from the index when asked for are
// the bytes `tlparse LOG` writes, only the report's own names are answered (no path outside it,
// encoded or not), and the server binds where it is told.
#include "support/test_paths.h"
#include "tlparse_cli.h"

#include <arpa/inet.h>
#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;
using test_support::body_of;
using test_support::http_get;
using test_support::kTlparse;
using test_support::quoted;

namespace {

// Starts `tlparse LOG -o DIR/served --serve --port PORT` in the background; its pid goes to
// DIR/pid, its output to DIR/out.txt. Returns the first answer to "/" ("" when none came in 30 s).
std::string start_serving(const fs::path& log, const fs::path& dir, int port) {
  const std::string cmd = quoted(kTlparse) + " " + quoted(log) + " -o " + quoted(dir / "served") +
                          " --serve --port " + std::to_string(port) + " > " +
                          quoted(dir / "out.txt") + " 2>&1 & echo $! > " + quoted(dir / "pid");
  REQUIRE(std::system(cmd.c_str()) == 0);
  std::string index;
  for (int i = 0; i < 300 && index.empty(); ++i) { // up to 30 s on a loaded machine
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    index = http_get(port, "/");
  }
  return index;
}

struct StopServer {
  pid_t pid;
  ~StopServer() { ::kill(pid, SIGTERM); }
};

} // namespace

TEST_CASE("tlparse --serve renders the report's pages on demand, and only those") {
  if (kTlparse == nullptr) {
    TORCHSCOPE_SKIP("the tlparse binary is not built");
  }
  const fs::path log = test_support::source_dir() / "tests/data/pytorch-2.11/w14_ddp_nccl" /
                       "dedicated_log_torch_trace_rank_1_odxhborf.log";
  test_support::TempDir tmp("serve");
  const int port = 20000 + static_cast<int>(::getpid() % 20000);
  const std::string index = start_serving(log, tmp.path(), port);
  StopServer stop{static_cast<pid_t>(std::stol(test_support::read_file(tmp.path() / "pid")))};
  INFO(test_support::read_file(tmp.path() / "out.txt"));
  REQUIRE(index.starts_with("HTTP/1.0 200"));
  CHECK(index.find("Content-Type: text/html") != std::string::npos);
  // Only the index was written: no report in OUT.
  CHECK(!fs::exists(tmp.path() / "served" / "compile_directory.json"));
  CHECK(fs::exists(tmp.path() / "served" / "index.sqlite"));

  // The same bytes as the written report.
  const fs::path written = tmp.path() / "written";
  REQUIRE(std::system((quoted(kTlparse) + " " + quoted(log) + " -o " + quoted(written) +
                       " --no-browser > /dev/null 2>&1")
                          .c_str()) == 0);
  for (const char* page : {"compile_directory.json", "raw.jsonl", "chromium_events.json", "raw.log",
                           "failures_and_restarts.html", "-_0_0_0/dynamo_graph_break_reason_0.txt",
                           "-_0_0_3/compilation_metrics_4.html"}) {
    INFO(page);
    const std::string response = http_get(port, std::string("/") + page);
    REQUIRE(response.starts_with("HTTP/1.0 200"));
    CHECK(body_of(response) == test_support::read_file(written / page));
  }
  // Encoded names resolve; nothing outside the report does.
  CHECK(http_get(port, "/-_0_0_0%2Fdynamo_graph_break_reason_0.txt").starts_with("HTTP/1.0 200"));
  for (const char* bad : {"/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/index.sqlite",
                          "//etc/passwd", "/-_0_0_0/../index.html", "/nope.html", "/.%2F"}) {
    INFO(bad);
    CHECK(http_get(port, bad).starts_with("HTTP/1.0 404"));
  }
}

TEST_CASE("tlparse --serve draws graph views beside the report, when asked for") {
  if (kTlparse == nullptr) {
    TORCHSCOPE_SKIP("the tlparse binary is not built");
  }
  const fs::path data = test_support::source_dir() / "tests/data/pytorch-2.11/w01_mlp_train";
  fs::path log;
  for (const auto& e : fs::directory_iterator(data)) {
    if (e.path().extension() == ".log") {
      log = e.path();
    }
  }
  test_support::TempDir tmp("serve_graphs");
  const int port = 20000 + static_cast<int>((::getpid() + 7919) % 20000);
  const std::string index = start_serving(log, tmp.path(), port);
  StopServer stop{static_cast<pid_t>(std::stol(test_support::read_file(tmp.path() / "pid")))};
  INFO(test_support::read_file(tmp.path() / "out.txt"));
  REQUIRE(index.starts_with("HTTP/1.0 200"));
  // Graph views (docs/TLPARSE-GRAPHS.md): a list page and each graph's SVG, drawn when asked
  // for, beside the report; nothing of tlparse 0.4.3's links them or changes for them.
  CHECK(index.find("graphs/") == std::string::npos);
  const std::string graphs = http_get(port, "/graphs/index.html");
  REQUIRE(graphs.starts_with("HTTP/1.0 200"));
  const auto href = graphs.find(".svg\"");
  REQUIRE(href != std::string::npos);
  const auto start = graphs.rfind("href=\"../", href) + 9;
  const std::string svg_path = graphs.substr(start, href + 4 - start);
  INFO(svg_path);
  const std::string svg = http_get(port, "/" + svg_path);
  REQUIRE(svg.starts_with("HTTP/1.0 200"));
  CHECK(svg.find("Content-Type: image/svg+xml") != std::string::npos);
  CHECK(svg.find("Content-Security-Policy: default-src 'none'") != std::string::npos);
  CHECK(body_of(svg).starts_with("<?xml"));
  CHECK(body_of(svg).find("<script") == std::string::npos);
  CHECK(http_get(port, "/graphs/nope.svg").starts_with("HTTP/1.0 404"));
  CHECK(http_get(port, "/graphs/../index.sqlite").starts_with("HTTP/1.0 404"));
  // A text output's path is no graph route.
  CHECK(http_get(port, "/graphs/-_0_0_0/dynamo_output_graph_0.txt").starts_with("HTTP/1.0 404"));
}
