// Several files are ingested at once (one worker each, into parts merged in file order): the
// index is the same whatever the number of workers, file ids follow the order given, and a file
// that fails, a cancel or a FIFO leaves no index and no part behind.
#include "ingest_test_util.h"
#include "support/must.h"
#include "support/test_paths.h"
#include "tlparse/ingest/log_files.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <sqlite3.h>
#include <sys/stat.h>

using namespace tlparse_test;
using test_support::must;
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> logs() {
  std::vector<fs::path> out;
  for (const char* dir :
       {"tests/data/gui/w12_ddp_cpu", "tests/data/pytorch-2.11/w02_recompile",
        "tests/data/pytorch-2.11/w16_dynamic", "tests/data/pytorch-2.11/w13_cache_run2"}) {
    const auto found = must(tlparse::ingest::find_logs(test_support::source_dir() / dir));
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

std::vector<std::string> leftovers(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    out.push_back(e.path().filename().string());
  }
  return out;
}

} // namespace

TEST_CASE("parallel ingest writes the same index as one worker, files in the order given",
          "[tlparse][parallel_ingest]") {
  test_support::TempDir tmp;
  const auto files = logs();
  REQUIRE(files.size() == 5);
  tlparse::ingest::IngestOptions one;
  one.threads = 1;
  tlparse::ingest::IngestOptions four;
  four.threads = 4;
  const auto a = tlparse::ingest::ingest_files(files, tmp.path() / "one.sqlite", one);
  const auto b = tlparse::ingest::ingest_files(files, tmp.path() / "four.sqlite", four);
  REQUIRE(a.ok);
  REQUIRE(b.ok);
  CHECK(test_support::read_file(tmp.path() / "one.sqlite") ==
        test_support::read_file(tmp.path() / "four.sqlite"));
  auto reader = must(tlparse::index::IndexReader::open(tmp.path() / "four.sqlite"));
  const auto indexed = must(reader->files());
  REQUIRE(indexed.size() == files.size());
  for (size_t i = 0; i < files.size(); ++i) {
    CHECK(indexed[i].id == int64_t(i + 1));
    CHECK(indexed[i].path == files[i].string());
    CHECK(b.files[i].file_id == indexed[i].id);
    // Every file's rows point at its own compiles and events after the merge.
    for (const auto& k : must(reader->compile_keys(indexed[i].id))) {
      CHECK(k.file_id == indexed[i].id);
    }
    for (const auto& o : must(reader->outputs(indexed[i].id))) {
      const auto e = must(reader->event(o.event_id));
      REQUIRE(e);
      CHECK(e->file_id == indexed[i].id);
      CHECK(e->line == o.line);
    }
  }
  CHECK(indexed[0].rank_from_name == 0);
  CHECK(indexed[1].rank_from_name == 1);
  CHECK(leftovers(tmp.path()).size() == 2); // no part is left
}

TEST_CASE("payloads logged by several files are stored once in the merged index",
          "[tlparse][parallel_ingest]") {
  test_support::TempDir tmp;
  const fs::path log = logs()[2];
  fs::copy_file(log, tmp.path() / "copy.log");
  tlparse::ingest::IngestOptions options;
  options.threads = 2;
  REQUIRE(tlparse::ingest::ingest_files({log}, tmp.path() / "one.sqlite", options).ok);
  REQUIRE(tlparse::ingest::ingest_files({log, tmp.path() / "copy.log"}, tmp.path() / "two.sqlite",
                                        options)
              .ok);
  const auto payloads = [](const fs::path& index) {
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(index.c_str(), &db) == SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    REQUIRE(sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM payloads", -1, &st, nullptr) == SQLITE_OK);
    REQUIRE(sqlite3_step(st) == SQLITE_ROW);
    const int64_t n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
  };
  CHECK(payloads(tmp.path() / "one.sqlite") > 0);
  CHECK(payloads(tmp.path() / "two.sqlite") == payloads(tmp.path() / "one.sqlite"));
  // The copy's events still find their payloads.
  auto reader = must(tlparse::index::IndexReader::open(tmp.path() / "two.sqlite"));
  for (const auto& o : must(reader->outputs(2))) {
    if (o.kind == tlparse::index::OutputKind::payload_text) {
      CHECK(must(reader->payload(o.event_id)).has_value());
    }
  }
}

TEST_CASE("a file that fails stops the parallel ingest and leaves nothing behind",
          "[tlparse][parallel_ingest]") {
  test_support::TempDir tmp;
  auto files = logs();
  files.insert(files.begin() + 2, tmp.path() / "missing.log");
  tlparse::ingest::IngestOptions options;
  options.threads = 4;
  const auto r = tlparse::ingest::ingest_files(files, tmp.path() / "i.sqlite", options);
  CHECK_FALSE(r.ok);
  CHECK(r.error.find("missing.log") != std::string::npos);
  CHECK(leftovers(tmp.path()).empty());
}

TEST_CASE("a FIFO given as a log is refused, not waited on", "[tlparse][parallel_ingest]") {
  test_support::TempDir tmp;
  REQUIRE(::mkfifo((tmp.path() / "pipe.log").c_str(), 0600) == 0);
  const auto r =
      tlparse::ingest::ingest_files({tmp.path() / "pipe.log"}, tmp.path() / "i.sqlite", {});
  CHECK_FALSE(r.ok);
  CHECK(r.error.find("is not a file") != std::string::npos);
  // And a folder's logs are only its regular files.
  CHECK_FALSE(tlparse::ingest::find_logs(tmp.path()).ok());
}

TEST_CASE("a cancelled parallel ingest leaves no index and no part", "[tlparse][parallel_ingest]") {
  test_support::TempDir tmp;
  std::atomic<bool> cancel{true};
  tlparse::ingest::IngestOptions options;
  options.threads = 4;
  options.cancel = &cancel;
  const auto r = tlparse::ingest::ingest_files(logs(), tmp.path() / "i.sqlite", options);
  CHECK_FALSE(r.ok);
  CHECK(r.cancelled);
  CHECK(leftovers(tmp.path()).empty());
}

TEST_CASE("a part that outgrew its range of ids has them moved, the next is appended as stored",
          "[tlparse][parallel_ingest]") {
  // Each file's ids start after the bytes of the files before it. A gzip log has more rows than
  // its compressed bytes, so the part after it finds its range taken and is merged by moving its
  // ids; the part after that fits again.
  test_support::TempDir tmp;
  std::string lines;
  for (int i = 0; i < 20000; ++i) {
    lines += glog_line("{\"unknown_kind\": 1}") + "\n";
  }
  write_file(tmp.path() / "a.log", lines);
  write_file(tmp.path() / "b.txt", lines);
  REQUIRE(std::system(("gzip -c '" + (tmp.path() / "b.txt").string() + "' > '" +
                       (tmp.path() / "b.log.gz").string() + "'")
                          .c_str()) == 0);
  const fs::path log = logs()[2];
  fs::copy_file(log, tmp.path() / "c.log");
  fs::copy_file(log, tmp.path() / "d.log");
  const std::vector<fs::path> files = {tmp.path() / "a.log", tmp.path() / "b.log.gz",
                                       tmp.path() / "c.log", tmp.path() / "d.log"};
  REQUIRE(fs::file_size(files[1]) < 20000);

  tlparse::ingest::IngestOptions one;
  one.threads = 1;
  tlparse::ingest::IngestOptions four;
  four.threads = 4;
  REQUIRE(tlparse::ingest::ingest_files(files, tmp.path() / "one.sqlite", one).ok);
  REQUIRE(tlparse::ingest::ingest_files(files, tmp.path() / "four.sqlite", four).ok);
  CHECK(test_support::read_file(tmp.path() / "one.sqlite") ==
        test_support::read_file(tmp.path() / "four.sqlite"));

  auto reader = must(tlparse::index::IndexReader::open(tmp.path() / "four.sqlite"));
  const auto ids = [&](int64_t file_id) {
    std::vector<int64_t> out;
    const auto st = reader->for_each_event(file_id, [&](const tlparse::index::Event& e) {
      out.push_back(e.id);
      return true;
    });
    REQUIRE(st);
    return out;
  };
  const auto a = ids(1), b = ids(2), c = ids(3), d = ids(4);
  REQUIRE(a.size() == 20000);
  REQUIRE(b.size() == 20000);
  REQUIRE(!c.empty());
  REQUIRE(c.size() == d.size());
  const auto base = [&](size_t i) {
    int64_t sum = 0;
    for (size_t j = 0; j < i; ++j) {
      sum += static_cast<int64_t>(fs::file_size(files[j]));
    }
    return sum;
  };
  CHECK(a.front() == 1);
  CHECK(b.front() == base(1) + 1);  // kept
  CHECK(c.front() == b.back() + 1); // moved: its range started inside b's rows
  CHECK(c.front() != base(2) + 1);
  CHECK(d.front() == base(3) + 1); // kept again
  // Both copies' rows point at their own events, and at one stored copy of each payload.
  for (const int64_t file_id : {3, 4}) {
    for (const auto& o : must(reader->outputs(file_id))) {
      const auto e = must(reader->event(o.event_id));
      REQUIRE(e);
      CHECK(e->file_id == file_id);
      if (o.kind == tlparse::index::OutputKind::payload_text) {
        CHECK(must(reader->payload(o.event_id)).has_value());
      }
    }
  }
  const auto c_outputs = must(reader->outputs(3));
  const auto d_outputs = must(reader->outputs(4));
  REQUIRE(c_outputs.size() == d_outputs.size());
  for (size_t i = 0; i < c_outputs.size(); ++i) {
    CHECK(c_outputs[i].path == d_outputs[i].path);
    CHECK(must(reader->payload(c_outputs[i].event_id)) ==
          must(reader->payload(d_outputs[i].event_id)));
  }
}
