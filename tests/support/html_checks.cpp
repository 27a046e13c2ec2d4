// See html_checks.h.
#include "support/html_checks.h"

#include <cctype>

namespace test_support {
namespace {

bool is_our_script(std::string_view page, std::size_t at) {
  const std::string_view rest = page.substr(at);
  return rest.starts_with("<script>\ndocument.addEventListener(\"DOMContentLoaded\"") ||
         rest.starts_with("<script>\nfunction toggleList(marker)");
}

} // namespace

// Scans every tag of `page` and returns a description of the first one that could run script:
// a <script> that is not one of ours, an element a log could have injected (img, iframe, ...),
// an on* event attribute other than the trie's own toggle, or a javascript: URL.
std::string executable_markup(std::string_view page) {
  std::size_t at = 0;
  while ((at = page.find('<', at)) != std::string_view::npos) {
    const std::size_t end = page.find('>', at);
    if (end == std::string_view::npos) {
      return "unterminated tag at " + std::to_string(at);
    }
    std::string tag(page.substr(at, end - at + 1));
    for (char& c : tag) {
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    if (tag.starts_with("<script") && !is_our_script(page, at)) {
      return tag;
    }
    // The compile-time charts are our own SVG (report/flame_chart.cpp): its tags are scanned
    // like any other, so script or handlers inside it would still be found.
    const bool our_chart =
        tag.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"flame\"");
    if (tag.starts_with("<svg") && !our_chart) {
      return tag;
    }
    for (const char* element : {"<img", "<iframe", "<object", "<embed", "<math", "<base",
                                "<meta http", "<link", "<form", "<i>", "<b>"}) {
      if (tag.starts_with(element)) {
        return tag;
      }
    }
    // Attributes: name[=value], values quoted with " or ' (their content is not markup).
    std::size_t i = 1;
    while (i < tag.size() && !std::isspace(static_cast<unsigned char>(tag[i])) && tag[i] != '>') {
      ++i;
    }
    while (i < tag.size() && tag[i] != '>') {
      if (std::isspace(static_cast<unsigned char>(tag[i])) || tag[i] == '/') {
        ++i;
        continue;
      }
      const std::size_t name_start = i;
      while (i < tag.size() && tag[i] != '=' && tag[i] != '>' &&
             !std::isspace(static_cast<unsigned char>(tag[i]))) {
        ++i;
      }
      const std::string name = tag.substr(name_start, i - name_start);
      std::string value;
      if (i < tag.size() && tag[i] == '=') {
        ++i;
        if (i < tag.size() && (tag[i] == '"' || tag[i] == '\'')) {
          const char q = tag[i];
          const std::size_t close = tag.find(q, i + 1);
          if (close == std::string::npos) {
            return "unterminated attribute in " + tag;
          }
          value = tag.substr(i + 1, close - i - 1);
          i = close + 1;
        } else {
          const std::size_t value_start = i;
          while (i < tag.size() && tag[i] != '>' &&
                 !std::isspace(static_cast<unsigned char>(tag[i]))) {
            ++i;
          }
          value = tag.substr(value_start, i - value_start);
        }
      }
      if (name.starts_with("on") && !(name == "onclick" && value == "togglelist(this)")) {
        return tag;
      }
      if (name == "href" || name == "src" || name == "action" || name == "formaction") {
        // Browsers ignore leading spaces and control characters before a scheme.
        const std::size_t first = value.find_first_not_of(std::string_view(" \t\n\r\f\v\0", 7));
        const std::string_view url =
            first == std::string::npos ? "" : std::string_view(value).substr(first);
        if (url.starts_with("javascript:") || url.starts_with("data:") ||
            url.starts_with("vbscript:")) {
          return tag;
        }
      }
    }
    at = end + 1;
  }
  return {};
}

} // namespace test_support
