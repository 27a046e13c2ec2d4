// The multi-rank report (`tlparse --all-ranks-html`, docs/TLPARSE-MULTI-RANK.md): the landing page
// over every rank and the files tlparse 0.4.3 writes beside it (the combined chromium events,
// runtime_estimations.json, chromium_trace_with_runtime.json, collective_schedules.json and each
// rank's collectives_parity.json), with the divergence checks across ranks: compile-id sets, cache
// hit/miss sequences, collective schedules, tensor metadata, runtime estimates and graph execution
// order.
//
// Everything is computed from one index holding every rank's log (the read API): nothing is read
// back from the rank folders, so the result does not depend on the order the file system lists
// them (tlparse 0.4.3's did). Each rank's own report is rendered by render_report() into
// `rank_<N>/` before this runs.
#pragma once

#include "tlparse/index/schema.gen.h"
#include "tlparse/result.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tlparse::index {
class IndexReader;
} // namespace tlparse::index

namespace tlparse::report {

namespace files {
inline constexpr const char* collectives_parity = "collectives_parity.json"; // in each rank_<N>/
inline constexpr const char* runtime_estimations = "runtime_estimations.json";
inline constexpr const char* runtime_trace = "chromium_trace_with_runtime.json";
inline constexpr const char* collective_schedules = "collective_schedules.json";
} // namespace files

// One rank of the report: the rank named by its log's file name and the file id in the index.
struct RankFile {
  std::uint32_t rank = 0;
  std::int64_t file_id = 0;
};

// The ranks of an index's files, sorted by rank: a file's rank is the one its log's name gives
// (dedicated_log_torch_trace_rank_<N>...), else the first rank its events logged. Files with
// neither, and a second file of a rank already taken (the first in file order is kept), are
// left out with a line in `warnings`.
std::vector<RankFile> ranks_of_files(const std::vector<index::File>& files,
                                     std::vector<std::string>& warnings);

// The log of `file` in `dir` (the folder of rank logs, for raw.log), looked up by the file's
// stored name only when that name is one plain path segment, or empty. A path stored in an
// index is never read: the index may come from anyone, and a name such as ../../.ssh/id_rsa
// reads nothing.
std::filesystem::path rank_log_in(const std::filesystem::path& dir, const index::File& file);

// `rank_<N>` (the folder of rank N's own report).
std::string rank_folder(std::uint32_t rank);

struct MultiRankOptions {
  // --custom-header-html, trusted (it comes from the command line).
  std::string custom_header_html;
  // The order to read each rank's compile folders in: these names first, in this order, then the
  // others by name. tlparse 0.4.3 used its file system's listing order (which decides the order
  // of graphs in the cross-rank files); passing that order reproduces its files byte for byte.
  std::vector<std::string> folder_order;
  // One file per rank, in `ranks` order, written by each rank's render
  // (RenderOptions::combined_chromium_part): the combined chromium_events.json is their
  // concatenation, and they are removed. Empty (a landing re-rendered for its cross-rank files
  // alone, as the compatibility test does): no combined chromium_events.json is written.
  std::vector<std::filesystem::path> chromium_parts;
};

// One group of ranks that agree with each other on a checked sequence.
struct RankGroup {
  std::vector<std::uint32_t> ranks;
  std::string signature; // what they share (cache suffixes, joined ops, ...)
};

// What the checks found; the landing page shows it and the CLI prints its summary.
struct MultiRankFindings {
  bool compile_id_divergence = false;
  std::vector<RankGroup> cache_groups;       // more than one group: divergence
  std::vector<RankGroup> collective_groups;  // idem
  std::vector<RankGroup> tensor_meta_groups; // idem
  bool has_runtime = false;
  bool runtime_graph_counts_differ = false;
  bool has_chromium_events = false;
  bool exec_order_available = false;
  bool exec_order_differs = false;
  std::vector<std::uint32_t> exec_schedule_mismatch_ranks, exec_cache_mismatch_ranks;
  bool any_divergence() const;
};

struct MultiRankResult {
  bool ok = false;
  std::string error;
  MultiRankFindings findings;
  std::vector<std::string> written;  // relative paths of the files written, in order
  std::vector<std::string> warnings; // artifacts that could not be read (skipped, never fatal)
};

// Every file the landing may write for these ranks (what --overwrite may delete).
std::vector<std::string> multi_rank_landing_files(const std::vector<std::uint32_t>& ranks);

// Writes the landing page and the cross-rank files into `out_dir`; `ranks` sorted by rank.
MultiRankResult render_multi_rank_landing(const tlparse::index::IndexReader& reader,
                                          const std::vector<RankFile>& ranks,
                                          const MultiRankOptions& options,
                                          const std::filesystem::path& out_dir);

} // namespace tlparse::report
