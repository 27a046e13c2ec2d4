// MD5 (RFC 1321), our own small implementation: the ingest verifies every payload against its
// declared has_payload digest. Streaming (update in pieces) so payloads need not be contiguous.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace tlparse::ingest {

class Md5 {
public:
  Md5();
  void update(const void* data, size_t size);
  void update(std::string_view s) { update(s.data(), s.size()); }
  std::array<uint8_t, 16> finish();

private:
  void block(const uint8_t* p);
  uint32_t state_[4];
  uint64_t length_ = 0;
  uint8_t buffer_[64];
  size_t buffered_ = 0;
};

// Lowercase hex of the digest of `s`.
std::string md5_hex(std::string_view s);
// True when `hex` is 32 lowercase hex digits equal to the digest (tlparse's base16ct::lower).
bool md5_matches(const std::array<uint8_t, 16>& digest, std::string_view hex);

} // namespace tlparse::ingest
