// HTML text helpers shared by the report renderers and the highlighter: escaping every byte of
// log text that reaches a page (text and attribute values alike), and replacing invalid UTF-8
// with U+FFFD so that one bad byte in a log never breaks a page or a run.
#pragma once

#include <string>
#include <string_view>

namespace tlparse::highlight {

// True when `text` is well-formed UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF).
bool is_valid_utf8(std::string_view text);

// Appends `text` with each maximal invalid UTF-8 subsequence replaced by U+FFFD.
void append_utf8_sanitized(std::string& out, std::string_view text);
std::string sanitize_utf8(std::string_view text);

// Appends `text` escaped for HTML text and quoted attribute values: & < > " ' become entities,
// invalid UTF-8 becomes U+FFFD. NUL becomes U+FFFD too (browsers drop or mangle it).
void append_html_escaped(std::string& out, std::string_view text);
std::string html_escape(std::string_view text);

} // namespace tlparse::highlight
