// The hand-written glog prefix matcher reproduces tlparse 0.4.3's regex quirks
// (docs/TLPARSE-INGEST.md, "The glog prefix").
#include "ingest/reader/glog_prefix.h"

#include <catch2/catch.hpp>

using tlparse::ingest::parse_glog_prefix;

TEST_CASE("glog prefix parses a PyTorch line and keeps the pathname's leading space",
          "[tlparse][glog]") {
  const std::string line = "V1122 02:46:30.969000 452 torch/_dynamo/utils.py:2126] {\"a\": 1}";
  const auto p = parse_glog_prefix(line);
  REQUIRE(p);
  CHECK(p->level == 'V');
  CHECK(p->month == 11);
  CHECK(p->day == 22);
  CHECK(p->hour == 2);
  CHECK(p->minute == 46);
  CHECK(p->second == 30);
  CHECK(p->microsecond == 969000);
  CHECK(p->thread == 452);
  CHECK(p->pathname == " torch/_dynamo/utils.py");
  CHECK(p->source_line == 2126);
  CHECK(line.substr(p->payload_offset) == "{\"a\": 1}");
}

TEST_CASE("glog prefix search is unanchored like the regex", "[tlparse][glog]") {
  const std::string line = "[rank0]:I0101 00:00:00.000001 7 a.py:1] {}";
  const auto p = parse_glog_prefix(line);
  REQUIRE(p);
  CHECK(p->level == 'I');
  CHECK(line.substr(p->payload_offset) == "{}");
}

TEST_CASE("glog prefix accepts any character where the microsecond dot stands", "[tlparse][glog]") {
  CHECK(parse_glog_prefix("V1122 02:46:30x969000 452 a.py:1] {}"));
  CHECK(parse_glog_prefix("V1122 02:46:30\xC3\xA9"
                          "969000 452 a.py:1] {}"));
}

TEST_CASE("glog prefix rejects what the regex rejects", "[tlparse][glog]") {
  CHECK_FALSE(parse_glog_prefix(""));
  CHECK_FALSE(parse_glog_prefix("\t{\"payload\": 1}"));
  CHECK_FALSE(parse_glog_prefix("V1122 02:46:30.969000 452 a.py:1] "));       // nothing after "] "
  CHECK_FALSE(parse_glog_prefix("V1122 02:46:30.969000 452 C:\\x.py:1] {}")); // ':' in path
  CHECK_FALSE(parse_glog_prefix("V1122 02:46:30.96900 452 a.py:1] {}"));      // 5 digits
  CHECK_FALSE(parse_glog_prefix("V1122 02:46:30.969000 a.py:1] {}"));         // no pid
}

TEST_CASE("glog prefix gives the pid's last digit to the pathname when they touch",
          "[tlparse][glog]") {
  const auto p = parse_glog_prefix("V1122 02:46:30.969000 4521:7] {}");
  REQUIRE(p);
  CHECK(p->thread == 452);
  CHECK(p->pathname == "1");
  CHECK(p->source_line == 7);
}
