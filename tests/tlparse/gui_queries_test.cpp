// GuiQueries: the GUI's paged search (payloads in FTS rowid order, each with the events that
// logged it) and the unknown-key rows of its health panel.
#include "ingest_test_util.h"
#include "support/test_paths.h"
#include "tlparse/index/gui_queries.h"

#include <catch2/catch.hpp>

using namespace tlparse_test;
using tlparse::index::GuiQueries;

namespace {
std::string graph(int frame, const std::string& payload) {
  return event_with_payload(R"({"dynamo_output_graph": {}, "frame_id": )" + std::to_string(frame) +
                                R"(, "frame_compile_id": 0, "attempt": 0)",
                            payload);
}
} // namespace

TEST_CASE("gui search pages matching payloads and lists every event that logged each",
          "[tlparse][gui_queries]") {
  test_support::TempDir tmp;
  // The same graph logged by frames 0 and 1 (one payload), another graph by frame 2.
  write_file(tmp.path() / "a.log", graph(0, "class GraphModule:\n    x = alpha") + "\n" +
                                       graph(1, "class GraphModule:\n    x = alpha") + "\n" +
                                       graph(2, "class GraphModule:\n    y = beta") + "\n" +
                                       glog_line(R"({"mystery_kind": {}})") + "\n" +
                                       glog_line(R"({"mystery_kind": 1})") + "\n");
  const auto index = tmp.path() / "index.sqlite";
  ingest(tmp.path() / "a.log", tmp.path());
  std::string error;
  {
    auto q = GuiQueries::open(index, &error);
    REQUIRE(q);
    CHECK_FALSE(q->search_ready());
    CHECK(q->search("GraphModule", 0, 10, 100, &error).empty());
    CHECK_FALSE(error.empty());
  }
  REQUIRE(GuiQueries::prepare_search(index, &error));
  REQUIRE(GuiQueries::prepare_search(index, &error)); // once built, a no-op
  auto q = GuiQueries::open(index, &error);
  REQUIRE(q);
  REQUIRE(q->search_ready());

  error.clear();
  const auto all = q->search("GraphModule", 0, 10, 100, &error);
  CHECK(error.empty());
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
  const auto first = q->search("GraphModule", 0, 1, 100, &error, false);
  REQUIRE(first.size() == 1);
  CHECK(first[0].snippet.empty());
  const auto second = q->search("GraphModule", first[0].fts_rowid, 1, 100, &error);
  REQUIRE(second.size() == 1);
  CHECK(second[0].payload_id == all[1].payload_id);
  CHECK(q->search("GraphModule", second[0].fts_rowid, 1, 100, &error).empty());
  CHECK(q->search("beta", 0, 10, 1, &error).size() == 1);
  // At most `max_uses` events per payload.
  CHECK(q->search("alpha", 0, 10, 1, &error).at(0).uses.size() == 1);

  error.clear();
  CHECK(q->search("\"unbalanced", 0, 10, 100, &error).empty());
  CHECK_FALSE(error.empty());

  const auto unknown = q->unknown_keys(1);
  REQUIRE(unknown.size() == 1);
  CHECK(unknown[0].key == "mystery_kind");
  CHECK(unknown[0].count == 2);
  CHECK(unknown[0].first_line == 10); // after three events of three lines
}
