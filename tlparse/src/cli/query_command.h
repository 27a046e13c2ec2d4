// The subcommands that answer questions from an index (docs/TLPARSE-INGEST.md, "Answers"):
// `tlparse query`, `tlparse check`, `tlparse diff`, `tlparse mcp`. Each takes argv after its own
// name and returns the process exit code (0 ok, 1 error or failed check, 2 usage).
#pragma once

#include "tlparse/answers/run_diff.h"

#include <string>

namespace tlparse::cli {

int run_query_command(int argc, char** argv);
int run_check_command(int argc, char** argv);
int run_diff_command(int argc, char** argv);
int run_mcp_command(int argc, char** argv);

// One comparison as `tlparse diff --format json` writes it (also the MCP server's diff tool).
std::string diff_json_report(const answers::RunDiff& d, const std::string& a_name,
                             const std::string& b_name);

} // namespace tlparse::cli
