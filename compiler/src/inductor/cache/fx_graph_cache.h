// inductor/cache: the on-disk cache of compiled graphs (PyTorch's FxGraphCache). An entry is
// keyed by a hash of everything the machine code depends on: the graph as compile_fx_inner
// receives it (ops, arguments, dtypes, sizes, strides), its role, the code generator's target
// (CPU, features, LLVM) and the compiler's build (a hash of its sources), so a second process
// with the same folder skips code generation. Entries live in TORCHINDUCTOR_CACHE_DIR when set,
// as in PyTorch, else in the user's cache folder ($XDG_CACHE_HOME or ~/.cache, then
// torchscope/inductor). An entry that does not parse (corrupt) or was written for another key
// (stale) is reported once on stderr and compiled again, and the new entry replaces it; a
// folder that cannot be written turns caching off for the process, reported once.
#pragma once

#include "compiler/graph/graph.h"
#include "inductor/cache/cache_entry.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace compiler::inductor {

struct CacheKey {
  std::string hash;                    // "f" + 26 base32 characters, as PyTorch's FX keys
  std::string text;                    // what was hashed
  std::vector<std::string> components; // "[hash] name: value", as fx_graph_cache_* list them
};

// The key of `graph` compiled in `role` for `target` (KernelCompiler::target_description()).
// The components (for the trace) are listed only when asked for.
CacheKey cache_key(const graph::Graph& graph, std::string_view role, std::string_view target,
                   bool components);

class FxGraphCache {
public:
  // TORCHINDUCTOR_CACHE_DIR, else $XDG_CACHE_HOME/torchscope/inductor, else
  // ~/.cache/torchscope/inductor, else a folder under the temporary directory.
  static std::filesystem::path default_dir();

  explicit FxGraphCache(std::filesystem::path dir) : dir_(std::move(dir)) {}

  enum class Status { Hit, Miss, Corrupt, Stale };
  struct Lookup {
    Status status = Status::Miss;
    std::optional<CacheEntry> entry; // Hit
    std::string detail;              // Corrupt / Stale: why
  };
  Lookup lookup(const CacheKey& key) const;
  // Writes the entry and the output code beside it; false (reported once) when the folder
  // cannot be written.
  bool store(const CacheKey& key, const CacheEntry& entry, const std::string& output_code) const;
  // Reports once per entry that it was corrupt or stale and is being replaced.
  void report(const CacheKey& key, const Lookup& lookup) const;

  std::filesystem::path entry_path(const CacheKey& key) const;
  std::filesystem::path output_code_path(const CacheKey& key) const;
  const std::filesystem::path& dir() const { return dir_; }

private:
  std::filesystem::path dir_;
};

} // namespace compiler::inductor
