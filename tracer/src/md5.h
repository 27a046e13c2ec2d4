// MD5 (RFC 1321), used for the `has_payload` digest PyTorch writes beside every payload. Our own
// implementation keeps tracer free of dependencies (see the layering rules).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tracer::detail {

class Md5 {
public:
  Md5() noexcept;
  void update(std::string_view bytes) noexcept;
  // Finishes and returns the 32-character lowercase hex digest.
  std::array<char, 32> hex_digest() noexcept;

  static std::array<char, 32> hex_of(std::string_view bytes) noexcept {
    Md5 m;
    m.update(bytes);
    return m.hex_digest();
  }

private:
  void process_block(const unsigned char* block) noexcept;

  std::array<std::uint32_t, 4> state_;
  std::uint64_t length_ = 0; // bytes seen
  std::array<unsigned char, 64> buffer_{};
  std::size_t buffered_ = 0;
};

} // namespace tracer::detail
