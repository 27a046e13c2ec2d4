// The report rendered one file at a time, when it is asked for (`tlparse --serve`,
// docs/TLPARSE-SERVE.md): what the index holds is loaded once (compiles, outputs, metrics, stacks;
// the same load as render_report), then each page or file of the report is produced the first
// time it is requested, into a cache folder, byte for byte what render_report would write. A
// 1 GB log's report can so be browsed as soon as its index exists, without writing the whole
// report first.
#pragma once

#include "tlparse/report/render.h"
#include "tlparse/result.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tlparse::report {

class OnDemandReport {
public:
  // Opens `index` (read-only) and loads the file options.file_id of it; pages are written under
  // `cache_dir`, which must be a folder of its own (created if missing).
  static Result<std::unique_ptr<OnDemandReport>> open(const std::filesystem::path& index,
                                                      const RenderOptions& options,
                                                      const std::filesystem::path& cache_dir);
  ~OnDemandReport();
  OnDemandReport(const OnDemandReport&) = delete;
  OnDemandReport& operator=(const OnDemandReport&) = delete;

  // The cached file holding the report's `relative` path (rendered now if it was not yet), or
  // nullopt when the report has no such file: only the report's own names are answered, so no
  // request reaches a path outside the cache.
  Result<std::optional<std::filesystem::path>> file(const std::string& relative);

private:
  struct Impl;
  explicit OnDemandReport(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The multi-rank report served the same way (`tlparse render INDEX --all-ranks-html --serve`):
// the landing page and the cross-rank files are computed from the index at the first request
// for one of them, and a rank's pages are rendered when asked for by an OnDemandReport of that
// rank, opened then (a few are kept open; the others' pages stay in the cache). Nothing is
// written for a rank nobody looks at, so a merged index of a thousand ranks is browsable at
// once. The combined chromium_events.json of a written report is not served (each rank's own
// is).
class OnDemandRanks {
public:
  // `options` apply to every rank's pages; `raw_logs` is the folder of rank logs for raw.log
  // (looked up by file name; empty: raw.log is not served).
  static Result<std::unique_ptr<OnDemandRanks>> open(const std::filesystem::path& index,
                                                     const RenderOptions& options,
                                                     const std::filesystem::path& raw_logs,
                                                     const std::filesystem::path& cache_dir);
  ~OnDemandRanks();
  OnDemandRanks(const OnDemandRanks&) = delete;
  OnDemandRanks& operator=(const OnDemandRanks&) = delete;

  // As OnDemandReport::file, over the whole multi-rank report (`rank_<N>/...` is rank N's).
  Result<std::optional<std::filesystem::path>> file(const std::string& relative);
  // Ranks served, and what their files said (a file without a rank, a rank with two files).
  std::size_t rank_count() const;
  const std::vector<std::string>& warnings() const;

private:
  struct Impl;
  explicit OnDemandRanks(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace tlparse::report
