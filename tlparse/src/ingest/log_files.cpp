// See log_files.h.
#include "tlparse/ingest/log_files.h"

#include <algorithm>
#include <optional>

namespace tlparse::ingest {
namespace {

namespace fs = std::filesystem;

struct Candidate {
  fs::path path;
  fs::file_time_type time;
  bool is_log = false;
};

// The regular files directly in `folder` (symlinks followed to their target's type).
Result<std::vector<Candidate>> regular_files(const fs::path& folder) {
  std::vector<Candidate> out;
  std::error_code ec;
  fs::directory_iterator it(folder, ec);
  if (ec) {
    return Error{folder.string() + ": " + ec.message()};
  }
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) {
      return Error{folder.string() + ": " + ec.message()};
    }
    std::error_code e2;
    if (!it->is_regular_file(e2)) {
      continue;
    }
    const auto t = it->last_write_time(e2);
    if (e2) {
      continue;
    }
    out.push_back(Candidate{it->path(), t, is_log_name(it->path().filename().string())});
  }
  return out;
}

} // namespace

Result<std::vector<fs::path>> find_logs(const fs::path& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) {
    return Error{path.string() + ": no such file or folder"};
  }
  if (fs::is_regular_file(st)) {
    return std::vector<fs::path>{path};
  }
  if (!fs::is_directory(st)) {
    return Error{path.string() + " is not a file"};
  }
  auto files = regular_files(path);
  if (!files) {
    return Error{files.error()};
  }
  std::vector<fs::path> logs;
  for (const Candidate& c : *files) {
    if (c.is_log) {
      logs.push_back(c.path);
    }
  }
  if (logs.empty()) {
    return Error{"No log files (*.log, *.log.gz) found in directory " + path.string()};
  }
  std::sort(logs.begin(), logs.end());
  return logs;
}

Result<fs::path> newest_log(const fs::path& folder) {
  auto files = regular_files(folder);
  if (!files) {
    return Error{files.error()};
  }
  const Candidate* best = nullptr;
  for (const Candidate& c : *files) {
    const bool better = best == nullptr || (c.is_log && !best->is_log) ||
                        (c.is_log == best->is_log &&
                         (c.time > best->time || (c.time == best->time && c.path > best->path)));
    if (better) {
      best = &c;
    }
  }
  if (best == nullptr) {
    return Error{"No files found in directory " + folder.string()};
  }
  return best->path;
}

bool is_log_name(std::string_view name) {
  return name.ends_with(".log") || name.ends_with(".log.gz");
}

std::optional<std::uint32_t> rank_of_log_name(std::string_view name) {
  constexpr std::string_view prefix = "dedicated_log_torch_trace_rank_";
  std::string_view rest = name;
  if (!rest.starts_with(prefix)) {
    return std::nullopt;
  }
  rest.remove_prefix(prefix.size());
  if (rest.ends_with(".log.gz")) {
    rest.remove_suffix(3);
  }
  if (!rest.ends_with(".log")) {
    return std::nullopt;
  }
  rest.remove_suffix(4);
  rest = rest.substr(0, rest.find('_'));
  if (rest.starts_with('+')) {
    rest.remove_prefix(1);
  }
  if (rest.empty() || rest.size() > 10) {
    return std::nullopt;
  }
  std::uint64_t value = 0;
  for (const char c : rest) {
    if (c < '0' || c > '9') {
      return std::nullopt;
    }
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (value > UINT32_MAX) {
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(value);
}

} // namespace tlparse::ingest
