// `tlparse run [--trace-dir DIR] [OPTIONS] -- CMD [ARGS]...`: runs a workload with TORCH_TRACE
// pointing at a fresh folder, then writes the report of what it logged (docs/TLPARSE-INGEST.md,
// "tlparse run"). The workload's exit status is kept: a workload that failed still gets its
// report (that is often when it is wanted), and tlparse then exits with the workload's status.
#include "cli/cli.h"
#include "tlparse/ingest/log_files.h"
#include "tlparse/text/terminal_text.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace tlparse::cli {
namespace {

namespace fs = std::filesystem;
using text::terminal_safe_lines;

constexpr const char* kRunUsage =
    "Usage: tlparse run [--trace-dir <DIR>] [OPTIONS] -- <CMD> [ARGS]...\n";

constexpr const char* kRunHelp =
    "Run a workload with TORCH_TRACE set to a fresh folder, then report on what it logged\n\n"
    "Usage: tlparse run [--trace-dir <DIR>] [OPTIONS] -- <CMD> [ARGS]...\n\n"
    "Arguments:\n"
    "  <CMD> [ARGS]...  The workload, run with TORCH_TRACE=<DIR> added to its environment\n\n"
    "Options:\n"
    "      --trace-dir <DIR>  Where the workload's logs go: a new or empty folder [default: a\n"
    "                         new folder tlparse-run.XXXXXX under $TMPDIR or /tmp, kept]\n"
    "  OPTIONS                Any option of `tlparse PATH` for the report (-o/--out,\n"
    "                         --overwrite, --no-browser, -i, --strict, ...)\n"
    "  -h, --help             Print help\n\n"
    "The report is written from the folder's logs as `tlparse` would: rank logs\n"
    "(dedicated_log_torch_trace_rank_<N>*.log) with --all-ranks-html, otherwise the newest log.\n"
    "Exit status: the workload's when it failed (128+N when signal N ended it), otherwise\n"
    "tlparse's: 0 ok, 1 no log was written or the report failed, 2 usage error.\n";

int usage(const std::string& message) {
  std::cerr << "error: " << message << "\n\n"
            << kRunUsage << "\nFor more information, try '--help'.\n";
  return 2;
}

// The folder the workload logs into: `wanted` if given (created if missing; refused when it
// already holds files, whose logs would be reported as this run's), else a new temporary one.
bool make_trace_dir(const std::string& wanted, fs::path& dir, std::string& error) {
  std::error_code ec;
  if (!wanted.empty()) {
    dir = fs::absolute(wanted, ec);
    if (fs::exists(dir, ec)) {
      if (!fs::is_directory(dir, ec)) {
        error = "--trace-dir " + wanted + " is not a folder";
        return false;
      }
      if (!fs::is_empty(dir, ec)) {
        error = "--trace-dir " + wanted +
                " is not empty; its logs would be reported as this run's (use a new folder)";
        return false;
      }
      return true;
    }
    if (!fs::create_directories(dir, ec)) {
      error = "cannot create --trace-dir " + wanted + ": " + ec.message();
      return false;
    }
    return true;
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = (tmp != nullptr && *tmp != '\0' ? std::string(tmp) : "/tmp");
  pattern += "/tlparse-run.XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) {
    error = "cannot create a folder for the trace under " + pattern + ": " + std::strerror(errno);
    return false;
  }
  dir = buf.data();
  return true;
}

// Runs `command` with TORCH_TRACE=trace_dir and returns its exit status as a shell reports it
// (128+N for signal N; 127 when it could not be started). While it runs, this process ignores
// SIGINT and SIGQUIT, as system() does: a Ctrl-C stops the workload, and the report of what it
// logged is still written.
int run_workload(const std::vector<std::string>& command, const fs::path& trace_dir) {
  struct sigaction ignore = {};
  ignore.sa_handler = SIG_IGN;
  struct sigaction old_int = {}, old_quit = {};
  sigaction(SIGINT, &ignore, &old_int);
  sigaction(SIGQUIT, &ignore, &old_quit);
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = fork();
  if (pid == 0) {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGQUIT, &old_quit, nullptr);
    setenv("TORCH_TRACE", trace_dir.c_str(), 1);
    std::vector<char*> argv;
    for (const std::string& a : command) {
      argv.push_back(const_cast<char*>(a.c_str()));
    }
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    const std::string message = "tlparse run: cannot run " + terminal_safe_lines(command[0]) +
                                ": " + std::strerror(errno) + "\n";
    (void)!write(STDERR_FILENO, message.data(), message.size());
    _exit(127);
  }
  int status = 0;
  int rc = 127;
  if (pid < 0) {
    std::cerr << "tlparse run: cannot start the workload: " << std::strerror(errno) << "\n";
  } else {
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    rc = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGQUIT, &old_quit, nullptr);
  return rc;
}

} // namespace

int run_run_command(int argc, char** argv) {
  // argv[0] is "run". Everything before "--" is ours or the report's; after it, the workload.
  std::vector<std::string> report_options;
  std::vector<std::string> command;
  std::string trace_dir_arg;
  bool seen_separator = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (seen_separator) {
      command.push_back(arg);
    } else if (arg == "--") {
      seen_separator = true;
    } else if (arg == "-h" || arg == "--help") {
      std::cout << kRunHelp;
      return 0;
    } else if (arg == "--trace-dir") {
      if (i + 1 >= argc) {
        return usage("--trace-dir needs a folder");
      }
      trace_dir_arg = argv[++i];
    } else if (arg.rfind("--trace-dir=", 0) == 0) {
      trace_dir_arg = arg.substr(std::strlen("--trace-dir="));
    } else if (arg == "--all-ranks-html" || arg == "--latest" || arg == "--serve" || arg == "-e" ||
               arg == "--export") {
      return usage(arg + " is chosen by tlparse run from the logs the workload writes" +
                   (arg == "--serve" ? "; --serve is not supported with run" : ""));
    } else {
      report_options.push_back(arg);
    }
  }
  if (!seen_separator || command.empty()) {
    return usage("the workload is missing: tlparse run [OPTIONS] -- <CMD> [ARGS]...");
  }
  fs::path trace_dir;
  std::string error;
  if (!make_trace_dir(trace_dir_arg, trace_dir, error)) {
    std::cerr << "Error: " << terminal_safe_lines(error) << "\n";
    return 1;
  }
  const int workload_rc = run_workload(command, trace_dir);
  const std::string shown_dir = terminal_safe_lines(trace_dir.string());
  const auto logs = ingest::find_logs(trace_dir);
  if (!logs) {
    std::cerr << "tlparse run: the workload exited with status " << workload_rc
              << " and wrote no log into TORCH_TRACE=" << shown_dir
              << " (does it compile with torch.compile, or trace through tracer/?)\n";
    return workload_rc != 0 ? workload_rc : 1;
  }
  bool ranked = false;
  for (const fs::path& log : *logs) {
    ranked = ranked || ingest::rank_of_log_name(log.filename().string()).has_value();
  }
  std::cerr << "tlparse run: the workload exited with status " << workload_rc << "; "
            << logs->size() << (logs->size() == 1 ? " log" : " logs") << " in " << shown_dir
            << "\n";
  if (logs->size() > 1 && !ranked) {
    std::cerr << "tlparse run: several processes logged; reporting the newest log (run `tlparse "
              << shown_dir << "/<log>` for another)\n";
  }
  std::vector<std::string> args = {"tlparse", trace_dir.string()};
  if (ranked) {
    args.push_back("--all-ranks-html");
  }
  args.insert(args.end(), report_options.begin(), report_options.end());
  std::vector<char*> report_argv;
  for (std::string& a : args) {
    report_argv.push_back(a.data());
  }
  report_argv.push_back(nullptr);
  const int report_rc = run(static_cast<int>(args.size()), report_argv.data());
  return workload_rc != 0 ? workload_rc : report_rc;
}

} // namespace tlparse::cli
