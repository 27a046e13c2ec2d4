// `tlparse check SOURCE [--max-recompiles N] [--max-graph-breaks N] [--max-compile-time S]
// [--no-failures] [--baseline OLD]`: a CI gate. Each file of SOURCE (each rank) is checked;
// each violation is one line on stdout and the exit status is 1.
#include "cli/index_source.h"
#include "cli/query_command.h"
#include "tlparse/answers/run_facts.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace tlparse::cli {
namespace {

constexpr const char* kCheckUsage =
    "Usage: tlparse check <SOURCE> [--max-recompiles N] [--max-graph-breaks N]\n"
    "                     [--max-compile-time S] [--no-failures] [--baseline <OLD>]\n";

constexpr const char* kCheckHelp =
    "Check a run against limits or an earlier run, for CI: exit 1 with one line per violation\n\n"
    "Usage: tlparse check <SOURCE> [--max-recompiles N] [--max-graph-breaks N]\n"
    "                     [--max-compile-time S] [--no-failures] [--baseline <OLD>]\n\n"
    "Arguments:\n"
    "  <SOURCE>  An index, a report folder, a log or a folder of logs (each log, i.e. each\n"
    "            rank, is checked)\n\n"
    "Options:\n"
    "      --max-recompiles <N>    At most N recompiles (compiles of a frame after its first)\n"
    "      --max-graph-breaks <N>  At most N graph breaks\n"
    "      --max-compile-time <S>  At most S seconds of compile time (sum of the compiles'\n"
    "                              entire_frame_compile_time_s)\n"
    "      --no-failures           No compile may fail\n"
    "      --baseline <OLD>        Compare with an earlier run (index, log or folder): no more\n"
    "                              recompiles, graph breaks or failures than it had, and compile\n"
    "                              time at most --time-tolerance above it. Limits given as well\n"
    "                              are checked too\n"
    "      --time-tolerance <PCT>  Compile time allowed above the baseline's [default: 20]\n"
    "  -h, --help                  Print help\n\n"
    "Exit status: 0 every check passed, 1 a check failed (or an error), 2 usage error.\n";

struct Limits {
  std::optional<int64_t> recompiles, graph_breaks;
  std::optional<double> compile_time_s;
  bool no_failures = false;
  std::optional<std::string> baseline;
  double tolerance_pct = 20;
};

int usage(const std::string& message) {
  std::cerr << "error: " << message << "\n\n"
            << kCheckUsage << "\nFor more information, try '--help'.\n";
  return 2;
}

std::optional<int64_t> parse_count(const std::string& s) {
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || v < 0) {
    return std::nullopt;
  }
  return v;
}

std::optional<double> parse_number(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !(v >= 0)) {
    return std::nullopt;
  }
  return v;
}

std::string fmt_s(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f s", v);
  return buf;
}

Result<std::vector<answers::RunFacts>> facts_of(const IndexSource& source) {
  auto files = source.reader().files();
  if (!files) {
    return Error{files.error()};
  }
  std::vector<answers::RunFacts> out;
  for (const auto& f : *files) {
    auto facts = answers::run_facts(source.reader(), f);
    if (!facts) {
      return Error{facts.error()};
    }
    out.push_back(std::move(*facts));
  }
  return out;
}

// The frame with the most recompiles, for the message.
std::string worst_frame(const answers::RunFacts& run) {
  const answers::FrameFacts* worst = nullptr;
  for (const auto& f : run.frames) {
    if (worst == nullptr || f.compiles.size() > worst->compiles.size()) {
      worst = &f;
    }
  }
  if (worst == nullptr || worst->compiles.size() < 2) {
    return "";
  }
  return "; most in " + worst->location + ": " + std::to_string(worst->compiles.size() - 1);
}

} // namespace

int run_check_command(int argc, char** argv) {
  Limits limits;
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= argc) {
        return std::nullopt;
      }
      return std::string(argv[++i]);
    };
    if (arg == "-h" || arg == "--help") {
      std::cout << kCheckHelp;
      return 0;
    }
    if (arg == "--no-failures") {
      limits.no_failures = true;
    } else if (arg == "--max-recompiles" || arg == "--max-graph-breaks") {
      const auto v = value();
      const auto n = v ? parse_count(*v) : std::nullopt;
      if (!n) {
        return usage("'" + arg + "' takes a count (a whole number, 0 or more)");
      }
      (arg == "--max-recompiles" ? limits.recompiles : limits.graph_breaks) = *n;
    } else if (arg == "--max-compile-time" || arg == "--time-tolerance") {
      const auto v = value();
      const auto n = v ? parse_number(*v) : std::nullopt;
      if (!n) {
        return usage("'" + arg + "' takes a number, 0 or more");
      }
      if (arg == "--max-compile-time") {
        limits.compile_time_s = *n;
      } else {
        limits.tolerance_pct = *n;
      }
    } else if (arg == "--baseline") {
      const auto v = value();
      if (!v) {
        return usage("a value is required for '--baseline <OLD>'");
      }
      limits.baseline = *v;
    } else if (arg.size() > 1 && arg[0] == '-') {
      return usage("unexpected argument '" + printable(arg) + "' found");
    } else {
      positional.push_back(arg);
    }
  }
  if (positional.size() != 1) {
    return usage(positional.empty()
                     ? "the following required arguments were missing: <SOURCE>"
                     : "unexpected argument '" + printable(positional[1]) + "' found");
  }
  if (!limits.recompiles && !limits.graph_breaks && !limits.compile_time_s && !limits.no_failures &&
      !limits.baseline) {
    return usage("give at least one check (--max-recompiles, --max-graph-breaks, "
                 "--max-compile-time, --no-failures or --baseline)");
  }
  auto source = IndexSource::open(positional[0]);
  if (!source) {
    std::cerr << "Error: " << printable(source.error()) << "\n";
    return 1;
  }
  auto runs = facts_of(**source);
  if (!runs) {
    std::cerr << "Error: " << printable(runs.error()) << "\n";
    return 1;
  }
  std::optional<std::vector<answers::RunFacts>> base;
  std::unique_ptr<IndexSource> base_source;
  if (limits.baseline) {
    auto b = IndexSource::open(*limits.baseline);
    if (!b) {
      std::cerr << "Error: baseline: " << printable(b.error()) << "\n";
      return 1;
    }
    base_source = std::move(*b);
    auto facts = facts_of(*base_source);
    if (!facts) {
      std::cerr << "Error: baseline: " << printable(facts.error()) << "\n";
      return 1;
    }
    if (facts->size() != runs->size()) {
      std::cerr << "Error: the baseline has " << facts->size() << " log(s), "
                << printable(positional[0]) << " has " << runs->size()
                << "; compare runs with the same ranks\n";
      return 1;
    }
    base = std::move(*facts);
  }
  std::vector<std::string> violations;
  for (size_t i = 0; i < runs->size(); ++i) {
    const answers::RunFacts& r = (*runs)[i];
    const std::string who =
        runs->size() > 1 ? (r.label.empty() ? "log " + std::to_string(i) : r.label) + ": " : "";
    if (limits.recompiles && r.recompiles > *limits.recompiles) {
      violations.push_back(who + "recompiles: " + std::to_string(r.recompiles) + " > " +
                           std::to_string(*limits.recompiles) + " (--max-recompiles)" +
                           worst_frame(r));
    }
    if (limits.graph_breaks && r.graph_break_count > *limits.graph_breaks) {
      violations.push_back(who + "graph breaks: " + std::to_string(r.graph_break_count) + " > " +
                           std::to_string(*limits.graph_breaks) + " (--max-graph-breaks)");
    }
    if (limits.compile_time_s && r.compile_time_s > *limits.compile_time_s) {
      violations.push_back(who + "compile time: " + fmt_s(r.compile_time_s) + " > " +
                           fmt_s(*limits.compile_time_s) + " (--max-compile-time)");
    }
    if (limits.no_failures && r.failures > 0) {
      std::string first;
      for (const auto& f : r.frames) {
        for (const auto& c : f.compiles) {
          if (first.empty() && c.status == index::CompileStatus::error) {
            first =
                "; first: " + c.display + " " + f.location + ": " + c.fail_type.value_or("error");
          }
        }
      }
      violations.push_back(who + "failed compiles: " + std::to_string(r.failures) +
                           " (--no-failures)" + first);
    }
    if (base) {
      const answers::RunFacts& b = (*base)[i];
      if (r.recompiles > b.recompiles) {
        violations.push_back(who + "recompiles: " + std::to_string(r.recompiles) + " > baseline " +
                             std::to_string(b.recompiles) + worst_frame(r));
      }
      if (r.graph_break_count > b.graph_break_count) {
        violations.push_back(who + "graph breaks: " + std::to_string(r.graph_break_count) +
                             " > baseline " + std::to_string(b.graph_break_count));
      }
      if (r.failures > b.failures) {
        violations.push_back(who + "failed compiles: " + std::to_string(r.failures) +
                             " > baseline " + std::to_string(b.failures));
      }
      const double allowed = b.compile_time_s * (1 + limits.tolerance_pct / 100);
      if (r.compile_time_s > allowed) {
        char pct[32];
        std::snprintf(pct, sizeof pct, "%g%%", limits.tolerance_pct);
        violations.push_back(who + "compile time: " + fmt_s(r.compile_time_s) + " > baseline " +
                             fmt_s(b.compile_time_s) + " + " + pct);
      }
    }
  }
  for (const auto& v : violations) {
    std::cout << "FAIL " << printable(v) << "\n";
  }
  if (!violations.empty()) {
    return 1;
  }
  for (const auto& r : *runs) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "ok: %lld compiles, %lld recompiles, %lld graph breaks, %lld failed, %.3f s "
                  "compile time",
                  static_cast<long long>(r.compiles), static_cast<long long>(r.recompiles),
                  static_cast<long long>(r.graph_break_count), static_cast<long long>(r.failures),
                  r.compile_time_s);
    std::cout << (runs->size() > 1 && !r.label.empty() ? printable(r.label) + ": " : "") << line
              << "\n";
  }
  return 0;
}

} // namespace tlparse::cli
