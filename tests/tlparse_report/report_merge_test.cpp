// `tlparse merge` and the multi-rank report from a merged index (docs/TLPARSE-MULTI-RANK.md,
// "Indexing where the logs are"): per-rank indexes join into one with every row kept and ids
// moved consistently; a bad index (truncated, not ours, of another schema version, with an id
// pointing outside itself) is reported and skipped while the rest merges; the report rendered
// from the merged index is byte for byte the one-process `--all-ranks-html` report; `--serve`
// answers any rank's page from it; and the landing page's overview names the rank that
// diverges. The logs are the two ranks of the PyTorch 2.11 DDP/NCCL run under tests/data (rank 1
// compiles a frame rank 0 does not).
#include "report/rank_overview.h"
#include "support/test_paths.h"
#include "tlparse_cli.h"

#include <arpa/inet.h>
#include <catch2/catch.hpp>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <netinet/in.h>
#include <sqlite3.h>
#include <string>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;
using test_support::body_of;
using test_support::http_get;
using test_support::kTlparse;
using test_support::quoted;

namespace {

struct Run {
  int rc = -1;
  std::string out, err;
};

Run run_tlparse(const std::string& args, const fs::path& scratch) {
  const fs::path out = scratch / "stdout.txt", err = scratch / "stderr.txt";
  const int status = std::system(
      (quoted(kTlparse) + " " + args + " > " + quoted(out) + " 2> " + quoted(err)).c_str());
  Run r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = test_support::read_file(out);
  r.err = test_support::read_file(err);
  return r;
}

fs::path logs_dir() {
  return test_support::source_dir() / "tests/data/pytorch-2.11/w14_ddp_nccl";
}

fs::path rank_log(int rank) {
  for (const auto& e : fs::directory_iterator(logs_dir())) {
    if (e.path().filename().string().starts_with("dedicated_log_torch_trace_rank_" +
                                                 std::to_string(rank) + "_")) {
      return e.path();
    }
  }
  FAIL("no rank " << rank << " log under " << logs_dir());
  return {};
}

// One integer from an SQL query over a database file.
std::int64_t query_int(const fs::path& db, const std::string& sql) {
  sqlite3* h = nullptr;
  REQUIRE(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  INFO(sql);
  REQUIRE(sqlite3_prepare_v2(h, sql.c_str(), -1, &s, nullptr) == SQLITE_OK);
  REQUIRE(sqlite3_step(s) == SQLITE_ROW);
  const std::int64_t v = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  sqlite3_close(h);
  return v;
}

void exec(const fs::path& db, const std::string& sql) {
  sqlite3* h = nullptr;
  REQUIRE(sqlite3_open(db.c_str(), &h) == SQLITE_OK);
  INFO(sql);
  CHECK(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
  sqlite3_close(h);
}

std::vector<std::string> tables_of(const fs::path& db) {
  sqlite3* h = nullptr;
  REQUIRE(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  REQUIRE(sqlite3_prepare_v2(h,
                             "SELECT name FROM sqlite_master WHERE type='table' AND name NOT "
                             "LIKE 'sqlite_%' ORDER BY name",
                             -1, &s, nullptr) == SQLITE_OK);
  std::vector<std::string> out;
  while (sqlite3_step(s) == SQLITE_ROW) {
    out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)));
  }
  sqlite3_finalize(s);
  sqlite3_close(h);
  return out;
}

// `tlparse index` of each rank log into its own index, as each node of a job would.
std::vector<fs::path> per_rank_indexes(const fs::path& dir, const fs::path& scratch) {
  fs::create_directories(dir);
  std::vector<fs::path> out;
  for (int rank : {0, 1}) {
    const fs::path index = dir / ("rank_" + std::to_string(rank) + ".sqlite");
    const Run r = run_tlparse("index " + quoted(rank_log(rank)) + " -o " + quoted(index), scratch);
    INFO(r.err);
    REQUIRE(r.rc == 0);
    out.push_back(index);
  }
  return out;
}

// Every regular file under `a` has the same bytes under `b`, and `b` has no other file; the
// index each report holds is left out (ids differ). Returns how many files were compared.
int compare_trees(const fs::path& a, const fs::path& b) {
  int compared = 0;
  for (const auto& e : fs::recursive_directory_iterator(a)) {
    const fs::path rel = fs::relative(e.path(), a);
    if (!e.is_regular_file() || rel == "index.sqlite") {
      continue;
    }
    INFO(rel.string());
    REQUIRE(fs::exists(b / rel));
    CHECK(test_support::read_file(e.path()) == test_support::read_file(b / rel));
    ++compared;
  }
  for (const auto& e : fs::recursive_directory_iterator(b)) {
    const fs::path rel = fs::relative(e.path(), b);
    INFO("only in the second: " << rel.string());
    CHECK(fs::exists(a / rel));
  }
  return compared;
}

// `tlparse ARGS --port PORT` started in the background (a --serve), stopped when this goes;
// `landing` is its answer to "/" once it answered (it is given 30 s on a loaded machine).
class Server {
public:
  Server(const std::string& args, const fs::path& scratch)
      : port_(20000 + static_cast<int>((::getpid() + ++started_ * 7919) % 20000)),
        output_(scratch / "server.txt") {
    const fs::path pid_file = scratch / "server.pid";
    const std::string cmd = quoted(kTlparse) + " " + args + " --port " + std::to_string(port_) +
                            " > " + quoted(output_) + " 2>&1 & echo $! > " + quoted(pid_file);
    REQUIRE(std::system(cmd.c_str()) == 0);
    for (int i = 0; i < 300 && landing_.empty(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      landing_ = http_get(port_, "/");
    }
    pid_ = static_cast<pid_t>(std::stol(test_support::read_file(pid_file)));
  }
  ~Server() { ::kill(pid_, SIGTERM); }
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;
  int port() const { return port_; }
  const std::string& landing() const { return landing_; }
  std::string output() const { return test_support::read_file(output_); }

private:
  static inline int started_ = 0;
  int port_;
  fs::path output_;
  pid_t pid_ = 0;
  std::string landing_;
};

} // namespace

TEST_CASE("tlparse merge keeps every row of every index, moves ids consistently, sums health") {
  if (kTlparse == nullptr) {
    TORCHSCOPE_SKIP("the tlparse binary is not built");
  }
  test_support::TempDir tmp("merge-good");
  const auto parts = per_rank_indexes(tmp.path() / "parts", tmp.path());
  const fs::path merged = tmp.path() / "merged.sqlite";
  const Run r = run_tlparse(
      "merge " + quoted(parts[0]) + " " + quoted(parts[1]) + " -o " + quoted(merged), tmp.path());
  INFO(r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.err.find("Merged 2 of 2 index(es): 2 log file(s)") != std::string::npos);

  // Every table holds the rows of both parts; payloads are stored once by content.
  for (const std::string& table : tables_of(merged)) {
    if (table == "meta" || table == "payloads" || table.starts_with("payload_fts")) {
      continue;
    }
    INFO(table);
    const std::string count = "SELECT COUNT(*) FROM " + table;
    CHECK(query_int(merged, count) == query_int(parts[0], count) + query_int(parts[1], count));
  }
  const std::int64_t distinct_payloads =
      query_int(merged, "SELECT COUNT(*) FROM (SELECT DISTINCT md5, size FROM payloads)");
  CHECK(query_int(merged, "SELECT COUNT(*) FROM payloads") == distinct_payloads);
  CHECK(distinct_payloads <= query_int(parts[0], "SELECT COUNT(*) FROM payloads") +
                                 query_int(parts[1], "SELECT COUNT(*) FROM payloads"));
  // Files follow the inputs; the second index's ids moved past the first's, and every moved id
  // still points at a row of the same file.
  CHECK(query_int(merged, "SELECT COUNT(*) FROM files") == 2);
  CHECK(query_int(merged, "SELECT rank_from_name FROM files WHERE id = 2") == 1);
  CHECK(query_int(merged, "SELECT MIN(id) FROM events WHERE file_id = 2") >
        query_int(merged, "SELECT MAX(id) FROM events WHERE file_id = 1"));
  CHECK(query_int(merged, "SELECT COUNT(*) FROM events e JOIN compile_keys k ON k.id = e.key_id "
                          "WHERE k.file_id <> e.file_id") == 0);
  CHECK(query_int(merged, "SELECT COUNT(*) FROM outputs o JOIN events e ON e.id = o.event_id "
                          "WHERE e.file_id <> o.file_id") == 0);
  CHECK(query_int(merged, "SELECT COUNT(*) FROM compile_keys k JOIN compiles c ON c.id = "
                          "k.compile_id WHERE c.file_id <> k.file_id") == 0);
  CHECK(query_int(merged, "SELECT COUNT(*) FROM events e LEFT JOIN payloads p ON p.id = "
                          "e.payload_id WHERE e.payload_id IS NOT NULL AND (p.id IS NULL OR "
                          "p.md5 <> e.payload_md5)") == 0);
  // The data-health counters: each file's rows kept, their sums those of the parts.
  const std::string health = "SELECT SUM(count) FROM health WHERE counter = 'ok'";
  CHECK(query_int(merged, health) == query_int(parts[0], health) + query_int(parts[1], health));
  CHECK(r.err.find("Data health, all files: ok: " + std::to_string(query_int(merged, health))) !=
        std::string::npos);
  // The same rank twice (a restarted node indexed again): the report keeps the first file and
  // says so.
  const fs::path twice = tmp.path() / "twice.sqlite";
  REQUIRE(run_tlparse("merge " + quoted(parts[0]) + " " + quoted(parts[1]) + " " +
                          quoted(parts[0]) + " -o " + quoted(twice),
                      tmp.path())
              .rc == 0);
  const Run render = run_tlparse("render " + quoted(twice) + " --all-ranks-html -o " +
                                     quoted(tmp.path() / "twice"),
                                 tmp.path());
  CHECK(render.rc == 0);
  CHECK(render.err.find("rank 0 has several logs; using file 1, leaving out file 3") !=
        std::string::npos);
  // A crafted index: markup in a compile id, an infinite compile time. The landing escapes the
  // one and leaves the other out of the chart.
  const fs::path crafted = tmp.path() / "crafted.sqlite";
  fs::copy_file(merged, crafted);
  exec(crafted, "UPDATE compiles SET display = '<script>alert(1)</script>', "
                "entire_frame_compile_time_s = 9e999 WHERE id = (SELECT MAX(id) FROM compiles "
                "WHERE scope = 'compile')");
  const Run shown = run_tlparse("render " + quoted(crafted) + " --all-ranks-html -o " +
                                    quoted(tmp.path() / "crafted"),
                                tmp.path());
  INFO(shown.err);
  REQUIRE(shown.rc == 0);
  const std::string landing = test_support::read_file(tmp.path() / "crafted" / "index.html");
  CHECK(landing.find("<script>alert") == std::string::npos);
  CHECK(landing.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
  CHECK(landing.find("inf s") == std::string::npos);
  // The merged index is an index like any: queries see both ranks.
  const Run q = run_tlparse("query " + quoted(merged) + " 'SELECT rank FROM ranks ORDER BY rank'",
                            tmp.path());
  CHECK(q.rc == 0);
  CHECK(q.out.find('0') != std::string::npos);
  CHECK(q.out.find('1') != std::string::npos);
}

TEST_CASE("tlparse merge reports and skips a bad index and merges the rest") {
  if (kTlparse == nullptr) {
    TORCHSCOPE_SKIP("the tlparse binary is not built");
  }
  test_support::TempDir tmp("merge-bad");
  const auto parts = per_rank_indexes(tmp.path() / "parts", tmp.path());
  const fs::path bad = tmp.path() / "bad";
  fs::create_directories(bad);
  const std::string good1 = test_support::read_file(parts[1]);
  std::ofstream(bad / "truncated.sqlite", std::ios::binary) << good1.substr(0, good1.size() / 3);
  std::ofstream(bad / "not-ours.sqlite", std::ios::binary) << "SQLite format 3\nnot really\n";
  fs::copy_file(parts[1], bad / "old-version.sqlite");
  exec(bad / "old-version.sqlite", "UPDATE meta SET value = '2' WHERE key = 'schema_version'");
  fs::copy_file(parts[1], bad / "dangling.sqlite");
  exec(bad / "dangling.sqlite", "UPDATE outputs SET event_id = 987654321 WHERE id = (SELECT "
                                "MIN(id) FROM outputs)");
  fs::copy_file(parts[1], bad / "foreign-file.sqlite");
  exec(bad / "foreign-file.sqlite",
       "UPDATE events SET file_id = 7 WHERE id = (SELECT MIN(id) FROM events)");
  // A name with control bytes is printed escaped, never raw on the terminal.
  const fs::path odd = bad / "odd\x1b[31m.sqlite";
  std::ofstream(odd, std::ios::binary) << "x";

  const fs::path merged = tmp.path() / "merged.sqlite";
  std::string args = "merge " + quoted(parts[0]);
  for (const char* name : {"truncated.sqlite", "not-ours.sqlite", "old-version.sqlite",
                           "dangling.sqlite", "foreign-file.sqlite", "missing.sqlite"}) {
    args += " " + quoted(bad / name);
  }
  args += " " + quoted(odd) + " " + quoted(parts[1]) + " -o " + quoted(merged);
  const Run r = run_tlparse(args, tmp.path());
  INFO(r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.err.find("Merged 2 of 9 index(es): 2 log file(s)") != std::string::npos);
  CHECK(r.err.find("truncated.sqlite: ") != std::string::npos);
  CHECK(r.err.find("truncated") != std::string::npos);
  CHECK(r.err.find("not-ours.sqlite is not a torchscope index") != std::string::npos);
  CHECK(r.err.find("index schema version 2") != std::string::npos);
  CHECK(r.err.find("outputs.event_id holds an id that no row of events has") != std::string::npos);
  CHECK(r.err.find("events.file_id holds an id that no row of files has") != std::string::npos);
  CHECK(r.err.find("missing.sqlite: no such index file") != std::string::npos);
  CHECK(r.err.find('\x1b') == std::string::npos);
  // Both good indexes are whole in the result.
  CHECK(query_int(merged, "SELECT COUNT(*) FROM files") == 2);
  CHECK(query_int(merged, "SELECT COUNT(*) FROM events") ==
        query_int(parts[0], "SELECT COUNT(*) FROM events") +
            query_int(parts[1], "SELECT COUNT(*) FROM events"));

  SECTION("--strict fails on a skipped index and writes nothing") {
    const fs::path strict = tmp.path() / "strict.sqlite";
    const Run s = run_tlparse("merge " + quoted(parts[0]) + " " + quoted(bad / "truncated.sqlite") +
                                  " -o " + quoted(strict) + " --strict",
                              tmp.path());
    CHECK(s.rc == 1);
    CHECK(!fs::exists(strict));
  }
  SECTION("nothing mergeable: an error, no output") {
    const fs::path none = tmp.path() / "none.sqlite";
    const Run s =
        run_tlparse("merge " + quoted(bad / "not-ours.sqlite") + " -o " + quoted(none), tmp.path());
    CHECK(s.rc == 1);
    CHECK(s.err.find("no index could be merged") != std::string::npos);
    CHECK(!fs::exists(none));
  }
  SECTION("the output is never one of the inputs, and only an index is replaced") {
    const Run self = run_tlparse(
        "merge " + quoted(parts[0]) + " " + quoted(merged) + " -o " + quoted(merged), tmp.path());
    CHECK(self.err.find("it is the output itself") != std::string::npos);
    const fs::path notes = tmp.path() / "notes.txt";
    std::ofstream(notes) << "mine\n";
    const Run other = run_tlparse("merge " + quoted(parts[0]) + " -o " + quoted(notes), tmp.path());
    CHECK(other.rc == 1);
    CHECK(test_support::read_file(notes) == "mine\n");
  }
}

TEST_CASE("the report of a merged index is byte for byte the one-process --all-ranks-html one") {
  if (kTlparse == nullptr) {
    TORCHSCOPE_SKIP("the tlparse binary is not built");
  }
  test_support::TempDir tmp("merge-report");
  const auto parts = per_rank_indexes(tmp.path() / "parts", tmp.path());
  const Run one = run_tlparse(quoted(logs_dir()) + " --all-ranks-html --no-browser -o " +
                                  quoted(tmp.path() / "one"),
                              tmp.path());
  INFO(one.err);
  REQUIRE(one.rc == 0);
  // Merged in the other order: ranks are placed by rank, not by input order.
  const fs::path merged = tmp.path() / "merged.sqlite";
  REQUIRE(
      run_tlparse("merge " + quoted(parts[1]) + " " + quoted(parts[0]) + " -o " + quoted(merged),
                  tmp.path())
          .rc == 0);
  const Run from_index =
      run_tlparse("render " + quoted(merged) + " --all-ranks-html -o " +
                      quoted(tmp.path() / "merged") + " --raw-log " + quoted(logs_dir()),
                  tmp.path());
  INFO(from_index.err);
  REQUIRE(from_index.rc == 0);
  CHECK(from_index.out == [&] {
    std::string expected = one.out;
    const std::string from = tmp.path().string() + "/one";
    for (std::size_t at; (at = expected.find(from)) != std::string::npos;) {
      expected.replace(at, from.size(), tmp.path().string() + "/merged");
    }
    return expected;
  }());
  CHECK(compare_trees(tmp.path() / "one", tmp.path() / "merged") > 50);

  SECTION("without the logs, everything but raw.log, said once") {
    const Run bare = run_tlparse("render " + quoted(merged) + " --all-ranks-html -o " +
                                     quoted(tmp.path() / "bare"),
                                 tmp.path());
    INFO(bare.err);
    REQUIRE(bare.rc == 0);
    CHECK(bare.err.find("raw.log not written for 2 rank(s)") != std::string::npos);
    CHECK(!fs::exists(tmp.path() / "bare" / "rank_0" / "raw.log"));
    CHECK(test_support::read_file(tmp.path() / "bare" / "rank_1" / "raw.jsonl") ==
          test_support::read_file(tmp.path() / "one" / "rank_1" / "raw.jsonl"));
  }
}

TEST_CASE(
    "tlparse render MERGED --all-ranks-html --serve answers the landing and any rank's page") {
  if (kTlparse == nullptr) {
    TORCHSCOPE_SKIP("the tlparse binary is not built");
  }
  test_support::TempDir tmp("merge-serve");
  const auto parts = per_rank_indexes(tmp.path() / "parts", tmp.path());
  const fs::path merged = tmp.path() / "merged.sqlite";
  REQUIRE(
      run_tlparse("merge " + quoted(parts[0]) + " " + quoted(parts[1]) + " -o " + quoted(merged),
                  tmp.path())
          .rc == 0);
  REQUIRE(run_tlparse("render " + quoted(merged) + " --all-ranks-html -o " +
                          quoted(tmp.path() / "written"),
                      tmp.path())
              .rc == 0);
  const Server server("render " + quoted(merged) + " --all-ranks-html --serve", tmp.path());
  const int port = server.port();
  const std::string& landing = server.landing();
  INFO(server.output());
  REQUIRE(landing.starts_with("HTTP/1.0 200"));
  CHECK(body_of(landing).find("href=\"rank_1/index.html\"") != std::string::npos);
  // A rank's pages are the written report's bytes.
  for (const char* page :
       {"rank_1/index.html", "rank_1/compile_directory.json", "rank_0/failures_and_restarts.html",
        "rank_1/collectives_parity.json", "rank_0/raw.jsonl"}) {
    INFO(page);
    const std::string response = http_get(port, std::string("/") + page);
    REQUIRE(response.starts_with("HTTP/1.0 200"));
    CHECK(body_of(response) == test_support::read_file(tmp.path() / "written" / page));
  }
  // Ranks the index does not hold, names a rank's report does not have, and raw.log without
  // the logs (a path stored in the index is never read) are not found.
  for (const char* page : {"/rank_2/index.html", "/rank_01/index.html", "/rank_1/nothing.html",
                           "/rank_1/raw.log", "/index.sqlite", "/rank_1/../../etc/passwd"}) {
    INFO(page);
    CHECK(http_get(port, page).starts_with("HTTP/1.0 404"));
  }
}

TEST_CASE("the landing page names the rank that diverges, groups the others, charts compile time") {
  if (kTlparse == nullptr) {
    TORCHSCOPE_SKIP("the tlparse binary is not built");
  }
  test_support::TempDir tmp("merge-landing");
  // Six ranks: five run rank 0's log, rank 3 runs rank 1's (one more compile, a recompile).
  const fs::path logs = tmp.path() / "logs";
  fs::create_directories(logs);
  for (int rank = 0; rank < 6; ++rank) {
    fs::copy_file(rank_log(rank == 3 ? 1 : 0),
                  logs / ("dedicated_log_torch_trace_rank_" + std::to_string(rank) + "_x.log"));
  }
  const Run r = run_tlparse(
      quoted(logs) + " --all-ranks-html --no-browser -o " + quoted(tmp.path() / "out"), tmp.path());
  INFO(r.err);
  REQUIRE(r.rc == 0);
  const std::string page = test_support::read_file(tmp.path() / "out" / "index.html");
  const auto at = [&](const std::string& text) { return page.find(text); };
  REQUIRE(at("Ranks That Stand Out") != std::string::npos);
  CHECK(at("Rank 3 recompiled where most ranks did not: up to 1 against 0 on 5 of 6 ranks") !=
        std::string::npos);
  CHECK(at("Rank 3 diverged at compile #5: rank 3 compiled <code>[0/1]</code>") !=
        std::string::npos);
  CHECK(at("Longest compile: <a href=\"rank_3/index.html\">Rank 3</a>") != std::string::npos);
  // The straggler chart: one bar per rank, the longest in red, no script.
  CHECK(at("<svg") != std::string::npos);
  CHECK(at("<title>Rank 5: ") != std::string::npos);
  CHECK(at("fill=\"#d1242f\"><title>Rank 3: ") != std::string::npos);
  // Groups, smallest first; the outliers come before the rank links.
  const auto lone = at("<li>1 rank(s): 3 &mdash;");
  const auto rest = at("<li>5 rank(s): 0-2, 4, 5 &mdash;");
  CHECK(lone != std::string::npos);
  CHECK(rest != std::string::npos);
  CHECK(lone < rest);
  CHECK(at("Ranks That Stand Out") < at("Individual rank reports"));
  // The compile-id check says which ranks lack what in one line per set of ranks.
  CHECK(at("<li>Ranks 0-2, 4, 5 have no [0/1], [0/1_1]</li>") != std::string::npos);
}

TEST_CASE("the overview of many ranks: compact rank ranges and links") {
  using tlparse::report::detail::rank_ranges;
  CHECK(rank_ranges({}) == "");
  CHECK(rank_ranges({4}) == "4");
  CHECK(rank_ranges({0, 1}) == "0, 1");
  CHECK(rank_ranges({0, 1, 2, 4, 5, 9, 10, 11, 12}) == "0-2, 4, 5, 9-12");
  std::vector<std::uint32_t> many;
  for (std::uint32_t r = 0; r < 1024; ++r) {
    many.push_back(r);
  }
  std::string page;
  tlparse::report::detail::write_rank_links(page, many);
  CHECK(page.find("<li>") == std::string::npos); // no list of 1,024 bullets
  CHECK(page.find("<a href=\"rank_1023/index.html\">1023</a>") != std::string::npos);
  // The outliers of many ranks where one straggles: named, charted, grouped.
  std::vector<tlparse::report::detail::RankSummary> ranks(1024);
  for (std::uint32_t r = 0; r < 1024; ++r) {
    ranks[r].rank = r;
    ranks[r].has_compile_time = true;
    ranks[r].compile_seconds = r == 700 ? 9.0 : 1.0;
    ranks[r].compile_sequence = {"[0/0]", "[1/0]"};
    ranks[r].cache_misses = r == 12 ? 3 : 0;
    ranks[r].cache_sequence = r == 12 ? "xxx" : "";
  }
  page.clear();
  tlparse::report::detail::write_rank_overview(page, ranks);
  CHECK(page.find("Longest compile: <a href=\"rank_700/index.html\">Rank 700</a>, 9.000 s") !=
        std::string::npos);
  CHECK(page.find("Rank 12 missed the cache where most ranks did not: up to 3 against 0 on 1023 "
                  "of 1024 ranks") != std::string::npos);
  CHECK(page.find("<li>1 rank(s): 12 &mdash;") < page.find("<li>1023 rank(s): 0-11, 13-1023"));
  CHECK(page.find("<script") == std::string::npos);
}

TEST_CASE("tlparse DIR --all-ranks-html --serve ingests once and serves the ranks on demand") {
  if (kTlparse == nullptr) {
    TORCHSCOPE_SKIP("the tlparse binary is not built");
  }
  test_support::TempDir tmp("ranks-serve");
  const Server server(quoted(logs_dir()) + " --all-ranks-html --serve -o " +
                          quoted(tmp.path() / "out"),
                      tmp.path());
  const int port = server.port();
  const std::string& landing = server.landing();
  INFO(server.output());
  REQUIRE(landing.starts_with("HTTP/1.0 200"));
  CHECK(body_of(landing).find("Ranks That Stand Out") != std::string::npos);
  // No rank's report was written: OUT holds the index alone.
  CHECK(fs::exists(tmp.path() / "out" / "index.sqlite"));
  CHECK(!fs::exists(tmp.path() / "out" / "rank_0"));
  // raw.log comes from the folder of logs.
  const std::string raw = http_get(port, "/rank_1/raw.log");
  REQUIRE(raw.starts_with("HTTP/1.0 200"));
  CHECK(body_of(raw) == test_support::read_file(rank_log(1)));
}
