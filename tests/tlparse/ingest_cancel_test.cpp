// IngestOptions::cancel: a cancelled ingest stops between lines, says so and leaves no index
// file behind (the GUI's Cancel button relies on all three).
#include "ingest_test_util.h"
#include "support/must.h"
#include "support/test_paths.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <fstream>

using namespace tlparse_test;

namespace {

// A log of `lines` interned-string events (cheap to write, ~100 bytes a line).
void write_log(const std::filesystem::path& p, int lines) {
  std::ofstream out(p, std::ios::binary);
  for (int i = 0; i < lines; ++i) {
    out << glog_line(R"({"str": ["torch/_dynamo/some/long/path/file_)" + std::to_string(i) +
                     R"(.py", )" + std::to_string(i) + "]}")
        << '\n';
  }
}

} // namespace

TEST_CASE("ingest stops soon after the cancel flag is raised and removes the partial index",
          "[tlparse][cancel]") {
  test_support::TempDir dir;
  const auto log = dir.path() / "big.log";
  write_log(log, 400000); // ~40 MB: progress is reported every 16 MB
  const auto total = std::filesystem::file_size(log);
  REQUIRE(total > (32u << 20));
  const auto index = dir.path() / "index.sqlite";

  std::atomic<bool> cancel{false};
  int progress_calls = 0;
  uint64_t cancelled_at = 0;
  tlparse::ingest::IngestOptions options;
  options.cancel = &cancel;
  options.on_progress = [&](uint64_t done, uint64_t) {
    ++progress_calls;
    cancelled_at = done;
    cancel.store(true); // the first progress report presses Cancel
  };
  const auto result = tlparse::ingest::ingest_files({log, log}, index, options);
  CHECK(result.cancelled);
  CHECK_FALSE(result.ok);
  CHECK(result.files.empty());
  CHECK_FALSE(std::filesystem::exists(index));
  // Stopped in the first file, right after the first report: no later report came.
  CHECK(progress_calls == 1);
  CHECK(cancelled_at < total);
}

TEST_CASE("ingest with the cancel flag already raised writes nothing", "[tlparse][cancel]") {
  test_support::TempDir dir;
  const auto log = dir.path() / "small.log";
  write_log(log, 10);
  const auto index = dir.path() / "index.sqlite";
  std::atomic<bool> cancel{true};
  tlparse::ingest::IngestOptions options;
  options.cancel = &cancel;
  const auto result = tlparse::ingest::ingest_files({log}, index, options);
  CHECK(result.cancelled);
  CHECK_FALSE(result.ok);
  CHECK_FALSE(std::filesystem::exists(index));
}

TEST_CASE("ingest with a cancel flag that stays down completes normally", "[tlparse][cancel]") {
  test_support::TempDir dir;
  const auto log = dir.path() / "small.log";
  write_log(log, 10);
  std::atomic<bool> cancel{false};
  tlparse::ingest::IngestOptions options;
  options.cancel = &cancel;
  const auto in = ingest(log, dir.path(), options);
  CHECK_FALSE(in.result.cancelled);
  CHECK(test_support::must(in.reader->files()).at(0).lines == 10);
}
