// Two runs compared (`tlparse diff A B`): frames matched by code location and order, their
// compiles by order, and what changed: frames added or gone, compiles and recompiles, recompile
// reasons and graph breaks that appeared or vanished, graphs and guards (a line diff of the
// payloads), compile time per phase, cache hits and misses, failures.
#pragma once

#include "tlparse/answers/run_facts.h"

#include <string>
#include <string_view>
#include <vector>

namespace tlparse::answers {

// A unified line diff: lines starting with ' ', '-' or '+', hunks headed "@@ -a,n +b,m @@".
struct LineDiff {
  std::vector<std::string> lines;
  int64_t removed = 0, added = 0;
  bool truncated = false; // more than max_lines: cut
};
// Common prefix and suffix trimmed, then a longest-common-subsequence diff of what is left (when
// it is small enough; else the whole middle is shown as replaced).
LineDiff diff_lines(std::string_view a, std::string_view b, size_t context = 2,
                    size_t max_lines = 400);

struct CompileDiff {
  std::string a, b; // compile ids; empty when the compile is only in the other run
  const CompileFacts* fa = nullptr;
  const CompileFacts* fb = nullptr;
  std::vector<std::string> reasons_appeared, reasons_vanished;
  std::optional<LineDiff> graph, guards; // set when both logged it and the text differs
  bool changed = false;
};

struct FrameDiff {
  std::string location;
  std::optional<int64_t> a_frame, b_frame;
  int64_t a_compiles = 0, b_compiles = 0;
  std::vector<CompileDiff> compiles;
  bool changed = false;
};

struct BreakChange {
  std::string reason, location;
  int64_t a_count = 0, b_count = 0;
};

struct RunDiff {
  const RunFacts* a = nullptr;
  const RunFacts* b = nullptr;
  std::vector<std::string> frames_added, frames_gone;    // locations
  std::vector<FrameDiff> frames;                         // matched frames, in A's order
  std::vector<BreakChange> graph_breaks;                 // distinct breaks whose count changed
  std::vector<std::string> new_failures, fixed_failures; // "[1/0] f (m.py:3): TypeError"
};

// Seconds with three decimals, or `missing` when not logged.
std::string format_seconds(const std::optional<double>& s, const char* missing = "-");
// B - A in seconds, signed ("+0.568"), with the relative change when asked ("+0.568 (+24%)");
// empty when either is missing.
std::string format_delta(const std::optional<double>& a, const std::optional<double>& b,
                         bool relative = true);

// Compares two runs; payload text for graph and guard diffs is read from the readers.
Result<RunDiff> diff_runs(const index::IndexReader& ra, const RunFacts& a,
                          const index::IndexReader& rb, const RunFacts& b);

} // namespace tlparse::answers
