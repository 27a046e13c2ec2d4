// Checks shared by the tests that compare the sample programs' traces with PyTorch's logs
// (sample_logs_test.cpp for capture, aot_sample_logs_test.cpp for the AOT stage). Header-only:
// each test target defines TORCHSCOPE_HAVE_TLPARSE (our tlparse is linked) and TLPARSE_BINARY
// (the tlparse program is built) as its build has them.
#pragma once

#include "support/test_paths.h"
#include "support/tlparse_rules.h"

#if TORCHSCOPE_HAVE_TLPARSE
#include "tlparse/ingest/ingest.h"
#endif

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace sample_logs {

namespace fs = std::filesystem;

// Our tlparse (when built) and tlparse 0.4.3's rules read `log` with no failed line.
inline void check_reads_cleanly(const fs::path& log) {
  const test_support::TlparseRuleCounts counts = test_support::parse_file_by_tlparse_rules(log);
  INFO(log << ": ok=" << counts.ok << " fail_glog=" << counts.fail_glog
           << " fail_json=" << counts.fail_json << " fail_payload_md5=" << counts.fail_payload_md5
           << " other_rank=" << counts.other_rank);
  CHECK(counts.failures() == 0);
  CHECK(counts.ok > 0);
#if TORCHSCOPE_HAVE_TLPARSE
  test_support::TempDir out("sample-log-index");
  tlparse::ingest::IngestResult r =
      tlparse::ingest::ingest_files({log}, out.path() / "index.sqlite", {});
  REQUIRE(r.ok);
  REQUIRE(r.files.size() == 1);
  const tlparse::index::Stats& s = r.files[0].stats;
  INFO("our tlparse: " << s.to_tlparse_string());
  CHECK(s.strict_failures() == 0);
  CHECK(s.fail_key_conflict == 0);
  CHECK(s.fail_json_serialization == 0);
  // `unknown` is not a failure: tlparse 0.4.3 counts events it has no parser for (PyTorch's
  // own logs have them too, e.g. create_symbol).
  CHECK(s.ok == static_cast<uint64_t>(counts.ok));
#endif
}

// tlparse 0.4.3's files.txt for PyTorch's log of `workload` (../shared, else tests/data).
inline std::optional<std::vector<std::string>> reference_files(const std::string& workload) {
  std::vector<fs::path> candidates;
  if (auto shared = test_support::shared_dir()) {
    candidates.push_back(*shared / "reference" / "tlparse-0.4.3" / workload / "files.txt");
  }
  candidates.push_back(test_support::source_dir() / "tests" / "data" / "pytorch-2.11" / workload /
                       "files.txt");
  for (const fs::path& p : candidates) {
    if (fs::exists(p)) {
      std::vector<std::string> lines;
      std::istringstream in(test_support::read_file(p));
      for (std::string line; std::getline(in, line);) {
        lines.push_back(line);
      }
      return lines;
    }
  }
  return std::nullopt;
}

// Every file our tlparse writes for `log` (run with --strict, which must succeed), as paths
// relative to the report folder; nullopt when the tlparse program is not built.
inline std::optional<std::vector<std::string>> report_listing(const fs::path& log) {
#ifdef TLPARSE_BINARY
  test_support::TempDir out("sample-log-report");
  const fs::path report = out.path() / "report";
  const std::string cmd = "'" TLPARSE_BINARY "' '" + log.string() + "' -o '" + report.string() +
                          "' --strict > '" + (out.path() / "tlparse.txt").string() + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  INFO("tlparse output:\n" << test_support::read_file(out.path() / "tlparse.txt"));
  REQUIRE(rc == 0);
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(report)) {
    if (e.is_regular_file()) {
      files.push_back(fs::relative(e.path(), report).generic_string());
    }
  }
  return files;
#else
  (void)log;
  return std::nullopt;
#endif
}

} // namespace sample_logs
