// Our MD5 matches RFC 1321's test vectors, in one piece and streamed; the keyed content hash
// (common/content_hash.h) tells apart payloads that differ by a byte.
#include "common/content_hash.h"
#include "ingest/reader/md5.h"

#include <catch2/catch.hpp>
#include <set>
#include <string>

using tlparse::ingest::Md5;
using tlparse::ingest::md5_hex;
using tlparse::ingest::md5_matches;

TEST_CASE("md5 matches the RFC 1321 test suite", "[tlparse][md5]") {
  CHECK(md5_hex("") == "d41d8cd98f00b204e9800998ecf8427e");
  CHECK(md5_hex("a") == "0cc175b9c0f1b6a831c399e269772661");
  CHECK(md5_hex("abc") == "900150983cd24fb0d6963f7d28e17f72");
  CHECK(md5_hex("message digest") == "f96b697d7cb7938d525a2f31aaf161d0");
  CHECK(md5_hex("abcdefghijklmnopqrstuvwxyz") == "c3fcd3d76192e4007dfb496cca67e13b");
  CHECK(
      md5_hex("12345678901234567890123456789012345678901234567890123456789012345678901234567890") ==
      "57edf4a22be3c955ac49da2e2107b67a");
}

TEST_CASE("md5 gives the same digest when fed in pieces", "[tlparse][md5]") {
  std::string data;
  for (int i = 0; i < 1000; ++i) {
    data += static_cast<char>('a' + i % 26);
  }
  Md5 streamed;
  for (size_t i = 0; i < data.size(); i += 37) {
    streamed.update(std::string_view(data).substr(i, 37));
  }
  const auto digest = streamed.finish();
  CHECK(md5_matches(digest, md5_hex(data)));
}

TEST_CASE("md5 comparison wants lowercase hex like tlparse", "[tlparse][md5]") {
  Md5 m;
  m.update("abc");
  const auto d = m.finish();
  CHECK(md5_matches(d, "900150983cd24fb0d6963f7d28e17f72"));
  CHECK_FALSE(md5_matches(d, "900150983CD24FB0D6963F7D28E17F72"));
  CHECK_FALSE(md5_matches(d, "90015098"));
}

TEST_CASE("content keys are equal for equal bytes and differ for near-identical ones",
          "[tlparse][md5]") {
  using tlparse::common::content_key;
  const std::string base(300, 'p');
  CHECK(content_key(base) == content_key(std::string(300, 'p')));
  CHECK(tlparse::common::content_key_seed() == tlparse::common::content_key_seed());
  // Every one-byte change of a payload, and every prefix, gets a key of its own.
  std::set<std::pair<uint64_t, uint64_t>> keys;
  for (std::size_t i = 0; i < base.size(); ++i) {
    std::string changed = base;
    changed[i] = 'q';
    const auto k = content_key(changed);
    keys.insert({k.low, k.high});
    const auto prefix = content_key(std::string_view(base).substr(0, i));
    keys.insert({prefix.low, prefix.high});
  }
  CHECK(keys.size() == 2 * base.size());
}
