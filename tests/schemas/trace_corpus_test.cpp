// Validates every envelope of every real log (the shared corpus and the repository's committed
// samples) against schemas/trace/, and checks that the scan itself flags what it should.
#include "schemas/trace_scan.h"
#include "support/test_paths.h"

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>

namespace {

using torchscope::test::ScanCounts;
using torchscope::test::TraceScanner;

// Corpus files that are broken on purpose, relative to corpus/, and why. Their invalid JSON is
// expected; the test checks that it is still there so that this list cannot go stale.
const std::map<std::string, std::string> kKnownCorrupt = {
    {"tlparse-tests/inputs/simple_corrupted_json.log",
     "tlparse's own fixture: simple.log with one chromium_event payload's closing '},' removed, "
     "to test that a bad payload is dropped without failing the run"},
};

// PyTorch 2.11 writes a lone recompile reason as plain text although the artifact says
// encoding json (see payloads/recompile_reasons.schema.json); that is PyTorch's format, not
// corruption.
const char* const kTolerated = "artifact:recompile_reasons";

void print_violations(const ScanCounts& counts) {
  size_t shown = 0;
  for (const auto& v : counts.violations) {
    if (++shown > 25) {
      std::printf("... and %zu more\n", counts.violations.size() - 25);
      break;
    }
    std::printf("VIOLATION %s:%zu [%s] %s\n", v.file.c_str(), v.line, v.kind.c_str(),
                v.what.c_str());
  }
}

std::string relative_name(const std::filesystem::path& file, const std::filesystem::path& root) {
  return file.lexically_relative(root).generic_string();
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

} // namespace

TEST_CASE("every well-formed envelope of the shared corpus matches the trace schemas",
          "[schemas]") {
  auto shared = test_support::shared_dir();
  if (!shared) {
    TORCHSCOPE_SKIP("the shared corpus is absent (docs/BUILDING.md, Test data): its logs cannot be "
                    "validated");
  }
  TraceScanner scanner;
  REQUIRE(scanner.ok());
  auto corpus = *shared / "corpus";
  ScanCounts counts;
  for (const auto& file : test_support::trace_files_under(corpus)) {
    scanner.scan_file(file, relative_name(file, corpus), &counts);
  }
  std::printf("schema check of %s:\n%s", corpus.c_str(), summarize(counts).c_str());
  for (const auto& [file, reason] : kKnownCorrupt) {
    std::printf("known corrupt by design: %s: %s\n", file.c_str(), reason.c_str());
  }
  // Invalid JSON is counted, not failed; outside the known-corrupt files it is worth a look.
  for (const auto& [file, n] : counts.invalid_json_by_file) {
    if (kKnownCorrupt.count(file) == 0) {
      WARN("unexpected invalid envelope JSON (" << n << " lines) in " << file);
    }
  }
  bool corrupt_seen = false;
  for (const auto& [entry, n] : counts.payload_not_json_by_file) {
    bool known = false;
    for (const auto& [file, reason] : kKnownCorrupt) {
      known |= entry.rfind(file + " (", 0) == 0;
    }
    corrupt_seen |= known;
    if (!known && entry.find(kTolerated) == std::string::npos) {
      WARN("unexpected non-JSON payload (" << n << ") in " << entry);
    }
  }
  print_violations(counts);

  // A scan that found nothing would pass vacuously.
  CHECK(counts.files > 10);
  CHECK(counts.envelopes > 10000);
  CHECK(counts.per_kind["chromium_event"] > 0);
  CHECK(counts.payloads_checked > 1000);
  CHECK(corrupt_seen);
  CHECK(counts.violations.empty());
}

TEST_CASE("every well-formed envelope of the repository's sample logs matches the trace schemas",
          "[schemas]") {
  auto root = test_support::source_dir();
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  if (std::filesystem::is_directory(root / "samples" / "logs", ec)) {
    for (const auto& entry : std::filesystem::directory_iterator(root / "samples" / "logs")) {
      if (entry.is_regular_file() && entry.path().extension() == ".log") {
        files.push_back(entry.path());
      }
    }
  }
  if (std::filesystem::is_directory(root / "tests" / "data", ec)) {
    for (const auto& file : test_support::trace_files_under(root / "tests" / "data")) {
      if (file.extension() == ".log") {
        files.push_back(file);
      }
    }
  }
  if (files.empty()) {
    TORCHSCOPE_SKIP("no sample logs are committed yet (samples/logs/*.log, tests/data/**/*.log)");
  }
  TraceScanner scanner;
  REQUIRE(scanner.ok());
  ScanCounts counts;
  for (const auto& file : files) {
    scanner.scan_file(file, relative_name(file, root), &counts);
  }
  std::printf("schema check of the repository's sample logs:\n%s", summarize(counts).c_str());
  print_violations(counts);
  CHECK(counts.envelopes > 0);
  CHECK(counts.violations.empty());
}

TEST_CASE("the log our tracer's sample program writes matches the trace schemas", "[schemas]") {
#ifndef TORCHSCOPE_SAMPLE_TRACER_DEMO
  TORCHSCOPE_SKIP("samples/ is not part of this build: no tracer log to validate");
#else
  test_support::TempDir dir("torchscope-schemas-demo");
  const std::string cmd = "TORCH_TRACE='" + dir.path().string() +
                          "' '" TORCHSCOPE_SAMPLE_TRACER_DEMO "' > '" +
                          (dir.path() / "stdout.txt").string() + "'";
  REQUIRE(std::system(cmd.c_str()) == 0);
  TraceScanner scanner;
  REQUIRE(scanner.ok());
  ScanCounts counts;
  for (const auto& file : test_support::trace_files_under(dir.path())) {
    if (file.extension() == ".log") {
      scanner.scan_file(file, file.filename().string(), &counts);
    }
  }
  std::printf("schema check of sample_tracer_demo's log:\n%s", summarize(counts).c_str());
  print_violations(counts);
  CHECK(counts.files == 1);
  CHECK(counts.envelopes > 0);
  CHECK(counts.not_envelopes == 0);
  CHECK(counts.invalid_json == 0);
  // Like PyTorch, the tracer writes a lone recompile reason as text; nothing else may be.
  for (const auto& [label, n] : counts.payload_not_json) {
    INFO(label << ": " << n);
    CHECK(label == kTolerated);
  }
  CHECK(counts.unknown_kinds.empty());
  CHECK(counts.violations.empty());
#endif
}

TEST_CASE("scan counts other loggers' lines and invalid JSON and flags only schema violations",
          "[schemas]") {
  TraceScanner scanner;
  REQUIRE(scanner.ok());
  test_support::TempDir dir("torchscope-schemas-scan");
  const std::string prefix = "V1122 02:58:46.243000 539 torch/_dynamo/utils.py:2126] ";
  std::string log;
  // Fine: a str, a compile event, a chromium event with its payload, a stack-only event.
  log += prefix + R"({"str": ["/tmp/a.py", 1]})" + "\n";
  log +=
      prefix +
      R"({"dynamo_start": {"stack": [{"line": 4, "name": "f", "filename": 1}]}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0})" +
      "\n";
  log +=
      prefix +
      R"({"chromium_event": {}, "frame_id": 0, "has_payload": "0123456789abcdef0123456789abcdef"})" +
      "\n";
  log += "\t{\n\t\"name\": \"dynamo\",\n\t\"ts\": 1.5,\n\t\"ph\": \"B\",\n\t\"pid\": "
         "0,\n\t\"tid\": 0\n\t}\n";
  log += "[rank0]:" + prefix + R"({"stack": [{"line": 1, "name": "g", "filename": 1}]})" + "\n";
  // Not envelopes: another logger's line, a plain line, a stray tab line.
  log += "I1122 02:58:46.243000 539 torch/_dynamo/eval_frame.py:1] compiling f\n";
  log += "some unrelated output\n";
  log += "\tstray payload line\n";
  // Invalid JSON; the tab line after it is not its payload.
  log += prefix + R"({"artifact": {"name": "x", )" + "\n";
  log += "\torphan\n";
  // Unknown kind: reported, not failed.
  log += prefix + R"({"my_backend_event": {"anything": 1}, "frame_id": 2})" + "\n";
  // Violations, one each.
  log +=
      prefix +
      R"({"describe_tensor": {"id": 0, "describer_id": 0, "ndim": 1, "device": "cpu", "size": [2]}})" +
      "\n";
  log += prefix + R"({"artifact": {"name": "x", "encoding": "base64"}})" + "\n";
  log += prefix + R"({"dynamo_start": {"stack": []}, "frame_id": "0"})" + "\n";
  log += prefix + R"({"dynamo_start": {"stack": []}, "create_symbol": {"symbol": "s0"}})" + "\n";
  log += prefix + R"({"frame_id": 0})" + "\n";
  log += prefix + R"({"str": ["/tmp/b.py", -1]})" + "\n";
  log += prefix + R"({"chromium_event": {}, "has_payload": "0123456789abcdef0123456789abcdef"})" +
         "\n\t{\"name\": \"x\", \"ts\": 1, \"pid\": 0, \"tid\": 0}\n";
  log += prefix + R"({"link": {"name": "n"}, "has_payload": "0123456789ABCDEF0123456789ABCDEF"})" +
         "\n\tx\n";
  write_file(dir.path() / "t.log", log);

  ScanCounts counts;
  scanner.scan_file(dir.path() / "t.log", "t.log", &counts);
  INFO(torchscope::test::summarize(counts));
  CHECK(counts.not_envelopes == 4); // other logger, plain line, stray tab, orphan
  CHECK(counts.invalid_json == 1);
  CHECK(counts.unknown_kinds["my_backend_event"] == 1);
  CHECK(counts.per_kind["str"] == 2);
  CHECK(counts.per_kind["stack"] == 1);
  CHECK(counts.per_kind["chromium_event"] == 2);
  CHECK(counts.payloads_checked == 2);
  std::map<size_t, std::string> by_line;
  for (const auto& v : counts.violations) {
    by_line[v.line] += v.what + " | ";
  }
  // Line numbers of the violating envelopes above (payload lines count).
  CHECK(by_line.size() == 8);
  CHECK(by_line[18].find("missing required property 'dtype'") != std::string::npos);
  CHECK(by_line[19].find("\"base64\" is not one of") != std::string::npos);
  CHECK(by_line[20].find("/frame_id: expected integer, got string") != std::string::npos);
  CHECK(by_line[21].find("exactly one event key") != std::string::npos);
  CHECK(by_line[22].find("exactly one event key, this one has 0") != std::string::npos);
  CHECK(by_line[23].find("/1: -1 is below 0") != std::string::npos);
  CHECK(by_line[24].find("missing required property 'ph'") != std::string::npos);
  CHECK(by_line[26].find("/has_payload") != std::string::npos);
  CHECK(by_line[26].find("missing required property 'url'") != std::string::npos);
}

TEST_CASE("glog prefix is found anywhere in the line the way tlparse finds it", "[schemas]") {
  using torchscope::test::glog_message;
  CHECK(glog_message("V1122 02:58:46.243000 539 torch/a.py:12] {}") == "{}");
  CHECK(glog_message("[rank0]:V1122 02:58:46.243000 539 torch/a.py:12] {\"x\": 1}") ==
        "{\"x\": 1}");
  // The '.' before the microseconds is unescaped in tlparse's regex.
  CHECK(glog_message("I1122 02:58:46,243000 539 torch/a.py:12] hello") == "hello");
  CHECK_FALSE(glog_message("V1122 02:58:46.243000 539 torch/a.py:12] "));
  CHECK_FALSE(glog_message("V1122 02:58:46.2430 539 torch/a.py:12] {}"));
  CHECK_FALSE(glog_message("X1122 02:58:46.243000 539 torch/a.py:12] {}"));
  CHECK_FALSE(glog_message("V1122 02:58:46.243000 539 C:\\torch\\a.py:12] {}"));
  CHECK_FALSE(glog_message("\t{"));
}
