// The 64-bit content hash of the ingest (not cryptographic): it recognises a payload whose MD5
// was already checked, so each distinct payload is verified once. xxHash's XXH3, inlined from
// its header (bench_hashing: faster than the hand-written hash it replaced at every size).
#pragma once

#include <cstdint>
#include <string_view>
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace tlparse::ingest {

inline uint64_t content_hash(std::string_view s) {
  return XXH3_64bits(s.data(), s.size());
}

} // namespace tlparse::ingest
