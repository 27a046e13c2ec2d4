// The one search of the read API: payloads matching an FTS5 query, in rowid order, each with the
// events that logged it. The search table comes from `tlparse index --fts` (inside the index) or
// from a separate search file; building that file never writes to the index.
#include "ingest_test_util.h"
#include "support/must.h"
#include "support/test_paths.h"

#include <catch2/catch.hpp>

using namespace tlparse_test;
using test_support::must;
using tlparse::index::IndexReader;

namespace {
std::string graph(int frame, const std::string& payload) {
  return event_with_payload(R"({"dynamo_output_graph": {}, "frame_id": )" + std::to_string(frame) +
                                R"(, "frame_compile_id": 0, "attempt": 0)",
                            payload);
}

// The same graph logged by frames 0 and 1 (one payload), another graph by frame 2.
void write_log(const std::filesystem::path& p) {
  write_file(p, graph(0, "class GraphModule:\n    x = alpha") + "\n" +
                    graph(1, "class GraphModule:\n    x = alpha") + "\n" +
                    graph(2, "class GraphModule:\n    y = beta") + "\n" +
                    glog_line(R"({"mystery_kind": {}})") + "\n" +
                    glog_line(R"({"mystery_kind": 1})") + "\n");
}

void check_search(const IndexReader& reader) {
  REQUIRE(reader.has_search_table());
  const auto all = must(reader.search("GraphModule", 0, 10, 100));
  REQUIRE(all.size() == 2);
  REQUIRE(all[0].uses.size() == 2); // logged by frames 0 and 1
  CHECK(all[0].uses[0].compile_display == "[0/0]");
  CHECK(all[0].uses[1].compile_display == "[1/0]");
  CHECK(all[0].uses[0].line == 1);
  CHECK(all[0].uses[0].output_id.has_value());
  CHECK(all[0].snippet.find("[GraphModule]") != std::string::npos);
  REQUIRE(all[1].uses.size() == 1);
  CHECK(all[1].uses[0].compile_display == "[2/0]");

  // Paging by rowid: one payload at a time, then nothing after the last.
  const auto first = must(reader.search("GraphModule", 0, 1, 100, false));
  REQUIRE(first.size() == 1);
  CHECK(first[0].snippet.empty());
  const auto second = must(reader.search("GraphModule", first[0].rowid, 1, 100));
  REQUIRE(second.size() == 1);
  CHECK(second[0].payload_id == all[1].payload_id);
  CHECK(must(reader.search("GraphModule", second[0].rowid, 1, 100)).empty());
  CHECK(must(reader.search("beta", 0, 10, 1)).size() == 1);
  // At most `max_uses` events per payload.
  CHECK(must(reader.search("alpha", 0, 10, 1)).at(0).uses.size() == 1);

  const auto bad = reader.search("\"unbalanced", 0, 10, 100);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().find("search") != std::string::npos);
}
} // namespace

TEST_CASE("search through a search file leaves the index byte for byte as it was",
          "[tlparse][search]") {
  test_support::TempDir tmp;
  write_log(tmp.path() / "a.log");
  const auto index = tmp.path() / "index.sqlite";
  ingest(tmp.path() / "a.log", tmp.path());
  const std::string before = test_support::read_file(index);
  {
    auto reader = must(IndexReader::open(index));
    CHECK_FALSE(reader->has_search_table());
    CHECK_FALSE(reader->search("GraphModule", 0, 10, 100).ok());
  }
  const auto search_file = tmp.path() / "search.sqlite";
  must(IndexReader::build_search_file(index, search_file));
  IndexReader::OpenOptions options;
  options.search_file = search_file;
  auto reader = must(IndexReader::open(index, options));
  check_search(*reader);
  CHECK(test_support::read_file(index) == before);
}

TEST_CASE("search uses the table tlparse index --fts builds into the index", "[tlparse][search]") {
  test_support::TempDir tmp;
  write_log(tmp.path() / "a.log");
  tlparse::ingest::IngestOptions options;
  options.search_table = true;
  auto in = ingest(tmp.path() / "a.log", tmp.path(), options);
  check_search(*in.reader);
  const auto unknown = must(in.reader->unknown_keys(in.file().file_id));
  REQUIRE(unknown.size() == 1);
  CHECK(unknown[0].key == "mystery_kind");
  CHECK(unknown[0].count == 2);
  CHECK(unknown[0].first_line == 10); // after three events of three lines
}
