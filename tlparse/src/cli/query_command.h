// The subcommands that answer questions from an index (docs/TLPARSE-INGEST.md, "Answers"):
// `tlparse query`, `tlparse check`, `tlparse diff`, `tlparse mcp`, `tlparse graph`. Each takes argv
// after its own name and returns the process exit code (0 ok, 1 error or failed check, 2 usage).
#pragma once

namespace tlparse::cli {

int run_query_command(int argc, char** argv);
int run_check_command(int argc, char** argv);
int run_diff_command(int argc, char** argv);
int run_mcp_command(int argc, char** argv);
int run_graph_command(int argc, char** argv);

} // namespace tlparse::cli
