// Benchmark: the report's JSON printers and HTML escaping on the envelopes of a real log, each
// against its yardstick in the same process (so the ratio holds on a loaded machine):
//   - pretty printing (the metrics pages' "every field" section): the streamed printer
//     (write_pretty_json) against parse_json + write_pretty (the tree);
//   - raw.jsonl's members: JsonMembers, buffers reused, against compact_json_members (a vector of
//     strings per envelope, its shape before JsonMembers);
//   - a metrics page's "every field" section: write_pretty_json_html (one pass, long literals
//     from a memo) against pretty_print_json then append_html_escaped;
//   - HTML escaping of the pretty text: html_escape against a byte-at-a-time escape (the shape
//     append_html_escaped had before it skipped eight plain bytes at a time).
// Each figure is the best of RUNS passes over every envelope, in thread CPU seconds. Usage:
//   tlparse_json_print_bench [LOG] [RUNS]
// Without LOG it uses a w12_ddp_cpu rank log of the shared corpus (docs/BUILDING.md, "Test data").
#include "tlparse/highlight/html.h"
#include "tlparse/report/serde_json.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace fs = std::filesystem;

namespace {

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

template <class Pass>
double best_of(int runs, Pass pass) {
  double best = 1e30;
  for (int i = 0; i < runs; ++i) {
    const double t0 = thread_cpu_seconds();
    pass();
    best = std::min(best, thread_cpu_seconds() - t0);
  }
  return best;
}

fs::path default_log() {
  const fs::path corpus =
      fs::path(TORCHSCOPE_BENCH_SHARED) / "corpus" / "pytorch-2.11" / "w12_ddp_cpu";
  if (fs::is_directory(corpus)) {
    std::vector<fs::path> logs;
    for (const auto& e : fs::directory_iterator(corpus)) {
      if (e.path().extension() == ".log") {
        logs.push_back(e.path());
      }
    }
    std::sort(logs.begin(), logs.end());
    if (!logs.empty()) {
      return logs.front();
    }
  }
  return {};
}

// The yardstick escape: one byte at a time, as append_html_escaped did.
void escape_bytewise(std::string& out, std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    switch (text[i]) {
    case '&':
      out.append("&amp;");
      break;
    case '<':
      out.append("&lt;");
      break;
    case '>':
      out.append("&gt;");
      break;
    case '"':
      out.append("&quot;");
      break;
    case '\'':
      out.append("&#39;");
      break;
    default:
      out.push_back(text[i]);
      break;
    }
  }
}

void report(const char* what, double yardstick, const char* yardstick_name, double ours,
            double mb) {
  std::printf("%-34s %7.3f s (%6.0f MB/s)  vs %-28s %7.3f s (%6.0f MB/s): %.2fx\n", what, ours,
              mb / ours, yardstick_name, yardstick, mb / yardstick, yardstick / ours);
}

} // namespace

int main(int argc, char** argv) {
  const fs::path log = argc > 1 ? fs::path(argv[1]) : default_log();
  const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
  if (log.empty() || !fs::exists(log)) {
    std::fprintf(stderr, "no input log (pass one as the first argument)\n");
    return 2;
  }
  // Every glog line's envelope: the JSON object after "] ".
  std::vector<std::string> envelopes;
  {
    std::ifstream in(log, std::ios::binary);
    std::string line;
    while (std::getline(in, line)) {
      const std::size_t at = line.find("] {");
      if (!line.empty() && line[0] != '\t' && at != std::string::npos) {
        envelopes.push_back(line.substr(at + 2));
      }
    }
  }
  double mb = 0;
  for (const std::string& e : envelopes) {
    mb += static_cast<double>(e.size()) / 1e6;
  }
  std::printf("%s: %zu envelopes, %.1f MB; best of %d passes, thread CPU time\n",
              log.filename().c_str(), envelopes.size(), mb, runs);

  // Pretty printing, and a check that both give the same bytes.
  std::vector<std::string> pretty(envelopes.size());
  std::size_t mismatches = 0;
  std::string out;
  const double tree = best_of(runs, [&] {
    for (std::size_t i = 0; i < envelopes.size(); ++i) {
      pretty[i].clear();
      if (const auto v = tlparse::report::parse_json(envelopes[i])) {
        tlparse::report::write_pretty(pretty[i], *v);
      }
    }
  });
  const double streamed = best_of(runs, [&] {
    for (std::size_t i = 0; i < envelopes.size(); ++i) {
      out.clear();
      tlparse::report::write_pretty_json(out, envelopes[i]);
      mismatches += out != pretty[i] ? 1 : 0;
    }
  });
  report("pretty: write_pretty_json", tree, "parse_json + write_pretty", streamed, mb);

  // raw.jsonl's members.
  std::size_t members_seen = 0;
  const double vectors = best_of(runs, [&] {
    for (const std::string& e : envelopes) {
      if (const auto m = tlparse::report::compact_json_members(e)) {
        members_seen += m->size();
      }
    }
  });
  tlparse::report::JsonMembers members;
  const double reused = best_of(runs, [&] {
    for (const std::string& e : envelopes) {
      if (members.read(e)) {
        members_seen += members.size();
      }
    }
  });
  report("members: JsonMembers (reused)", vectors, "compact_json_members", reused, mb);

  // HTML escaping of the pretty text.
  double pretty_mb = 0;
  for (const std::string& p : pretty) {
    pretty_mb += static_cast<double>(p.size()) / 1e6;
  }
  const double bytewise = best_of(runs, [&] {
    for (const std::string& p : pretty) {
      out.clear();
      escape_bytewise(out, p);
    }
  });
  const double escaped = best_of(runs, [&] {
    for (const std::string& p : pretty) {
      out.clear();
      tlparse::highlight::append_html_escaped(out, p);
    }
  });
  report("escape: append_html_escaped", bytewise, "byte-at-a-time escape", escaped, pretty_mb);

  // A metrics page's "every field" section: pretty-printed and escaped in one pass, long
  // literals from the report's memo (as RenderContext holds one), against printing then escaping.
  const double two_passes = best_of(runs, [&] {
    for (const std::string& e : envelopes) {
      out.clear();
      if (const auto p = tlparse::report::pretty_print_json(e)) {
        tlparse::highlight::append_html_escaped(out, *p);
      }
    }
  });
  std::string escaped_text;
  const double fused = best_of(runs, [&] {
    tlparse::report::JsonStringMemo memo(8u << 20);
    for (const std::string& e : envelopes) {
      escaped_text.clear();
      tlparse::report::write_pretty_json_html(escaped_text, e, &memo);
    }
  });
  report("pretty+escape: write_pretty_json_html", two_passes, "pretty_print_json + escape", fused,
         mb);
  if (mismatches != 0) {
    std::fprintf(stderr, "%zu envelopes printed differently by the two pretty printers\n",
                 mismatches);
    return 1;
  }
  return members_seen == 0 ? 1 : 0;
}
