// See report_folder.h.
#include "cli/report_folder.h"

#include "report/output_folder.h"
#include "tlparse/index/index_reader.h"
#include "tlparse/report/render.h"

#include <algorithm>
#include <cerrno>
#include <map>
#include <system_error>
#include <unistd.h>
#include <vector>

namespace tlparse::cli {
namespace {

namespace fs = std::filesystem;

bool exists_no_follow(const fs::path& p) {
  std::error_code ec;
  return fs::exists(fs::symlink_status(p, ec));
}

// Whether folders below OUT are real folders all the way down from OUT, asked once per folder:
// a folder is when its parent is and it is itself a folder, not a symlink. A symlink is never
// followed, even one pointing back inside OUT: the report's own folders are never symlinks (the
// render refuses to write through one), so a file under a symlink is not the previous report's.
class FoldersBelow {
public:
  explicit FoldersBelow(fs::path out) : out_(std::move(out)) {}

  bool real(const fs::path& folder) {
    if (folder == out_) {
      return true;
    }
    if (const auto known = known_.find(folder); known != known_.end()) {
      return known->second;
    }
    const fs::path parent = folder.parent_path();
    bool ok = false;
    if (parent != folder && folder.native().size() > out_.native().size()) {
      std::error_code ec;
      ok = real(parent) && fs::is_directory(fs::symlink_status(folder, ec));
    }
    known_.emplace(folder, ok);
    return ok;
  }

private:
  fs::path out_;
  std::map<fs::path, bool> known_;
};

} // namespace

fs::path normalised_output_path(const fs::path& out) {
  std::error_code ec;
  fs::path p = fs::absolute(out, ec).lexically_normal();
  while (p.has_filename() == false && p.has_parent_path() && p != p.root_path()) {
    p = p.parent_path(); // "out/" -> "out", "/x/." normalised to "/x/" -> "/x"
  }
  return p;
}

Result<std::unique_ptr<ReportFolder>> ReportFolder::prepare(const fs::path& out, bool overwrite) {
  std::unique_ptr<ReportFolder> f(new ReportFolder());
  f->out_ = normalised_output_path(out);
  if (f->out_ == f->out_.root_path() || f->out_.empty()) {
    return Error{"refusing to write a report into " + f->out_.string()};
  }
  const std::string pid = std::to_string(::getpid());
  std::error_code ec;
  const fs::file_status st = fs::status(f->out_, ec);
  if (!fs::exists(st)) {
    const fs::path parent = f->out_.parent_path();
    fs::create_directories(parent, ec);
    if (ec) {
      return Error{"cannot create " + parent.string() + ": " + ec.message()};
    }
    f->staging_ = parent / ("." + f->out_.filename().string() + ".tlparse-tmp-" + pid);
  } else {
    if (!overwrite) {
      return Error{"Directory " + out.string() +
                   " already exists; pass --overwrite to replace it or use -o OUTDIR"};
    }
    if (!fs::is_directory(st)) {
      return Error{out.string() + " exists and is not a folder; refusing to replace it"};
    }
    f->replacing_ = true;
    if (!fs::is_empty(f->out_, ec)) {
      const fs::path index = f->out_ / report::files::index;
      if (!fs::is_regular_file(index, ec)) {
        return Error{"Refusing to --overwrite " + out.string() +
                     ": it is not empty and holds no index.sqlite of a previous report, so "
                     "tlparse cannot tell which of its files are its own. Remove it yourself or "
                     "choose another -o"};
      }
      auto reader = index::IndexReader::open(index);
      if (!reader) {
        // An index this tlparse cannot read (another schema version, damage) cannot say which
        // files are the previous report's, and nothing is deleted on a guess.
        return Error{"Refusing to --overwrite " + out.string() + ": " + reader.error() +
                     ". Without it tlparse cannot tell which files of " + out.string() +
                     " are the previous report's: remove them yourself or choose another -o"};
      }
      auto previous = report::report_files(**reader);
      if (!previous) {
        return Error{"Refusing to --overwrite " + out.string() + ": " + previous.error()};
      }
      f->previous_.insert(previous->begin(), previous->end());
    }
    f->staging_ = f->out_ / (".tlparse-tmp-" + pid);
  }
  fs::remove_all(f->staging_, ec);
  if (!fs::create_directory(f->staging_, ec)) {
    return Error{"cannot create " + f->staging_.string() + ": " + ec.message()};
  }
  return f;
}

ReportFolder::~ReportFolder() {
  if (!committed_ && !staging_.empty()) {
    std::error_code ec;
    fs::remove_all(staging_, ec);
  }
}

Status ReportFolder::check_collisions(const fs::path& dir, const std::string& prefix) const {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string rel = prefix + entry.path().filename().string();
    const fs::path target = out_ / rel;
    if (!exists_no_follow(target) || previous_.count(rel) != 0) {
      continue;
    }
    const bool both_folders =
        entry.is_directory(ec) && !fs::is_symlink(target, ec) && fs::is_directory(target, ec);
    if (!both_folders) {
      return Error{"the new report would replace " + target.string() +
                   ", which is not a file of the previous report; nothing was changed"};
    }
    if (Status s = check_collisions(entry.path(), rel + "/"); !s) {
      return s;
    }
  }
  if (ec) {
    return Error{dir.string() + ": " + ec.message()};
  }
  return {};
}

Status ReportFolder::move_into(const fs::path& from, const fs::path& to) {
  std::error_code ec;
  std::vector<fs::path> entries;
  for (const auto& entry : fs::directory_iterator(from, ec)) {
    entries.push_back(entry.path());
  }
  for (const fs::path& entry : entries) {
    const fs::path target = to / entry.filename();
    if (!exists_no_follow(target)) {
      fs::rename(entry, target, ec);
    } else if (fs::is_directory(entry, ec) && fs::is_directory(target, ec)) {
      if (Status s = move_into(entry, target); !s) {
        return s;
      }
      fs::remove(entry, ec);
    } else {
      return Error{"cannot move the report into place: " + target.string() + " is in the way"};
    }
    if (ec) {
      return Error{"cannot move the report into " + to.string() + ": " + ec.message()};
    }
  }
  return {};
}

Status ReportFolder::commit() {
  std::error_code ec;
  if (!replacing_) {
    fs::rename(staging_, out_, ec);
    if (ec) {
      return Error{"cannot move the report into " + out_.string() + ": " + ec.message()};
    }
    committed_ = true;
    return {};
  }
  // Nothing is deleted unless every new file has a place.
  if (Status s = check_collisions(staging_, ""); !s) {
    return s;
  }
  const std::string staging_name = staging_.filename().string();
  std::set<fs::path, std::greater<>> emptied; // deepest folders first
  FoldersBelow folders(out_);
  for (const std::string& rel : previous_) {
    // The list comes from an index, which may have been tampered with: only safe relative
    // paths, resolving inside OUT, never the staging folder, never a folder.
    if (!report::detail::OutputFolder::is_safe_relative_path(rel) ||
        rel.substr(0, rel.find('/')) == staging_name) {
      continue;
    }
    const fs::path p = out_ / rel;
    const fs::file_status st = fs::symlink_status(p, ec);
    if (!fs::exists(st) || fs::is_directory(st)) {
      continue;
    }
    const fs::path parent = p.parent_path();
    if (!folders.real(parent)) {
      continue;
    }
    if (::unlink(p.c_str()) != 0 && errno != ENOENT) {
      return Error{"cannot remove " + p.string() +
                   " of the previous report: " + std::generic_category().message(errno)};
    }
    for (fs::path d = parent; d != out_ && d.has_relative_path(); d = d.parent_path()) {
      if (!emptied.insert(d).second) {
        break; // its parents are in the set already
      }
    }
  }
  for (const fs::path& d : emptied) {
    ::rmdir(d.c_str()); // only succeeds on a folder left empty
  }
  if (Status s = move_into(staging_, out_); !s) {
    return s;
  }
  fs::remove(staging_, ec);
  committed_ = true;
  return {};
}

} // namespace tlparse::cli
