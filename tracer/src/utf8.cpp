#include "utf8.h"

#include <cstring>

namespace tracer::detail {

std::uint32_t decode_utf8(std::string_view s, std::size_t& i) noexcept {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    ++i;
    return b0;
  }
  std::size_t len = 0;
  std::uint32_t cp = 0;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2;
    cp = b0 & 0x1F;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3;
    cp = b0 & 0x0F;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4;
    cp = b0 & 0x07;
  } else {
    ++i;
    return kInvalidUtf8;
  }
  if (i + len > s.size()) {
    ++i;
    return kInvalidUtf8;
  }
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) {
      ++i;
      return kInvalidUtf8;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  const bool overlong =
      (len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
  if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    ++i;
    return kInvalidUtf8;
  }
  i += len;
  return cp;
}

void append_utf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

bool may_need_repair(std::string_view text) noexcept {
  // 64 bytes at a time, branching once per block: a high bit anywhere, or a byte equal to '\r'
  // (the classic "has a zero byte" test on each word XORed with 0x0d in every byte; its false
  // positives sit only above a true zero, so a block is flagged only if it holds a '\r').
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHighs = 0x8080808080808080ULL;
  constexpr std::uint64_t kCarriageReturns = 0x0d0d0d0d0d0d0d0dULL;
  const char* p = text.data();
  std::size_t left = text.size();
  while (left >= 64) {
    std::uint64_t flags = 0;
    for (int k = 0; k < 8; ++k) {
      std::uint64_t word;
      std::memcpy(&word, p + 8 * k, 8);
      const std::uint64_t cr = word ^ kCarriageReturns;
      flags |= word | ((cr - kOnes) & ~cr);
    }
    if ((flags & kHighs) != 0) {
      return true;
    }
    p += 64;
    left -= 64;
  }
  for (; left > 0; ++p, --left) {
    const auto c = static_cast<unsigned char>(*p);
    if (c >= 0x80 || c == '\r') {
      return true;
    }
  }
  return false;
}

bool repair_text(std::string_view text, std::string& out) {
  bool changed = false;
  out.reserve(out.size() + text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\r') {
      // tlparse strips one carriage return before a line end, so a line may end in none: a run
      // of them before a line end (or the end) is dropped whole, any other one kept.
      std::size_t run_end = i;
      while (run_end < text.size() && text[run_end] == '\r') {
        ++run_end;
      }
      if (run_end == text.size() || text[run_end] == '\n') {
        changed = true;
      } else {
        out.append(run_end - i, '\r');
      }
      i = run_end;
      continue;
    }
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    const std::size_t start = i;
    const std::uint32_t cp = decode_utf8(text, i);
    if (cp == kInvalidUtf8) {
      changed = true;
      append_utf8(out, 0xFFFD);
    } else {
      out.append(text.substr(start, i - start));
    }
  }
  return changed;
}

} // namespace tracer::detail
