// The tlparse command line: the tlparse 0.4.3 interface (PATH, -o/--out, --overwrite, --latest,
// --strict, ...) plus the `index` and `render` subcommands. Returns the process exit code.
#pragma once

namespace tlparse::cli {

int run(int argc, char** argv);

} // namespace tlparse::cli
