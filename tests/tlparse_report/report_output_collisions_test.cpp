// Output names that cannot all exist at once are renamed before the report writes anything
// (report/output_collisions.h), and every renamed set can be written.
#include "report/output_collisions.h"
#include "report/output_folder.h"
#include "report/render_context.h"
#include "support/artifact_log.h"
#include "support/must.h"
#include "support/test_paths.h"
#include "tlparse/ingest/ingest.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sqlite3.h>

namespace fs = std::filesystem;
namespace rd = tlparse::report::detail;
namespace ti = tlparse::index;

namespace {

std::vector<ti::Output> outputs_of(const std::vector<std::string>& paths) {
  std::vector<ti::Output> out;
  for (const std::string& p : paths) {
    ti::Output o;
    o.id = static_cast<int64_t>(out.size());
    o.kind = ti::OutputKind::payload_text;
    o.path = p;
    out.push_back(o);
  }
  return out;
}

std::vector<std::string> paths_of(const std::vector<ti::Output>& outputs) {
  std::vector<std::string> out;
  for (const ti::Output& o : outputs) {
    out.push_back(o.path);
  }
  return out;
}

// Writes every path into a fresh folder: all must succeed.
void check_writable(const std::vector<ti::Output>& outputs) {
  test_support::TempDir tmp("collisions");
  rd::OutputFolder folder(tmp.path() / "out");
  std::string error;
  REQUIRE(folder.prepare(error));
  for (const ti::Output& o : outputs) {
    INFO(o.path);
    CHECK(folder.write_file(o.path, "x"));
  }
}

} // namespace

TEST_CASE("collisions: a file another output needs as a folder is renamed, once") {
  auto outputs = outputs_of({"dump_file/x.html", "dump_file/x.html/y.html", "-_0_0_0/k_0.txt",
                             "-_0_0_0/k_0.txt/deeper_1.txt", "payloads/x.txt",
                             "payloads/x.txt/y.txt", "plain.txt"});
  CHECK(rd::rename_colliding_outputs(outputs) == 3);
  CHECK(paths_of(outputs) ==
        std::vector<std::string>{"dump_file/x_collision1.html", "dump_file/x.html/y.html",
                                 "-_0_0_0/k_0_collision1.txt", "-_0_0_0/k_0.txt/deeper_1.txt",
                                 "payloads/x_collision1.txt", "payloads/x.txt/y.txt", "plain.txt"});
  check_writable(outputs);
}

TEST_CASE("collisions: chains, taken names, the report's own files and links") {
  auto outputs = outputs_of({"a", "a/b", "a/b/c", "a_collision1", "index.html/x.html", "raw.log",
                             "collisions", "same.txt", "same.txt"});
  outputs.push_back(outputs.front());
  outputs.back().kind = ti::OutputKind::link;
  outputs.back().path = "a"; // a link's path is a URL: never renamed
  CHECK(rd::rename_colliding_outputs(outputs) == 4);
  const auto paths = paths_of(outputs);
  CHECK(paths[0] == "a_collision2");
  CHECK(paths[1] == "a/b_collision1");
  CHECK(paths[2] == "a/b/c");
  CHECK(paths[4] == "collisions_1/index.html_x.html"); // "collisions" is a file
  CHECK(paths[5] == "collisions_1/raw.log");
  CHECK(paths[7] == "same.txt"); // the same path twice: the later one wins, as in tlparse
  CHECK(paths.back() == "a");
  std::set<std::string> files(paths.begin(), paths.end() - 1);
  for (const std::string& p : files) {
    const auto next = files.lower_bound(p + "/");
    CHECK_FALSE((next != files.end() && next->starts_with(p + "/")));
  }
  outputs.pop_back();
  check_writable(outputs);
}

TEST_CASE("collisions: a renamed segment stays within the file system's limit") {
  const std::string long_name(250, 'n');
  auto outputs = outputs_of({long_name + ".html", long_name + ".html/y"});
  CHECK(rd::rename_colliding_outputs(outputs) == 1);
  CHECK(outputs[0].path.size() <= 255);
  CHECK(outputs[0].path.ends_with("_collision1.html"));
  check_writable(outputs);
}

TEST_CASE("only the last output of a path is written, links always are") {
  std::vector<ti::Output> outputs =
      outputs_of({"a.txt", "b.txt", "a.txt", "https://x", "c.txt", "a.txt", "https://x", "b.txt"});
  outputs[3].kind = ti::OutputKind::link;
  outputs[6].kind = ti::OutputKind::link;
  const std::vector<bool> writes = rd::last_writers(outputs);
  CHECK(writes == std::vector<bool>{false, false, false, true, true, true, true, true});
  CHECK(rd::last_writers({}).empty());
}

namespace {

// An index whose file has `n` outputs (artifacts of one compile), for rewriting their paths.
fs::path index_of_outputs(const test_support::TempDir& tmp, int n) {
  const std::string log = test_support::artifact_outputs_log(static_cast<std::size_t>(n));
  const fs::path path = tmp.path() / "dedicated_log_torch_trace_names.log";
  std::ofstream(path, std::ios::binary) << log;
  const fs::path index = tmp.path() / "index.sqlite";
  REQUIRE(tlparse::ingest::ingest_files({path}, index, tlparse::ingest::IngestOptions()).ok);
  return index;
}

// Gives the outputs of the index's first file the paths (and kinds) of `outputs`, in seq order.
void rewrite_outputs(const fs::path& index, const std::vector<ti::Output>& outputs) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(index.string().c_str(), &db) == SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  REQUIRE(sqlite3_prepare_v2(db, "UPDATE outputs SET path=?1, kind=?2 WHERE seq=?3", -1, &st,
                             nullptr) == SQLITE_OK);
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const std::string kind(ti::to_string(outputs[i].kind));
    sqlite3_bind_text(st, 1, outputs[i].path.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, kind.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 3, static_cast<sqlite3_int64>(i));
    REQUIRE(sqlite3_step(st) == SQLITE_DONE);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
}

// The plan a render reads from the index equals the in-memory renames and last writers.
void check_plan_matches(const fs::path& index, const std::vector<ti::Output>& named) {
  rewrite_outputs(index, named);
  auto reader = test_support::must(ti::IndexReader::open(index));
  const auto files = test_support::must(reader->files());
  REQUIRE(files.size() == 1);
  auto outputs = test_support::must(reader->outputs(files[0].id));
  REQUIRE(outputs.size() == named.size());
  const auto plan = test_support::must(rd::plan_outputs(*reader, files[0].id));
  std::vector<ti::Output> expected = outputs;
  CHECK(plan.renamed_outputs == rd::rename_colliding_outputs(expected));
  const std::vector<bool> writes = rd::last_writers(expected);
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    ti::Output o = outputs[i];
    plan.apply(o);
    INFO(outputs[i].path);
    CHECK(o.path == expected[i].path);
    if (o.kind != ti::OutputKind::link) {
      CHECK(plan.is_overwritten(o.seq) == !writes[i]);
    }
  }
}

} // namespace

TEST_CASE("collisions: the plan read from the index equals the in-memory renames") {
  test_support::TempDir tmp("collisions-index");
  constexpr int kOutputs = 24;
  const fs::path index = index_of_outputs(tmp, kOutputs);
  // The hostile names of the cases above, then random names from a small alphabet (so that
  // prefixes, folders, reserved names and repeats are frequent).
  std::vector<std::vector<std::string>> cases = {
      {"dump_file/x.html", "dump_file/x.html/y.html", "-_0_0_0/k_0.txt",
       "-_0_0_0/k_0.txt/deeper_1.txt", "payloads/x.txt", "payloads/x.txt/y.txt", "plain.txt"},
      {"a", "a/b", "a/b/c", "a_collision1", "index.html/x.html", "raw.log", "collisions",
       "same.txt", "same.txt", "a.b", "a-c", "a/b.d", "a.b/c", "collisions/raw.log"},
      {std::string(250, 'n') + ".html", std::string(250, 'n') + ".html/y"},
  };
  std::mt19937 rng(17);
  const std::string segments[] = {"a",          "b",       "a.txt", "a_collision1", "index.html",
                                  "collisions", "raw.log", "a-",    "../x",         ""};
  for (int c = 0; c < 300; ++c) {
    std::vector<std::string> names;
    for (int i = 0; i < kOutputs; ++i) {
      std::string p;
      const int depth = 1 + static_cast<int>(rng() % 3);
      for (int d = 0; d < depth; ++d) {
        p += (d == 0 ? "" : "/") + segments[rng() % std::size(segments)];
      }
      names.push_back(p);
    }
    cases.push_back(std::move(names));
  }
  std::size_t renamed_cases = 0;
  for (const auto& names : cases) {
    auto named = outputs_of(names);
    named.resize(kOutputs, named.empty() ? ti::Output() : named.back());
    for (std::size_t i = names.size(); i < named.size(); ++i) {
      named[i].path = "filler_" + std::to_string(i) + ".txt";
    }
    for (std::size_t i = 0; i < named.size(); i += 7) {
      named[i].kind = ti::OutputKind::link; // links keep their URL, renamed or not
    }
    auto copy = named;
    renamed_cases += rd::rename_colliding_outputs(copy) > 0 ? 1 : 0;
    check_plan_matches(index, named);
  }
  CHECK(renamed_cases > 100); // the random names do collide
}
