// bench_tlparse: ingest throughput. Prints wall time, CPU time, MB/s and peak RSS for
// `tlparse index` of the given logs (default: the w02 log in tests/data). With several logs,
// `--threads N` sets the workers (default: one per core, at most 4); compare --threads 1.
// usage: bench_tlparse [--threads N] [LOG...]   (scripts/bench-tlparse.sh builds the 200 MB log)
#include "tlparse/ingest/ingest.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <sys/resource.h>
#include <unistd.h>

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> logs;
  tlparse::ingest::IngestOptions options;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--threads" && i + 1 < argc) {
      options.threads = std::strtoul(argv[++i], nullptr, 10);
      continue;
    }
    logs.emplace_back(argv[i]);
  }
  if (logs.empty()) {
    const fs::path dir = fs::path(TORCHSCOPE_BENCH_DATA) / "w02_recompile";
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().extension() == ".log") {
        logs.push_back(e.path());
      }
    }
  }
  uint64_t bytes = 0;
  for (const auto& l : logs) {
    bytes += fs::file_size(l);
  }
  const fs::path index =
      fs::temp_directory_path() / ("bench_tlparse_" + std::to_string(::getpid()) + ".sqlite");
  struct rusage r0 {};
  getrusage(RUSAGE_SELF, &r0);
  const auto t0 = std::chrono::steady_clock::now();
  const auto result = tlparse::ingest::ingest_files(logs, index, options);
  const auto t1 = std::chrono::steady_clock::now();
  struct rusage r1 {};
  getrusage(RUSAGE_SELF, &r1);
  if (!result.ok) {
    std::fprintf(stderr, "ingest failed: %s\n", result.error.c_str());
    return 1;
  }
  const double wall = std::chrono::duration<double>(t1 - t0).count();
  auto secs = [](const timeval& tv) { return static_cast<double>(tv.tv_sec) + tv.tv_usec / 1e6; };
  const double cpu = secs(r1.ru_utime) - secs(r0.ru_utime) + secs(r1.ru_stime) - secs(r0.ru_stime);
  const double mb = static_cast<double>(bytes) / (1024.0 * 1024.0);
  std::printf("ingest: %.1f MB in %.3f s wall (%.1f MB/s), %.3f s CPU (%.1f MB/s per CPU second)\n",
              mb, wall, mb / wall, cpu, mb / cpu);
  std::printf("index: %.1f MB, peak RSS %.1f MB\n",
              static_cast<double>(fs::file_size(index)) / (1024.0 * 1024.0),
              static_cast<double>(r1.ru_maxrss) / 1024.0);
  for (const auto& f : result.files) {
    std::printf("%s: %s\n", f.path.filename().c_str(), f.stats.to_tlparse_string().c_str());
  }
  fs::remove(index);
  return 0;
}
