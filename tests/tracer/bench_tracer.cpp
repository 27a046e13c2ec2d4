// Benchmark of the tracer's three costs (figures go in the README's performance table):
//   off:    ns per call when tracing is off (goal <= 2 ns), C++ and C API
//   small:  µs per small event written to a file (goal <= 2 µs), C++ and C API (whose metadata
//           is JSON text, read and rewritten)
//   large:  MB/s for large payloads (goal >= 300 MB/s)
#include "tracer/trace.h"
#include "tracer/tracer.h"

#include <chrono>
#include <cstdio>
#include <fcntl.h>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Keeps the compiler from deleting the loop when tracing is off.
volatile int g_sink = 0;

} // namespace

int main(int argc, char** argv) {
  const std::filesystem::path dir =
      argc > 1 ? std::filesystem::path(argv[1])
               : std::filesystem::temp_directory_path() /
                     ("torchscope-bench-tracer-" + std::to_string(::getpid()));

  // 1. Off: one relaxed load and a branch per call.
  tracer::stop();
  constexpr long kOffCalls = 200'000'000;
  auto t0 = Clock::now();
  for (long i = 0; i < kOffCalls; ++i) {
    tracer::event("dynamo_start", [&](tracer::JsonWriter& w) {
      w.member("i", i);
      g_sink = g_sink + 1;
    });
  }
  const double off_ns = seconds_since(t0) * 1e9 / kOffCalls;
  const torchscope_trace_location here = TORCHSCOPE_TRACE_HERE;
  constexpr long kCOffCalls = 50'000'000;
  t0 = Clock::now();
  for (long i = 0; i < kCOffCalls; ++i) {
    g_sink = g_sink + torchscope_trace_event("dynamo_start", "{}", here);
  }
  const double c_off_ns = seconds_since(t0) * 1e9 / kCOffCalls;

  // 2. Small events, written whole to a file (one write(2) each).
  tracer::start({.directory = dir.string()});
  tracer::CompileScope scope({.frame_id = 0, .frame_compile_id = 0, .attempt = 0});
  constexpr int kSmall = 300'000;
  t0 = Clock::now();
  for (int i = 0; i < kSmall; ++i) {
    tracer::event("describe_storage", [&](tracer::JsonWriter& w) {
      w.member("id", i).member("describer_id", 0).member("size", 4096);
    });
  }
  const double small_us = seconds_since(t0) * 1e6 / kSmall;
  const std::uintmax_t small_bytes = std::filesystem::file_size(tracer::log_path());
  t0 = Clock::now();
  for (int i = 0; i < kSmall; ++i) {
    g_sink = g_sink + torchscope_trace_event("describe_storage",
                                             R"({"id": 7, "describer_id": 0, "size": 4096})", here);
  }
  const double c_small_us = seconds_since(t0) * 1e6 / kSmall;

  // The floor under (2): the same number of bare write(2) calls of the same average size to an
  // O_APPEND file in the same folder. On a VM the system call is most of a small event's cost.
  const std::string floor_path = (dir / "write-floor.bin").string();
  const int floor_fd = ::open(floor_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
  const std::string floor_line(static_cast<std::size_t>(small_bytes / kSmall), 'x');
  t0 = Clock::now();
  for (int i = 0; i < kSmall && floor_fd >= 0; ++i) {
    g_sink = g_sink + static_cast<int>(::write(floor_fd, floor_line.data(), floor_line.size()));
  }
  const double floor_us = seconds_since(t0) * 1e6 / kSmall;
  if (floor_fd >= 0) {
    ::close(floor_fd);
  }

  // 3. Large payloads: 1 MiB graph-like text (80-column lines), MD5 + TAB framing + write.
  std::string text;
  while (text.size() < (1u << 20)) {
    text += "        add_3: \"f32[8, 128][128, 1]cpu\" = torch.ops.aten.add.Tensor(mul_2, 1);\n";
  }
  constexpr int kLarge = 300;
  t0 = Clock::now();
  for (int i = 0; i < kLarge; ++i) {
    tracer::event_with_payload("inductor_output_code", tracer::no_metadata,
                               [&](std::string& out) { out += text; });
  }
  const double large_mbs = static_cast<double>(text.size()) * kLarge / 1e6 / seconds_since(t0);
  const std::string path = tracer::log_path();
  tracer::stop();
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);

  std::printf("tracer benchmark\n");
  std::printf("  off:   %8.3f ns per call   (goal <= 2 ns)\n", off_ns);
  std::printf("         %8.3f ns per C API call (a function call)\n", c_off_ns);
  std::printf("  small: %8.3f us per event  (goal <= 2 us)\n", small_us);
  std::printf("         %8.3f us per C API event (metadata JSON read and rewritten)\n", c_small_us);
  std::printf("         %8.3f us of it is the floor: a bare write(2) of the same %zu bytes\n",
              floor_us, floor_line.size());
  std::printf("  large: %8.1f MB/s          (goal >= 300 MB/s)\n", large_mbs);
  return 0;
}
