// The HTML page of `tlparse diff --html OUT`: one self-contained page (the report's stylesheet,
// no script, nothing loaded from elsewhere); every text from the logs is escaped.
#pragma once

#include "tlparse/answers/run_diff.h"

#include <string>

namespace tlparse::report {

// One comparison (one pair of logs) as a page section.
std::string diff_section_html(const answers::RunDiff& diff, const std::string& a_name,
                              const std::string& b_name);
// The page around the sections.
std::string diff_page_html(const std::string& sections);

} // namespace tlparse::report
