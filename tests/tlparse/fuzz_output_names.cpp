// fuzz_output_names: libFuzzer over the path handling between a name in a log (or an index) and a
// file on disk. The input is a list of names, one a line. Each goes through the ingest's
// sanitiser, whose result must always be a path the output folder accepts; the sanitised names
// (as a log would give them) and the raw ones (as a tampered index would) go through the report's
// collision renaming, after which no output may need another's file as a folder or touch one of
// the report's own files, and all of them are written: every write must succeed and stay inside
// the folder. The first name is also taken as `-o OUT` by the CLI's path normalisation.
#include "cli/report_folder.h"
#include "model/path_sanitizer.h"
#include "report/output_collisions.h"
#include "report/output_folder.h"
#include "tlparse/report/render.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <set>
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
    const auto safe = tlparse::model::sanitise_output_name(names[i]);
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
    if (e.path().filename() != "out") {
      bug("written outside the folder", e.path().string());
    }
  }
  return 0;
}
