// Helpers for the tlparse ingest tests: build log lines the way PyTorch writes them, ingest a
// file into a temporary index and open it through the read API.
#pragma once

#include "tlparse/index/index_reader.h"
#include "tlparse/ingest/ingest.h"

#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace tlparse_test {

// "V1122 02:46:30.969000 452 torch/_dynamo/utils.py:2126] " + envelope
std::string glog_line(const std::string& envelope);
// An envelope line with a payload: sets has_payload to the payload's MD5 (or `md5` if given).
std::string event_with_payload(const std::string& envelope_without_brace_end,
                               const std::string& payload, const std::string& md5 = "");
void write_file(const std::filesystem::path& p, const std::string& bytes);
// The .log of tests/data/pytorch-2.11/<workload> (FAILs when there is none).
std::filesystem::path data_log(const std::string& workload);
// Every file under `root` (links included, folders left out), relative, '/'-separated.
std::set<std::string> files_under(const std::filesystem::path& root);

struct Ingested {
  tlparse::ingest::IngestResult result;
  std::unique_ptr<tlparse::index::IndexReader> reader;
  const tlparse::ingest::FileResult& file() const { return result.files.at(0); }
  uint64_t health(tlparse::index::HealthId id) const {
    return file().health.at(static_cast<size_t>(id));
  }
};
// Runs the tlparse binary in `cwd` (its output captured outside `cwd`).
struct Run {
  int code = -1;
  std::string out, err;
};
Run run_tlparse(const std::vector<std::string>& args, const std::filesystem::path& cwd);

// Runs SQL statements on an index (to damage or tamper with it); REQUIREs success.
void sql(const std::filesystem::path& index, const std::string& statements);

// Ingests `log` into `dir/index.sqlite` and opens the index (REQUIREs success).
Ingested ingest(const std::filesystem::path& log, const std::filesystem::path& dir,
                const tlparse::ingest::IngestOptions& options = {});

} // namespace tlparse_test
