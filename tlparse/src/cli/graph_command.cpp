// `tlparse graph SOURCE --compile ID --artifact NAME [-o FILE] [--format svg|dot|json]`: one
// printed FX graph of a trace drawn (docs/TLPARSE-GRAPHS.md). With --diff OTHER_ARTIFACT (and
// optionally --diff-compile ID) two graphs side by side, what changed coloured; with --saved on
// a joint graph, the values the partitioner saved for the backward marked.
#include "cli/index_source.h"
#include "cli/query_command.h"
#include "tlparse/graph/graph_view.h"
#include "tlparse/report/graph_pages.h"
#include "tlparse/text/terminal_text.h"

#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace tlparse::cli {
namespace {

constexpr const char* kGraphUsage =
    "Usage: tlparse graph <SOURCE> --compile <ID> --artifact <NAME> [-o <FILE>] [--format F]\n";

constexpr const char* kGraphHelp =
    "Draw a printed FX graph of a trace (dynamo_output_graph, aot_joint_graph,\n"
    "inductor_post_grad_graph, our compiler's after_<stage>_pass_<name>, ...) as SVG\n\n"
    "Usage: tlparse graph <SOURCE> --compile <ID> --artifact <NAME> [OPTIONS]\n"
    "       tlparse graph <SOURCE> --compile <ID> --list\n\n"
    "Arguments:\n"
    "  <SOURCE>  An index (index.sqlite), a report folder (its index.sqlite), a log, or a\n"
    "            folder of logs (indexed first into a temporary folder, removed at exit)\n\n"
    "Options:\n"
    "      --compile <ID>         The compile: [0/0], 0/0, 1/0_1 or its folder name -_0_0_0\n"
    "      --artifact <NAME>      The graph: its artifact name (aot_forward_graph) or its file\n"
    "                             name (aot_forward_graph_7.txt) when a compile has several\n"
    "      --list                 List the compile's graph artifacts (all compiles without\n"
    "                             --compile)\n"
    "  -o, --out <FILE>           Write there [default: stdout]\n"
    "      --format <F>           svg, dot or json [default: svg]\n"
    "      --layered              Use the built-in layered layout, not Graphviz's dot\n"
    "      --diff <NAME>          Draw <NAME> beside the graph, nodes matched by target and\n"
    "                             structure: added green, removed red, changed yellow\n"
    "      --diff-compile <ID>    The compile of --diff's graph [default: --compile]\n"
    "      --saved                On a joint graph: mark (purple) what the partitioner saved\n"
    "                             for the backward and (dashed blue) what the backward\n"
    "                             recomputes, from the compile's min_cut_information when the\n"
    "                             log has one, else the aot_backward_graph inputs that are\n"
    "                             not tangents (saved only)\n"
    "  -h, --help                 Print help\n\n"
    "Graphs of up to 1,000 nodes are laid out by Graphviz's dot with its effort capped, larger\n"
    "ones by the layered layout (linear time). Exit status: 0 success, 1 error, 2 usage error.\n";

int usage(const std::string& message) {
  std::cerr << "error: " << printable(message) << "\n\n"
            << kGraphUsage << "\nFor more information, try '--help'.\n";
  return 2;
}

// `message` may span lines of our own; what it quotes of a log, an index or the command line
// was made printable where it was built (the messages of this file) or is escaped here whole
// (errors of the read API, one line each).
int fail(const std::string& message, bool escaped = false) {
  std::cerr << "Error: " << (escaped ? text::terminal_safe_lines(message) : printable(message))
            << "\n";
  return 1;
}

// "[0/0]", "0/0", "-_0_0_0": the same compile.
bool compile_matches(const report::GraphOutput& g, const std::string& id) {
  if (id == g.compile || id == g.dir_name) {
    return true;
  }
  return g.compile.size() > 2 && id == g.compile.substr(1, g.compile.size() - 2);
}

std::string list_of(const std::vector<report::GraphOutput>& graphs,
                    const std::optional<std::string>& compile) {
  std::string out;
  for (const auto& g : graphs) {
    if (!compile || compile_matches(g, *compile)) {
      out += "  " + (g.compile.empty() ? std::string("-") : printable(g.compile)) + "  " +
             printable(g.output.artifact) + "  (" + printable(g.output.name) + ")\n";
    }
  }
  return out;
}

struct Found {
  const report::GraphOutput* graph = nullptr;
  std::string error;
};

Found find_graph(const std::vector<report::GraphOutput>& graphs, const std::string& compile,
                 const std::string& artifact) {
  Found f;
  bool compile_seen = false;
  std::vector<const report::GraphOutput*> matches;
  for (const auto& g : graphs) {
    if (!compile_matches(g, compile)) {
      continue;
    }
    compile_seen = true;
    if (g.output.artifact == artifact || g.output.name == artifact || g.output.path == artifact) {
      matches.push_back(&g);
    }
  }
  if (!compile_seen) {
    std::string known;
    std::string last;
    std::size_t shown = 0;
    for (const auto& g : graphs) {
      if (g.compile != last && shown < 20) {
        known += (known.empty() ? "" : ", ") + printable(g.compile);
        last = g.compile;
        ++shown;
      }
    }
    f.error = "no compile '" + printable(compile) + "' with graph artifacts" +
              (known.empty() ? std::string(" (the trace has no graph artifacts)")
                             : " (compiles with graphs: " + known + ")");
    return f;
  }
  if (matches.empty()) {
    f.error = "compile " + printable(compile) + " has no graph artifact '" + printable(artifact) +
              "'; its graphs:\n" + list_of(graphs, compile);
    return f;
  }
  if (matches.size() > 1) {
    std::cerr << "Note: " << matches.size() << " graphs named " << printable(artifact)
              << " in compile " << printable(compile) << "; drawing "
              << printable(matches.front()->output.name) << " (name another by its file name)\n";
  }
  f.graph = matches.front();
  return f;
}

// The graph's text parsed; an error when it is not an FX graph.
Result<graph::FxGraph> load(const index::IndexReader& reader, const report::GraphOutput& g) {
  auto payload = reader.payload(g.output.event_id);
  if (!payload) {
    return Error{payload.error()};
  }
  graph::FxGraph fx = *payload ? graph::parse_fx_graph(**payload) : graph::FxGraph{};
  if (fx.empty()) {
    return Error{g.output.name + " of compile " + g.compile +
                 " is not an FX graph (no forward() in its text); `tlparse query` or the report "
                 "shows its text"};
  }
  return fx;
}

} // namespace

int run_graph_command(int argc, char** argv) {
  std::vector<std::string> positional;
  std::optional<std::string> compile, artifact, out, diff, diff_compile;
  std::string format = "svg";
  bool list = false, layered = false, saved = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](std::optional<std::string>& into) {
      if (i + 1 >= argc) {
        return false;
      }
      into = argv[++i];
      return true;
    };
    if (arg == "-h" || arg == "--help") {
      std::cout << kGraphHelp;
      return 0;
    }
    if (arg == "--compile") {
      if (!value(compile)) {
        return usage("a value is required for '--compile <ID>'");
      }
    } else if (arg == "--artifact") {
      if (!value(artifact)) {
        return usage("a value is required for '--artifact <NAME>'");
      }
    } else if (arg == "-o" || arg == "--out") {
      if (!value(out)) {
        return usage("a value is required for '--out <FILE>'");
      }
    } else if (arg == "--diff") {
      if (!value(diff)) {
        return usage("a value is required for '--diff <NAME>'");
      }
    } else if (arg == "--diff-compile") {
      if (!value(diff_compile)) {
        return usage("a value is required for '--diff-compile <ID>'");
      }
    } else if (arg == "--format") {
      std::optional<std::string> f;
      if (!value(f) || (*f != "svg" && *f != "dot" && *f != "json")) {
        return usage("'--format' takes svg, dot or json");
      }
      format = *f;
    } else if (arg == "--list") {
      list = true;
    } else if (arg == "--layered") {
      layered = true;
    } else if (arg == "--saved") {
      saved = true;
    } else if (arg.size() > 1 && arg[0] == '-') {
      return usage("unexpected argument '" + arg + "' found");
    } else {
      positional.push_back(arg);
    }
  }
  if (positional.size() != 1) {
    return usage(positional.empty() ? "the following required arguments were missing: <SOURCE>"
                                    : "unexpected argument '" + positional[1] + "' found");
  }
  if (!list && (!compile || !artifact)) {
    return usage("'tlparse graph' needs --compile <ID> and --artifact <NAME> (or --list)");
  }
  if ((diff || saved) && format != "svg") {
    return usage("--diff and --saved draw SVG only");
  }
  auto source = IndexSource::open(positional[0]);
  if (!source) {
    return fail(source.error());
  }
  const index::IndexReader& reader = (*source)->reader();
  auto files = reader.files();
  if (!files) {
    return fail(files.error());
  }
  std::vector<report::GraphOutput> graphs;
  for (const auto& file : *files) {
    auto of_file = report::graph_outputs(reader, file.id);
    if (!of_file) {
      return fail(of_file.error());
    }
    graphs.insert(graphs.end(), of_file->begin(), of_file->end());
  }
  if (list) {
    std::cout << list_of(graphs, compile);
    return 0;
  }
  const Found found = find_graph(graphs, *compile, *artifact);
  if (found.graph == nullptr) {
    return fail(found.error, true);
  }
  auto fx = load(reader, *found.graph);
  if (!fx) {
    return fail(fx.error());
  }
  graph::LayoutOptions layout_options;
  layout_options.force_layered = layered;
  std::string text;
  if (format == "dot") {
    text = graph::to_dot(*fx);
  } else if (format == "json") {
    text = graph::to_json(*fx);
  } else if (diff) {
    const Found other = find_graph(graphs, diff_compile.value_or(*compile), *diff);
    if (other.graph == nullptr) {
      return fail(other.error, true);
    }
    auto fx2 = load(reader, *other.graph);
    if (!fx2) {
      return fail(fx2.error());
    }
    const graph::GraphDiff d = graph::diff_graphs(*fx, *fx2);
    graph::SvgOptions left, right;
    left.title = found.graph->output.name + " " + found.graph->compile;
    left.marks = d.before;
    right.title = other.graph->output.name + " " + other.graph->compile;
    right.marks = d.after;
    text = graph::render_svg_pair(*fx, graph::layout_graph(*fx, layout_options), left, *fx2,
                                  graph::layout_graph(*fx2, layout_options), right);
    std::cerr << d.added << " added, " << d.removed << " removed, " << d.changed << " changed\n";
  } else {
    graph::SvgOptions options;
    options.title = found.graph->output.name + " " + found.graph->compile;
    std::optional<std::string> min_cut;
    if (saved && found.graph->output.key_id) {
      // The partitioner's own record, when the log has one (our compiler writes it always,
      // PyTorch from its memory-budget solver).
      const Status st = reader.for_each_output(found.graph->output.file_id, [&](index::Output o) {
        if (o.key_id == found.graph->output.key_id && o.artifact == "min_cut_information") {
          if (auto p = reader.payload(o.event_id); p && *p) {
            min_cut = std::string(**p);
          }
        }
        return true;
      });
      if (!st) {
        return fail(st.error(), true);
      }
    }
    std::optional<std::vector<graph::NodeMark>> from_min_cut;
    if (min_cut) {
      std::size_t n_saved = 0, n_recomputed = 0;
      from_min_cut = graph::split_from_min_cut(*fx, *min_cut, n_saved, n_recomputed);
      if (from_min_cut) {
        options.marks = *from_min_cut;
        std::cerr << n_saved << " values saved for the backward, " << n_recomputed
                  << " recomputed in it (from min_cut_information)\n";
      }
    }
    if (saved && !from_min_cut) {
      const Found backward = find_graph(graphs, *compile, "aot_backward_graph");
      if (backward.graph == nullptr) {
        return fail("--saved needs the compile's aot_backward_graph: " + backward.error, true);
      }
      auto bw = load(reader, *backward.graph);
      if (!bw) {
        return fail(bw.error());
      }
      std::size_t count = 0;
      options.marks = graph::saved_for_backward(*fx, *bw, count);
      std::cerr << count << " values saved for the backward\n";
    }
    text = graph::render_svg(*fx, graph::layout_graph(*fx, layout_options), options);
  }
  if (!out || *out == "-") {
    std::cout << text;
    return std::cout.good() ? 0 : 1;
  }
  std::ofstream file(*out, std::ios::binary | std::ios::trunc);
  file << text;
  if (!file.flush()) {
    return fail("cannot write " + *out);
  }
  return 0;
}

} // namespace tlparse::cli
