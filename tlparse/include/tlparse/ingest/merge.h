// `tlparse merge`: per-rank indexes, each written where its log is (`tlparse index` on every
// node), joined into one index that reads as if every log had been ingested by one process
// (docs/TLPARSE-MULTI-RANK.md, "Indexing where the logs are"). Ids are moved so they do not
// collide, payloads stay stored once by content, every row and data-health counter is kept.
// Indexes come from many machines and may be anything: each is checked on its own (an index of
// ours, of this schema version, undamaged, every id pointing at its own rows) and a bad one is
// reported and skipped, the others merged.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace tlparse::ingest {

struct MergeOptions {
  // The file the output will replace once written (the caller writes beside it and renames):
  // an input that is this file is refused, as is the output itself.
  std::filesystem::path replaces;
  // Also build the full-text search table of payloads (as `tlparse index --fts`).
  bool search_table = false;
  // Polled between indexes: once true the merge stops and no output is left.
  const std::atomic<bool>* cancel = nullptr;
  // Called after each input with how many were handled and their number.
  std::function<void(std::uint64_t done, std::uint64_t total)> on_progress;
};

// What became of one input index.
struct MergedPart {
  std::filesystem::path path;
  bool merged = false;
  std::string problem;         // why it was skipped (when !merged)
  std::int64_t files = 0;      // log files it held
  std::int64_t first_file = 0; // the id its first file has in the merged index
};

struct MergeResult {
  bool ok = false;   // the output was written (at least one input merged)
  std::string error; // when !ok
  bool cancelled = false;
  std::vector<MergedPart> parts; // in input order
  std::int64_t files = 0;        // log files of the merged index
  // Each data-health counter summed over every file of the merged index, in counter order; only
  // counters that are not zero.
  std::vector<std::pair<std::string, std::int64_t>> health_totals;
};

// Creates (replacing) the index at `output` from `inputs`, in their order: the files of the
// first input come first. No output is left when nothing could be merged, on cancel or on an
// I/O error.
MergeResult merge_indexes(const std::vector<std::filesystem::path>& inputs,
                          const std::filesystem::path& output, const MergeOptions& options);

} // namespace tlparse::ingest
