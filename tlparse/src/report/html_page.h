// Page skeleton shared by every HTML output: one embedded stylesheet (so pages work offline from
// file:// and stay self-contained when copied alone), the head, the optional scripts (the
// collapsible stack trie, and the query-parameter forwarding that keeps reports hosted behind
// signed URLs navigable), and small helpers that escape everything taken from a log.
#pragma once

#include "tlparse/highlight/highlight.h"
#include "tlparse/highlight/html.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tlparse::report::detail {

struct PageOptions {
  std::string_view title;   // escaped
  bool query_script = true; // forward ?query parameters to relative links
  bool trie_script = false; // toggleList() for the stack trie
  bool code_styles = false; // include the syntax-highlighting classes
};

void begin_page(std::string& out, const PageOptions& options);
void end_page(std::string& out, const PageOptions& options);

// Escaped text (and attribute values): every byte from a log goes through this.
inline void esc(std::string& out, std::string_view text) {
  highlight::append_html_escaped(out, text);
}

// Only plain web links from a log become clickable; anything else (javascript:, data:) would let
// the log run script in the reader's browser.
inline bool is_safe_external_url(std::string_view url) {
  return url.starts_with("http://") || url.starts_with("https://");
}

// The href of one of the report's own files: `prefix` (a root_prefix) + `relative`, escaped.
// `relative` comes from the index, which is untrusted input: it is linked only when it is a path
// the output folder would write, and a first segment with a ':' ("javascript:x", "data:,x") is
// written "./javascript:x" so that a browser reads it as a file name, never as a URL scheme.
// Returns false, appending nothing, for a path that is not linkable.
bool append_report_href(std::string& out, std::string_view prefix, std::string_view relative);

// "../" repeated for each folder level of `page_path` (relative to the output root), so links
// written relative to the root work from any page without a <base> element.
std::string root_prefix(std::string_view page_path);

// A <pre> of `text` with one <span class="ln" id="L{n}"> per line (CSS draws the numbers, and
// :target highlights a linked line), highlighted in `language`. Tokens that span lines are
// closed and reopened at each line break so every line is well-formed on its own.
void append_numbered_code(std::string& out, std::string_view text, highlight::Language language);

// Formats a seconds value like Rust's Display for f64 (shortest round-trip, no exponent).
std::string format_seconds(double value);

} // namespace tlparse::report::detail
