// The tlparse command line (docs/TLPARSE-CLI.md): tlparse 0.4.3's flags with its exit codes and
// messages, made safer: output goes to a temporary sibling folder that is renamed into place only
// when everything succeeded (no empty OUT after an error), --overwrite refuses to delete a folder
// that does not look like a report, --latest works, and a browser is never opened.
#include "cli/cli.h"

#include "tlparse/index/index_reader.h"
#include "tlparse/ingest/ingest.h"
#include "tlparse/ingest/log_files.h"
#include "tlparse/report/render.h"

#include <algorithm>
#include <chrono>
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
    "       tlparse index <LOGS>... -o <INDEX> [-p] [--fts]\n"
    "       tlparse render <INDEX> -o <OUT> [--overwrite] [--custom-header-html <HTML>]\n";

constexpr const char* kHelp =
    "Parse TORCH_LOG logs produced by PyTorch torch.compile (torchscope's tlparse, compatible "
    "with tlparse 0.4.3)\n\n"
    "Usage: tlparse [OPTIONS] <PATH>\n"
    "       tlparse index <LOGS>... -o <INDEX> [-p] [--fts]   ingest only, write an index\n"
    "       tlparse render <INDEX> -o <OUT> [OPTIONS]          render a report from an index\n\n"
    "Arguments:\n"
    "  <PATH>  A log file, or a folder (its newest *.log file is used)\n\n"
    "Options:\n"
    "  -o, --out <OUT>              Output folder [default: tl_out]\n"
    "      --overwrite              Replace OUT if it exists. Refuses a non-empty folder that is\n"
    "                               not a previous report (no index.html or index.sqlite)\n"
    "      --latest                 PATH is a folder: use its most recently modified log\n"
    "      --strict                 Fail (writing nothing) if any line failed to parse\n"
    "      --strict-compile-id      Fail if some events had an invalid compile id\n"
    "      --no-browser             Accepted for compatibility: a browser is never opened\n"
    "      --custom-header-html <H> HTML inserted at the top of index.html\n"
    "  -v, --verbose                Print every unknown envelope key occurrence\n"
    "  -p, --plain-text             inductor_output_code as plain .txt files\n"
    "      --fts                    (index) also build the full-text search table\n"
    "      --file-id <N>            (render) which file of the index to render [default: first]\n"
    "  -h, --help                   Print help\n"
    "  -V, --version                Print version\n\n"
    "Exit status: 0 success, 1 error (message on stderr), 2 usage error.\n";

struct Args {
  std::string command; // "", "index", "render"
  std::vector<std::string> positional;
  std::optional<std::string> out;
  bool overwrite = false, latest = false, strict = false, strict_compile_id = false;
  bool verbose = false, plain_text = false, fts = false;
  std::string custom_header_html;
  int64_t file_id = 0;
};

int usage_error(const std::string& message) {
  std::cerr << "error: " << message << "\n\n"
            << kUsage << "\nFor more information, try '--help'.\n";
  return kExitUsage;
}

int fail(const std::string& message) {
  std::cerr << "Error: " << message << "\n";
  return kExitError;
}

// Parses argv; returns an exit code when parsing ends the run (help, version, usage error).
std::optional<int> parse_args(int argc, char** argv, Args& a) {
  int i = 1;
  if (argc > 1 && (std::strcmp(argv[1], "index") == 0 || std::strcmp(argv[1], "render") == 0)) {
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
      // We never open a browser; accepted so existing scripts keep working.
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
    } else if (arg == "--file-id") {
      auto v = value("--file-id");
      if (!v) {
        return usage_error("a value is required for '--file-id <N>'");
      }
      a.file_id = std::atoll(v->c_str());
    } else if (arg == "-e" || arg == "--export" || arg == "-i" || arg == "--inductor-provenance" ||
               arg == "--all-ranks-html") {
      return usage_error("'" + arg +
                         "' (tlparse 0.4.3's export, provenance and multi-rank "
                         "modes) is not supported by this version yet");
    } else if (arg.size() > 1 && arg[0] == '-') {
      return usage_error("unexpected argument '" + arg + "' found");
    } else {
      a.positional.push_back(arg);
    }
  }
  if (a.positional.empty()) {
    return usage_error(
        a.command == "index"    ? "the following required arguments were missing: <LOGS>..."
        : a.command == "render" ? "the following required arguments were missing: <INDEX>"
                                : "the following required arguments were missing: <PATH>");
  }
  if (a.command.empty() && a.positional.size() > 1) {
    return usage_error("unexpected argument '" + a.positional[1] + "' found");
  }
  if (a.command == "index" && !a.out) {
    return usage_error("'tlparse index' needs -o <INDEX>");
  }
  return std::nullopt;
}

bool looks_like_report(const fs::path& dir) {
  std::error_code ec;
  return fs::exists(dir / "index.html", ec) || fs::exists(dir / "index.sqlite", ec);
}

// Checks OUT before any work; returns an error message or empty.
std::string check_out_dir(const fs::path& out, bool overwrite) {
  std::error_code ec;
  if (!fs::exists(out, ec)) {
    return {};
  }
  if (!overwrite) {
    return "Directory " + out.string() +
           " already exists; pass --overwrite to replace it or use -o OUTDIR";
  }
  if (!fs::is_directory(out, ec)) {
    return out.string() + " exists and is not a folder; refusing to replace it";
  }
  if (!fs::is_empty(out, ec) && !looks_like_report(out)) {
    return "Refusing to --overwrite " + out.string() +
           ": it is not empty and does not look like a tlparse report (no index.html or "
           "index.sqlite). Remove it yourself or choose another -o";
  }
  return {};
}

// A temporary sibling of OUT, removed unless commit() renamed it into place.
class StagingDir {
public:
  explicit StagingDir(const fs::path& out) : out_(fs::absolute(out)) {
    path_ = out_.parent_path() /
            ("." + out_.filename().string() + ".tlparse-tmp-" + std::to_string(::getpid()));
  }
  ~StagingDir() {
    if (!committed_) {
      std::error_code ec;
      fs::remove_all(path_, ec);
    }
  }
  StagingDir(const StagingDir&) = delete;
  StagingDir& operator=(const StagingDir&) = delete;
  bool create(std::string& error) {
    std::error_code ec;
    fs::create_directories(out_.parent_path(), ec);
    fs::remove_all(path_, ec);
    if (!fs::create_directory(path_, ec)) {
      error = "cannot create " + path_.string() + ": " + ec.message();
      return false;
    }
    return true;
  }
  bool commit(std::string& error) {
    std::error_code ec;
    if (fs::exists(out_, ec)) {
      fs::remove_all(out_, ec);
      if (ec) {
        error = "cannot remove " + out_.string() + ": " + ec.message();
        return false;
      }
    }
    fs::rename(path_, out_, ec);
    if (ec) {
      error = "cannot move the report into " + out_.string() + ": " + ec.message();
      return false;
    }
    committed_ = true;
    return true;
  }
  const fs::path& path() const { return path_; }

private:
  fs::path out_, path_;
  bool committed_ = false;
};

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

void print_file_summary(const ingest::FileResult& f) {
  std::cerr << f.stats.to_tlparse_string() << "\n";
  if (!f.unknown_keys.empty()) {
    std::cerr << "Unknown fields: {";
    for (size_t i = 0; i < f.unknown_keys.size(); ++i) {
      std::cerr << (i ? ", " : "") << '"' << f.unknown_keys[i] << '"';
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

ingest::IngestOptions ingest_options(const Args& a, Progress& progress) {
  ingest::IngestOptions o;
  o.plain_text = a.plain_text;
  o.verbose = a.verbose;
  o.on_progress = [&progress](uint64_t done, uint64_t total) { progress.update(done, total); };
  o.on_message = [&progress](const std::string& m) {
    progress.clear();
    std::cerr << m << "\n";
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

int run_index(const Args& a) {
  std::string error;
  const auto logs = expand_logs(a.positional, error);
  if (logs.empty()) {
    return fail(error);
  }
  const fs::path target = *a.out;
  const fs::path tmp = fs::path(target.string() + ".tlparse-tmp-" + std::to_string(::getpid()));
  Progress progress;
  ingest::IngestOptions options = ingest_options(a, progress);
  options.search_table = a.fts;
  const auto result = ingest::ingest_files(logs, tmp, options);
  progress.clear();
  std::error_code ec;
  if (!result.ok) {
    fs::remove(tmp, ec);
    return fail(result.error);
  }
  for (const auto& f : result.files) {
    if (result.files.size() > 1) {
      std::cerr << f.path.string() << ":\n";
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
  opts.raw_log_source = raw_log;
  opts.index_path = index_path; // lets the renderer stream big files on extra threads
  Progress progress;
  opts.on_progress = [&progress](uint64_t done, uint64_t total) {
    progress.update(done, total, "report", false);
  };
  const auto r = report::render_report(**reader, opts, staging);
  progress.clear();
  for (const auto& w : r.warnings) {
    std::cerr << "Warning: " << w << "\n";
  }
  if (!r.ok) {
    return fail(r.error);
  }
  return kExitOk;
}

int run_render(const Args& a) {
  const fs::path index_path = a.positional.front();
  const fs::path out = a.out.value_or("tl_out");
  std::error_code ec;
  if (!fs::is_regular_file(index_path, ec)) {
    return fail(index_path.string() + " is not a file");
  }
  if (auto e = check_out_dir(out, a.overwrite); !e.empty()) {
    return fail(e);
  }
  StagingDir staging(out);
  std::string error;
  if (!staging.create(error)) {
    return fail(error);
  }
  // The folder holds its index, like a direct run's does.
  fs::copy_file(index_path, staging.path() / "index.sqlite", ec);
  if (ec) {
    return fail("cannot copy the index: " + ec.message());
  }
  if (const int rc = render_into(staging.path() / "index.sqlite", a, staging.path(), {});
      rc != kExitOk) {
    return rc;
  }
  if (!staging.commit(error)) {
    return fail(error);
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
  const fs::path out = a.out.value_or("tl_out");
  if (auto e = check_out_dir(out, a.overwrite); !e.empty()) {
    return fail(e);
  }
  StagingDir staging(out);
  std::string error;
  if (!staging.create(error)) {
    return fail(error);
  }
  const fs::path index_path = staging.path() / "index.sqlite";
  Progress progress;
  const auto result = ingest::ingest_files({path}, index_path, ingest_options(a, progress));
  progress.clear();
  if (!result.ok) {
    return fail(result.error);
  }
  const auto& file = result.files.front();
  print_file_summary(file);
  if (a.strict && file.stats.strict_failures() > 0) {
    return fail("Something went wrong");
  }
  if (a.strict_compile_id) {
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
  if (const int rc = render_into(index_path, a, staging.path(), path); rc != kExitOk) {
    return rc;
  }
  if (!staging.commit(error)) {
    return fail(error);
  }
  return kExitOk;
}

} // namespace

int run(int argc, char** argv) {
  Args a;
  if (auto rc = parse_args(argc, argv, a)) {
    return *rc;
  }
  if (a.command == "index") {
    return run_index(a);
  }
  if (a.command == "render") {
    return run_render(a);
  }
  return run_direct(a);
}

} // namespace tlparse::cli
