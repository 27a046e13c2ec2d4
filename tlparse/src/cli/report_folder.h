// Where a report is written, and how it replaces an earlier one. The rules (docs/TLPARSE-INGEST.md,
// "Output folder"):
//  - OUT may be written any way a shell writes a folder: `out`, `out/`, `.`, `../x`, a symlink.
//  - The new report is written into a staging folder first and moved into place only when it is
//    complete: an error, a refusal or Ctrl-C leaves OUT as it was and removes the staging folder.
//  - A missing OUT is created by renaming the staging folder (a sibling) into place.
//  - An existing OUT needs --overwrite, and then must be empty or hold a previous report with its
//    index.sqlite: that index lists every file the previous report wrote, and only those files
//    are deleted. Other files in OUT stay; a new file that would replace one of them stops the
//    run before anything is deleted.
#pragma once

#include "tlparse/result.h"

#include <filesystem>
#include <memory>
#include <set>
#include <string>

namespace tlparse::cli {

class ReportFolder {
public:
  // Checks OUT and creates the staging folder; nothing else is written or deleted yet.
  static Result<std::unique_ptr<ReportFolder>> prepare(const std::filesystem::path& out,
                                                       bool overwrite);
  ~ReportFolder(); // removes the staging folder unless commit() moved it into place
  ReportFolder(const ReportFolder&) = delete;
  ReportFolder& operator=(const ReportFolder&) = delete;

  // Where to write the new report.
  const std::filesystem::path& staging() const { return staging_; }
  const std::filesystem::path& out() const { return out_; }
  // Puts the complete report in place of OUT, deleting only the previous report's own files.
  Status commit();

private:
  ReportFolder() = default;
  Status check_collisions(const std::filesystem::path& dir, const std::string& prefix) const;
  Status move_into(const std::filesystem::path& from, const std::filesystem::path& to);

  std::filesystem::path out_;      // absolute, normalised
  std::filesystem::path staging_;  // a sibling of a new OUT, or a hidden folder inside an old one
  bool replacing_ = false;         // OUT exists
  std::set<std::string> previous_; // relative paths of the previous report's files
  bool committed_ = false;
};

// The absolute, normalised form of an output path: "out/" and "out" are the same folder, and "."
// is the current folder by its name.
std::filesystem::path normalised_output_path(const std::filesystem::path& out);

} // namespace tlparse::cli
