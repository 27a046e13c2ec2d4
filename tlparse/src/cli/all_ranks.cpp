// `tlparse DIR --all-ranks-html` (all_ranks.h). tlparse 0.4.3 parsed the ranks one after another
// and then read its own output back from disk; here the rank logs are ingested at once into one
// index (parallel ingest, one worker per file), each rank's report is rendered from it, and the
// landing page is computed from the same index.
#include "cli/all_ranks.h"

#include "cli/report_folder.h"
#include "cli/serve.h"
#include "tlparse/index/index_reader.h"
#include "tlparse/ingest/ingest.h"
#include "tlparse/ingest/log_files.h"
#include "tlparse/report/multi_rank.h"
#include "tlparse/report/render.h"
#include "tlparse/text/terminal_text.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <iostream>
#include <malloc.h>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

namespace tlparse::cli {
namespace fs = std::filesystem;

void print_file_summary(const ingest::FileResult& f); // cli.cpp

namespace {

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
// Rank reports rendered at once. Each render already runs its side jobs and writer threads in
// parallel; two renders at once measured no less CPU and no less wall time on the 2-core machine
// (32 ranks of 8 MB), and twice the peak RSS (247 MB against 132 MB), so one at a time. The pool
// stays: on machines with memory to spare, more workers overlap each render's serial stretches.
constexpr unsigned kMaxRankRenders = 1;

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

// One rank's report to render: its rank, its file in the index and the log to copy as raw.log
// (none: raw.log is not written).
struct RankToRender {
  std::uint32_t rank = 0;
  std::int64_t file_id = 0;
  fs::path raw_log;
};

struct RankRenderRequest {
  fs::path index_path; // in the staging folder
  fs::path staging;
  fs::path out; // as the person named it, for messages
  bool plain_text = false, provenance = false;
  std::string custom_header_html;
  const std::atomic<bool>* cancel = nullptr;
  // Ranks rendered without their logs: one line says raw.log was not written, not one per rank.
  bool quiet_missing_raw_logs = false;
};

// Renders every rank's report from the index, then the landing page and the cross-rank files;
// prints tlparse's lines. The staging folder is committed by the caller.
int render_ranks(const RankRenderRequest& request, const std::vector<RankToRender>& ranks) {
  auto reader = index::IndexReader::open(request.index_path);
  if (!reader) {
    return fail(reader.error());
  }
  // glibc raises its mmap threshold each time a large block is freed (up to 32 MB), after which
  // large blocks come from the heaps of the threads that freed them and stay resident: rendering
  // one rank after another, the peak RSS grew with every rank (147 MB for 32 ranks, about 55 MB
  // in use). Fixed thresholds map blocks of 256 KB and more and return free heap tops of 128 KB
  // (glibc's default, which the ingest raised along with the mmap threshold), for more page
  // faults (docs/TLPARSE-MULTI-RANK.md, Performance); a single report, rendered once, keeps
  // glibc's dynamic thresholds.
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
  mallopt(M_TRIM_THRESHOLD, 128 * 1024);
  malloc_trim(0); // what the ingest freed
  // Each rank's report, several at once: a worker renders one rank at a time through a reader of
  // its own, and every rank also writes its share of the combined chromium_events.json (a hidden
  // part file in the staging folder, concatenated by the landing). Messages are printed in rank
  // order as the ranks finish, so the output is the same whatever the interleaving.
  std::vector<fs::path> chromium_parts;
  for (const RankToRender& r : ranks) {
    chromium_parts.push_back(request.staging / (".chromium_events.rank_" + std::to_string(r.rank)));
  }
  struct RankOutcome {
    bool done = false;
    report::RenderResult result;
  };
  std::vector<RankOutcome> outcomes(ranks.size());
  std::mutex outcome_mutex;
  std::condition_variable outcome_changed;
  std::atomic<std::size_t> next_rank{0};
  std::atomic<bool> failed{false};
  const auto render_rank = [&](index::IndexReader& rank_reader, std::size_t i) {
    report::RenderOptions ro;
    ro.plain_text = request.plain_text;
    ro.custom_header_html = request.custom_header_html;
    ro.file_id = ranks[i].file_id;
    ro.raw_log_source = ranks[i].raw_log;
    ro.index_path = request.index_path;
    ro.cancel = request.cancel;
    ro.multi_rank = true;
    ro.inductor_provenance = request.provenance;
    ro.combined_chromium_part = chromium_parts[i];
    ro.combined_chromium_pid = ranks[i].rank;
    return report::render_report(rank_reader, ro,
                                 request.staging / report::rank_folder(ranks[i].rank));
  };
  const auto worker = [&] {
    index::IndexReader::OpenOptions private_reader;
    private_reader.one_thread = true;
    auto own = index::IndexReader::open(request.index_path, private_reader);
    for (std::size_t i; (i = next_rank.fetch_add(1)) < ranks.size();) {
      report::RenderResult r;
      if (failed.load()) {
        r.error = "not rendered: another rank failed";
      } else if (!own) {
        r.error = own.error();
      } else {
        r = render_rank(**own, i);
      }
      if (!r.ok) {
        failed = true;
      }
      const std::lock_guard lock(outcome_mutex);
      outcomes[i].result = std::move(r);
      outcomes[i].done = true;
      outcome_changed.notify_all();
    }
  };
  const std::size_t workers = std::min<std::size_t>(
      ranks.size(), std::clamp(std::thread::hardware_concurrency(), 1u, kMaxRankRenders));
  std::vector<std::thread> threads;
  for (std::size_t w = 0; w < workers; ++w) {
    threads.emplace_back(worker);
  }
  std::vector<report::RankFile> rank_files;
  std::size_t missing_raw_logs = 0;
  std::string first_error;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    report::RenderResult r;
    {
      std::unique_lock lock(outcome_mutex);
      outcome_changed.wait(lock, [&] { return outcomes[i].done; });
      r = std::move(outcomes[i].result);
    }
    if (!first_error.empty()) {
      continue;
    }
    const std::string sub = report::rank_folder(ranks[i].rank);
    std::cout << "Processing rank " << ranks[i].rank << " \u2192 " << (request.out / sub).string()
              << "\n";
    for (const auto& w : r.warnings) {
      if (request.quiet_missing_raw_logs && w.starts_with("raw.log not written")) {
        ++missing_raw_logs;
        continue;
      }
      std::cerr << "Warning: rank " << ranks[i].rank << ": " << text::terminal_safe_lines(w)
                << "\n";
    }
    if (!r.ok) {
      first_error =
          request.cancel && request.cancel->load() ? "interrupted; nothing was written" : r.error;
      continue;
    }
    rank_files.push_back({ranks[i].rank, ranks[i].file_id});
  }
  for (std::thread& t : threads) {
    t.join();
  }
  if (!first_error.empty()) {
    return fail(first_error);
  }
  if (missing_raw_logs > 0) {
    std::cerr << "Warning: raw.log not written for " << missing_raw_logs
              << " rank(s): an index names its logs but they are never read from there (pass "
                 "the folder of rank logs with --raw-log DIR to copy them)\n";
  }

  report::MultiRankOptions mo;
  mo.custom_header_html = request.custom_header_html;
  mo.chromium_parts = std::move(chromium_parts);
  const auto result = report::render_multi_rank_landing(**reader, rank_files, mo, request.staging);
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
  const auto& f = result.findings;
  if (f.any_divergence()) {
    std::cerr << "Divergence across ranks:" << (f.compile_id_divergence ? " compile ids;" : "")
              << (!f.cache_groups.empty() ? " cache hit/miss patterns;" : "")
              << (!f.collective_groups.empty() ? " collective schedules;" : "")
              << (!f.tensor_meta_groups.empty() ? " tensor metadata;" : "")
              << " see the landing page\n";
  }
  return kExitOk;
}

// The rendering options both requests share.
template <class Request>
RankRenderRequest render_request(const Request& request, const fs::path& index_path,
                                 const fs::path& staging) {
  RankRenderRequest render;
  render.index_path = index_path;
  render.staging = staging;
  render.out = request.out;
  render.plain_text = request.plain_text;
  render.provenance = request.provenance;
  render.custom_header_html = request.custom_header_html;
  render.cancel = request.cancel;
  return render;
}

// render_ranks, then the report put in place of OUT; `landing` receives its landing page.
int render_and_commit(const RankRenderRequest& render, const std::vector<RankToRender>& ranks,
                      ReportFolder& folder, fs::path& landing) {
  if (const int rc = render_ranks(render, ranks); rc != kExitOk) {
    return rc;
  }
  if (const Status st = folder.commit(); !st) {
    return fail(st.error());
  }
  std::cout << "Multi-rank report generated under " << render.out.string()
            << "\nIndividual pages: rank_*/index.html\n";
  landing = folder.out() / report::files::index_html;
  return kExitOk;
}

} // namespace

int render_all_ranks_of_index(const AllRanksOfIndexRequest& request, fs::path& landing) {
  std::error_code ec;
  if (!fs::is_regular_file(request.index, ec)) {
    return fail(request.index.string() + " is not a file");
  }
  std::vector<RankToRender> ranks;
  {
    // Someone else's index (a merge of indexes from many nodes) may be damaged anywhere.
    auto reader = index::IndexReader::open(request.index);
    if (!reader) {
      return fail(reader.error());
    }
    if (const Status st = (*reader)->check_integrity(); !st) {
      return fail(st.error());
    }
    auto files = (*reader)->files();
    if (!files) {
      return fail(files.error());
    }
    std::vector<std::string> warnings;
    for (const report::RankFile& r : report::ranks_of_files(*files, warnings)) {
      const auto file = std::find_if(files->begin(), files->end(),
                                     [&](const index::File& f) { return f.id == r.file_id; });
      ranks.push_back({r.rank, r.file_id, report::rank_log_in(request.raw_logs, *file)});
    }
    for (const std::string& w : warnings) {
      std::cerr << "Warning: " << text::terminal_safe_lines(w) << "\n";
    }
    if (ranks.empty()) {
      return fail(request.index.string() +
                  " holds no rank's log (no file named "
                  "dedicated_log_torch_trace_rank_<N>*.log, no rank logged)");
    }
  }
  auto folder = ReportFolder::prepare(request.out, request.overwrite);
  if (!folder) {
    return fail(folder.error());
  }
  const fs::path staging = (*folder)->staging();
  const fs::path index_path = staging / report::files::index;
  // The report holds the index it was rendered from, as a run over the logs does; the copy is
  // what every rank reads.
  fs::copy_file(request.index, index_path, ec);
  if (ec) {
    return fail("cannot copy the index: " + ec.message());
  }
  mallopt(M_ARENA_MAX, 1); // as run_all_ranks, before the first thread
  RankRenderRequest render = render_request(request, index_path, staging);
  render.quiet_missing_raw_logs = true;
  return render_and_commit(render, ranks, **folder, landing);
}

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
  // One malloc arena for the whole run, before its first thread: every ingest worker, render side
  // job and writer thread otherwise gets an arena of its own, each keeping freed blocks resident
  // (32 ranks: peak RSS 31-32 MB against 40-43 MB, user CPU no higher, alternated;
  // docs/TLPARSE-MULTI-RANK.md, Performance). A single report keeps glibc's default.
  mallopt(M_ARENA_MAX, 1);

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

  if (request.serve) {
    // No rank's report is written: OUT keeps the index, and the server renders the landing and
    // each rank's pages when asked for (OnDemandRanks), raw.log from the folder of logs.
    if (const Status st = (*folder)->commit(); !st) {
      return fail(st.error());
    }
    ServeRequest serve;
    serve.index = (*folder)->out() / report::files::index;
    serve.host = request.host;
    serve.port = request.port;
    serve.stop = request.cancel;
    report::RenderOptions pages;
    pages.plain_text = request.plain_text;
    pages.custom_header_html = request.custom_header_html;
    pages.inductor_provenance = request.provenance;
    return serve_all_ranks(serve, pages, request.input);
  }
  std::vector<RankToRender> ranks;
  for (std::size_t i = 0; i < logs.size(); ++i) {
    ranks.push_back({logs[i].rank, ingested.files[i].file_id, logs[i].path});
  }
  return render_and_commit(render_request(request, index_path, staging), ranks, **folder, landing);
}

} // namespace tlparse::cli
