// Python tokenizer: comments, (prefixed, triple-quoted) strings, numbers, keywords, builtins,
// decorators and call names. Inductor's output code embeds kernels as triple-quoted strings
// (`async_compile.triton(..., '''...''')`, `cpp_pybinding(..., '''...''')`); those bodies are
// tokenized as Python or C++ so that the kernels, the interesting part, are highlighted too.
#include "lexer.h"

namespace tlparse::highlight::detail {
namespace {

// Sorted.
constexpr std::string_view kKeywords[] = {
    "and",    "as",     "assert", "async",  "await",   "break",    "class", "continue", "def",
    "del",    "elif",   "else",   "except", "finally", "for",      "from",  "global",   "if",
    "import", "in",     "is",     "lambda", "match",   "nonlocal", "not",   "or",       "pass",
    "raise",  "return", "try",    "while",  "with",    "yield"};
constexpr std::string_view kConstants[] = {"False", "None", "True"};
constexpr std::string_view kBuiltins[] = {
    "Any",     "Callable", "List",      "Optional", "Tuple",   "abs",   "all",        "any",
    "bool",    "dict",     "enumerate", "float",    "getattr", "int",   "isinstance", "len",
    "list",    "max",      "min",       "object",   "print",   "range", "self",       "set",
    "setattr", "str",      "sum",       "super",    "torch",   "tuple", "type",       "zip"};

bool is_string_prefix(std::string_view word) {
  if (word.empty() || word.size() > 2) {
    return false;
  }
  for (char c : word) {
    switch (c) {
    case 'r':
    case 'R':
    case 'b':
    case 'B':
    case 'u':
    case 'U':
    case 'f':
    case 'F':
      break;
    default:
      return false;
    }
  }
  return true;
}

// Decides how to tokenize the body of a triple-quoted string from the code before it (on its
// line) and from how the body starts.
std::optional<Language> embedded_language(std::string_view text, std::size_t string_start,
                                          std::string_view body) {
  std::size_t line_start = text.rfind('\n', string_start == 0 ? 0 : string_start - 1);
  line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
  const std::string_view before = text.substr(line_start, string_start - line_start);
  std::size_t lead = 0;
  while (lead < body.size() && (body[lead] == '\n' || is_space(body[lead]))) {
    ++lead;
  }
  const std::string_view head = body.substr(lead, 64);
  if (head.starts_with("#include") || before.find("cpp_pybinding(") != std::string_view::npos ||
      before.find("load_inline(") != std::string_view::npos) {
    return Language::Cpp;
  }
  if (before.find("triton(") != std::string_view::npos || head.starts_with("import ") ||
      head.starts_with("from ") || head.starts_with("@triton")) {
    return Language::Python;
  }
  return std::nullopt;
}

class PythonLexer : Scanner {
public:
  PythonLexer(std::string_view text, Sink& sink) : Scanner(text, sink) {}

  void run() {
    bool line_start = false;
    while (skip_blank(line_start)) {
      const char c = text_[pos_];
      if (c == '#') {
        lex_to_line_end(TokenKind::Comment);
      } else if (c == '"' || c == '\'') {
        lex_string(pos_, pos_);
      } else if (is_digit(c) ||
                 (c == '.' && pos_ + 1 < text_.size() && is_digit(text_[pos_ + 1]))) {
        // In a hex literal 'e' is a digit, never an exponent.
        const bool hex = c == '0' && (peek(1) == 'x' || peek(1) == 'X');
        lex_number(hex ? "" : "eE", false);
      } else if (is_ident_start(c)) {
        lex_word();
      } else if (c == '@' && line_start) {
        lex_decorator();
      } else if (is_operator_char(c) || c == '@') {
        const std::size_t start = pos_;
        while (pos_ < text_.size() && (is_operator_char(text_[pos_]) || text_[pos_] == '@')) {
          ++pos_;
        }
        sink_.add(start, pos_ - start, TokenKind::Operator);
      } else {
        ++pos_;
      }
    }
  }

private:
  // `token_start` includes any prefix letters; `quote_pos` is the first quote.
  void lex_string(std::size_t token_start, std::size_t quote_pos) {
    const char q = text_[quote_pos];
    const bool triple =
        quote_pos + 2 < text_.size() && text_[quote_pos + 1] == q && text_[quote_pos + 2] == q;
    if (!triple) {
      lex_quoted_line(token_start, quote_pos, q);
      return;
    }
    const std::size_t body_start = quote_pos + 3;
    std::size_t p = body_start;
    std::size_t body_end = text_.size();
    std::size_t end = text_.size();
    while (p < text_.size()) {
      const char c = text_[p];
      if (c == '\\') {
        p += 2;
        continue;
      }
      if (c == q && p + 2 < text_.size() && text_[p + 1] == q && text_[p + 2] == q) {
        body_end = p;
        end = p + 3;
        break;
      }
      ++p;
    }
    pos_ = end;
    if (body_end > text_.size()) {
      body_end = text_.size();
    }
    const std::string_view body = text_.substr(body_start, body_end - body_start);
    const auto embedded = embedded_language(text_, token_start, body);
    if (!embedded) {
      sink_.add(token_start, end - token_start, TokenKind::String);
      return;
    }
    sink_.add(token_start, body_start - token_start, TokenKind::String);
    Sink inner{sink_.tokens, static_cast<std::uint32_t>(sink_.base + body_start)};
    if (*embedded == Language::Cpp) {
      lex_cpp(body, inner);
    } else {
      lex_python(body, inner);
    }
    sink_.add(body_end, end - body_end, TokenKind::String);
  }

  void lex_word() {
    const std::size_t start = pos_;
    const std::string_view word = take_word();
    if (pos_ < text_.size() && (text_[pos_] == '"' || text_[pos_] == '\'') &&
        is_string_prefix(word)) {
      lex_string(start, pos_);
      return;
    }
    const bool after_dot = start > 0 && text_[start - 1] == '.';
    if (!after_dot && word_set<kKeywords>().contains(word)) {
      sink_.add(start, word.size(), TokenKind::Keyword);
      expect_name_ = word == "def" || word == "class";
      return;
    }
    if (expect_name_) {
      expect_name_ = false;
      sink_.add(start, word.size(), TokenKind::Function);
      return;
    }
    if (!after_dot && word_set<kConstants>().contains(word)) {
      sink_.add(start, word.size(), TokenKind::Constant);
    } else if (next_non_blank(text_, pos_) == '(') {
      sink_.add(start, word.size(), TokenKind::Function);
    } else if (!after_dot && word_set<kBuiltins>().contains(word)) {
      sink_.add(start, word.size(), TokenKind::Builtin);
    }
  }

  void lex_decorator() {
    const std::size_t start = pos_;
    ++pos_;
    while (pos_ < text_.size() && (is_ident_char(text_[pos_]) || text_[pos_] == '.')) {
      ++pos_;
    }
    sink_.add(start, pos_ - start, TokenKind::Decorator);
  }

  bool expect_name_ = false;
};

} // namespace

void lex_python(std::string_view text, Sink& sink) {
  PythonLexer(text, sink).run();
}

} // namespace tlparse::highlight::detail
