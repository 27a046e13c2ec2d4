// Where tests find their data: the repository, the build tree, and the shared corpus (the logs and
// tlparse 0.4.3's reference outputs), which may be absent; tests then skip, saying so.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace test_support {

std::filesystem::path source_dir();
std::filesystem::path binary_dir();
// The shared corpus (docs/BUILDING.md, "Test data"), or nullopt (and a printed notice) when it
// is absent.
std::optional<std::filesystem::path> shared_dir();
// Every *.log / *.txt trace file under `root`, recursively, sorted for a stable order.
std::vector<std::filesystem::path> trace_files_under(const std::filesystem::path& root);
// A fresh empty temporary folder, removed when the object dies.
class TempDir {
public:
  explicit TempDir(const std::string& prefix = "torchscope-test");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

private:
  std::filesystem::path path_;
};
std::string read_file(const std::filesystem::path& p);

} // namespace test_support

// Marks a test as skipped with a reason (Catch2 v2 has no SKIP): prints and returns.
#define TORCHSCOPE_SKIP(reason)                                                                    \
  do {                                                                                             \
    WARN("SKIPPED: " << reason);                                                                   \
    return;                                                                                        \
  } while (false)
