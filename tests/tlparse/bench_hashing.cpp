// bench_hashing: the two hashes of the ingest's payload path. MD5 (OpenSSL EVP) verifies each
// distinct payload against its declared has_payload; the content hash (XXH3) recognises payloads
// already verified. Prints MB/s per payload size. (The hand-written MD5 and hash these replaced
// measured 254-339 and 5200-12700 MB/s here; docs/TLPARSE-INGEST.md has the comparison.)
// usage: bench_hashing [TOTAL_MB]   (default 256 MB hashed per size and implementation)
#include "common/content_hash.h"
#include "ingest/reader/md5.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

volatile uint64_t g_sink = 0; // keeps the optimiser from dropping the work

double mb_per_s(const std::string& data, size_t total_bytes,
                const std::function<uint64_t(std::string_view)>& fn) {
  const size_t rounds = std::max<size_t>(1, total_bytes / data.size());
  const auto t0 = std::chrono::steady_clock::now();
  uint64_t acc = 0;
  for (size_t i = 0; i < rounds; ++i) {
    acc += fn(data);
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  g_sink = g_sink + acc;
  return static_cast<double>(rounds * data.size()) / (1024.0 * 1024.0) / s;
}

uint64_t md5(std::string_view s) {
  static tlparse::ingest::Md5 md5; // one context, as the ingest keeps one per file
  md5.update(s);
  return md5.finish()[0];
}

} // namespace

int main(int argc, char** argv) {
  const size_t total = (argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 256) << 20;
  std::mt19937_64 rng(42);
  std::printf("%-10s %14s %14s\n", "payload", "MD5 (EVP)", "hash (XXH3)");
  for (size_t size : {64u, 1024u, 16u << 10, 256u << 10, 4u << 20}) {
    std::string data(size, '\0');
    for (char& c : data) {
      c = static_cast<char>(' ' + rng() % 95); // printable, like payload text
    }
    const double a = mb_per_s(data, total, md5);
    const double b = mb_per_s(data, total, tlparse::common::content_hash);
    std::printf("%-10zu %9.0f MB/s %9.0f MB/s\n", size, a, b);
  }
  return 0;
}
