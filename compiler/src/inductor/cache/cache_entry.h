// inductor/cache: the file format of one compile-cache entry. Entries are read from a folder
// other processes (and other builds) write, so parsing treats the bytes as hostile: every size
// is checked against the file, a checksum covers everything, and a malformed entry is an error
// result, never a crash or a partial entry (fuzzed by fuzz_inductor_cache_entry).
//
// Layout: "TSINDCACHE1\n", then sections as (tag: 4 bytes, length: u64 little endian, bytes),
// then "CSUM" and the u64 checksum (fnv1a64) of everything before it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace compiler::inductor {

struct CacheEntry {
  std::string key_text;                  // everything the key was computed from
  std::string object;                    // machine code (an object file)
  std::string ir;                        // the kernels' LLVM IR, for the trace
  std::vector<std::string> kernel_names; // in schedule order
  std::int64_t codegen_ns = 0;           // what compiling took (time_saved_ns on a hit)
};

std::string serialize_entry(const CacheEntry& e);

struct ParsedEntry {
  std::optional<CacheEntry> entry;
  std::string error; // why the bytes are not an entry
};
ParsedEntry parse_entry(std::string_view bytes);

// A fast 64-bit hash (FNV-1a's constants, eight bytes at a time): the entry checksum and,
// with two seeds, the cache key.
std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t seed = 0xcbf29ce484222325ULL);

} // namespace compiler::inductor
