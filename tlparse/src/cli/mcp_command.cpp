// `tlparse mcp SOURCE [--compare OTHER]`: the Model Context Protocol server (mcp/server.h) over
// the index of SOURCE, on stdin/stdout. The sources are opened here, from the command line only:
// no request can name a file.
#include "cli/index_source.h"
#include "cli/query_command.h"
#include "mcp/server.h"

#include <csignal>
#include <iostream>
#include <string>
#include <unistd.h>
#include <vector>

#ifndef TORCHSCOPE_VERSION
#define TORCHSCOPE_VERSION "0"
#endif

namespace tlparse::cli {
namespace {

constexpr const char* kMcpUsage = "Usage: tlparse mcp <SOURCE> [--compare <OTHER>]\n";

constexpr const char* kMcpHelp =
    "Serve a trace's answers to coding agents: a Model Context Protocol server on stdin/stdout\n"
    "(JSON-RPC 2.0, one message per line), read-only\n\n"
    "Usage: tlparse mcp <SOURCE> [--compare <OTHER>]\n\n"
    "Arguments:\n"
    "  <SOURCE>  An index (index.sqlite), a report folder (its index.sqlite), a log, or a\n"
    "            folder of logs (indexed first into a temporary folder, removed at exit)\n\n"
    "Options:\n"
    "      --compare <OTHER>  A second run (same kinds of source) for the diff tool\n"
    "  -h, --help             Print help\n\n"
    "Tools: compiles, recompiles, graph_breaks, compile_time, artifact, graph, sql, and diff\n"
    "(with --compare). Only SOURCE and OTHER are read; no request can name a file. See\n"
    "docs/ANSWERS.md, \"For agents: tlparse mcp\", for registering it in an MCP client.\n"
    "Exit status: 0 at the end of input, 1 error, 2 usage error.\n";

int usage(const std::string& message) {
  std::cerr << "error: " << message << "\n\n"
            << kMcpUsage << "\nFor more information, try '--help'.\n";
  return 2;
}

} // namespace

int run_mcp_command(int argc, char** argv) {
  std::vector<std::string> positional;
  std::optional<std::string> compare;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::cout << kMcpHelp;
      return 0;
    }
    if (arg == "--compare") {
      if (i + 1 >= argc) {
        return usage("a value is required for '--compare <OTHER>'");
      }
      compare = argv[++i];
    } else if (arg.rfind("--compare=", 0) == 0) {
      compare = arg.substr(10);
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
  auto source = IndexSource::open(positional[0]);
  std::unique_ptr<IndexSource> second;
  if (compare) {
    auto opened = IndexSource::open(*compare);
    if (!opened) {
      std::cerr << "Error: " << printable(opened.error()) << "\n";
      return 1;
    }
    second = std::move(*opened);
  }
  if (!source) {
    std::cerr << "Error: " << printable(source.error()) << "\n";
    return 1;
  }
  // A client that goes away makes writes fail (exit 1), not a silent SIGPIPE death.
  std::signal(SIGPIPE, SIG_IGN);
  mcp::ToolContext context;
  context.reader = &(*source)->reader();
  context.source_name = (*source)->given().string();
  if (second) {
    context.compare = &second->reader();
    context.compare_name = second->given().string();
  }
  context.interrupted = &interrupted();
  mcp::Server server(std::move(context), TORCHSCOPE_VERSION);
  return mcp::serve(server, STDIN_FILENO, STDOUT_FILENO, &interrupted());
}

} // namespace tlparse::cli
