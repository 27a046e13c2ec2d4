// libFuzzer target over the text parsers of the report: the serde-style JSON parser (and its
// printers), the three highlighter tokenizers, numbered-code HTML and HTML escaping. Any input
// must neither crash nor produce tokens that leave the text or overlap, and escaped output must
// never contain a raw '<' or invalid UTF-8.
#include "report/html_page.h"
#include "tlparse/highlight/highlight.h"
#include "tlparse/highlight/html.h"
#include "tlparse/report/serde_json.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  if (const auto value = tlparse::report::parse_json(text)) {
    std::string pretty;
    std::string compact;
    tlparse::report::write_pretty(pretty, *value);
    tlparse::report::write_compact(compact, *value);
    // Re-parsing our own output must succeed and print the same bytes.
    const auto again = tlparse::report::parse_json(compact);
    if (!again) {
      std::abort();
    }
    std::string compact2;
    tlparse::report::write_compact(compact2, *again);
    if (compact2 != compact) {
      std::abort();
    }
  }

  using tlparse::highlight::Language;
  for (const Language lang : {Language::Python, Language::Cpp, Language::Json}) {
    std::size_t end = 0;
    for (const auto& t : tlparse::highlight::tokenize(text, lang)) {
      if (t.length == 0 || t.offset < end || t.offset + t.length > size) {
        std::abort();
      }
      end = t.offset + t.length;
    }
    std::string html;
    tlparse::report::detail::append_numbered_code(html, text, lang);
    if (!tlparse::highlight::is_valid_utf8(html)) {
      std::abort();
    }
  }

  const std::string escaped = tlparse::highlight::html_escape(text);
  if (escaped.find('<') != std::string::npos || !tlparse::highlight::is_valid_utf8(escaped)) {
    std::abort();
  }
  return 0;
}
