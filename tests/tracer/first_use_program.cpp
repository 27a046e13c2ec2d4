// first_use_program: how a host process starts (or does not start) the tracer, for
// first_use_test.cpp. Each mode prints what it saw on stdout, one fact per line; the tracer's
// warnings go to stdout too (through a handler), so anything on stderr came from the library
// printing by itself.
//
//   TORCH_TRACE=DIR first_use_program env        the first event starts tracing into DIR
//   TORCH_TRACE=DIR first_use_program explicit D  start() into D first: TORCH_TRACE is ignored
//   TORCH_TRACE=DIR first_use_program stopped     stop() first: nothing is ever written
//   TORCH_TRACE=BAD first_use_program handler     the open fails: one warning, to the handler
#include "tracer/trace.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace {

std::size_t files_in(const char* dir) {
  std::error_code ec;
  std::size_t n = 0;
  for (auto it = std::filesystem::directory_iterator(dir, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++n;
  }
  return n;
}

void to_stdout(const char* message, void* calls) {
  ++*static_cast<int*>(calls);
  std::printf("warning: %s\n", message);
}

} // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const char* env = std::getenv("TORCH_TRACE");
  int warnings = 0;
  tracer::set_warning_handler(&to_stdout, &warnings);
  if (env != nullptr) {
    // Nothing ran before main() that opened a log.
    std::printf("files before first use: %zu\n", files_in(env));
  }
  if (mode == "explicit" && argc > 2) {
    std::printf("started: %d\n", tracer::start({.directory = argv[2]}) ? 1 : 0);
  } else if (mode == "stopped") {
    tracer::stop();
  }
  tracer::event("first_event", [](tracer::JsonWriter& w) { w.member("n", 1); });
  tracer::event("second_event", tracer::no_metadata);
  std::printf("enabled: %d\n", tracer::enabled() ? 1 : 0);
  std::printf("log: %s\n", tracer::log_path().c_str());
  if (env != nullptr) {
    std::printf("files in TORCH_TRACE: %zu\n", files_in(env));
  }
  std::printf("warnings: %d\n", warnings);
  return 0;
}
