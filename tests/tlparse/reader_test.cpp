// The line reader and payload attachment: physical line numbers, CRLF, payload lines kept with
// the envelope that owns them, only when has_payload is present.
#include "ingest/reader/line_reader.h"
#include "ingest_test_util.h"
#include "support/must.h"
#include "support/test_paths.h"

#include <catch2/catch.hpp>
#include <fcntl.h>
#include <unistd.h>

using namespace tlparse_test;
using tlparse::index::HealthId;

namespace {
std::vector<std::string> read_lines(const std::filesystem::path& p, size_t max_line,
                                    std::vector<tlparse::ingest::Line>* meta = nullptr) {
  const int fd = ::open(p.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  tlparse::ingest::LineReader reader(fd, max_line);
  std::vector<std::string> out;
  tlparse::ingest::Line line;
  while (reader.next(line)) {
    out.emplace_back(line.text);
    if (meta != nullptr) {
      meta->push_back(line);
    }
  }
  ::close(fd);
  return out;
}
} // namespace

TEST_CASE("reader strips CRLF and numbers physical lines from 1", "[tlparse][reader]") {
  test_support::TempDir dir;
  write_file(dir.path() / "a.log", "one\r\n\r\nthree\nfour");
  std::vector<tlparse::ingest::Line> meta;
  const auto lines = read_lines(dir.path() / "a.log", 1 << 20, &meta);
  REQUIRE(lines == std::vector<std::string>{"one", "", "three", "four"});
  CHECK(meta[2].number == 3);
  CHECK(meta[3].no_newline);
  CHECK_FALSE(meta[2].no_newline);
}

TEST_CASE("reader skips a line over the limit without keeping it", "[tlparse][reader]") {
  test_support::TempDir dir;
  write_file(dir.path() / "a.log", "before\n" + std::string(300000, 'x') + "\nafter\n");
  std::vector<tlparse::ingest::Line> meta;
  const auto lines = read_lines(dir.path() / "a.log", 4096, &meta);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == "before");
  CHECK(meta[1].too_long);
  CHECK(lines[1].size() < 1000);
  CHECK(lines[2] == "after");
  CHECK(meta[2].number == 3);
}

TEST_CASE("reader flags invalid UTF-8 per line", "[tlparse][reader]") {
  test_support::TempDir dir;
  write_file(dir.path() / "a.log", "ok\nbad \xff\xfe\nok again\n");
  std::vector<tlparse::ingest::Line> meta;
  read_lines(dir.path() / "a.log", 1 << 20, &meta);
  REQUIRE(meta.size() == 3);
  CHECK(meta[0].valid_utf8);
  CHECK_FALSE(meta[1].valid_utf8);
  CHECK(meta[2].valid_utf8);
}

TEST_CASE("reader keeps payload lines with the envelope that owns them", "[tlparse][reader]") {
  test_support::TempDir dir;
  const std::string payload = "line one\n\nline three";
  std::string log =
      event_with_payload(
          R"({"dynamo_output_graph": {}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0)",
          payload) +
      "\n" +
      glog_line(
          R"({"dynamo_start": {"stack": []}, "frame_id": 1, "frame_compile_id": 0, "attempt": 0})") +
      "\n";
  write_file(dir.path() / "a.log", log);
  auto in = ingest(dir.path() / "a.log", dir.path());
  CHECK(in.file().stats.ok == 2);
  CHECK(in.file().stats.fail_payload_md5 == 0);
  CHECK(in.file().stats.fail_glog == 0);
  const auto outputs = test_support::must(in.reader->outputs(in.file().file_id));
  REQUIRE(outputs.size() == 1);
  CHECK(outputs[0].path == "-_0_0_0/dynamo_output_graph_0.txt");
  CHECK(test_support::must(in.reader->payload(outputs[0].event_id)) == payload);
}

TEST_CASE("payload lines without has_payload count as glog failures", "[tlparse][reader]") {
  test_support::TempDir dir;
  write_file(dir.path() / "a.log",
             glog_line(R"({"dynamo_start": {"stack": []}, "frame_id": 0, "frame_compile_id": 0})") +
                 "\n\tstray one\n\tstray two\n");
  auto in = ingest(dir.path() / "a.log", dir.path());
  CHECK(in.file().stats.ok == 1);
  CHECK(in.file().stats.fail_glog == 2);
  CHECK(in.health(HealthId::stray_payload_lines) == 2);
}

TEST_CASE("an event keeps its glog fields when its payload runs past the reader's buffer",
          "[tlparse][reader]") {
  // Reading the payload's lines refills the reader's buffer, where the event's line was: the
  // fields taken from that line (its pathname) must not be read from there afterwards.
  test_support::TempDir tmp;
  std::string payload;
  for (int i = 0; i < 40000; ++i) {
    payload += "line " + std::to_string(i) + " of a payload longer than the reader's buffer\n";
  }
  std::string log;
  for (int i = 0; i < 3; ++i) {
    log += event_with_payload(R"({"artifact": {"name": "big", "encoding": "string"})",
                              payload + std::to_string(i)) +
           "\n";
  }
  write_file(tmp.path() / "x.log", log);
  const Ingested in = ingest(tmp.path() / "x.log", tmp.path());
  int events = 0;
  const auto st = in.reader->for_each_event(1, [&](const tlparse::index::Event& e) {
    ++events;
    CHECK(e.pathname == " torch/_dynamo/utils.py");
    CHECK(e.source_line == 2126);
    CHECK(test_support::must(in.reader->payload(e.id)) == payload + std::to_string(events - 1));
    return true;
  });
  REQUIRE(st);
  CHECK(events == 3);
}
