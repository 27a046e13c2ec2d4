// See ingest_test_util.h.
#include "ingest_test_util.h"

#include "ingest/reader/md5.h"
#include "support/must.h"
#include "support/test_paths.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sqlite3.h>
#include <sys/wait.h>

namespace tlparse_test {

std::string glog_line(const std::string& envelope) {
  return "V1122 02:46:30.969000 452 torch/_dynamo/utils.py:2126] " + envelope;
}

std::string event_with_payload(const std::string& envelope_without_brace_end,
                               const std::string& payload, const std::string& md5) {
  const std::string digest = md5.empty() ? tlparse::ingest::md5_hex(payload) : md5;
  std::string out =
      glog_line(envelope_without_brace_end + ", \"has_payload\": \"" + digest + "\"}");
  size_t start = 0;
  while (true) {
    const size_t nl = payload.find('\n', start);
    out += "\n\t" + payload.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
    if (nl == std::string::npos) {
      break;
    }
    start = nl + 1;
  }
  return out;
}

void write_file(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary);
  out << bytes;
}

std::filesystem::path data_log(const std::string& workload) {
  const auto dir = test_support::source_dir() / "tests/data/pytorch-2.11" / workload;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".log") {
      return e.path();
    }
  }
  FAIL("no .log in " << dir.string());
  return {};
}

std::set<std::string> files_under(const std::filesystem::path& root) {
  std::set<std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    if (!e.is_directory()) {
      out.insert(std::filesystem::relative(e.path(), root).generic_string());
    }
  }
  return out;
}

namespace {
std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') {
      q += "'\\''";
    } else {
      q += c;
    }
  }
  return q + "'";
}
} // namespace

Run run_tlparse(const std::vector<std::string>& args, const std::filesystem::path& cwd) {
  const test_support::TempDir capture("tlparse-run");
  const auto out = capture.path() / "stdout";
  const auto err = capture.path() / "stderr";
  std::string cmd = "cd " + quote(cwd.string()) + " && " + quote(TLPARSE_BINARY);
  for (const auto& a : args) {
    cmd += " " + quote(a);
  }
  cmd += " > " + quote(out.string()) + " 2> " + quote(err.string());
  const int status = std::system(cmd.c_str());
  Run r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = test_support::read_file(out);
  r.err = test_support::read_file(err);
  return r;
}

void sql(const std::filesystem::path& index, const std::string& statements) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(index.c_str(), &db) == SQLITE_OK);
  char* msg = nullptr;
  const int rc = sqlite3_exec(db, statements.c_str(), nullptr, nullptr, &msg);
  INFO((msg != nullptr ? msg : ""));
  sqlite3_free(msg);
  sqlite3_close(db);
  REQUIRE(rc == SQLITE_OK);
}

Ingested ingest(const std::filesystem::path& log, const std::filesystem::path& dir,
                const tlparse::ingest::IngestOptions& options) {
  Ingested out;
  const auto index = dir / "index.sqlite";
  out.result = tlparse::ingest::ingest_files({log}, index, options);
  INFO(out.result.error);
  REQUIRE(out.result.ok);
  out.reader = test_support::must(tlparse::index::IndexReader::open(index));
  return out;
}

} // namespace tlparse_test
