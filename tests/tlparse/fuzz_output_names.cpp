// fuzz_output_names: libFuzzer over the path handling between a name in a log (or an index) and a
// file on disk. The input is a list of names, one a line. Each goes through the ingest's
// sanitiser, whose result must always be a path the output folder accepts; the sanitised names
// (as a log would give them) and the raw ones (as a tampered index would) go through the report's
// collision renaming, after which no output may need another's file as a folder or touch one of
// the report's own files, and all of them are written: every write must succeed and stay inside
// the folder. The first name is also taken as `-o OUT` by the CLI's path normalisation. Last, the
// same names are written into a real index's outputs, and the plan a render reads from the index
// (plan_outputs, sorted paths and temporary tables in SQLite) must equal the in-memory renames and
// last writers: the render's streamed plan is fuzzed against its in-memory oracle.
#include "cli/report_folder.h"
#include "ingest/trackers/path_sanitizer.h"
#include "report/output_collisions.h"
#include "report/output_folder.h"
#include "report/render_context.h"
#include "support/artifact_log.h"
#include "tlparse/index/index_reader.h"
#include "tlparse/ingest/ingest.h"
#include "tlparse/report/render.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sqlite3.h>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

namespace fs = std::filesystem;
namespace rd = tlparse::report::detail;

[[noreturn]] void bug(const char* what, const std::string& detail) {
  std::fprintf(stderr, "%s: %s\n", what, detail.c_str());
  std::abort();
}

std::vector<std::string> split_lines(const uint8_t* data, size_t size) {
  std::vector<std::string> out;
  std::string cur;
  for (size_t i = 0; i < size && out.size() < 64; ++i) {
    if (data[i] == '\n') {
      out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur.push_back(static_cast<char>(data[i]));
    }
  }
  if (!cur.empty() && out.size() < 64) {
    out.push_back(std::move(cur));
  }
  return out;
}

void check_out_path(const std::string& raw) {
  if (raw.empty() || raw.find('\0') != std::string::npos) {
    return; // argv cannot hold a NUL; an empty OUT is refused by ReportFolder::prepare
  }
  const fs::path p = tlparse::cli::normalised_output_path(raw);
  if (!p.is_absolute()) {
    bug("OUT not made absolute", raw);
  }
  for (const auto& part : p) {
    if (part == "." || part == "..") {
      bug("OUT not normalised", p.string());
    }
  }
  if (p != p.root_path() && !p.has_filename()) {
    bug("OUT keeps a trailing slash", p.string());
  }
}

constexpr std::size_t kIndexOutputs = 64; // split_lines keeps at most 64 names

// An index (made once) whose one file has kIndexOutputs artifact outputs, seq 0..63.
fs::path index_of_outputs(const fs::path& dir) {
  const std::string log = test_support::artifact_outputs_log(kIndexOutputs);
  const fs::path path = dir / "dedicated_log_torch_trace_names.log";
  std::ofstream(path, std::ios::binary) << log;
  const fs::path index = dir / "names.sqlite";
  if (!tlparse::ingest::ingest_files({path}, index, tlparse::ingest::IngestOptions()).ok) {
    bug("cannot make the index", index.string());
  }
  return index;
}

// Gives the index's outputs the names' paths (seq i gets names[i]; the rest keep distinct
// names of their own), every fifth one a link, then checks the streamed plan against the
// in-memory renames and last writers over the same rows.
void check_streamed_plan(const fs::path& index, const std::vector<std::string>& names) {
  sqlite3* db = nullptr;
  if (sqlite3_open(index.c_str(), &db) != SQLITE_OK) {
    bug("cannot open the index", sqlite3_errmsg(db));
  }
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "UPDATE outputs SET path=?1, kind=?2 WHERE seq=?3", -1, &st, nullptr);
  for (std::size_t i = 0; i < kIndexOutputs; ++i) {
    const std::string path = i < names.size() ? names[i] : "unused/" + std::to_string(i) + ".txt";
    const auto kind =
        i % 5 == 4 ? tlparse::index::OutputKind::link : tlparse::index::OutputKind::payload_text;
    const std::string kind_name(tlparse::index::to_string(kind));
    sqlite3_bind_text(st, 1, path.data(), static_cast<int>(path.size()), SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, kind_name.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 3, static_cast<sqlite3_int64>(i));
    if (sqlite3_step(st) != SQLITE_DONE) {
      bug("cannot rewrite an output", sqlite3_errmsg(db));
    }
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  sqlite3_close(db);

  auto reader = tlparse::index::IndexReader::open(index);
  if (!reader) {
    bug("cannot read the index", reader.error());
  }
  const auto files = (*reader)->files();
  if (!files || files->size() != 1) {
    bug("the index lost its file", files ? "" : files.error());
  }
  auto outputs = (*reader)->outputs(files->front().id);
  const auto plan = rd::plan_outputs(**reader, files->front().id);
  if (!outputs || !plan) {
    bug("cannot plan the outputs", outputs ? plan.error() : outputs.error());
  }
  std::vector<tlparse::index::Output> expected = *outputs;
  if (rd::rename_colliding_outputs(expected) != plan->renamed_outputs) {
    bug("the streamed plan renames another number of outputs", names.front());
  }
  const std::vector<bool> writes = rd::last_writers(expected);
  for (std::size_t i = 0; i < outputs->size(); ++i) {
    tlparse::index::Output o = (*outputs)[i];
    plan->apply(o);
    if (o.path != expected[i].path) {
      bug("the streamed plan renames differently",
          (*outputs)[i].path + " -> " + o.path + " (in memory: " + expected[i].path + ")");
    }
    if (o.kind != tlparse::index::OutputKind::link && plan->is_overwritten(o.seq) == writes[i]) {
      bug("the streamed plan disagrees on the last writer", o.path);
    }
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fs::path dir = [] {
    const fs::path d =
        fs::temp_directory_path() / ("fuzz_output_names_" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
  }();
  const std::vector<std::string> names = split_lines(data, size);
  if (names.empty()) {
    return 0;
  }
  check_out_path(names.front());

  std::vector<tlparse::index::Output> outputs;
  for (size_t i = 0; i < names.size(); ++i) {
    const auto safe = tlparse::ingest::sanitise_output_name(names[i]);
    const std::string as_logged = "dump_file/" + safe.name + ".html";
    if (!rd::OutputFolder::is_safe_relative_path(as_logged)) {
      bug("the sanitiser let through a path the folder refuses", as_logged);
    }
    tlparse::index::Output o;
    o.id = static_cast<int64_t>(i);
    o.kind = tlparse::index::OutputKind::payload_text;
    o.path = i % 2 == 0 ? as_logged : names[i]; // odd ones: as a tampered index holds them
    outputs.push_back(std::move(o));
  }
  rd::rename_colliding_outputs(outputs);

  std::set<std::string> paths;
  for (const auto& o : outputs) {
    if (rd::OutputFolder::is_safe_relative_path(o.path)) {
      paths.insert(o.path);
    }
  }
  for (const std::string& p : paths) {
    const auto next = paths.lower_bound(p + "/");
    if (next != paths.end() && next->starts_with(p + "/")) {
      bug("an output is another's folder after renaming", p + " and " + *next);
    }
    for (const char* own : {tlparse::report::files::index_html, tlparse::report::files::raw_log,
                            tlparse::report::files::index}) {
      if (p == own || p.starts_with(std::string(own) + "/")) {
        bug("an output touches the report's own file", p);
      }
    }
  }

  const fs::path out = dir / "out";
  std::error_code ec;
  fs::remove_all(out, ec);
  rd::OutputFolder folder(out);
  std::string error;
  if (!folder.prepare(error)) {
    bug("cannot prepare", error);
  }
  for (const std::string& p : paths) {
    if (!folder.write_file(p, "x")) {
      bug("a renamed output could not be written", p + ": " + folder.first_error());
    }
  }
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename() != "out" && e.path().filename() != "index") {
      bug("written outside the folder", e.path().string());
    }
  }

  static const fs::path index = [] {
    fs::create_directories(dir / "index");
    return index_of_outputs(dir / "index");
  }();
  check_streamed_plan(index, names);
  return 0;
}
