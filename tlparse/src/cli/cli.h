// The tlparse command line: the tlparse 0.4.3 interface (PATH, -o/--out, --overwrite, --latest,
// --strict, ...) plus the `index`, `render`, `query`, `check`, `diff`, `mcp` and `run` subcommands.
// Returns the process exit code.
#pragma once

namespace tlparse::cli {

int run(int argc, char** argv);

// `tlparse run [OPTIONS] -- CMD [ARGS]...` (cli/run_command.cpp): runs the workload with a fresh
// TORCH_TRACE folder, then `run`s the report of its logs. argv[0] is "run".
int run_run_command(int argc, char** argv);

} // namespace tlparse::cli
