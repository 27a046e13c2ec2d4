// Language dispatch, the HTML writer and the highlight stylesheet (see highlight.h).
#include "tlparse/highlight/highlight.h"

#include "lexer.h"
#include "tlparse/highlight/html.h"

#include <limits>

namespace tlparse::highlight {

std::vector<Token> tokenize(std::string_view text, Language language) {
  std::vector<Token> tokens;
  if (text.size() >= std::numeric_limits<std::uint32_t>::max()) {
    return tokens;
  }
  detail::Sink sink{tokens, 0};
  switch (language) {
  case Language::PlainText:
    break;
  case Language::Python:
    detail::lex_python(text, sink);
    break;
  case Language::Cpp:
    detail::lex_cpp(text, sink);
    break;
  case Language::Json:
    detail::lex_json(text, sink);
    break;
  }
  return tokens;
}

std::string_view css_class(TokenKind kind) {
  switch (kind) {
  case TokenKind::Keyword:
    return "hl-kw";
  case TokenKind::Builtin:
    return "hl-bi";
  case TokenKind::Constant:
    return "hl-const";
  case TokenKind::Function:
    return "hl-fn";
  case TokenKind::String:
    return "hl-str";
  case TokenKind::Number:
    return "hl-num";
  case TokenKind::Comment:
    return "hl-com";
  case TokenKind::Decorator:
    return "hl-dec";
  case TokenKind::Preprocessor:
    return "hl-pp";
  case TokenKind::Operator:
    return "hl-op";
  case TokenKind::Key:
    return "hl-key";
  }
  return "hl-kw";
}

void append_html(std::string& out, std::string_view text, Language language) {
  const std::vector<Token> tokens = tokenize(text, language);
  out.reserve(out.size() + text.size() + text.size() / 2);
  std::size_t pos = 0;
  for (const Token& t : tokens) {
    if (t.offset > pos) {
      append_html_escaped(out, text.substr(pos, t.offset - pos));
    }
    out.append("<span class=\"");
    out.append(css_class(t.kind));
    out.append("\">");
    append_html_escaped(out, text.substr(t.offset, t.length));
    out.append("</span>");
    pos = t.offset + t.length;
  }
  if (pos < text.size()) {
    append_html_escaped(out, text.substr(pos));
  }
}

std::string to_html(std::string_view text, Language language) {
  std::string out;
  append_html(out, text, language);
  return out;
}

std::string_view stylesheet() {
  return R"css(.hl-kw { color: #a626a4; font-weight: 600; }
.hl-bi { color: #986801; }
.hl-const { color: #0184bc; }
.hl-fn { color: #4078f2; }
.hl-str { color: #50a14f; }
.hl-num { color: #b76b01; }
.hl-com { color: #8a8f98; font-style: italic; }
.hl-dec { color: #c18401; }
.hl-pp { color: #c8285c; }
.hl-op { color: #0e7490; }
.hl-key { color: #e45649; }
)css";
}

std::optional<Language> language_for_filename(std::string_view filename) {
  const std::size_t dot = filename.rfind('.');
  if (dot == std::string_view::npos) {
    return std::nullopt;
  }
  const std::string_view ext = filename.substr(dot + 1);
  if (ext == "py") {
    return Language::Python;
  }
  if (ext == "cpp" || ext == "cc" || ext == "cxx" || ext == "h" || ext == "hpp" || ext == "cu" ||
      ext == "cuh") {
    return Language::Cpp;
  }
  if (ext == "json") {
    return Language::Json;
  }
  return std::nullopt;
}

} // namespace tlparse::highlight
