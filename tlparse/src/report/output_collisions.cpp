// See output_collisions.h. Sorted paths make both questions cheap: "is P also a folder?" is one
// lower_bound for P + "/", so the whole pass is O(n log n) with one string_view per output.
#include "report/output_collisions.h"

#include "report/output_folder.h"
#include "tlparse/report/render.h"

#include <algorithm>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

namespace tlparse::report::detail {
namespace {

bool is_reserved(std::string_view path) {
  return std::find(std::begin(files::all), std::end(files::all), path) != std::end(files::all);
}

// The first reserved file that `path` is, or needs as a folder ("index.html/x").
bool touches_reserved(std::string_view path) {
  for (const std::string_view r : files::all) {
    if (path == r || (path.size() > r.size() && path.starts_with(r) && path[r.size()] == '/')) {
      return true;
    }
  }
  return false;
}

class PathSet {
public:
  void add(std::string_view p) { sorted_.push_back(p); }
  void seal() {
    std::sort(sorted_.begin(), sorted_.end());
    sorted_.erase(std::unique(sorted_.begin(), sorted_.end()), sorted_.end());
  }
  bool has_file(std::string_view p) const {
    return std::binary_search(sorted_.begin(), sorted_.end(), p) || extra_.count(p) != 0;
  }
  // Some path lies under `p` + "/".
  bool has_folder(std::string_view p) const {
    const std::string probe = std::string(p) + "/";
    const auto it = std::lower_bound(sorted_.begin(), sorted_.end(), std::string_view(probe));
    if (it != sorted_.end() && it->starts_with(probe)) {
      return true;
    }
    const auto e = extra_.lower_bound(probe);
    return e != extra_.end() && e->starts_with(probe);
  }
  bool taken(std::string_view p) const { return has_file(p) || has_folder(p) || is_reserved(p); }
  void add_extra(std::string p) { extra_.insert(std::move(p)); }

private:
  std::vector<std::string_view> sorted_;
  std::set<std::string, std::less<>> extra_; // names given by this pass
};

// `path` with `_collision<N>` before the extension of its last segment, the first N free. Only the
// last segment changes, and its folders are folders in the final layout (a file that is also a
// folder is itself renamed), so some N is always free.
std::string free_name(std::string_view path, const PathSet& paths) {
  const std::size_t slash = path.rfind('/');
  const std::size_t seg = slash == std::string_view::npos ? 0 : slash + 1;
  std::size_t dot = path.rfind('.');
  if (dot == std::string_view::npos || dot <= seg) {
    dot = path.size();
  }
  constexpr std::size_t kMaxSegment = 255; // what the output folder (and the file system) accept
  for (std::size_t n = 1;; ++n) {
    const std::string suffix = "_collision" + std::to_string(n);
    std::string_view ext = path.substr(dot);
    if (suffix.size() + ext.size() > kMaxSegment / 2) {
      ext = {}; // an "extension" that long is no extension
    }
    // Cut the stem so that the renamed segment stays within the limit.
    const std::size_t stem_end = std::min(dot, seg + (kMaxSegment - suffix.size() - ext.size()));
    std::string candidate = std::string(path.substr(0, stem_end)) + suffix + std::string(ext);
    if (!paths.taken(candidate)) {
      return candidate;
    }
  }
}

// A new home for an output that touches one of the report's own files: `collisions/` and the
// path with its folders flattened ("index.html/x.html" -> "collisions/index.html_x.html"), in
// `collisions_<N>/` when some output is a file named `collisions`.
std::string moved_name(std::string_view path, const PathSet& paths) {
  std::string folder = "collisions";
  for (std::size_t n = 1; paths.has_file(folder); ++n) {
    folder = "collisions_" + std::to_string(n);
  }
  std::string flat(path);
  std::replace(flat.begin(), flat.end(), '/', '_');
  flat.resize(std::min<std::size_t>(flat.size(), 200)); // one segment now: keep it short
  const std::string candidate = folder + "/" + flat;
  return paths.taken(candidate) ? free_name(candidate, paths) : candidate;
}

} // namespace

std::size_t rename_colliding_outputs(std::vector<index::Output>& outputs) {
  PathSet paths;
  for (const std::string_view r : files::all) {
    paths.add(r);
  }
  const auto is_file = [](const index::Output& o) {
    return o.kind != index::OutputKind::link && OutputFolder::is_safe_relative_path(o.path);
  };
  for (const index::Output& o : outputs) {
    if (is_file(o)) {
      paths.add(o.path);
    }
  }
  paths.seal();
  // Decide every new name first (the set views the old paths), then apply them.
  std::unordered_map<std::string, std::string> renamed; // old path -> new path
  for (const index::Output& o : outputs) {
    if (!is_file(o) || renamed.count(o.path) != 0) {
      continue;
    }
    std::string target;
    if (touches_reserved(o.path)) {
      target = moved_name(o.path, paths);
    } else if (paths.has_folder(o.path)) {
      target = free_name(o.path, paths);
    } else {
      continue;
    }
    paths.add_extra(target);
    renamed.emplace(o.path, std::move(target));
  }
  std::size_t count = 0;
  for (index::Output& o : outputs) {
    if (!is_file(o)) {
      continue;
    }
    const auto it = renamed.find(o.path);
    if (it != renamed.end()) {
      o.path = it->second;
      ++count;
    }
  }
  return count;
}

} // namespace tlparse::report::detail
