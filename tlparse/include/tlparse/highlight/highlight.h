// A small, fast syntax highlighter for what compiler traces contain: Python (FX graph code and
// Inductor's generated wrappers, with Triton and C++ kernels embedded in triple-quoted strings),
// C++/CUDA, and JSON. Each language is a hand-written single-pass tokenizer (no regex), so
// highlighting a multi-megabyte output file costs one linear scan. The result is a list of token
// spans that both the HTML report and the Qt GUI consume; `append_html` turns them into escaped
// HTML with one CSS class per token kind (see `css_class`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tlparse::highlight {

enum class Language : std::uint8_t { PlainText, Python, Cpp, Json };

enum class TokenKind : std::uint8_t {
  Keyword,      // def, return, if, for, class, template, __global__ ...
  Builtin,      // len, range, print, int, float; C++ fundamental types
  Constant,     // True, False, None, nullptr, true, false, null
  Function,     // the name after `def` / `class`, or an identifier before `(`
  String,       // string and character literals, including their quotes
  Number,       // numeric literals
  Comment,      // # ..., // ..., /* ... */
  Decorator,    // @name in Python
  Preprocessor, // #include, #define ... in C++
  Operator,     // + - * / = < > ! & | ^ ~ % and friends
  Key,          // an object key in JSON
};

// One highlighted region of the source. Bytes not covered by any token are plain text. Tokens
// are sorted by offset and never overlap.
struct Token {
  std::uint32_t offset = 0;
  std::uint32_t length = 0;
  TokenKind kind = TokenKind::Keyword;
};

// Tokenizes `text` in one pass. Texts of 4 GiB or more are not tokenized (empty result).
std::vector<Token> tokenize(std::string_view text, Language language);

// The CSS class used for `kind` in HTML output ("hl-kw", "hl-str", ...).
std::string_view css_class(TokenKind kind);

// Appends `text` as HTML: escaped, invalid UTF-8 replaced, tokens wrapped in
// <span class="...">. PlainText only escapes.
void append_html(std::string& out, std::string_view text, Language language);
std::string to_html(std::string_view text, Language language);

// The stylesheet rules for the classes above (light theme), for pages that embed highlighted
// code.
std::string_view stylesheet();

// Picks a language from a file name (".py" -> Python, ".cpp"/".cu"/".h" -> Cpp, ".json" -> Json).
std::optional<Language> language_for_filename(std::string_view filename);

} // namespace tlparse::highlight
