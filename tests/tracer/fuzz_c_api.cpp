// Fuzz target for the C API's input checks (the JSON reader of src/json_text.cpp, payload and
// file-name repairs): whatever bytes a caller passes as kind, metadata, payload, chromium args
// and file name, every line that reaches the log reads under tlparse 0.4.3's rules with no
// failure, and an event reported as written is there. The input is split at its first three
// NUL bytes into kind, metadata, file name and payload.
#include "support/tlparse_rules.h"
#include "tracer/tracer.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <unistd.h>
#include <vector>

namespace {

void check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz_c_api: %s\n", what);
    std::abort();
  }
}

// The folder the logs go to, one per process, removed when the process ends.
class TraceDir {
public:
  TraceDir()
      : path_(std::filesystem::temp_directory_path() /
              ("torchscope-fuzz-c-api-" + std::to_string(::getpid()))) {}
  ~TraceDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TraceDir(const TraceDir&) = delete;
  TraceDir& operator=(const TraceDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

private:
  std::filesystem::path path_;
};

const std::filesystem::path& trace_dir() {
  static const TraceDir dir;
  return dir.path();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> parts(4);
  std::size_t part = 0;
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == 0 && part < 3) {
      ++part;
    } else {
      parts[part].push_back(static_cast<char>(data[i]));
    }
  }
  const std::string& kind = parts[0];
  const std::string& metadata = parts[1];
  const std::string& file = parts[2];
  const std::string& payload = parts[3];

  torchscope_trace_set_warning_handler(nullptr, nullptr);
  torchscope_trace_options options = TORCHSCOPE_TRACE_OPTIONS_INIT;
  const std::string dir = trace_dir().string();
  options.directory = dir.c_str();
  check(torchscope_trace_start(&options) == TORCHSCOPE_TRACE_OK, "cannot start");
  char path[4096];
  check(torchscope_trace_log_path(path, sizeof path) < sizeof path, "log path too long");

  const torchscope_trace_location where = {file.c_str(), static_cast<int>(size), kind.c_str()};
  int written = 0;
  torchscope_compile_id id = TORCHSCOPE_COMPILE_ID_INIT;
  id.frame_id = static_cast<std::int64_t>(size % 3);
  id.frame_compile_id = 0;
  const bool in_compile = size % 2 == 0;
  if (in_compile) {
    check(torchscope_trace_push_compile_id(&id) == TORCHSCOPE_TRACE_OK, "push");
  }
  written += torchscope_trace_event(kind.c_str(), metadata.c_str(), where) == TORCHSCOPE_TRACE_OK;
  written += torchscope_trace_event_with_payload(kind.c_str(), metadata.c_str(), payload.data(),
                                                 payload.size(), where) == TORCHSCOPE_TRACE_OK;
  written +=
      torchscope_trace_artifact(kind.c_str(), TORCHSCOPE_TRACE_ENCODING_STRING, payload.data(),
                                payload.size(), where) == TORCHSCOPE_TRACE_OK;
  written += torchscope_trace_chromium_event(kind.c_str(), "E", metadata.c_str(), where) ==
             TORCHSCOPE_TRACE_OK;
  const torchscope_stack_frame frame = {file.c_str(), 1, kind.c_str(), payload.c_str()};
  written += torchscope_trace_event_with_stack(kind.c_str(), metadata.c_str(), &frame, 1, where) ==
             TORCHSCOPE_TRACE_OK;
  check(torchscope_trace_intern_string(payload.data(), payload.size(), where) >= 0, "intern");
  if (in_compile) {
    check(torchscope_trace_pop_compile_id() == TORCHSCOPE_TRACE_OK, "pop");
  }
  torchscope_trace_stop();

  const auto counts = test_support::parse_file_by_tlparse_rules(path);
  check(counts.failures() == 0, "a written line fails tlparse's rules");
  std::int64_t events = 0;
  for (const auto& [k, n] : counts.kinds) {
    events += k == "str" ? 0 : n;
  }
  check(events == written, "an event reported as written is missing, or one more is there");
  std::filesystem::remove(path);
  return 0;
}
