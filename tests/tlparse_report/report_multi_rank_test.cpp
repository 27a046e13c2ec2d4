// `tlparse DIR --all-ranks-html` on messy folders (docs/TLPARSE-MULTI-RANK.md): extra files, a
// missing rank, a rank whose log stops mid-line (crashed or killed while hung), no rank logs at
// all, --latest, --overwrite of a previous multi-rank report. The logs are the two ranks of the
// PyTorch 2.11 DDP/NCCL run committed under tests/data (ranks diverge and the job hangs).
#include "support/test_paths.h"
#include "tlparse/index/index_reader.h"
#include "tlparse_cli.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/wait.h>

namespace fs = std::filesystem;

namespace {

using test_support::kTlparse;
using test_support::quoted;

struct Run {
  int rc = -1;
  std::string out, err;
};

Run run_tlparse(const std::string& args, const fs::path& scratch) {
  const fs::path out = scratch / "stdout.txt", err = scratch / "stderr.txt";
  Run r;
  const int status = std::system(
      (std::string(kTlparse) + " " + args + " > '" + out.string() + "' 2> '" + err.string() + "'")
          .c_str());
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = test_support::read_file(out);
  r.err = test_support::read_file(err);
  return r;
}

fs::path rank_log(int rank) {
  const fs::path dir = test_support::source_dir() / "tests/data/pytorch-2.11/w14_ddp_nccl";
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().starts_with("dedicated_log_torch_trace_rank_" +
                                                 std::to_string(rank) + "_")) {
      return e.path();
    }
  }
  FAIL("no rank " << rank << " log under " << dir);
  return {};
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

} // namespace

TEST_CASE(
    "tlparse --all-ranks-html on a messy folder: extra files, a missing rank, a crashed rank") {
  if (kTlparse == nullptr) {
    TORCHSCOPE_SKIP("the tlparse binary is not built");
  }
  test_support::TempDir tmp("multi-rank");
  const fs::path logs = tmp.path() / "logs";
  fs::create_directories(logs / "dedicated_log_torch_trace_rank_9.log"); // a folder: ignored
  fs::copy_file(rank_log(0), logs / "dedicated_log_torch_trace_rank_0_a.log");
  // Rank 3 (ranks 1 and 2 missing) crashed: its log stops in the middle of a line.
  const std::string full = test_support::read_file(rank_log(1));
  write(logs / "dedicated_log_torch_trace_rank_3_b.log", full.substr(0, full.size() * 2 / 3));
  write(logs / "another.log", "not a rank log\n");
  write(logs / "notes.txt", "hello\n");
  write(logs / "dedicated_log_torch_trace_rank_x.log", "no rank number\n");

  const fs::path out = tmp.path() / "out";
  const Run r =
      run_tlparse("'" + logs.string() + "' --all-ranks-html -o '" + out.string() + "' --no-browser",
                  tmp.path());
  INFO(r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.out.find("Multi-rank report generated under") != std::string::npos);
  CHECK(r.out.find("Processing rank 0") != std::string::npos);
  CHECK(r.out.find("Processing rank 3") != std::string::npos);
  for (const char* f :
       {"index.html", "rank_0/index.html", "rank_3/index.html", "rank_0/compile_directory.json",
        "rank_3/raw.jsonl", "rank_0/collectives_parity.json", "rank_3/collectives_parity.json",
        "chromium_events.json", "index.sqlite"}) {
    INFO(f);
    CHECK(fs::exists(out / f));
  }
  CHECK(!fs::exists(out / "rank_1"));
  CHECK(!fs::exists(out / "rank_9"));
  const std::string landing = test_support::read_file(out / "index.html");
  CHECK(landing.find("href=\"rank_0/index.html\"") != std::string::npos);
  CHECK(landing.find("href=\"rank_3/index.html\"") != std::string::npos);
  // The crashed rank compiled less: the compile-id check says so.
  CHECK(landing.find("Diverging Compilation IDs") != std::string::npos);
  // One index, both ranks, ingested together.
  auto reader = tlparse::index::IndexReader::open(out / "index.sqlite");
  REQUIRE(reader);
  auto files = (*reader)->files();
  REQUIRE(files);
  REQUIRE(files->size() == 2);
  CHECK((*files)[0].rank_from_name == 0);
  CHECK((*files)[1].rank_from_name == 3);
  // The cut line is counted, everything before it kept.
  CHECK(r.err.find("fail_") != std::string::npos);

  SECTION("--overwrite replaces the previous report's files only") {
    write(out / "rank_0" / "my-notes.txt", "keep me\n");
    const Run again = run_tlparse("'" + logs.string() + "' --all-ranks-html --overwrite -o '" +
                                      out.string() + "' --no-browser",
                                  tmp.path());
    INFO(again.err);
    CHECK(again.rc == 0);
    CHECK(test_support::read_file(out / "rank_0" / "my-notes.txt") == "keep me\n");
    CHECK(fs::exists(out / "rank_3" / "index.html"));
  }
  SECTION("without --overwrite an existing folder is refused") {
    const Run again = run_tlparse("'" + logs.string() + "' --all-ranks-html -o '" + out.string() +
                                      "' --no-browser",
                                  tmp.path());
    CHECK(again.rc == 1);
    CHECK(again.err.find("already exists") != std::string::npos);
  }
}

TEST_CASE("tlparse --all-ranks-html refuses what tlparse 0.4.3 refuses, and writes nothing then") {
  if (kTlparse == nullptr) {
    TORCHSCOPE_SKIP("the tlparse binary is not built");
  }
  test_support::TempDir tmp("multi-rank-errors");
  const fs::path empty = tmp.path() / "empty";
  fs::create_directories(empty);
  write(empty / "another.log", "x\n");
  const fs::path out = tmp.path() / "out";

  const Run none = run_tlparse(
      "'" + empty.string() + "' --all-ranks-html -o '" + out.string() + "'", tmp.path());
  CHECK(none.rc == 1);
  CHECK(none.err.find("No rank log files found") != std::string::npos);
  CHECK(!fs::exists(out)); // 0.4.3 created it

  const Run latest = run_tlparse(
      "'" + empty.string() + "' --all-ranks-html --latest -o '" + out.string() + "'", tmp.path());
  CHECK(latest.rc == 1);
  CHECK(latest.err.find("--latest cannot be used with --all-ranks-html") != std::string::npos);

  const Run file = run_tlparse(
      "'" + rank_log(0).string() + "' --all-ranks-html -o '" + out.string() + "'", tmp.path());
  CHECK(file.rc == 1);
  CHECK(file.err.find("must be a directory") != std::string::npos);
  CHECK(!fs::exists(out));
}

TEST_CASE("gzip-compressed logs read as their text: same report, --all-ranks-html too") {
  if (kTlparse == nullptr) {
    TORCHSCOPE_SKIP("the tlparse binary is not built");
  }
  test_support::TempDir tmp("gzip-logs");
  const fs::path logs = tmp.path() / "logs";
  fs::create_directories(logs);
  // Two gzip members concatenated, as `cat a.gz b.gz` makes: one stream of text.
  const std::string text = test_support::read_file(rank_log(0));
  const std::size_t half = text.find('\n', text.size() / 2) + 1;
  write(tmp.path() / "a.txt", text.substr(0, half));
  write(tmp.path() / "b.txt", text.substr(half));
  const fs::path gz = logs / "dedicated_log_torch_trace_rank_0_x.log.gz";
  REQUIRE(std::system(("gzip -c '" + (tmp.path() / "a.txt").string() + "' > '" + gz.string() +
                       "' && gzip -c '" + (tmp.path() / "b.txt").string() + "' >> '" + gz.string() +
                       "'")
                          .c_str()) == 0);
  fs::copy_file(rank_log(1), logs / "dedicated_log_torch_trace_rank_1_y.log");

  const Run plain = run_tlparse("'" + rank_log(0).string() + "' -o '" +
                                    (tmp.path() / "plain").string() + "' --no-browser",
                                tmp.path());
  const Run zipped = run_tlparse("'" + gz.string() + "' -o '" + (tmp.path() / "zipped").string() +
                                     "' --no-browser",
                                 tmp.path());
  INFO(zipped.err);
  REQUIRE(plain.rc == 0);
  REQUIRE(zipped.rc == 0);
  int compared = 0;
  for (const auto& e : fs::recursive_directory_iterator(tmp.path() / "plain")) {
    const fs::path rel = fs::relative(e.path(), tmp.path() / "plain");
    if (!e.is_regular_file() || rel == "index.sqlite" || rel == "index.html") {
      continue; // the index and the page name the file they came from
    }
    INFO(rel.string());
    REQUIRE(fs::exists(tmp.path() / "zipped" / rel));
    CHECK(test_support::read_file(e.path()) ==
          test_support::read_file(tmp.path() / "zipped" / rel));
    ++compared;
  }
  CHECK(compared > 10); // raw.log (the text), raw.jsonl, compile directory, artifacts

  const Run ranks = run_tlparse("'" + logs.string() + "' --all-ranks-html -o '" +
                                    (tmp.path() / "ranks").string() + "' --no-browser",
                                tmp.path());
  INFO(ranks.err);
  CHECK(ranks.rc == 0);
  CHECK(fs::exists(tmp.path() / "ranks/rank_0/index.html"));
  CHECK(fs::exists(tmp.path() / "ranks/rank_1/index.html"));

  SECTION("a cut gzip file keeps what it holds, and says so") {
    const std::string whole = test_support::read_file(gz);
    write(logs / "dedicated_log_torch_trace_rank_0_x.log.gz", whole.substr(0, whole.size() / 3));
    const Run cut =
        run_tlparse("'" + (logs / "dedicated_log_torch_trace_rank_0_x.log.gz").string() + "' -o '" +
                        (tmp.path() / "cut").string() + "' --no-browser",
                    tmp.path());
    CHECK(cut.rc == 0);
    CHECK(cut.err.find("gzip stream ends early") != std::string::npos);
    CHECK(fs::exists(tmp.path() / "cut/raw.jsonl"));
  }
}
