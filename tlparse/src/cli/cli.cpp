// The tlparse command line (docs/TLPARSE-INGEST.md, "Command line"): tlparse 0.4.3's flags with its
// exit codes and messages, made safer: output goes to a temporary sibling folder that is renamed
// into place only when everything succeeded (no empty OUT after an error), --overwrite refuses to
// delete a folder that does not look like a report, --latest works, and the browser is opened only
// for a person at a display (cli/browser.h). --all-ranks-html is in cli/all_ranks.cpp.
#include "cli/cli.h"

#include "cli/all_ranks.h"
#include "cli/browser.h"
#include "cli/query_command.h"
#include "cli/report_folder.h"
#include "cli/serve.h"
#include "tlparse/index/index_reader.h"
#include "tlparse/ingest/ingest.h"
#include "tlparse/ingest/log_files.h"
#include "tlparse/ingest/merge.h"
#include "tlparse/report/graph_pages.h"
#include "tlparse/report/render.h"
#include "tlparse/text/terminal_text.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

#ifndef TORCHSCOPE_VERSION
#define TORCHSCOPE_VERSION "0"
#endif

namespace tlparse::cli {
namespace {

namespace fs = std::filesystem;

constexpr int kExitOk = 0;
constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

constexpr const char* kUsage =
    "Usage: tlparse [OPTIONS] <PATH>\n"
    "       tlparse <DIR> --all-ranks-html [OPTIONS]\n"
    "       tlparse index <LOGS>... -o <INDEX> [-p] [--fts]\n"
    "       tlparse render <INDEX> -o <OUT> [--overwrite] [--custom-header-html <HTML>]\n"
    "       tlparse render <INDEX> --all-ranks-html [-o <OUT>|--serve] [--raw-log <DIR>]\n"
    "       tlparse merge <INDEX>... -o <MERGED> [--fts] [--strict]\n";

constexpr const char* kHelp =
    "Parse TORCH_LOG logs produced by PyTorch torch.compile (torchscope's tlparse, compatible "
    "with tlparse 0.4.3)\n\n"
    "Usage: tlparse [OPTIONS] <PATH>\n"
    "       tlparse index <LOGS>... -o <INDEX> [-p] [--fts]   ingest only, write an index\n"
    "       tlparse render <INDEX> -o <OUT> [OPTIONS]          render a report from an index\n"
    "                                   (--all-ranks-html: every rank's, --serve: serve it)\n"
    "       tlparse merge <INDEX>... -o <MERGED>               join per-rank indexes into one\n"
    "       tlparse query <SOURCE> <SQL> [--format F]          SQL over the index (--list: views)\n"
    "       tlparse check <SOURCE> [LIMITS] [--baseline OLD]   CI gate: exit 1 on a violation\n"
    "       tlparse diff <A> <B> [--format json|--html OUT]    what changed between two runs\n"
    "       tlparse mcp <SOURCE> [--compare OTHER]             MCP server for agents (stdio)\n"
    "       tlparse graph <SOURCE> --compile ID --artifact NAME draw an FX graph (SVG)\n"
    "       tlparse run [OPTIONS] -- <CMD> [ARGS]...           run CMD with TORCH_TRACE, report\n\n"
    "Arguments:\n"
    "  <PATH>  A log file (plain or gzip-compressed), or a folder (its newest *.log or *.log.gz\n"
    "          file is used; with --all-ranks-html, its dedicated_log_torch_trace_rank_<N>*.log\n"
    "          files)\n\n"
    "Options:\n"
    "  -o, --out <OUT>              Output folder [default: tl_out]\n"
    "      --overwrite              Replace OUT if it exists. Refuses a non-empty folder that is\n"
    "                               not a previous report (no index.html or index.sqlite)\n"
    "      --latest                 PATH is a folder: use its most recently modified log\n"
    "      --all-ranks-html         PATH is a folder of rank logs: every rank's report under\n"
    "                               OUT/rank_<N>/ and a landing page comparing the ranks\n"
    "                               (compile ids, cache hits, collectives, tensor metadata,\n"
    "                               runtime estimates, execution order)\n"
    "  -e, --export                 Export report instead: the issues torch.export's draft\n"
    "                               export logged (guards, data-dependent specializations, fake\n"
    "                               kernels), a page per guard, the exported program\n"
    "  -i, --inductor-provenance    Also write provenance_tracking_<compile>.html: pre-grad\n"
    "                               graph, post-grad graph and generated code, lines linked\n"
    "      --serve                  Ingest, then serve the report over HTTP, each page rendered\n"
    "                               from the index when first asked for (OUT keeps the index)\n"
    "      --graphs                 Also draw the FX graphs as SVG into OUT/graphs/ (graphs of\n"
    "                               up to 5,000 nodes; OUT/graphs/index.html lists them).\n"
    "                               --serve always offers them, at /graphs/index.html\n"
    "      --port <N>               Port for --serve [default: the first free of 8000-8099]\n"
    "      --host <ADDRESS>         Address for --serve to bind [default: 127.0.0.1]\n"
    "      --strict                 Fail (writing nothing) if any line failed to parse; with\n"
    "                               merge, if any index had to be skipped\n"
    "      --strict-compile-id      Fail if some events had an invalid compile id\n"
    "      --no-browser             Do not open the report in a browser (it is opened only when\n"
    "                               a display exists, stdout is a terminal and CI is unset)\n"
    "      --custom-header-html <H> HTML inserted at the top of index.html\n"
    "  -v, --verbose                Print every unknown envelope key occurrence\n"
    "  -p, --plain-text             inductor_output_code as plain .txt files\n"
    "      --fts                    (index) also build the full-text search table\n"
    "      --file-id <N>            (render) which file of the index to render [default: first]\n"
    "      --raw-log <LOG>          (render) the log to copy as raw.log (a path stored in the\n"
    "                               index is never read: the index may come from anyone); with\n"
    "                               --all-ranks-html, the folder of the rank logs\n"

    "  -h, --help                   Print help\n"
    "  -V, --version                Print version\n\n"
    "Beyond tlparse 0.4.3, a compile's page shows the symbols it created, its runtime metrics\n"
    "and its memoizer artifacts, and outputs logged with a subgraph_name (regional compilation)\n"
    "are grouped by region; 0.4.3's files and numbers are unchanged.\n\n"
    "Exit status: 0 success, 1 error (message on stderr), 2 usage error.\n";

struct Args {
  std::string command; // "", "index", "render", "merge"
  std::vector<std::string> positional;
  std::optional<std::string> out;
  bool overwrite = false, latest = false, strict = false, strict_compile_id = false;
  bool verbose = false, plain_text = false, fts = false, all_ranks = false;
  bool provenance = false, no_browser = false, serve = false, export_mode = false;
  bool graphs = false; // --graphs: also write OUT/graphs/ (graph_pages.h)
  std::optional<std::uint16_t> port;
  std::string host = "127.0.0.1";
  std::string custom_header_html;
  int64_t file_id = 0;
  std::string raw_log; // render: the log to copy as raw.log
};

// Every message printed goes through the terminal escaping (tlparse/text/terminal_text.h): they
// quote log text, index values and file names found on disk.
using text::terminal_safe;
using text::terminal_safe_lines;

int usage_error(const std::string& message) {
  std::cerr << "error: " << terminal_safe_lines(message) << "\n\n"
            << kUsage << "\nFor more information, try '--help'.\n";
  return kExitUsage;
}

int fail(const std::string& message) {
  std::cerr << "Error: " << terminal_safe_lines(message) << "\n";
  return kExitError;
}

// Parses argv; returns an exit code when parsing ends the run (help, version, usage error).
std::optional<int> parse_args(int argc, char** argv, Args& a) {
  int i = 1;
  if (argc > 1 && (std::strcmp(argv[1], "index") == 0 || std::strcmp(argv[1], "render") == 0 ||
                   std::strcmp(argv[1], "merge") == 0)) {
    a.command = argv[1];
    i = 2;
  }
  for (; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const char* flag) -> std::optional<std::string> {
      if (i + 1 >= argc) {
        return std::nullopt;
      }
      (void)flag;
      return std::string(argv[++i]);
    };
    if (arg == "-h" || arg == "--help") {
      std::cout << kHelp;
      return kExitOk;
    }
    if (arg == "-V" || arg == "--version") {
      std::cout << "tlparse 0.4.3 (torchscope " << TORCHSCOPE_VERSION << ")\n";
      return kExitOk;
    }
    if (arg == "-o" || arg == "--out") {
      auto v = value("-o");
      if (!v) {
        return usage_error("a value is required for '--out <OUT>' but none was supplied");
      }
      a.out = *v;
    } else if (arg.rfind("--out=", 0) == 0) {
      a.out = arg.substr(6);
    } else if (arg == "--overwrite") {
      a.overwrite = true;
    } else if (arg == "--latest") {
      a.latest = true;
    } else if (arg == "--strict") {
      a.strict = true;
    } else if (arg == "--strict-compile-id") {
      a.strict_compile_id = true;
    } else if (arg == "--no-browser") {
      a.no_browser = true;
    } else if (arg == "--custom-header-html") {
      auto v = value("--custom-header-html");
      if (!v) {
        return usage_error("a value is required for '--custom-header-html <HTML>'");
      }
      a.custom_header_html = *v;
    } else if (arg == "-v" || arg == "--verbose") {
      a.verbose = true;
    } else if (arg == "-p" || arg == "--plain-text") {
      a.plain_text = true;
    } else if (arg == "--fts") {
      a.fts = true;
    } else if (arg == "--raw-log") {
      auto v = value("--raw-log");
      if (!v) {
        return usage_error("a value is required for '--raw-log <LOG>'");
      }
      a.raw_log = *v;
    } else if (arg == "--file-id") {
      auto v = value("--file-id");
      if (!v) {
        return usage_error("a value is required for '--file-id <N>'");
      }
      a.file_id = std::atoll(v->c_str());
    } else if (arg == "--serve") {
      a.serve = true;
    } else if (arg == "--graphs") {
      a.graphs = true;
    } else if (arg == "--port") {
      auto v = value("--port");
      const long n = v ? std::strtol(v->c_str(), nullptr, 10) : 0;
      if (!v || n < 1 || n > 65535) {
        return usage_error("'--port <N>' needs a port number from 1 to 65535");
      }
      a.port = static_cast<std::uint16_t>(n);
    } else if (arg == "--host") {
      auto v = value("--host");
      if (!v || v->empty()) {
        return usage_error("a value is required for '--host <ADDRESS>'");
      }
      a.host = *v;
    } else if (arg == "--all-ranks-html") {
      a.all_ranks = true;
    } else if (arg == "-i" || arg == "--inductor-provenance") {
      a.provenance = true;
    } else if (arg == "-e" || arg == "--export") {
      a.export_mode = true;
    } else if (arg.size() > 1 && arg[0] == '-') {
      return usage_error("unexpected argument '" + arg + "' found");
    } else {
      a.positional.push_back(arg);
    }
  }
  if (a.positional.empty()) {
    return usage_error(
        a.command == "index"    ? "the following required arguments were missing: <LOGS>..."
        : a.command == "merge"  ? "the following required arguments were missing: <INDEX>..."
        : a.command == "render" ? "the following required arguments were missing: <INDEX>"
                                : "the following required arguments were missing: <PATH>");
  }
  if (a.command.empty() && a.positional.size() > 1) {
    return usage_error("unexpected argument '" + a.positional[1] + "' found");
  }
  if (a.command == "index" && !a.out) {
    return usage_error("'tlparse index' needs -o <INDEX>");
  }
  if (a.command == "merge" && !a.out) {
    return usage_error("'tlparse merge' needs -o <MERGED>");
  }

  return std::nullopt;
}

// Ctrl-C (and SIGTERM) stop the ingest or the render between lines or outputs, so the staging
// folder is removed and OUT is left as it was.
std::atomic<bool> g_interrupted{false};

extern "C" void on_interrupt(int) {
  g_interrupted.store(true);
}

void stop_on_interrupt() {
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  for (const int sig : {SIGINT, SIGTERM}) {
    ::sigaction(sig, &action, nullptr);
  }
}

int fail_or_interrupted(const std::string& message) {
  return fail(g_interrupted.load() ? std::string("interrupted; nothing was written") : message);
}

// A progress bar on stderr, shown only on a terminal and only once a run takes over a second.
class Progress {
public:
  Progress() : tty_(::isatty(STDERR_FILENO) != 0), start_(std::chrono::steady_clock::now()) {}
  ~Progress() { clear(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  // `what` names the phase; bytes are shown in MB, other units as counts.
  void update(uint64_t done, uint64_t total, const char* what = "indexing", bool bytes = true) {
    if (!tty_ || total == 0) {
      return;
    }
    const auto elapsed = std::chrono::steady_clock::now() - start_;
    if (elapsed < std::chrono::seconds(1)) {
      return;
    }
    const int width = 30;
    const uint64_t shown = std::min<uint64_t>(done, total);
    const int filled = static_cast<int>(width * shown / total);
    std::fprintf(stderr, "\r%-9s [%s%s] %3d%% %llu %s", what,
                 std::string(static_cast<size_t>(filled), '#').c_str(),
                 std::string(static_cast<size_t>(width - filled), ' ').c_str(),
                 static_cast<int>(100 * shown / total),
                 static_cast<unsigned long long>(bytes ? shown >> 20 : shown),
                 bytes ? "MB" : "files");
    shown_ = true;
  }
  void clear() {
    if (shown_) {
      std::fprintf(stderr, "\r%72s\r", "");
      shown_ = false;
    }
  }

private:
  bool tty_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point start_;
};

} // namespace

void print_file_summary(const ingest::FileResult& f) {
  std::cerr << f.stats.to_tlparse_string() << "\n";
  if (!f.unknown_keys.empty()) {
    std::cerr << "Unknown fields: {";
    for (size_t i = 0; i < f.unknown_keys.size(); ++i) {
      std::cerr << (i ? ", " : "") << '"' << terminal_safe(f.unknown_keys[i]) << '"';
    }
    std::cerr << "} (consider updating tlparse to render these)\n";
  }
  // Our data-health summary: every non-zero warning/error counter beyond the Stats line.
  std::string health;
  for (size_t i = 0; i < f.health.size(); ++i) {
    const auto& info = index::health_info(static_cast<index::HealthId>(i));
    if (f.health[i] == 0 || info.severity == index::Severity::info) {
      continue;
    }
    health +=
        (health.empty() ? "" : ", ") + std::string(info.name) + ": " + std::to_string(f.health[i]);
  }
  if (!health.empty()) {
    std::cerr << "Data health: " << health << " (details in index.sqlite: bad_lines, health)\n";
  }
}

namespace {

ingest::IngestOptions ingest_options(const Args& a, Progress& progress) {
  ingest::IngestOptions o;
  o.plain_text = a.plain_text;
  o.verbose = a.verbose;
  o.on_progress = [&progress](uint64_t done, uint64_t total) { progress.update(done, total); };
  o.on_message = [&progress](const std::string& m) {
    progress.clear();
    std::cerr << terminal_safe_lines(m) << "\n";
  };
  return o;
}

// The logs `tlparse index` reads: each argument's logs (ingest/log_files.h), in order.
std::vector<fs::path> expand_logs(const std::vector<std::string>& args, std::string& error) {
  std::vector<fs::path> out;
  for (const auto& a : args) {
    auto logs = ingest::find_logs(a);
    if (!logs) {
      error = logs.error();
      return {};
    }
    out.insert(out.end(), logs->begin(), logs->end());
  }
  return out;
}

// Why `target` may not be replaced by a new index, or nullopt: only an index may be replaced
// (`-o` naming another file is a mistake to refuse).
std::optional<std::string> refusal_to_replace(const fs::path& target) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(target, ec))) {
    return std::nullopt;
  }
  if (!fs::is_regular_file(fs::symlink_status(target, ec))) {
    return target.string() + " exists and is not a file; refusing to replace it";
  }
  if (auto old = index::IndexReader::open(target); !old) {
    return "refusing to replace " + target.string() + ": it is not a readable index (" +
           old.error() + ")";
  }
  return std::nullopt;
}

int run_index(const Args& a) {
  std::string error;
  const auto logs = expand_logs(a.positional, error);
  if (logs.empty()) {
    return fail(error);
  }
  const fs::path target = *a.out;
  std::error_code ec;
  if (const auto refused = refusal_to_replace(target)) {
    return fail(*refused);
  }
  const fs::path tmp = fs::path(target.string() + ".tlparse-tmp-" + std::to_string(::getpid()));
  Progress progress;
  ingest::IngestOptions options = ingest_options(a, progress);
  options.search_table = a.fts;
  options.cancel = &g_interrupted;
  const auto result = ingest::ingest_files(logs, tmp, options);
  progress.clear();
  if (!result.ok) {
    fs::remove(tmp, ec);
    return fail_or_interrupted(result.error);
  }
  for (const auto& f : result.files) {
    if (result.files.size() > 1) {
      std::cerr << terminal_safe(f.path.string()) << ":\n";
    }
    print_file_summary(f);
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return fail("cannot write " + target.string() + ": " + ec.message());
  }
  return kExitOk;
}

// `tlparse merge A.sqlite B.sqlite ... -o MERGED.sqlite` (tlparse/ingest/merge.h): written
// beside the target and renamed into place, so a failed merge leaves no half index.
int run_merge(const Args& a) {
  const fs::path target = *a.out;
  std::error_code ec;
  if (const auto refused = refusal_to_replace(target)) {
    return fail(*refused);
  }
  std::vector<fs::path> inputs(a.positional.begin(), a.positional.end());
  const fs::path tmp = fs::path(target.string() + ".tlparse-tmp-" + std::to_string(::getpid()));
  Progress progress;
  ingest::MergeOptions options;
  options.search_table = a.fts;
  options.replaces = target;
  options.cancel = &g_interrupted;
  options.on_progress = [&progress](uint64_t done, uint64_t total) {
    progress.update(done, total, "merging", false);
  };
  const auto result = ingest::merge_indexes(inputs, tmp, options);
  progress.clear();
  std::size_t skipped = 0;
  for (const auto& part : result.parts) {
    if (!part.merged) {
      ++skipped;
      std::cerr << "Warning: skipped " << terminal_safe(part.path.string()) << ": "
                << terminal_safe_lines(part.problem) << "\n";
    }
  }
  if (!result.ok) {
    fs::remove(tmp, ec);
    return fail_or_interrupted(result.error);
  }
  if (a.strict && skipped > 0) {
    fs::remove(tmp, ec);
    return fail(std::to_string(skipped) + " index(es) could not be merged (--strict); nothing "
                                          "was written");
  }
  std::cerr << "Merged " << result.parts.size() - skipped << " of " << result.parts.size()
            << " index(es): " << result.files << " log file(s)\n";
  std::string health;
  for (const auto& [counter, total] : result.health_totals) {
    health += (health.empty() ? "" : ", ") + terminal_safe(counter) + ": " + std::to_string(total);
  }
  if (!health.empty()) {
    std::cerr << "Data health, all files: " << health << "\n";
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    return fail("cannot write " + target.string() + ": " + ec.message());
  }
  return kExitOk;
}

// Renders the report of `index_path` into the staging folder. Read errors name `index_path`.
int render_into(const fs::path& index_path, const Args& a, const fs::path& staging,
                const fs::path& raw_log) {
  auto reader = index::IndexReader::open(index_path);
  if (!reader) {
    return fail(reader.error());
  }
  report::RenderOptions opts;
  opts.plain_text = a.plain_text;
  opts.custom_header_html = a.custom_header_html;
  opts.file_id = a.file_id;
  opts.inductor_provenance = a.provenance;
  opts.graph_links = a.graphs;
  opts.raw_log_source = raw_log;
  opts.index_path = index_path; // lets the renderer stream big files on extra threads
  opts.cancel = &g_interrupted;
  Progress progress;
  opts.on_progress = [&progress](uint64_t done, uint64_t total) {
    progress.update(done, total, "report", false);
  };
  const auto r = a.export_mode ? report::render_export_report(**reader, opts, staging)
                               : report::render_report(**reader, opts, staging);
  progress.clear();
  for (const auto& w : r.warnings) {
    std::cerr << "Warning: " << terminal_safe_lines(w) << "\n";
  }
  if (!r.ok) {
    return fail_or_interrupted(r.error);
  }
  if (a.graphs && !a.export_mode) {
    // Beside the report, in a folder of its own: tlparse 0.4.3's files are unchanged.
    auto files = (*reader)->files();
    if (!files) {
      return fail(files.error());
    }
    int64_t file_id = a.file_id;
    if (file_id == 0 && !files->empty()) {
      file_id = files->front().id;
    }
    const auto g = report::write_graph_folder(**reader, file_id, staging);
    if (!g.ok) {
      return fail(g.error);
    }
    std::cerr << "Graphs: " << g.drawn << " of " << g.graphs << " drawn into "
              << report::kGraphsIndex;
    if (g.over_budget + g.unparsed > 0) {
      std::cerr << " (" << g.over_budget << " over " << report::kDefaultGraphNodeBudget
                << " nodes, " << g.unparsed << " not FX graphs: listed as text)";
    }
    std::cerr << "\n";
  }
  return kExitOk;
}

// --serve over `index`, where and as the arguments say.
ServeRequest serve_request(const Args& a, const fs::path& index) {
  ServeRequest request;
  request.index = index;
  request.host = a.host;
  request.port = a.port;
  request.stop = &g_interrupted;
  return request;
}

// The options of the pages --serve renders.
report::RenderOptions served_pages(const Args& a) {
  report::RenderOptions pages;
  pages.plain_text = a.plain_text;
  pages.custom_header_html = a.custom_header_html;
  pages.inductor_provenance = a.provenance;
  return pages;
}

int run_render(const Args& a) {
  const fs::path index_path = a.positional.front();
  std::error_code ec;
  if (a.all_ranks && a.serve) {
    return serve_all_ranks(serve_request(a, index_path), served_pages(a), a.raw_log);
  }
  if (a.all_ranks) {
    AllRanksOfIndexRequest r;
    r.index = index_path;
    r.out = a.out.value_or("tl_out");
    r.raw_logs = a.raw_log;
    r.overwrite = a.overwrite;
    r.plain_text = a.plain_text;
    r.provenance = a.provenance;
    r.custom_header_html = a.custom_header_html;
    r.cancel = &g_interrupted;
    fs::path landing;
    return render_all_ranks_of_index(r, landing);
  }
  if (!fs::is_regular_file(index_path, ec)) {
    return fail(index_path.string() + " is not a file");
  }
  // Someone else's index may be damaged anywhere, even where the report does not read.
  {
    auto reader = index::IndexReader::open(index_path);
    if (!reader) {
      return fail(reader.error());
    }
    if (const Status st = (*reader)->check_integrity(); !st) {
      return fail(st.error());
    }
  }
  auto folder = ReportFolder::prepare(a.out.value_or("tl_out"), a.overwrite);
  if (!folder) {
    return fail(folder.error());
  }
  const fs::path staging = (*folder)->staging();
  if (const int rc = render_into(index_path, a, staging, a.raw_log); rc != kExitOk) {
    return rc;
  }
  // The folder holds its index, like a direct run's does.
  fs::copy_file(index_path, staging / report::files::index, ec);
  if (ec) {
    return fail("cannot copy the index: " + ec.message());
  }
  if (const Status st = (*folder)->commit(); !st) {
    return fail(st.error());
  }
  return kExitOk;
}

int run_direct(const Args& a) {
  fs::path path = a.positional.front();
  std::error_code ec;
  if (a.latest && !fs::is_directory(path, ec)) {
    return fail("Input path " + path.string() +
                " is not a directory (required when using --latest)");
  }
  if (fs::is_directory(path, ec)) {
    auto newest = ingest::newest_log(path);
    if (!newest) {
      return fail(newest.error());
    }
    path = *newest;
  }
  if (!fs::is_regular_file(path, ec)) {
    return fail(path.string() + " is not a file");
  }
  auto folder = ReportFolder::prepare(a.out.value_or("tl_out"), a.overwrite);
  if (!folder) {
    return fail(folder.error());
  }
  const fs::path staging = (*folder)->staging();
  const fs::path index_path = staging / report::files::index;
  Progress progress;
  ingest::IngestOptions options = ingest_options(a, progress);
  options.cancel = &g_interrupted;
  const auto result = ingest::ingest_files({path}, index_path, options);
  progress.clear();
  if (!result.ok) {
    return fail_or_interrupted(result.error);
  }
  const auto& file = result.files.front();
  // Export mode, as tlparse 0.4.3's, prints no statistics and ignores --strict and
  // --strict-compile-id (docs/TLPARSE-EXPORT.md).
  if (!a.export_mode) {
    print_file_summary(file);
  }
  if (a.strict && !a.export_mode && file.stats.strict_failures() > 0) {
    return fail("Something went wrong");
  }
  if (a.strict_compile_id && !a.export_mode) {
    auto reader = index::IndexReader::open(index_path);
    if (!reader) {
      return fail(reader.error());
    }
    const auto keys = (*reader)->compile_keys(file.file_id);
    if (!keys) {
      return fail(keys.error());
    }
    for (const auto& k : *keys) {
      if (k.is_unknown) {
        return fail("Some log entries did not have compile id");
      }
    }
  }
  if (a.serve) {
    // The report is not written: OUT keeps the index, and pages are rendered when asked for.
    if (const Status st = (*folder)->commit(); !st) {
      return fail(st.error());
    }
    report::RenderOptions pages = served_pages(a);
    pages.graph_links = true; // the server draws graphs when asked for
    pages.raw_log_source = path;
    return serve_report(serve_request(a, (*folder)->out() / report::files::index), pages);
  }
  if (const int rc = render_into(index_path, a, staging, path); rc != kExitOk) {
    return rc;
  }
  if (const Status st = (*folder)->commit(); !st) {
    return fail(st.error());
  }
  return kExitOk;
}

// Opens the finished report for a person at a display (cli/browser.h); a failure to open it is
// a warning, the report is there.
int show(int rc, const std::filesystem::path& page, const Args& a) {
  if (rc == kExitOk && !a.serve && browser_wanted(a.no_browser)) {
    std::string warning;
    if (!open_in_browser(page, warning)) {
      std::cerr << "Warning: " << terminal_safe_lines(warning) << "\n";
    }
  }
  return rc;
}

} // namespace

int run(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "query") == 0) {
    return run_query_command(argc - 1, argv + 1);
  }
  if (argc > 1 && std::strcmp(argv[1], "check") == 0) {
    return run_check_command(argc - 1, argv + 1);
  }
  if (argc > 1 && std::strcmp(argv[1], "diff") == 0) {
    return run_diff_command(argc - 1, argv + 1);
  }
  if (argc > 1 && std::strcmp(argv[1], "mcp") == 0) {
    return run_mcp_command(argc - 1, argv + 1);
  }
  if (argc > 1 && std::strcmp(argv[1], "graph") == 0) {
    return run_graph_command(argc - 1, argv + 1);
  }
  if (argc > 1 && std::strcmp(argv[1], "run") == 0) {
    return run_run_command(argc - 1, argv + 1);
  }
  Args a;
  if (auto rc = parse_args(argc, argv, a)) {
    return *rc;
  }
  stop_on_interrupt();
  if (a.command == "index") {
    return run_index(a);
  }
  if (a.command == "merge") {
    return run_merge(a);
  }
  if (a.export_mode && (a.all_ranks || a.serve)) {
    return fail(std::string("--export cannot be used with ") +
                (a.all_ranks ? "--all-ranks-html" : "--serve"));
  }
  if (a.command == "render") {
    return run_render(a);
  }
  if (a.all_ranks) {
    if (a.graphs) {
      return fail("--graphs with --all-ranks-html is not supported yet; run it on one rank's log");
    }
    if (a.latest) {
      return fail("--latest cannot be used with --all-ranks-html");
    }
    AllRanksRequest r;
    r.input = a.positional.front();
    r.out = a.out.value_or("tl_out");
    r.overwrite = a.overwrite;
    r.strict = a.strict;
    r.verbose = a.verbose;
    r.plain_text = a.plain_text;
    r.custom_header_html = a.custom_header_html;
    r.provenance = a.provenance;
    r.cancel = &g_interrupted;
    r.serve = a.serve;
    r.host = a.host;
    r.port = a.port;
    std::filesystem::path landing;
    return show(run_all_ranks(r, landing), landing, a);
  }
  const int rc = run_direct(a);
  return show(rc, normalised_output_path(a.out.value_or("tl_out")) / report::files::index_html, a);
}

} // namespace tlparse::cli
