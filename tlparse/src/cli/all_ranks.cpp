// `tlparse DIR --all-ranks-html` (all_ranks.h). tlparse 0.4.3 parsed the ranks one after another
// and then read its own output back from disk; here the rank logs are ingested at once into one
// index (parallel ingest, one worker per file), each rank's report is rendered from it, and the
// landing page is computed from the same index.
#include "cli/all_ranks.h"

#include "cli/report_folder.h"
#include "tlparse/index/index_reader.h"
#include "tlparse/ingest/ingest.h"
#include "tlparse/ingest/log_files.h"
#include "tlparse/report/multi_rank.h"
#include "tlparse/report/render.h"
#include "tlparse/text/terminal_text.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <optional>

namespace tlparse::cli {
namespace fs = std::filesystem;

void print_file_summary(const ingest::FileResult& f); // cli.cpp

namespace {

constexpr int kExitOk = 0;
constexpr int kExitError = 1;

int fail(const std::string& message) {
  std::cerr << "Error: " << text::terminal_safe_lines(message) << "\n";
  return kExitError;
}

struct RankLog {
  std::uint32_t rank = 0;
  fs::path path;
};

// The rank logs of a folder: regular files named dedicated_log_torch_trace_rank_<N>[_*].log[.gz],
// sorted by rank. Two logs of one rank (a restarted job) keep the newest, said on stderr.
std::vector<RankLog> find_rank_logs(const fs::path& dir, std::string& error) {
  std::map<std::uint32_t, std::vector<fs::path>> by_rank;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const auto rank = ingest::rank_of_log_name(entry.path().filename().string());
    std::error_code fec;
    if (rank && fs::is_regular_file(entry.path(), fec)) {
      by_rank[*rank].push_back(entry.path());
    }
  }
  if (ec) {
    error = "Couldn't access directory " + dir.string() + ": " + ec.message();
    return {};
  }
  std::vector<RankLog> out;
  for (auto& [rank, paths] : by_rank) {
    std::sort(paths.begin(), paths.end());
    fs::path chosen = paths.front();
    std::error_code tec;
    for (const fs::path& p : paths) {
      if (fs::last_write_time(p, tec) >= fs::last_write_time(chosen, tec)) {
        chosen = p;
      }
    }
    for (const fs::path& p : paths) {
      if (p != chosen) {
        std::cerr << "Warning: rank " << rank << " has several logs; using "
                  << text::terminal_safe(chosen.filename().string()) << ", ignoring "
                  << text::terminal_safe(p.filename().string()) << "\n";
      }
    }
    out.push_back({rank, chosen});
  }
  if (out.empty()) {
    error = "No rank log files found in directory " + dir.string() +
            " (expected dedicated_log_torch_trace_rank_<N>*.log files)";
  }
  return out;
}

} // namespace

int run_all_ranks(const AllRanksRequest& request, fs::path& landing) {
  std::error_code ec;
  if (!fs::is_directory(request.input, ec)) {
    return fail("Input path " + request.input.string() +
                " must be a directory when using --all-ranks-html");
  }
  std::string error;
  const std::vector<RankLog> logs = find_rank_logs(request.input, error);
  if (logs.empty()) {
    return fail(error); // unlike tlparse 0.4.3, OUT is not created
  }
  auto folder = ReportFolder::prepare(request.out, request.overwrite);
  if (!folder) {
    return fail(folder.error());
  }
  const fs::path staging = (*folder)->staging();
  const fs::path index_path = staging / report::files::index;

  std::vector<fs::path> paths;
  for (const RankLog& l : logs) {
    paths.push_back(l.path);
  }
  std::cerr << "Indexing " << logs.size() << " rank log(s) of "
            << text::terminal_safe(request.input.string()) << "\n";
  ingest::IngestOptions options;
  options.plain_text = request.plain_text;
  options.verbose = request.verbose;
  options.cancel = request.cancel;
  options.on_message = [](const std::string& m) {
    std::cerr << text::terminal_safe_lines(m) << "\n";
  };
  const auto ingested = ingest::ingest_files(paths, index_path, options);
  if (!ingested.ok) {
    return fail(ingested.cancelled ? std::string("interrupted; nothing was written")
                                   : ingested.error);
  }
  bool strict_failed = false;
  for (std::size_t i = 0; i < logs.size(); ++i) {
    const ingest::FileResult& f = ingested.files[i];
    std::cerr << "rank " << logs[i].rank << " (" << text::terminal_safe(f.path.filename().string())
              << "):\n";
    print_file_summary(f);
    strict_failed = strict_failed || f.stats.strict_failures() > 0;
  }
  if (request.strict && strict_failed) {
    return fail("Something went wrong");
  }

  auto reader = index::IndexReader::open(index_path);
  if (!reader) {
    return fail(reader.error());
  }
  std::vector<report::RankFile> ranks;
  for (std::size_t i = 0; i < logs.size(); ++i) {
    const std::string sub = report::rank_folder(logs[i].rank);
    std::cout << "Processing rank " << logs[i].rank << " \u2192 " << (request.out / sub).string()
              << "\n";
    report::RenderOptions ro;
    ro.plain_text = request.plain_text;
    ro.custom_header_html = request.custom_header_html;
    ro.file_id = ingested.files[i].file_id;
    ro.raw_log_source = logs[i].path;
    ro.index_path = index_path;
    ro.cancel = request.cancel;
    ro.multi_rank = true;
    ro.inductor_provenance = request.provenance;
    const auto r = report::render_report(**reader, ro, staging / sub);
    for (const auto& w : r.warnings) {
      std::cerr << "Warning: rank " << logs[i].rank << ": " << text::terminal_safe_lines(w) << "\n";
    }
    if (!r.ok) {
      return fail(request.cancel && request.cancel->load() ? "interrupted; nothing was written"
                                                           : r.error);
    }
    ranks.push_back({logs[i].rank, ingested.files[i].file_id});
  }

  report::MultiRankOptions mo;
  mo.custom_header_html = request.custom_header_html;
  const auto result = report::render_multi_rank_landing(**reader, ranks, mo, staging);
  for (const auto& w : result.warnings) {
    std::cerr << "Warning: " << text::terminal_safe_lines(w) << "\n";
  }
  if (!result.ok) {
    return fail(result.error);
  }
  for (const std::string& written : result.written) {
    if (written == report::files::runtime_estimations) {
      std::cout << "Runtime estimations: " << (request.out / written).string() << "\n";
    } else if (written == report::files::collective_schedules) {
      std::cout << "Collective schedules: " << (request.out / written).string() << "\n";
    }
  }
  if (const Status st = (*folder)->commit(); !st) {
    return fail(st.error());
  }
  const auto& f = result.findings;
  if (f.any_divergence()) {
    std::cerr << "Divergence across ranks:" << (f.compile_id_divergence ? " compile ids;" : "")
              << (!f.cache_groups.empty() ? " cache hit/miss patterns;" : "")
              << (!f.collective_groups.empty() ? " collective schedules;" : "")
              << (!f.tensor_meta_groups.empty() ? " tensor metadata;" : "")
              << " see the landing page\n";
  }
  std::cout << "Multi-rank report generated under " << request.out.string()
            << "\nIndividual pages: rank_*/index.html\n";
  landing = (*folder)->out() / report::files::index_html;
  return kExitOk;
}

} // namespace tlparse::cli
