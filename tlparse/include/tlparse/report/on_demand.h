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

} // namespace tlparse::report
