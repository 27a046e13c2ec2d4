// libFuzzer target over the text parsers of the report: the serde-style JSON parser (and its
// printers, the streamed ones checked against the tree's), the three highlighter tokenizers,
// numbered-code HTML and HTML escaping. Any input must neither crash nor produce tokens that leave
// the text or overlap, and escaped output must never contain a raw '<' or invalid UTF-8. Inputs it
// once failed on are replayed from fuzz_report_text_regressions/ by the CTest replay.
#include "report/html_page.h"
#include "tlparse/highlight/highlight.h"
#include "tlparse/highlight/html.h"
#include "tlparse/report/serde_json.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>

namespace {

using tlparse::report::JsonValue;

bool same_json(const JsonValue& a, const JsonValue& b) {
  if (a.kind() != b.kind()) {
    return false;
  }
  switch (a.kind()) {
  case JsonValue::Kind::Null:
    return true;
  case JsonValue::Kind::Bool:
    return a.as_bool() == b.as_bool();
  case JsonValue::Kind::Int:
    return a.as_int() == b.as_int();
  case JsonValue::Kind::UInt:
    return a.as_uint() == b.as_uint();
  case JsonValue::Kind::Float: {
    const double x = a.as_float();
    const double y = b.as_float();
    if (!std::isfinite(x) || !std::isfinite(y)) {
      return std::isfinite(x) == std::isfinite(y); // both print as null
    }
    return x == y || std::fabs(x - y) <= 8 * std::numeric_limits<double>::epsilon() *
                                             std::max(std::fabs(x), std::fabs(y));
  }
  case JsonValue::Kind::String:
    return a.as_string() == b.as_string();
  case JsonValue::Kind::Array:
    return std::equal(a.items().begin(), a.items().end(), b.items().begin(), b.items().end(),
                      same_json);
  case JsonValue::Kind::Object:
    return std::equal(a.members().begin(), a.members().end(), b.members().begin(),
                      b.members().end(), [](const auto& m, const auto& n) {
                        return m.first == n.first && same_json(m.second, n.second);
                      });
  }
  return false;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  if (const auto value = tlparse::report::parse_json(text)) {
    std::string pretty;
    std::string compact;
    tlparse::report::write_pretty(pretty, *value);
    tlparse::report::write_compact(compact, *value);
    // Re-parsing our own output must succeed and give the same value. Floats are read as
    // serde_json reads them (two roundings, tlparse/src/report/README.md), so reading back the
    // shortest digits of a float may land a few ulps away (found by this fuzzer on
    // "111111111111111111000000000000876950927444354919", a u64 overflow read as an f64): the
    // structure, every string and every integer must match exactly, floats within that error.
    const auto again = tlparse::report::parse_json(compact);
    if (!again || !same_json(*value, *again)) {
      std::abort();
    }
  }
  // The streamed printers (no tree) must write the tree printers' bytes, and refuse exactly
  // what parse_json refuses.
  {
    const auto value = tlparse::report::parse_json(text);
    std::string streamed_pretty;
    std::string streamed_compact;
    const bool pretty_ok = tlparse::report::write_pretty_json(streamed_pretty, text);
    const bool compact_ok = tlparse::report::write_compact_json(streamed_compact, text);
    if (pretty_ok != value.has_value() || compact_ok != value.has_value()) {
      std::abort();
    }
    tlparse::report::JsonMembers members;
    const bool members_ok = members.read(text);
    if (members_ok != (value && value->is_object())) {
      std::abort();
    }
    if (value) {
      std::string pretty;
      std::string compact;
      tlparse::report::write_pretty(pretty, *value);
      tlparse::report::write_compact(compact, *value);
      if (pretty != streamed_pretty || compact != streamed_compact) {
        std::abort();
      }
      // Escaped in the same pass, through a memo that takes every literal (twice: the second
      // printing copies them from it).
      tlparse::report::JsonStringMemo memo(1u << 20, 1);
      const std::string escaped = tlparse::highlight::html_escape(pretty);
      for (int pass = 0; pass < 2; ++pass) {
        std::string html;
        if (!tlparse::report::write_pretty_json_html(html, text, &memo) || html != escaped) {
          std::abort();
        }
      }
      for (std::size_t i = 0; members_ok && i < members.size(); ++i) {
        const auto& [key, member_value] = value->members().at(i);
        std::string expected;
        tlparse::report::write_compact(expected, member_value);
        if (members.size() != value->members().size() || members[i].key != key ||
            members[i].value != expected) {
          std::abort();
        }
      }
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
