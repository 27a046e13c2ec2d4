// A PyTorch graph break's stable id (gb0170) and the docs page it names. PyTorch 2.11 ends a
// graph break's reason with "For more details about this graph break, please visit: <url>/gb/
// gb0170.html"; the id names the kind of break across releases, so breaks are grouped by it
// (the report's graph-break summary, `tlparse mcp`'s graph_breaks tool).
#pragma once

#include <string>
#include <string_view>

namespace tlparse::answers {

struct GraphBreakId {
  std::string id;       // "gb0170"; empty when the text names none
  std::string docs_url; // the URL as written (http or https only)
};

// The first http(s) URL in `reason` whose last path part is "gb" and 1-8 digits.
GraphBreakId graph_break_id(std::string_view reason);

} // namespace tlparse::answers
