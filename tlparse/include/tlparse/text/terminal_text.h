// Log text made safe for a terminal. Every byte that came from a log (or an index, or a file name
// found on disk) and is printed to stderr/stdout goes through terminal_safe(): a log must not be
// able to move the cursor, set the window title (OSC), ring the bell, rewrite earlier lines with
// CR, or reorder text with bidirectional overrides. See docs/SECURITY.md, "Terminal output".
#pragma once

#include <string>
#include <string_view>

namespace tlparse::text {

// Returns `text` with every C0 control byte (LF and TAB included), DEL, every C1 control
// (U+0080..U+009F), the bidirectional overrides and isolates (U+202A..U+202E, U+2066..U+2069)
// and every byte that is not part of valid UTF-8 written as a visible escape: "\x1b", "\u{202e}".
// Printable ASCII, backslashes and valid UTF-8 pass unchanged, so applying it twice changes
// nothing more than applying it once.
std::string terminal_safe(std::string_view text);

// The same, but '\n' is kept: for our own multi-line messages whose log-derived parts were
// already escaped with terminal_safe() (a log's newline never reaches this far unescaped).
std::string terminal_safe_lines(std::string_view text);

// The text with each byte of invalid UTF-8 replaced by U+FFFD (JSON output must be UTF-8).
std::string valid_utf8(std::string_view text);

} // namespace tlparse::text
