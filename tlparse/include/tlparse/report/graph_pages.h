// The graph views of a report (docs/TLPARSE-GRAPHS.md): which outputs are printed FX graphs, the
// SVG of one, and the graphs/ folder that lists them. Additions beside tlparse 0.4.3's files:
// they live under graphs/ only, are written by the static report only with --graphs, and are
// rendered on demand by --serve; no tlparse 0.4.3 file links to them or changes for them.
#pragma once

#include "tlparse/graph/graph_view.h"
#include "tlparse/index/schema.gen.h"
#include "tlparse/result.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tlparse::index {
class IndexReader;
}

namespace tlparse::report {

inline constexpr const char* kGraphsFolder = "graphs";
inline constexpr const char* kGraphsIndex = "graphs/index.html";
// The static report's node budget (--graphs): larger graphs are listed, not drawn.
inline constexpr std::size_t kDefaultGraphNodeBudget = 5000;

// One output of a file that is a printed FX graph, with its compile.
struct GraphOutput {
  index::Output output;
  std::string compile;  // the compile's display, "[0/0]"
  std::string dir_name; // its folder, "-_0_0_0"
};

// The graph outputs of one file, in production order (files only, each path once).
Result<std::vector<GraphOutput>> graph_outputs(const index::IndexReader& reader,
                                               std::int64_t file_id);

// Where the SVG of an output lives in a report: graphs/<its path with .svg for its extension>.
std::string graph_svg_path(const index::Output& output);

// The SVG of one graph output, or nullopt when its text is no FX graph (or it is larger than
// `node_budget`); `nodes` gets its node count either way.
struct GraphSvg {
  std::optional<std::string> svg;
  std::size_t nodes = 0;
  std::string engine;
};
Result<GraphSvg> render_graph_output(const index::IndexReader& reader, const GraphOutput& graph,
                                     std::size_t node_budget);

// graphs/index.html: every graph output by compile, linked to its SVG (`drawn` says which have
// one; with none given, all are linked) and to its text.
std::string graphs_index_page(const std::vector<GraphOutput>& graphs,
                              const std::vector<bool>& drawn = {});

// --graphs: writes graphs/index.html and the SVG of every graph output of at most `node_budget`
// nodes under out_dir/graphs/ (paths checked as the report's are).
struct GraphFolderResult {
  bool ok = false;
  std::string error;
  std::size_t graphs = 0, drawn = 0, over_budget = 0, unparsed = 0;
};
GraphFolderResult write_graph_folder(const index::IndexReader& reader, std::int64_t file_id,
                                     const std::filesystem::path& out_dir,
                                     std::size_t node_budget = kDefaultGraphNodeBudget);

} // namespace tlparse::report
