// The 64-bit content hash of the ingest (not cryptographic): it recognises a payload whose MD5
// was already checked, so each distinct payload is verified once.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace tlparse::ingest {

// A fast 64-bit content hash (not cryptographic) used to recognise a payload already verified.
inline uint64_t content_hash(std::string_view s) {
  // Four independent lanes so the multiplies pipeline; then a final mix of the lanes and tail.
  constexpr uint64_t kMul = 0x9e3779b97f4a7c15ull;
  uint64_t lanes[4] = {0x243f6a8885a308d3ull ^ s.size(), 0x13198a2e03707344ull,
                       0xa4093822299f31d0ull, 0x082efa98ec4e6c89ull};
  const char* p = s.data();
  size_t n = s.size();
  while (n >= 32) {
    for (int k = 0; k < 4; ++k) {
      uint64_t w;
      std::memcpy(&w, p + 8 * k, 8);
      lanes[k] = (lanes[k] ^ w) * kMul;
      lanes[k] ^= lanes[k] >> 32;
    }
    p += 32;
    n -= 32;
  }
  uint64_t h = lanes[0] ^ (lanes[1] * 3) ^ (lanes[2] * 5) ^ (lanes[3] * 7);
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * kMul;
    h ^= h >> 32;
    p += 8;
    n -= 8;
  }
  uint64_t w = 0;
  std::memcpy(&w, p, n);
  h = (h ^ w) * kMul;
  h ^= h >> 29;
  return h;
}

} // namespace tlparse::ingest
