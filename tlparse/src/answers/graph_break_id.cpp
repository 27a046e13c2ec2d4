// The stable id of a graph break read from its reason text (answers/graph_break_id.h).
#include "tlparse/answers/graph_break_id.h"

namespace tlparse::answers {

GraphBreakId graph_break_id(std::string_view reason) {
  GraphBreakId out;
  for (size_t at = reason.find("http"); at != std::string_view::npos;
       at = reason.find("http", at + 4)) {
    size_t end = at;
    while (end < reason.size() && reason[end] > ' ' && reason[end] != '"' && reason[end] != '\'' &&
           reason[end] != '<' && reason[end] != '>' && reason[end] != ')') {
      ++end;
    }
    std::string_view url = reason.substr(at, end - at);
    while (!url.empty() && (url.back() == '.' || url.back() == ',')) {
      url.remove_suffix(1);
    }
    if (url.rfind("https://", 0) != 0 && url.rfind("http://", 0) != 0) {
      continue;
    }
    const size_t gb = url.rfind("/gb");
    if (gb == std::string_view::npos) {
      continue;
    }
    size_t d = gb + 3;
    while (d < url.size() && (url[d] >= '0' && url[d] <= '9')) {
      ++d;
    }
    if (d - (gb + 3) >= 1 && d - (gb + 3) <= 8) {
      out.id = std::string(url.substr(gb + 1, d - gb - 1));
      out.docs_url = std::string(url);
      return out;
    }
  }
  return out;
}

} // namespace tlparse::answers
