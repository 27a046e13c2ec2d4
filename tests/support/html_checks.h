// Checks on the report's HTML shared by the renderer tests and the hostile-corpus tests.
#pragma once

#include <string>
#include <string_view>

namespace test_support {

// Scans every tag of `page` and returns a description of the first one that could run script:
// a <script> that is not one of the report's own, an element a log could have injected (img,
// iframe, ...), an on* event attribute other than the stack trie's toggle, or a javascript:,
// vbscript: or data: URL. Empty when there is none.
std::string executable_markup(std::string_view page);

} // namespace test_support
