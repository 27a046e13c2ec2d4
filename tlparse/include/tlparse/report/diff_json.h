// Two runs' comparison (answers/run_diff.h) as the JSON document `tlparse diff --format json`
// writes and the MCP server's `diff` tool returns: one writer for both.
#pragma once

#include "tlparse/answers/run_diff.h"

#include <string>

namespace tlparse::report {

// One comparison of log `a_name` with log `b_name`; every string is made valid UTF-8.
std::string diff_json(const answers::RunDiff& d, const std::string& a_name,
                      const std::string& b_name);

} // namespace tlparse::report
