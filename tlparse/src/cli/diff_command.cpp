// `tlparse diff A B [--format text|json] [--html OUT]`: two runs compared (answers/run_diff.h).
// Logs and folders are indexed at the same time on two threads.
//
// GCC 12 reports a false free-nonheap-object where std::future's task setter destroys the
// moved-from Result<unique_ptr<IndexSource>> (it loses track of the heap pointer after the move);
// it depends on inlining only, so it is silenced for this file rather than the code bent around it.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wfree-nonheap-object"
#endif
#include "cli/index_source.h"
#include "cli/query_command.h"
#include "tlparse/answers/run_diff.h"
#include "tlparse/report/diff_json.h"
#include "tlparse/report/diff_page.h"
#include "tlparse/report/serde_json.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <future>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace tlparse::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kDiffUsage =
    "Usage: tlparse diff <A> <B> [--format text|json] [--html <OUT.html>] [--max-diff-lines N]\n";

constexpr const char* kDiffHelp =
    "Compare two runs: frames matched by code location and order, then their compiles\n\n"
    "Usage: tlparse diff <A> <B> [--format text|json] [--html <OUT.html>]\n\n"
    "Arguments:\n"
    "  <A>, <B>  The earlier and the later run: each an index, a report folder, a log or a\n"
    "            folder of logs (logs are indexed first, both at once). With several logs\n"
    "            (ranks), the n-th log of A is compared with the n-th of B\n\n"
    "Options:\n"
    "      --format <F>          text (default) or json\n"
    "      --html <OUT.html>     Also write a self-contained HTML page of the comparison\n"
    "      --max-diff-lines <N>  Lines of each graph/guard diff shown in text [default: 40]\n"
    "  -h, --help                Print help\n\n"
    "Reports: frames added or gone; per frame, compiles and recompiles in each run; recompile\n"
    "reasons and graph breaks that appeared or vanished; graphs and guards that changed (a line\n"
    "diff); compile time per phase and its delta; cache hit/miss changes; failures.\n"
    "Exit status: 0 (whether or not the runs differ), 1 error, 2 usage error.\n";

int usage(const std::string& message) {
  std::cerr << "error: " << message << "\n\n"
            << kDiffUsage << "\nFor more information, try '--help'.\n";
  return 2;
}

std::string secs(const std::optional<double>& s) {
  return answers::format_seconds(s);
}

std::string delta(const std::optional<double>& a, const std::optional<double>& b) {
  return answers::format_delta(a, b);
}

std::string row(const std::string& label, const std::string& a, const std::string& b,
                const std::string& d) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "  %-22s %12s %12s  %s", label.c_str(), a.c_str(), b.c_str(),
                d.c_str());
  std::string s = buf;
  while (!s.empty() && s.back() == ' ') {
    s.pop_back();
  }
  return s + "\n";
}

std::string count_delta(int64_t a, int64_t b) {
  return a == b ? "" : (b > a ? "+" : "") + std::to_string(b - a);
}

// Graph break reasons run to many lines: text shows the first (json and --html the whole).
std::string first_line(const std::string& s) {
  const size_t nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl) + " ...";
}

void text_payload_diff(std::string& out, const char* what, const answers::LineDiff& d,
                       size_t max_lines) {
  out += "      " + std::string(what) + " changed (-" + std::to_string(d.removed) + " +" +
         std::to_string(d.added) + " lines):\n";
  size_t shown = 0;
  for (const auto& l : d.lines) {
    if (shown++ >= max_lines) {
      out += "        ... (" + std::to_string(d.lines.size() - max_lines) +
             " more lines; --html or --format json for all)\n";
      break;
    }
    out += "        " + printable(l) + "\n";
  }
}

std::string text_report(const answers::RunDiff& d, const std::string& a_name,
                        const std::string& b_name, size_t max_lines) {
  const answers::RunFacts& a = *d.a;
  const answers::RunFacts& b = *d.b;
  std::string out;
  const auto rank = [](const answers::RunFacts& r) {
    return r.label.empty() ? std::string() : " (" + printable(r.label) + ")";
  };
  out += "A: " + printable(a_name) + rank(a) + "\n";
  out += "B: " + printable(b_name) + rank(b) + "\n\n";
  out += row("", "A", "B", "B - A");
  out += row(
      "frames", std::to_string(a.frames.size()), std::to_string(b.frames.size()),
      count_delta(static_cast<int64_t>(a.frames.size()), static_cast<int64_t>(b.frames.size())));
  out += row("compiles", std::to_string(a.compiles), std::to_string(b.compiles),
             count_delta(a.compiles, b.compiles));
  out += row("recompiles", std::to_string(a.recompiles), std::to_string(b.recompiles),
             count_delta(a.recompiles, b.recompiles));
  out +=
      row("graph breaks", std::to_string(a.graph_break_count), std::to_string(b.graph_break_count),
          count_delta(a.graph_break_count, b.graph_break_count));
  out += row("failed compiles", std::to_string(a.failures), std::to_string(b.failures),
             count_delta(a.failures, b.failures));
  out += row("cache hits", std::to_string(a.cache_hits), std::to_string(b.cache_hits),
             count_delta(a.cache_hits, b.cache_hits));
  out += row("cache misses", std::to_string(a.cache_misses), std::to_string(b.cache_misses),
             count_delta(a.cache_misses, b.cache_misses));
  out += row("compile time (s)", secs(a.compile_time_s), secs(b.compile_time_s),
             delta(a.compile_time_s, b.compile_time_s));
  out += "\nFrames: " + std::to_string(d.frames.size()) + " matched, " +
         std::to_string(d.frames_added.size()) + " added, " + std::to_string(d.frames_gone.size()) +
         " gone\n";
  for (const auto& f : d.frames_added) {
    out += "  + " + printable(f) + "\n";
  }
  for (const auto& f : d.frames_gone) {
    out += "  - " + printable(f) + "\n";
  }
  for (const auto& f : d.frames) {
    out += "\nFrame " + printable(f.location) + ": " + std::to_string(f.a_compiles) + " -> " +
           std::to_string(f.b_compiles) + " compile(s)" + (f.changed ? "" : ", unchanged") + "\n";
    for (const auto& c : f.compiles) {
      const std::string ida = c.fa ? c.a : "(none)";
      const std::string idb = c.fb ? c.b : "(none)";
      out += "  " + ida + " -> " + idb;
      if (c.fa && c.fb) {
        out += ": total " + secs(c.fa->total_s) + " -> " + secs(c.fb->total_s) + " s " +
               delta(c.fa->total_s, c.fb->total_s);
        out += "; backend " + secs(c.fa->backend_s) + " -> " + secs(c.fb->backend_s);
        out += ", inductor " + secs(c.fa->inductor_s) + " -> " + secs(c.fb->inductor_s);
        out += ", code gen " + secs(c.fa->code_gen_s) + " -> " + secs(c.fb->code_gen_s);
        out += "\n";
        if (c.fa->cache_state != c.fb->cache_state) {
          out += "      cache: " + std::string(to_string(c.fa->cache_state)) + " -> " +
                 std::string(to_string(c.fb->cache_state)) + " (hits " +
                 std::to_string(c.fa->cache_hits) + " -> " + std::to_string(c.fb->cache_hits) +
                 ", misses " + std::to_string(c.fa->cache_misses) + " -> " +
                 std::to_string(c.fb->cache_misses) + ")\n";
        }
        if (c.fa->status != c.fb->status) {
          out += "      status: " + std::string(to_string(c.fa->status)) + " -> " +
                 std::string(to_string(c.fb->status)) + "\n";
        }
      } else {
        out += c.fa ? ": only in A\n" : ": only in B\n";
      }
      for (const auto& r : c.reasons_appeared) {
        out += "      + recompile reason: " + printable(r) + "\n";
      }
      for (const auto& r : c.reasons_vanished) {
        out += "      - recompile reason: " + printable(r) + "\n";
      }
      if (c.graph) {
        text_payload_diff(out, "graph", *c.graph, max_lines);
      }
      if (c.guards) {
        text_payload_diff(out, "guards", *c.guards, max_lines);
      }
    }
  }
  out += "\nGraph breaks: ";
  if (d.graph_breaks.empty()) {
    out += "no change\n";
  } else {
    out += "\n";
    for (const auto& g : d.graph_breaks) {
      const char* mark = g.a_count == 0   ? "  + appeared"
                         : g.b_count == 0 ? "  - vanished"
                                          : "  ~ count";
      out += std::string(mark) + " (" + std::to_string(g.a_count) + " -> " +
             std::to_string(g.b_count) + ") " + printable(g.location.empty() ? "?" : g.location) +
             ": " + printable(first_line(g.reason)) + "\n";
    }
  }
  out += "Failures: ";
  if (d.new_failures.empty() && d.fixed_failures.empty()) {
    out += "no change\n";
  } else {
    out += "\n";
    for (const auto& f : d.new_failures) {
      out += "  + new: " + printable(f) + "\n";
    }
    for (const auto& f : d.fixed_failures) {
      out += "  - fixed: " + printable(f) + "\n";
    }
  }
  return out;
}

} // namespace

int run_diff_command(int argc, char** argv) {
  std::vector<std::string> positional;
  bool json = false;
  std::optional<std::string> html;
  size_t max_lines = 40;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::cout << kDiffHelp;
      return 0;
    }
    if (arg == "--format") {
      if (i + 1 >= argc) {
        return usage("a value is required for '--format <F>'");
      }
      const std::string f = argv[++i];
      if (f != "text" && f != "json") {
        return usage("--format is text or json, not '" + printable(f) + "'");
      }
      json = f == "json";
    } else if (arg == "--html") {
      if (i + 1 >= argc) {
        return usage("a value is required for '--html <OUT.html>'");
      }
      html = argv[++i];
    } else if (arg == "--max-diff-lines") {
      if (i + 1 >= argc) {
        return usage("a value is required for '--max-diff-lines <N>'");
      }
      max_lines = static_cast<size_t>(std::strtoull(argv[++i], nullptr, 10));
    } else if (arg.size() > 1 && arg[0] == '-') {
      return usage("unexpected argument '" + printable(arg) + "' found");
    } else {
      positional.push_back(arg);
    }
  }
  if (positional.size() != 2) {
    return usage(positional.size() < 2
                     ? "the following required arguments were missing: <A> <B>"
                     : "unexpected argument '" + printable(positional[2]) + "' found");
  }
  // Both sources at once: indexing two logs is most of the time.
  auto fb = std::async(std::launch::async, [&] { return IndexSource::open(positional[1]); });
  auto sa = IndexSource::open(positional[0]);
  auto sb = fb.get();
  if (!sa || !sb) {
    std::cerr << "Error: " << printable(!sa ? sa.error() : sb.error()) << "\n";
    return 1;
  }
  auto files_a = (*sa)->reader().files();
  auto files_b = (*sb)->reader().files();
  if (!files_a || !files_b) {
    std::cerr << "Error: " << printable(!files_a ? files_a.error() : files_b.error()) << "\n";
    return 1;
  }
  if (files_a->size() != files_b->size()) {
    std::cerr << "Note: A has " << files_a->size() << " log(s), B has " << files_b->size()
              << "; comparing the first " << std::min(files_a->size(), files_b->size()) << "\n";
  }
  std::string text, js_out, page;
  const size_t n = std::min(files_a->size(), files_b->size());
  for (size_t i = 0; i < n; ++i) {
    auto a = answers::run_facts((*sa)->reader(), (*files_a)[i]);
    auto b = answers::run_facts((*sb)->reader(), (*files_b)[i]);
    if (!a || !b) {
      std::cerr << "Error: " << printable(!a ? a.error() : b.error()) << "\n";
      return 1;
    }
    auto d = answers::diff_runs((*sa)->reader(), *a, (*sb)->reader(), *b);
    if (!d) {
      std::cerr << "Error: " << printable(d.error()) << "\n";
      return 1;
    }
    const std::string a_name = (*files_a)[i].path, b_name = (*files_b)[i].path;
    if (json) {
      js_out += (i ? ",\n" : "") + report::diff_json(*d, a_name, b_name);
    } else {
      text += (i ? "\n" : "") + text_report(*d, a_name, b_name, max_lines);
    }
    if (html) {
      page += report::diff_section_html(*d, a_name, b_name);
    }
  }
  if (html) {
    std::ofstream out(*html, std::ios::binary | std::ios::trunc);
    out << report::diff_page_html(page);
    if (!out.flush()) {
      std::cerr << "Error: cannot write " << printable(*html) << "\n";
      return 1;
    }
  }
  if (json) {
    std::cout << (n == 1 ? js_out : "[\n" + js_out + "]\n");
  } else {
    std::cout << text;
  }
  return 0;
}

} // namespace tlparse::cli
