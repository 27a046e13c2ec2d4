#include "support/test_paths.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <unistd.h>

namespace test_support {

std::filesystem::path source_dir() {
  return TORCHSCOPE_SOURCE_DIR;
}
std::filesystem::path binary_dir() {
  return TORCHSCOPE_BINARY_DIR;
}

std::optional<std::filesystem::path> shared_dir() {
  std::filesystem::path p = TORCHSCOPE_SHARED_DIR;
  std::error_code ec;
  if (std::filesystem::is_directory(p / "corpus", ec)) {
    return p;
  }
  static std::atomic<bool> told{false};
  if (!told.exchange(true)) {
    std::fprintf(stderr, "note: %s is absent; tests over the shared corpus are skipped\n",
                 p.c_str());
  }
  return std::nullopt;
}

std::vector<std::filesystem::path> trace_files_under(const std::filesystem::path& root) {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(root, ec);
       it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) {
      break;
    }
    if (it->is_regular_file() &&
        (it->path().extension() == ".log" || it->path().extension() == ".txt")) {
      out.push_back(it->path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

TempDir::TempDir(const std::string& prefix) {
  static std::atomic<unsigned> counter{0};
  std::random_device rd;
  auto base = std::filesystem::temp_directory_path();
  for (;;) {
    path_ = base / (prefix + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) +
                    "-" + std::to_string(rd() % 100000));
    if (std::filesystem::create_directory(path_)) {
      break;
    }
  }
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace test_support
