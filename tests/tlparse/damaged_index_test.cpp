// A damaged index is an error, never a partial answer: the read API says what is wrong with it,
// and `tlparse render` exits 1 with that message and leaves no output folder. The index is
// damaged the ways a disk, a copy or a person damages one: cut short, pages zeroed, a table
// dropped, a column redefined, a value of another type, a payload that no longer inflates, a
// schema version from elsewhere, a file that is no database at all.
#include "index/sqlite_util.h"
#include "ingest_test_util.h"
#include "support/must.h"
#include "support/read_everything.h"
#include "support/test_paths.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <functional>
#include <sqlite3.h>

using namespace tlparse_test;
using test_support::must;
namespace fs = std::filesystem;
namespace ti = tlparse::index;

namespace {

// A fresh index of the w02 log in `dir`.
fs::path good_index(const fs::path& dir) {
  const fs::path index = dir / "index.sqlite";
  const auto result = tlparse::ingest::ingest_files({data_log("w02_recompile")}, index, {});
  REQUIRE(result.ok);
  return index;
}

// Everything a report reads; the first failure's message, or "" when all reads succeed.
std::string read_everything(const fs::path& index) {
  auto opened = ti::IndexReader::open(index);
  if (!opened) {
    return opened.error();
  }
  return test_support::read_everything(**opened);
}

struct Damage {
  const char* what;
  std::function<void(const fs::path&)> apply;
  const char* message; // a word the error must contain
};

std::vector<Damage> damages() {
  return {
      {"cut to half its size", [](const fs::path& p) { fs::resize_file(p, fs::file_size(p) / 2); },
       "truncated"},
      {"pages zeroed in its middle",
       [](const fs::path& p) {
         const auto size = fs::file_size(p);
         std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
         const std::string zeros(size / 3, '\0');
         f.seekp(std::streamoff(size / 3));
         f.write(zeros.data(), std::streamsize(zeros.size()));
       },
       "damaged"},
      {"a table dropped", [](const fs::path& p) { sql(p, "DROP TABLE spans"); }, "missing"},
      {"a column redefined",
       [](const fs::path& p) { sql(p, "ALTER TABLE outputs RENAME COLUMN number TO num"); }, "num"},
      {"a value of another type",
       [](const fs::path& p) {
         // A table that is no longer STRICT, declared the same, holding text in an integer
         // column: only reading the value shows it.
         sqlite3* db = nullptr;
         REQUIRE(sqlite3_open(p.c_str(), &db) == SQLITE_OK);
         sqlite3_stmt* st = nullptr;
         REQUIRE(sqlite3_prepare_v2(db, "SELECT sql FROM sqlite_master WHERE name='events'", -1,
                                    &st, nullptr) == SQLITE_OK);
         REQUIRE(sqlite3_step(st) == SQLITE_ROW);
         std::string ddl = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
         sqlite3_finalize(st);
         sqlite3_close(db);
         ddl = ddl.substr(0, ddl.rfind(')') + 1); // without STRICT
         ddl.replace(ddl.find("events"), 6, "events_loose");
         sql(p, "PRAGMA legacy_alter_table=ON; " + ddl +
                    "; INSERT INTO events_loose SELECT * FROM events; DROP TABLE events; "
                    "ALTER TABLE events_loose RENAME TO events; UPDATE events SET line='x' "
                    "WHERE id=3;");
       },
       "wrong type"},
      {"a payload that no longer inflates",
       [](const fs::path& p) {
         sql(p, "UPDATE payloads SET data=zeroblob(40) WHERE compressed=1");
       },
       "inflate"},
      {"a value cut from an envelope no longer listed",
       [](const fs::path& p) { sql(p, "DELETE FROM envelope_cuts WHERE pos=0"); }, "cut values"},
      {"a stored value missing",
       [](const fs::path& p) {
         sql(p, "DELETE FROM payloads WHERE id IN (SELECT value_id FROM envelope_cuts)");
       },
       "missing"},
      // Schema version 2 had no envelope_cuts: an index from an older tlparse is rebuilt.
      {"an older schema version",
       [](const fs::path& p) { sql(p, "UPDATE meta SET value='2' WHERE key='schema_version'"); },
       "written by an older tlparse (index schema version 2; this tlparse reads version 3): "
       "re-run tlparse"},
      {"a newer schema version",
       [](const fs::path& p) { sql(p, "UPDATE meta SET value='99' WHERE key='schema_version'"); },
       "written by a newer tlparse (index schema version 99"},
      {"a schema version that is no number (never printed)",
       [](const fs::path& p) {
         sql(p, "UPDATE meta SET value=char(27)||'[2J' WHERE key='schema_version'");
       },
       "(index schema version unknown;"},
      {"no meta table", [](const fs::path& p) { sql(p, "DROP TABLE meta"); }, "not a torchscope"},
      {"not a database",
       [](const fs::path& p) { std::ofstream(p, std::ios::trunc) << "not an index\n"; }, "not"},
  };
}

} // namespace

TEST_CASE("an index the ingest wrote reads back whole", "[tlparse][damaged_index]") {
  test_support::TempDir tmp;
  CHECK(read_everything(good_index(tmp.path())).empty());
}

TEST_CASE("every kind of damage to an index is a clear error of the read API",
          "[tlparse][damaged_index]") {
  for (const Damage& d : damages()) {
    SECTION(d.what) {
      test_support::TempDir tmp;
      const fs::path index = good_index(tmp.path());
      d.apply(index);
      const std::string error = read_everything(index);
      INFO(error);
      REQUIRE_FALSE(error.empty());
      CHECK(error.find(d.message) != std::string::npos);
      CHECK(error.find(index.string()) != std::string::npos);
    }
  }
}

TEST_CASE("tlparse render of a damaged index exits 1 and writes no report",
          "[tlparse][damaged_index][cli]") {
  for (const Damage& d : damages()) {
    SECTION(d.what) {
      test_support::TempDir tmp;
      const fs::path index = good_index(tmp.path());
      d.apply(index);
      const Run r = run_tlparse({"render", index.string(), "-o", "out"}, tmp.path());
      INFO(r.err);
      CHECK(r.code == 1);
      CHECK(r.err.find("Error: ") != std::string::npos);
      CHECK_FALSE(fs::exists(tmp.path() / "out"));
      // Nothing half-written is left beside it either.
      for (const auto& e : fs::directory_iterator(tmp.path())) {
        CHECK(e.path().filename().string().find("tlparse-tmp") == std::string::npos);
      }
    }
  }
}

TEST_CASE("typed reads take NULL only into optional columns and refuse another storage class",
          "[tlparse][damaged_index]") {
  namespace idx = tlparse::index;
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(":memory:", &db) == SQLITE_OK);
  {
    idx::Stmt s(db, "SELECT NULL, 7, 'x', 2.5, 1, 2, 'ok', 'no such status'");
    REQUIRE(s.ok());
    REQUIRE(s.step() == idx::Step::row);
    // Each optional form: NULL is nullopt, a value of its class is read.
    std::optional<int64_t> i = 5;
    std::optional<std::string> text = "y";
    std::optional<double> d;
    std::optional<bool> b;
    std::optional<ti::CompileStatus> status = ti::CompileStatus::ok;
    CHECK(idx::read_column(s, 0, i));
    CHECK_FALSE(i.has_value());
    CHECK(idx::read_column(s, 0, text));
    CHECK_FALSE(text.has_value());
    CHECK(idx::read_column(s, 0, status));
    CHECK_FALSE(status.has_value());
    CHECK(idx::read_column(s, 1, i));
    CHECK(i == 7);
    CHECK(idx::read_column(s, 2, text));
    CHECK(text == "x");
    CHECK(idx::read_column(s, 3, d));
    CHECK(d == 2.5);
    CHECK(idx::read_column(s, 1, d)); // an integer is a real number too
    CHECK(d == 7.0);
    CHECK(idx::read_column(s, 4, b));
    CHECK(b == true);
    CHECK(idx::read_column(s, 6, status));
    CHECK(status == ti::CompileStatus::ok);
    // Another storage class, or a value outside the type, is refused.
    CHECK_FALSE(idx::read_column(s, 2, i));
    CHECK_FALSE(idx::read_column(s, 1, text));
    CHECK_FALSE(idx::read_column(s, 2, d));
    CHECK_FALSE(idx::read_column(s, 5, b)); // 2 is no boolean
    CHECK_FALSE(idx::read_column(s, 7, status));
    // NULL into a column that is not optional is refused.
    int64_t plain = 0;
    std::string plain_text;
    CHECK_FALSE(idx::read_column(s, 0, plain));
    CHECK_FALSE(idx::read_column(s, 0, plain_text));
  }
  sqlite3_close(db);
}
