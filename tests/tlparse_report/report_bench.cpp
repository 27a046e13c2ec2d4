// Benchmark: how long the report takes to render from an index. Usage:
//   tlparse_report_bench [LOG] [SCALE_MB]
// Without LOG it uses the largest single-rank PyTorch 2.11 log of the shared corpus
// (docs/BUILDING.md, "Test data"). The log is repeated
// until it reaches SCALE_MB (default 200) — the scaled log repeats the same payloads, which is
// what the render cache is for — then ingested once and rendered twice (cold, then warm disk).
#include "tlparse/index/index_reader.h"
#include "tlparse/ingest/ingest.h"
#include "tlparse/report/render.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

fs::path default_log() {
  const fs::path corpus =
      fs::path(TORCHSCOPE_BENCH_SHARED) / "corpus" / "pytorch-2.11" / "w08_transformer";
  if (fs::is_directory(corpus)) {
    for (const auto& e : fs::directory_iterator(corpus)) {
      if (e.path().extension() == ".log") {
        return e.path();
      }
    }
  }
  return {};
}

} // namespace

int main(int argc, char** argv) {
  const fs::path log = argc > 1 ? fs::path(argv[1]) : default_log();
  const double scale_mb = argc > 2 ? std::atof(argv[2]) : 200.0;
  if (log.empty() || !fs::exists(log)) {
    std::fprintf(stderr, "no input log (pass one as the first argument)\n");
    return 2;
  }
  const fs::path work =
      fs::temp_directory_path() / ("tlparse-report-bench-" + std::to_string(::getpid()));
  fs::create_directories(work);
  std::ifstream in(log, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string original = ss.str();
  const fs::path scaled = work / "dedicated_log_torch_trace_bench.log";
  {
    std::ofstream out(scaled, std::ios::binary);
    std::uint64_t written = 0;
    while (written < static_cast<std::uint64_t>(scale_mb * 1024 * 1024) && !original.empty()) {
      out << original;
      written += original.size();
    }
  }
  const double mb = static_cast<double>(fs::file_size(scaled)) / (1024.0 * 1024.0);

  auto t0 = std::chrono::steady_clock::now();
  const auto ingested = tlparse::ingest::ingest_files({scaled}, work / "index.sqlite", {});
  const double ingest_s = seconds_since(t0);
  if (!ingested.ok) {
    std::fprintf(stderr, "ingest failed: %s\n", ingested.error.c_str());
    return 1;
  }
  auto opened = tlparse::index::IndexReader::open(work / "index.sqlite");
  if (!opened) {
    std::fprintf(stderr, "open failed: %s\n", opened.error().c_str());
    return 1;
  }
  const auto& reader = *opened;
  for (int round = 0; round < 2; ++round) {
    const fs::path out = work / ("out" + std::to_string(round));
    t0 = std::chrono::steady_clock::now();
    tlparse::report::RenderOptions options;
    options.index_path = work / "index.sqlite";
    options.raw_log_from_index = true; // the index this benchmark just wrote
    const auto r = tlparse::report::render_report(*reader, options, out);
    const double render_s = seconds_since(t0);
    std::printf("log %.1f MB (%s x%.0f): ingest %.3f s, render[%d] %.3f s, %llu files, %.1f MB "
                "written, %llu cache hits%s\n",
                mb, log.filename().c_str(), mb * 1024 * 1024 / static_cast<double>(original.size()),
                ingest_s, round, render_s, static_cast<unsigned long long>(r.files_written),
                static_cast<double>(r.bytes_written) / (1024.0 * 1024.0),
                static_cast<unsigned long long>(r.cache_hits), r.ok ? "" : " (FAILED)");
    for (const auto& [phase, seconds] : r.phase_seconds) {
      std::printf("    %-40s %.3f s\n", phase.c_str(), seconds);
    }
  }
  fs::remove_all(work);
  return 0;
}
