// Where `tlparse` writes its report, and what --overwrite may delete: `-o out/` and `-o .` work,
// nothing is deleted before the new report is complete, and only the previous report's own
// files (those its index.sqlite lists) are deleted. Regression tests for the bug of issues 16 and
// 17: `-o out/` failed after --overwrite had deleted the old report, and `-o . --overwrite`
// deleted the user's other files.
#include "ingest_test_util.h"
#include "support/test_paths.h"

#include <catch2/catch.hpp>
#include <set>
#include <sqlite3.h>
#include <string>
#include <vector>

using namespace tlparse_test;
namespace fs = std::filesystem;

namespace {

// Tampers with a report's index: each path becomes one more output of the report (a copy of its
// first output row under that path), so --overwrite takes it for one of the report's files.
void list_as_report_files(const fs::path& index, const std::vector<std::string>& paths) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(index.c_str(), &db) == SQLITE_OK);
  const std::string add =
      "INSERT INTO outputs SELECT (SELECT MAX(id) FROM outputs)+1, file_id, seq+1000+?2, key_id, "
      "event_id, line, event_key, "
      "artifact, kind, ?1, name, number, suffix, NULL, 0, 1, NULL FROM outputs WHERE id=1";
  int n = 0;
  for (const std::string& path : paths) {
    sqlite3_stmt* st = nullptr;
    REQUIRE(sqlite3_prepare_v2(db, add.c_str(), -1, &st, nullptr) == SQLITE_OK);
    sqlite3_bind_text(st, 1, path.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 2, ++n);
    REQUIRE(sqlite3_step(st) == SQLITE_DONE);
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
}

void no_staging_left(const fs::path& dir) {
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    INFO(e.path().string());
    CHECK(e.path().filename().string().find("tlparse-tmp") == std::string::npos);
  }
}

} // namespace

TEST_CASE("cli -o with a trailing slash writes the report, new or over an old one",
          "[tlparse][cli][report_folder]") {
  test_support::TempDir tmp;
  const std::string log = data_log("w19_fullgraph_error").string();
  REQUIRE(run_tlparse({log, "-o", "out/"}, tmp.path()).code == 0);
  CHECK(fs::exists(tmp.path() / "out/index.html"));
  const auto first = files_under(tmp.path() / "out");
  const Run again = run_tlparse({log, "-o", "out/", "--overwrite"}, tmp.path());
  INFO(again.err);
  REQUIRE(again.code == 0);
  CHECK(files_under(tmp.path() / "out") == first);
  no_staging_left(tmp.path());
}

TEST_CASE("cli -o . --overwrite replaces the previous report and keeps everything else",
          "[tlparse][cli][report_folder]") {
  test_support::TempDir tmp;
  const fs::path here = tmp.path() / "work";
  fs::create_directory(here);
  // A previous report of another log, in the folder the person works in.
  REQUIRE(run_tlparse({data_log("w02_recompile").string(), "-o", ".", "--overwrite"}, here).code ==
          0);
  const auto old_report = files_under(here);
  write_file(here / "notes.txt", "mine");
  fs::create_directory(here / "data");
  write_file(here / "data/input.csv", "1,2");
  fs::copy_file(data_log("w19_fullgraph_error"), here / "today.log");

  const Run r = run_tlparse({"today.log", "-o", ".", "--overwrite"}, here);
  INFO(r.err);
  REQUIRE(r.code == 0);
  // The person's files stay.
  CHECK(test_support::read_file(here / "notes.txt") == "mine");
  CHECK(fs::exists(here / "data/input.csv"));
  CHECK(fs::exists(here / "today.log"));
  // The new report is there, and what only the old report had is gone.
  CHECK(fs::exists(here / "index.html"));
  const auto now = files_under(here);
  test_support::TempDir fresh;
  REQUIRE(run_tlparse({(here / "today.log").string(), "-o", "r"}, fresh.path()).code == 0);
  std::set<std::string> expected = files_under(fresh.path() / "r");
  expected.insert({"notes.txt", "data/input.csv", "today.log"});
  CHECK(now == expected);
  CHECK(old_report != expected);
  no_staging_left(here);
}

TEST_CASE("cli -o . without --overwrite, or over files that are no report, deletes nothing",
          "[tlparse][cli][report_folder]") {
  test_support::TempDir tmp;
  write_file(tmp.path() / "thesis.tex", "keep me");
  fs::copy_file(data_log("w19_fullgraph_error"), tmp.path() / "a.log");
  const Run plain = run_tlparse({"a.log", "-o", "."}, tmp.path());
  CHECK(plain.code == 1);
  CHECK(plain.err.find("already exists") != std::string::npos);
  const Run forced = run_tlparse({"a.log", "-o", ".", "--overwrite"}, tmp.path());
  CHECK(forced.code == 1);
  CHECK(forced.err.find("cannot tell which of its files are its own") != std::string::npos);
  CHECK(files_under(tmp.path()) == std::set<std::string>{"a.log", "thesis.tex"});
}

TEST_CASE("cli --overwrite stops before deleting anything when a new file would replace one "
          "that is not the previous report's",
          "[tlparse][cli][report_folder]") {
  test_support::TempDir tmp;
  REQUIRE(run_tlparse({data_log("w19_fullgraph_error").string(), "-o", "out"}, tmp.path()).code ==
          0);
  // Find a file the w02 report writes that the w19 report does not have, and put a file of
  // the person's there.
  REQUIRE(run_tlparse({data_log("w02_recompile").string(), "-o", "probe"}, tmp.path()).code == 0);
  const auto old_report = files_under(tmp.path() / "out");
  std::string clash;
  for (const std::string& f : files_under(tmp.path() / "probe")) {
    if (old_report.count(f) == 0 && f.find('/') == std::string::npos) {
      clash = f;
    }
    if (old_report.count(f) == 0 && clash.empty()) {
      clash = f;
    }
  }
  REQUIRE_FALSE(clash.empty());
  fs::create_directories((tmp.path() / "out" / clash).parent_path());
  write_file(tmp.path() / "out" / clash, "the person's");
  const auto before = files_under(tmp.path() / "out");

  const Run r =
      run_tlparse({data_log("w02_recompile").string(), "-o", "out", "--overwrite"}, tmp.path());
  CHECK(r.code == 1);
  CHECK(r.err.find("would replace") != std::string::npos);
  CHECK(files_under(tmp.path() / "out") == before);
  CHECK(test_support::read_file(tmp.path() / "out" / clash) == "the person's");
  no_staging_left(tmp.path());
}

TEST_CASE("cli --overwrite never deletes outside OUT, whatever the old index lists",
          "[tlparse][cli][report_folder]") {
  test_support::TempDir tmp;
  const std::string log = data_log("w19_fullgraph_error").string();
  REQUIRE(run_tlparse({log, "-o", "out"}, tmp.path()).code == 0);
  write_file(tmp.path() / "victim.txt", "outside");
  write_file(tmp.path() / "absolute.txt", "outside too");
  // The old index, tampered with, lists files outside OUT among the report's.
  list_as_report_files(tmp.path() / "out/index.sqlite",
                       {"../victim.txt", (tmp.path() / "absolute.txt").string()});
  const Run r = run_tlparse({log, "-o", "out", "--overwrite"}, tmp.path());
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(test_support::read_file(tmp.path() / "victim.txt") == "outside");
  CHECK(test_support::read_file(tmp.path() / "absolute.txt") == "outside too");
}

TEST_CASE("cli --overwrite deletes nothing through a folder that is a symlink out of OUT",
          "[tlparse][cli][report_folder]") {
  test_support::TempDir tmp;
  const std::string log = data_log("w19_fullgraph_error").string();
  REQUIRE(run_tlparse({log, "-o", "out"}, tmp.path()).code == 0);
  fs::create_directories(tmp.path() / "elsewhere");
  write_file(tmp.path() / "elsewhere/a.txt", "outside a");
  write_file(tmp.path() / "elsewhere/b.txt", "outside b");
  fs::create_directory_symlink(tmp.path() / "elsewhere", tmp.path() / "out/linked");
  // The tampered index lists two files under the symlinked folder (the second asks the cached
  // answer for that folder).
  list_as_report_files(tmp.path() / "out/index.sqlite", {"linked/a.txt", "linked/b.txt"});
  const Run r = run_tlparse({log, "-o", "out", "--overwrite"}, tmp.path());
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(test_support::read_file(tmp.path() / "elsewhere/a.txt") == "outside a");
  CHECK(test_support::read_file(tmp.path() / "elsewhere/b.txt") == "outside b");
  CHECK(fs::is_regular_file(tmp.path() / "out/index.html"));
}

TEST_CASE("tlparse index -o replaces an index but refuses any other file",
          "[tlparse][cli][report_folder]") {
  test_support::TempDir tmp;
  const std::string log = data_log("w19_fullgraph_error").string();
  write_file(tmp.path() / "notes.txt", "mine");
  const Run refused = run_tlparse({"index", log, "-o", "notes.txt"}, tmp.path());
  CHECK(refused.code == 1);
  CHECK(test_support::read_file(tmp.path() / "notes.txt") == "mine");
  REQUIRE(run_tlparse({"index", log, "-o", "i.sqlite"}, tmp.path()).code == 0);
  CHECK(run_tlparse({"index", log, "-o", "i.sqlite"}, tmp.path()).code == 0);
}

TEST_CASE("cli --overwrite of a report an older tlparse wrote says what to do and deletes nothing",
          "[tlparse][cli][report_folder]") {
  test_support::TempDir tmp;
  const std::string log = data_log("w19_fullgraph_error").string();
  REQUIRE(run_tlparse({log, "-o", "out"}, tmp.path()).code == 0);
  sql(tmp.path() / "out/index.sqlite", "UPDATE meta SET value='2' WHERE key='schema_version'");
  const auto before = files_under(tmp.path() / "out");
  const Run r = run_tlparse({log, "-o", "out", "--overwrite"}, tmp.path());
  INFO(r.err);
  CHECK(r.code == 1);
  CHECK(r.err.find("written by an older tlparse") != std::string::npos);
  CHECK(r.err.find("remove them yourself or choose another -o") != std::string::npos);
  CHECK(files_under(tmp.path() / "out") == before);
  no_staging_left(tmp.path());
  // Elsewhere, the logs make a new report.
  CHECK(run_tlparse({log, "-o", "fresh"}, tmp.path()).code == 0);
}
