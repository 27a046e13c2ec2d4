// Opening the report in a browser at the end of a run, as tlparse does by default
// (docs/TLPARSE-INGEST.md, "Command line"): only when someone is there to see it, so never in
// tests, CI or scripts.
#pragma once

#include <filesystem>
#include <string>

namespace tlparse::cli {

// True when a browser should be opened: no --no-browser, a graphical display (DISPLAY or
// WAYLAND_DISPLAY), stdout a terminal (a person ran the command), and not CI (the CI variable
// unset).
bool browser_wanted(bool no_browser);

// Starts `xdg-open <page>` in the background (its output discarded) and returns at once. A
// missing xdg-open is a warning in `warning`, never an error: the report is written anyway.
bool open_in_browser(const std::filesystem::path& page, std::string& warning);

} // namespace tlparse::cli
