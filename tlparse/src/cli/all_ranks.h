// `tlparse DIR --all-ranks-html` (docs/TLPARSE-MULTI-RANK.md): every rank's log of a folder
// ingested in parallel into one index, each rank's report under rank_<N>/, and the landing page
// that compares the ranks (tlparse/report/multi_rank.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace tlparse::cli {

struct AllRanksRequest {
  std::filesystem::path input; // the folder of rank logs
  std::filesystem::path out;
  bool overwrite = false, strict = false, verbose = false, plain_text = false, provenance = false;
  std::string custom_header_html;
  const std::atomic<bool>* cancel = nullptr;
  // --serve: after the ingest, serve the report (pages rendered when asked for) instead of
  // writing it; OUT keeps the index.
  bool serve = false;
  std::string host;
  std::optional<std::uint16_t> port;
};

// `tlparse render INDEX --all-ranks-html`: the same report from an index that already holds every
// rank (one written by `tlparse merge` of per-rank indexes, or by an earlier run); rank N is the
// file whose log was named ..._rank_<N>..., else the rank its events logged.
struct AllRanksOfIndexRequest {
  std::filesystem::path index;
  std::filesystem::path out;
  // The folder of rank logs, for each rank's raw.log (looked up by the log's file name); empty:
  // raw.log is not written.
  std::filesystem::path raw_logs;
  bool overwrite = false, plain_text = false, provenance = false;
  std::string custom_header_html;
  const std::atomic<bool>* cancel = nullptr;
};

int render_all_ranks_of_index(const AllRanksOfIndexRequest& request,
                              std::filesystem::path& landing);

// Runs the whole mode; prints tlparse's messages and returns the exit status (0 or 1). `index`
// receives the landing page's path on success (for opening a browser).
int run_all_ranks(const AllRanksRequest& request, std::filesystem::path& landing);

} // namespace tlparse::cli
