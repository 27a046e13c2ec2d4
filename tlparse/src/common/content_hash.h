// Content hashes of the ingest and the render (not cryptographic), xxHash's XXH3 inlined from its
// header (bench_hashing: faster than the hand-written hash it replaced at every size).
// - content_hash: 64 bits, for tables that compare the bytes on a match (a collision costs a
//   miss, never a wrong answer).
// - ContentKey: 128 bits under a seed drawn once per process, for caches that trust a match
//   without the bytes (a payload whose MD5 was already checked; a rendering made once). A log
//   is hostile: with a fixed hash its author could make two different payloads collide offline
//   and have one shown as the other; the seed is unknown to them.
#pragma once

#include <cstdint>
#include <random>
#include <string_view>
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace tlparse::common {

inline uint64_t content_hash(std::string_view s) {
  return XXH3_64bits(s.data(), s.size());
}

struct ContentKey {
  uint64_t low = 0;
  uint64_t high = 0;
  bool operator==(const ContentKey&) const = default;
};

struct ContentKeyHash {
  size_t operator()(const ContentKey& k) const { return static_cast<size_t>(k.low); }
};

inline uint64_t content_key_seed() {
  static const uint64_t seed = [] {
    std::random_device device;
    return (uint64_t{device()} << 32) ^ device();
  }();
  return seed;
}

inline ContentKey content_key(std::string_view s) {
  const XXH128_hash_t h = XXH3_128bits_withSeed(s.data(), s.size(), content_key_seed());
  return ContentKey{h.low64, h.high64};
}

} // namespace tlparse::common
