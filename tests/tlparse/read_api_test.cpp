// The read API gives the report and the GUI what they need, from the index alone.
#include "ingest_test_util.h"
#include "support/test_paths.h"

#include <algorithm>
#include <catch2/catch.hpp>

using namespace tlparse_test;
namespace fs = std::filesystem;
using tlparse::index::IndexReader;

namespace {
fs::path w02_log() {
  const fs::path dir = test_support::source_dir() / "tests/data/pytorch-2.11/w02_recompile";
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".log") {
      return e.path();
    }
  }
  FAIL("w02 log missing");
  return {};
}
} // namespace

TEST_CASE("read API returns compile keys in first-seen order with folder names",
          "[tlparse][read_api]") {
  test_support::TempDir tmp;
  auto in = ingest(w02_log(), tmp.path());
  const auto keys = in.reader->compile_keys(in.file().file_id);
  REQUIRE(keys.size() >= 3);
  CHECK(keys[0].display == "[0/0]");
  CHECK(keys[0].dir_name == "-_0_0_0");
  // Chromium events without a compile id create the [-/-] key (tlparse 0.4.3 does the same).
  const auto none =
      std::find_if(keys.begin(), keys.end(), [](auto& k) { return k.display == "[-/-]"; });
  REQUIRE(none != keys.end());
  CHECK(none->dir_name == "-_-_-_-");
  for (size_t i = 1; i < keys.size(); ++i) {
    CHECK(keys[i].first_line > keys[i - 1].first_line);
  }
}

TEST_CASE("read API streams events in log order with raw.jsonl decisions", "[tlparse][read_api]") {
  test_support::TempDir tmp;
  auto in = ingest(w02_log(), tmp.path());
  int64_t last_line = 0;
  int raw_rows = 0;
  int chromium = 0;
  bool ordered = true;
  in.reader->for_each_event(in.file().file_id, [&](const tlparse::index::Event& e) {
    ordered = ordered && e.line > last_line;
    last_line = e.line;
    raw_rows += e.in_raw_jsonl;
    chromium += e.key == "chromium_event";
    return true;
  });
  CHECK(ordered);
  CHECK(raw_rows == 150); // tlparse 0.4.3 wrote 151 raw.jsonl lines, one of them the string table
  int parsed = 0;
  in.reader->for_each_chromium_event(in.file().file_id,
                                     [&](const tlparse::index::ChromiumEvent& c) {
                                       CHECK_FALSE(c.name.empty());
                                       CHECK_FALSE(c.payload_json.empty());
                                       ++parsed;
                                       return true;
                                     });
  CHECK(parsed == chromium);
  CHECK_FALSE(in.reader->chromium_spans(in.file().file_id).empty());
}

TEST_CASE("read API resolves stacks with the file's own string table", "[tlparse][read_api]") {
  test_support::TempDir tmp;
  auto in = ingest(w02_log(), tmp.path());
  const auto table = in.reader->string_table(in.file().file_id);
  REQUIRE_FALSE(table.empty());
  const auto starts = in.reader->dynamo_starts(in.file().file_id);
  REQUIRE_FALSE(starts.empty());
  for (const auto& d : starts) {
    REQUIRE_FALSE(d.stack.empty());
    for (const auto& f : d.stack) {
      REQUIRE(f.filename_index);
      REQUIRE(f.filename);
      CHECK(table.at(static_cast<size_t>(*f.filename_index)) == *f.filename);
    }
  }
}

TEST_CASE("read API parses compilation metrics and keeps attempts distinct",
          "[tlparse][read_api]") {
  test_support::TempDir tmp;
  auto in = ingest(w02_log(), tmp.path());
  const auto metrics = in.reader->compilation_metrics(in.file().file_id);
  REQUIRE_FALSE(metrics.empty());
  bool saw_attempt_1 = false;
  for (const auto& m : metrics) {
    CHECK(m.output_id);
    CHECK_FALSE(m.metadata_json.empty());
    if (m.event_key == "compilation_metrics") {
      CHECK(m.co_name);
    }
    saw_attempt_1 = saw_attempt_1 || (m.cid && m.cid->attempt == 1u);
  }
  CHECK(saw_attempt_1); // w02's [1/0_1] restart stays attempt 1 in our data
  const auto rf = in.reader->restarts_and_failures(in.file().file_id);
  CHECK_FALSE(rf.empty());
  const auto frames = in.reader->frames(in.file().file_id);
  REQUIRE_FALSE(frames.empty());
  int64_t recompiles = 0;
  for (const auto& f : frames) {
    recompiles += f.recompile_count;
  }
  CHECK(recompiles >= 3); // w02 recompiles frame 0 three times
}

TEST_CASE("read API gives each output its metadata and payload bytes", "[tlparse][read_api]") {
  test_support::TempDir tmp;
  auto in = ingest(w02_log(), tmp.path());
  const auto outputs = in.reader->outputs(in.file().file_id);
  REQUIRE_FALSE(outputs.empty());
  for (const auto& o : outputs) {
    if (o.kind == tlparse::index::OutputKind::payload_text) {
      const auto bytes = in.reader->payload(o.event_id);
      REQUIRE(bytes);
      const auto ev = in.reader->event(o.event_id);
      REQUIRE(ev);
      REQUIRE(ev->payload_md5);
    }
    if (o.event_key == "artifact") {
      CHECK(in.reader->output_metadata_json(o.id).find("\"name\"") != std::string::npos);
    }
  }
  CHECK_FALSE(in.reader->cache_events(in.file().file_id).empty());
}

TEST_CASE("read API searches payload text once the search table is built", "[tlparse][read_api]") {
  test_support::TempDir tmp;
  auto in = ingest(w02_log(), tmp.path());
  CHECK_FALSE(in.reader->has_search_index());
  CHECK(in.reader->search("GraphModule").empty());
  in.reader.reset();
  std::string error;
  REQUIRE(IndexReader::build_search_index(tmp.path() / "index.sqlite", &error));
  auto reader = IndexReader::open(tmp.path() / "index.sqlite", &error);
  REQUIRE(reader);
  CHECK(reader->has_search_index());
  const auto hits = reader->search("GraphModule");
  REQUIRE_FALSE(hits.empty());
  CHECK(hits[0].line > 0);
  CHECK(hits[0].snippet.find("[GraphModule]") != std::string::npos);
}

TEST_CASE("read API refuses files that are not an index", "[tlparse][read_api]") {
  test_support::TempDir tmp;
  write_file(tmp.path() / "x.sqlite", "not a database");
  std::string error;
  CHECK_FALSE(IndexReader::open(tmp.path() / "x.sqlite", &error));
  CHECK_FALSE(error.empty());
  CHECK_FALSE(IndexReader::open(tmp.path() / "missing.sqlite", &error));
}

TEST_CASE("each file keeps its own string table", "[tlparse][read_api]") {
  test_support::TempDir tmp;
  write_file(tmp.path() / "a.log", glog_line(R"({"str": ["/a.py", 0]})") + "\n");
  write_file(
      tmp.path() / "b.log",
      glog_line(
          R"({"dynamo_start": {"stack": [{"line": 1, "name": "f", "filename": 0}]}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0})") +
          "\n");
  const auto result = tlparse::ingest::ingest_files({tmp.path() / "a.log", tmp.path() / "b.log"},
                                                    tmp.path() / "i.sqlite", {});
  REQUIRE(result.ok);
  std::string error;
  auto reader = IndexReader::open(tmp.path() / "i.sqlite", &error);
  REQUIRE(reader);
  const auto starts = reader->dynamo_starts(result.files[1].file_id);
  REQUIRE(starts.size() == 1);
  REQUIRE(starts[0].stack.size() == 1);
  CHECK_FALSE(starts[0].stack[0].filename); // not resolved from a.log's table
  CHECK(result.files[1].health[static_cast<size_t>(tlparse::index::HealthId::unresolved_string)] ==
        1);
}
