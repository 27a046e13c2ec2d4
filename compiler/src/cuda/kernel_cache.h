// Internal: the on-disk cache of compiled GPU code. NVRTC takes tens to hundreds of
// milliseconds per kernel, and a program compiles the same kernels on every run, so each
// image is kept under a key made of everything that decides it: the source, the options,
// the target, and the NVRTC and driver versions (a new toolkit or driver recompiles).
//
// One file per entry, named by a 128-bit hash of the key, holding the whole key and the image
// with their lengths. A lookup reads the file and compares the key in full, so a hash
// collision, a truncated write or a foreign file is a miss (counted as corrupt) and never wrong
// code. Entries are written to a temporary file and renamed into place, so a reader never sees
// half an entry and concurrent writers of the same entry are harmless.
//
// Where: $TORCHSCOPE_CACHE_DIR/cuda, else $XDG_CACHE_HOME/torchscope/cuda, else
// $HOME/.cache/torchscope/cuda. TORCHSCOPE_CUDA_CACHE=0 turns it off.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace compiler::cuda {

class KernelCache {
public:
  // A cache in `dir` (made when first written); an empty path makes a cache that never hits
  // and never writes.
  explicit KernelCache(std::filesystem::path dir);

  // The process-wide cache at the default place (see above).
  static KernelCache& process_cache();

  const std::filesystem::path& dir() const noexcept { return dir_; }
  bool enabled() const noexcept { return !dir_.empty(); }

  // The image stored under `key`, or nullopt.
  std::optional<std::string> load(std::string_view key);
  // Stores `image` under `key`. A failure to write (a read-only folder, a full disk) is counted,
  // not thrown: the cache only saves time.
  void store(std::string_view key, std::string_view image);

  struct Stats {
    std::uint64_t hits = 0;
    std::uint64_t misses = 0;
    std::uint64_t stores = 0;
    std::uint64_t corrupt = 0;        // entries that did not read back as written
    std::uint64_t write_failures = 0; //
  };
  Stats stats() const noexcept;

  // The entry file for `key` (a 32-hex-digit name in dir()).
  std::filesystem::path entry_path(std::string_view key) const;

private:
  std::filesystem::path dir_;
  std::atomic<std::uint64_t> hits_{0};
  std::atomic<std::uint64_t> misses_{0};
  std::atomic<std::uint64_t> stores_{0};
  std::atomic<std::uint64_t> corrupt_{0};
  std::atomic<std::uint64_t> write_failures_{0};
};

} // namespace compiler::cuda
