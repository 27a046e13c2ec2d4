// Fuzz target: the compile-cache entry parser (inductor/cache/cache_entry.h) on hostile bytes:
// the input itself, and a valid entry with the input XORed into it (to reach past the header
// and checksum). A parse either fails with a reason or yields an entry that serialises back to
// the same bytes.
#include "inductor/cache/cache_entry.h"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

void check(std::string_view bytes) {
  const compiler::inductor::ParsedEntry p = compiler::inductor::parse_entry(bytes);
  if (!p.entry) {
    if (p.error.empty()) {
      std::abort(); // a rejection always says why
    }
    return;
  }
  const std::string again = compiler::inductor::serialize_entry(*p.entry);
  const compiler::inductor::ParsedEntry q = compiler::inductor::parse_entry(again);
  if (!q.entry || q.entry->key_text != p.entry->key_text || q.entry->object != p.entry->object ||
      q.entry->kernel_names != p.entry->kernel_names) {
    std::abort();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  check(input);
  static const std::string valid = compiler::inductor::serialize_entry(
      {"key text", std::string(64, 'o'), "ir", {"cpp_fused_add_0", "cpp_fused_mul_1"}, 7});
  std::string mutated = valid;
  for (std::size_t i = 0; i < size; ++i) {
    mutated[i % mutated.size()] = static_cast<char>(mutated[i % mutated.size()] ^ data[i]);
  }
  check(mutated);
  return 0;
}
