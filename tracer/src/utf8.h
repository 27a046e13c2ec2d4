// UTF-8 decoding and the text repairs that keep what the tracer writes readable by tlparse:
// tlparse drops every line that is not valid UTF-8 and strips a carriage return before each line
// end, so a payload holding either would no longer match its MD5 once read back. Used by the
// JSON writer (escaping), the event formatter (payloads, file names) and the C API's JSON reader.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace tracer::detail {

inline constexpr std::uint32_t kInvalidUtf8 = 0xFFFFFFFF;

// Decodes the UTF-8 sequence at s[i] and advances `i` past it. A byte that does not start a
// valid, shortest-form sequence of a scalar value returns kInvalidUtf8 and advances by one.
std::uint32_t decode_utf8(std::string_view s, std::size_t& i) noexcept;

// Appends code point `cp` (a Unicode scalar value) encoded as UTF-8.
void append_utf8(std::string& out, std::uint32_t cp);

// True when `text` holds a byte that is not ASCII or a carriage return: the fast test that
// spares almost every payload the repair below.
bool may_need_repair(std::string_view text) noexcept;

// Writes `text` to `out` as tlparse will read it back: invalid UTF-8 bytes become U+FFFD and the
// carriage returns that end a line (just before a line feed, or at the end) are dropped. Returns
// whether anything changed.
bool repair_text(std::string_view text, std::string& out);

} // namespace tracer::detail
