// Bad input is counted and every valid event around it is still indexed (issue acceptance).
#include "ingest_test_util.h"
#include "support/must.h"
#include "support/test_paths.h"

#include <catch2/catch.hpp>
#include <sys/resource.h>

using namespace tlparse_test;
using test_support::must;
using tlparse::index::HealthId;

namespace {
const std::string kGood1 =
    R"({"dynamo_start": {"stack": []}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0})";
const std::string kGood2 =
    R"({"dynamo_start": {"stack": []}, "frame_id": 1, "frame_compile_id": 0, "attempt": 0})";
std::string graph_event(int frame, const std::string& payload, const std::string& md5 = "") {
  return event_with_payload(R"({"dynamo_output_graph": {}, "frame_id": )" + std::to_string(frame) +
                                R"(, "frame_compile_id": 0, "attempt": 0)",
                            payload, md5);
}
} // namespace

TEST_CASE("truncated file: a last line cut inside the JSON is counted, the rest indexed",
          "[tlparse][bad_input]") {
  test_support::TempDir dir;
  write_file(dir.path() / "a.log",
             glog_line(kGood1) + "\n" +
                 glog_line(R"({"chromium_event": {}, "frame_id": 0, "has_pay)"));
  auto in = ingest(dir.path() / "a.log", dir.path());
  CHECK(in.file().stats.ok == 1);
  CHECK(in.file().stats.fail_json == 2);
  CHECK(in.health(HealthId::truncated_last_line) == 1);
}

TEST_CASE("truncated file: a payload cut short fails its MD5 but keeps the event",
          "[tlparse][bad_input]") {
  test_support::TempDir dir;
  const std::string full = graph_event(0, "a\nb\nc");
  const std::string cut = full.substr(0, full.size() - 2); // drop the last payload line
  write_file(dir.path() / "a.log", glog_line(kGood2) + "\n" + cut);
  auto in = ingest(dir.path() / "a.log", dir.path());
  CHECK(in.file().stats.ok == 2);
  CHECK(in.file().stats.fail_payload_md5 == 1);
  const auto outputs = must(in.reader->outputs(in.file().file_id));
  REQUIRE(outputs.size() == 1);
  CHECK(must(in.reader->payload(outputs[0].event_id)) == "a\nb");
}

TEST_CASE("corrupted JSON: counted twice like tlparse, payload lines become glog failures",
          "[tlparse][bad_input]") {
  test_support::TempDir dir;
  write_file(dir.path() / "a.log",
             glog_line(kGood1) + "\n" +
                 glog_line(R"({"dynamo_output_graph": {, "has_payload": "x"})") +
                 "\n\tpayload line\n" + glog_line(kGood2) + "\n");
  auto in = ingest(dir.path() / "a.log", dir.path());
  CHECK(in.file().stats.ok == 2);
  CHECK(in.file().stats.fail_json == 2);
  CHECK(in.file().stats.fail_glog == 1);
  CHECK(must(in.reader->bad_lines(in.file().file_id)).size() >= 2);
}

TEST_CASE("type drift in a recognised key counts fail_json but keeps the event",
          "[tlparse][bad_input]") {
  test_support::TempDir dir;
  write_file(dir.path() / "a.log",
             glog_line(R"({"artifact": {"name": 5, "encoding": "string"}, "frame_id": 0})") + "\n" +
                 glog_line(kGood1) + "\n");
  auto in = ingest(dir.path() / "a.log", dir.path());
  CHECK(in.file().stats.fail_json == 1);
  CHECK(in.file().stats.ok == 1);
  int bad = 0;
  must(in.reader->for_each_event(in.file().file_id, [&](const tlparse::index::Event& e) {
    bad += e.status == tlparse::index::EventStatus::bad_envelope;
    return true;
  }));
  CHECK(bad == 1);
}

TEST_CASE("MD5 mismatch is counted and the payload still written", "[tlparse][bad_input]") {
  test_support::TempDir dir;
  write_file(dir.path() / "a.log", graph_event(0, "graph", "00000000000000000000000000000000") +
                                       "\n" + glog_line(kGood2) + "\n");
  auto in = ingest(dir.path() / "a.log", dir.path());
  CHECK(in.file().stats.fail_payload_md5 == 1);
  CHECK(in.file().stats.ok == 2);
  CHECK(must(in.reader->outputs(in.file().file_id)).size() == 1);
}

TEST_CASE("binary garbage is counted and never fails the run", "[tlparse][bad_input]") {
  test_support::TempDir dir;
  std::string garbage;
  for (int i = 0; i < 5000; ++i) {
    garbage += static_cast<char>((i * 131 + 7) % 256);
  }
  write_file(dir.path() / "a.log",
             glog_line(kGood1) + "\n" + garbage + "\n" + glog_line(kGood2) + "\n");
  auto in = ingest(dir.path() / "a.log", dir.path());
  CHECK(in.file().stats.ok == 2);
  CHECK(in.health(HealthId::invalid_utf8) + in.file().stats.fail_glog > 0);
}

TEST_CASE("empty file gives an empty index and no counters", "[tlparse][bad_input]") {
  test_support::TempDir dir;
  write_file(dir.path() / "a.log", "");
  auto in = ingest(dir.path() / "a.log", dir.path());
  CHECK(in.file().stats.to_tlparse_string() == "Stats { }");
  CHECK(must(in.reader->compile_keys(in.file().file_id)).empty());
  CHECK(must(in.reader->string_table(in.file().file_id)).empty());
}

TEST_CASE("CRLF line ends parse like LF", "[tlparse][bad_input]") {
  test_support::TempDir dir;
  std::string log = graph_event(0, "a\nb") + "\n" + glog_line(kGood2) + "\n";
  std::string crlf;
  for (char c : log) {
    if (c == '\n') {
      crlf += '\r';
    }
    crlf += c;
  }
  write_file(dir.path() / "a.log", crlf);
  auto in = ingest(dir.path() / "a.log", dir.path());
  CHECK(in.file().stats.ok == 2);
  CHECK(in.file().stats.fail_payload_md5 == 0);
}

TEST_CASE("a 50 MB single line is skipped in bounded memory", "[tlparse][bad_input]") {
  test_support::TempDir dir;
  {
    std::string big(50u << 20, 'z');
    write_file(dir.path() / "a.log",
               glog_line(kGood1) + "\n" + big + "\n" + glog_line(kGood2) + "\n");
  }
  const tlparse::ingest::IngestOptions options; // the default line limit (16 MB)
  struct rusage before {};
  getrusage(RUSAGE_SELF, &before);
  auto in = ingest(dir.path() / "a.log", dir.path(), options);
  struct rusage after {};
  getrusage(RUSAGE_SELF, &after);
  CHECK(in.file().stats.ok == 2);
  CHECK(in.health(HealthId::line_too_long) == 1);
  // Peak RSS grows by less than the line (the reader never holds it whole).
  CHECK(after.ru_maxrss - before.ru_maxrss < 45 * 1024);
}

TEST_CASE("unsafe artifact names are replaced and counted", "[tlparse][bad_input]") {
  test_support::TempDir dir;
  write_file(
      dir.path() / "a.log",
      event_with_payload(
          R"({"artifact": {"name": "../../etc/passwd", "encoding": "string"}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0)",
          "x") +
          "\n");
  auto in = ingest(dir.path() / "a.log", dir.path());
  const auto outputs = must(in.reader->outputs(in.file().file_id));
  REQUIRE(outputs.size() == 1);
  CHECK(outputs[0].sanitised);
  CHECK(outputs[0].path.find("..") == std::string::npos);
  CHECK(outputs[0].path.rfind("-_0_0_0/", 0) == 0);
  CHECK(in.health(HealthId::unsafe_output_name) == 1);
}

TEST_CASE("a huge string-table index neither allocates its slots nor breaks stacks",
          "[tlparse][bad_input]") {
  test_support::TempDir dir;
  write_file(
      dir.path() / "a.log",
      glog_line(R"({"str": ["/huge.py", 4000000000]})") + "\n" +
          glog_line(
              R"({"dynamo_start": {"stack": [{"line": 1, "name": "f", "filename": 4000000000}]}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0})") +
          "\n");
  auto in = ingest(dir.path() / "a.log", dir.path());
  CHECK(in.file().stats.ok == 1);
  const auto starts =
      must(in.reader->stacks(in.file().file_id, tlparse::index::StackRole::dynamo_start));
  REQUIRE(starts.size() == 1);
  REQUIRE(starts[0].frames.size() == 1);
  CHECK(starts[0].frames[0].filename == "/huge.py");
  CHECK(must(in.reader->string_table(in.file().file_id)).empty());
}
