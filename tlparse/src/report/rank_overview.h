// The multi-rank landing page's view for many ranks (docs/TLPARSE-MULTI-RANK.md, "Reading a
// thousand ranks"): the ranks that stand out first (the one that compiled longest, those that
// recompiled or missed the cache where most did not, the first compile at which a rank's
// sequence left the others'), a straggler chart of compile time per rank (inline SVG, no
// script), ranks grouped by what they did, smallest groups first, and the ranks' links as
// compact lines. Only our landing page shows it: no file tlparse 0.4.3 writes changes.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace tlparse::report::detail {

// What one rank did, as the overview compares it.
struct RankSummary {
  std::uint32_t rank = 0;
  double compile_seconds = 0;    // entire_frame_compile_time_s summed over its compiles
  bool has_compile_time = false; // some compile logged one
  std::int64_t compiles = 0;
  std::int64_t recompiles = 0; // compiles with frame_compile_id > 0
  std::int64_t cache_misses = 0;
  std::int64_t failures = 0;
  std::vector<std::string> compile_sequence; // compile ids in first-seen order
  std::string cache_sequence;                // cache suffixes by output number
  std::string collectives;                   // scheduled collective ops, joined
};

// "0-511, 513, 515-1023": sorted ranks with runs collapsed.
std::string rank_ranges(const std::vector<std::uint32_t>& ranks);

// The outliers, the straggler chart and the groups, as HTML sections (everything from the
// index escaped).
void write_rank_overview(std::string& page, const std::vector<RankSummary>& ranks);

// The links to each rank's report (and its collectives parity): a list for a few ranks, compact
// lines of numbers for many.
void write_rank_links(std::string& page, const std::vector<std::uint32_t>& ranks);

} // namespace tlparse::report::detail
