// Reads JSON text handed to the C API (event metadata, chromium args) and writes it back through
// a JsonWriter, in Python's layout. Whatever a caller passes, what reaches the log is then JSON
// that tlparse reads: no raw newline can split the line, strings are escaped as PyTorch escapes
// them, and text tlparse's JSON reader refuses is refused here first, with the reason and the
// byte offset (invalid UTF-8, a lone surrogate escape, a number beyond a double, a duplicate
// key, nesting deeper than kMaxJsonDepth).
#pragma once

#include "tracer/json_writer.h"

#include <string>
#include <string_view>

namespace tracer::detail {

// Well under the 128 levels that tlparse's reader accepts for a whole envelope.
inline constexpr int kMaxJsonDepth = 64;

// Copies the members of the JSON object `text` into `w`, which must be inside an open object.
// On invalid input returns false and sets `error`; `w` may then hold part of the members, so the
// caller drops what it was writing. `taken_key`, when not empty, is a key the caller writes
// itself: the object may not have it too.
bool copy_json_object_members(std::string_view text, JsonWriter& w, std::string& error,
                              std::string_view taken_key = {});

} // namespace tracer::detail
