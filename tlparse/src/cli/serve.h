// `tlparse LOG --serve [--port N] [--host H]` (docs/TLPARSE-SERVE.md): a small HTTP server over
// the report of an index, rendering each page when it is first asked for
// (tlparse/report/on_demand.h). It binds 127.0.0.1 unless told otherwise, answers GET and HEAD
// for the report's own file names only (anything else, `..` included, is a 404), and stops on
// Ctrl-C.
#pragma once

#include "tlparse/result.h"

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace tlparse::report {
struct RenderOptions;
}

namespace tlparse::cli {

struct ServeRequest {
  std::filesystem::path index;
  std::string host = "127.0.0.1";
  std::optional<std::uint16_t> port; // default: the first free one of 8000-8099
  const std::atomic<bool>* stop = nullptr;
};

// Serves until `stop` is set; returns the exit status (1 when the server cannot start).
int serve_report(const ServeRequest& request, const report::RenderOptions& options);

// The same over a multi-rank index (`tlparse render INDEX --all-ranks-html --serve`,
// report::OnDemandRanks): the landing page and any rank's pages, each rendered when first asked
// for. `raw_logs`: the folder of rank logs for raw.log, or empty.
int serve_all_ranks(const ServeRequest& request, const report::RenderOptions& options,
                    const std::filesystem::path& raw_logs);

// The file holding a report path (rendered now if need be), nullopt for a path the report does
// not have, or an error when the index cannot be read.
using PageSource =
    std::function<Result<std::optional<std::filesystem::path>>(const std::string& relative)>;

// The server loop over any source of pages.
int serve_pages(const ServeRequest& request, const PageSource& pages);

// The report path a request target names: "/" is index.html, %XX is decoded, the query is
// dropped; nullopt for a target that is not a plain relative path (absolute after decoding,
// `..` or `.` segments, empty segments, backslashes, control bytes).
std::optional<std::string> report_path_of(const std::string& target);

} // namespace tlparse::cli
