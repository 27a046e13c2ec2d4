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
// folder is itself renamed), so some N is always free. `taken(p)`: p is a file or a folder of the
// final layout, or a reserved name.
template <class Taken>
std::string free_name(std::string_view path, const Taken& taken) {
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
    if (!taken(candidate)) {
      return candidate;
    }
  }
}

// A new home for an output that touches one of the report's own files: `collisions/` and the
// path with its folders flattened ("index.html/x.html" -> "collisions/index.html_x.html"), in
// `collisions_<N>/` when some output is a file named `collisions`. `is_file(p)`: p is a file.
template <class IsFile, class Taken>
std::string moved_name(std::string_view path, const IsFile& is_file, const Taken& taken) {
  std::string folder = "collisions";
  for (std::size_t n = 1; is_file(folder); ++n) {
    folder = "collisions_" + std::to_string(n);
  }
  std::string flat(path);
  std::replace(flat.begin(), flat.end(), '/', '_');
  flat.resize(std::min<std::size_t>(flat.size(), 200)); // one segment now: keep it short
  const std::string candidate = folder + "/" + flat;
  return taken(candidate) ? free_name(candidate, taken) : candidate;
}

// The new name of a colliding `path` (touches_reserved, or a file that is also a folder).
template <class IsFile, class Taken>
std::string new_name(std::string_view path, const IsFile& is_file, const Taken& taken) {
  return touches_reserved(path) ? moved_name(path, is_file, taken) : free_name(path, taken);
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
    if (!touches_reserved(o.path) && !paths.has_folder(o.path)) {
      continue;
    }
    std::string target = new_name(
        o.path, [&](std::string_view p) { return paths.has_file(p); },
        [&](std::string_view p) { return paths.taken(p); });
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

void OutputPlan::apply(index::Output& o) const {
  if (renamed.empty() || o.kind == index::OutputKind::link) {
    return;
  }
  const auto it = renamed.find(o.path);
  if (it != renamed.end()) {
    o.path = it->second;
  }
}

bool OutputPlan::is_overwritten(std::int64_t seq) const {
  return std::binary_search(overwritten.begin(), overwritten.end(), seq);
}

Result<OutputPlan> plan_outputs(const index::IndexReader& reader, std::int64_t file_id) {
  OutputPlan plan;
  // Pass 1, over the sorted distinct paths: which are also folders, and which are written twice.
  // A path's folder contents follow it in byte order, though not always next to it ("a", "a.b",
  // "a/c"); every path that is a prefix of the current one is on `chain` (a path between a
  // prefix and the current one has that prefix too), so "is a prefix of Q, at a '/' of Q, a
  // path?" is a search of `chain` by length.
  struct Link {
    std::string path;
    std::int64_t first_seq = 0;
    bool folder = false;
  };
  std::vector<Link> chain;
  std::vector<std::pair<std::int64_t, std::string>> colliding; // (first seq, path)
  bool rewritten = false;
  const auto settle = [&](Link& l) {
    if (l.folder || touches_reserved(l.path)) {
      colliding.emplace_back(l.first_seq, std::move(l.path));
    }
  };
  Status st = reader.for_each_output_path(file_id, [&](const index::IndexReader::OutputPath& p) {
    rewritten = rewritten || p.writers > 1;
    if (!OutputFolder::is_safe_relative_path(p.path)) {
      return true; // never written, so never in the way
    }
    while (!chain.empty() && !std::string_view(p.path).starts_with(chain.back().path)) {
      settle(chain.back());
      chain.pop_back();
    }
    for (std::size_t i = p.path.find('/'); i != std::string::npos; i = p.path.find('/', i + 1)) {
      const auto it =
          std::lower_bound(chain.begin(), chain.end(), i,
                           [](const Link& l, std::size_t n) { return l.path.size() < n; });
      if (it != chain.end() && it->path.size() == i) {
        it->folder = true;
      }
    }
    chain.push_back(Link{p.path, p.first_seq, false});
    return true;
  });
  if (!st) {
    return Error{st.error()};
  }
  while (!chain.empty()) {
    settle(chain.back());
    chain.pop_back();
  }
  if (rewritten) {
    auto seqs = reader.overwritten_outputs(file_id);
    if (!seqs) {
      return Error{seqs.error()};
    }
    plan.overwritten = std::move(seqs).value();
  }
  if (colliding.empty()) {
    return plan;
  }
  // Pass 2: new names, in the order the outputs were produced (as rename_colliding_outputs).
  std::sort(colliding.begin(), colliding.end());
  std::set<std::string, std::less<>> given; // names given by this pass
  std::string error;
  // Only the paths the report writes (safe ones) take a name, as in rename_colliding_outputs.
  const auto exists = [&](std::string_view p, bool as_folder) {
    bool found = false;
    const Status read =
        reader.for_each_output_path_at(file_id, p, as_folder, [&](std::string_view at) {
          found = OutputFolder::is_safe_relative_path(at);
          return !found;
        });
    if (!read) {
      error = read.error();
      return true; // stops the search for a free name; the error is returned below
    }
    return found;
  };
  const auto is_file = [&](std::string_view p) {
    return given.count(p) != 0 || is_reserved(p) || exists(p, false);
  };
  const auto taken = [&](std::string_view p) {
    if (is_file(p)) {
      return true;
    }
    const std::string probe = std::string(p) + "/";
    const auto e = given.lower_bound(probe);
    return (e != given.end() && e->starts_with(probe)) || exists(p, true);
  };
  for (auto& [seq, path] : colliding) {
    std::string target = new_name(path, is_file, taken);
    if (!error.empty()) {
      return Error{error};
    }
    given.insert(target);
    plan.renamed.emplace(std::move(path), std::move(target));
  }
  // How many outputs moved: each renamed path counts every output writing it.
  st = reader.for_each_output_path(file_id, [&](const index::IndexReader::OutputPath& p) {
    if (plan.renamed.count(p.path) != 0) {
      plan.renamed_outputs += static_cast<std::size_t>(p.writers);
    }
    return true;
  });
  if (!st) {
    return Error{st.error()};
  }
  return plan;
}

} // namespace tlparse::report::detail
