// MD5 of payloads, through OpenSSL's EVP interface (libcrypto): the ingest verifies every
// distinct payload against its declared has_payload digest. Streaming (update in pieces) so a
// payload need not be contiguous. The tracer keeps its own dependency-free MD5 (docs/TRACER.md).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

struct evp_md_ctx_st;

namespace tlparse::ingest {

using Md5Digest = std::array<uint8_t, 16>;

class Md5 {
public:
  Md5();
  ~Md5();
  Md5(const Md5&) = delete;
  Md5& operator=(const Md5&) = delete;
  void update(const void* data, size_t size);
  void update(std::string_view s) { update(s.data(), s.size()); }
  // The digest of everything fed since construction or the last finish(); starts over.
  Md5Digest finish();

private:
  evp_md_ctx_st* ctx_;
};

// Lowercase hex of a digest, and of the digest of `s`.
std::string to_hex(const Md5Digest& digest);
std::string md5_hex(std::string_view s);
// True when `hex` is 32 lowercase hex digits equal to the digest (tlparse's base16ct::lower).
bool md5_matches(const Md5Digest& digest, std::string_view hex);

} // namespace tlparse::ingest
