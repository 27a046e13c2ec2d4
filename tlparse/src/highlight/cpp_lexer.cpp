// C++ and CUDA tokenizer: preprocessor lines (with backslash continuations), line and block
// comments, string/char literals (prefixed and raw), numbers with digit separators, keywords
// including CUDA's qualifiers, fundamental types and call names.
#include "lexer.h"

namespace tlparse::highlight::detail {
namespace {

// Sorted.
constexpr std::string_view kKeywords[] = {"__device__",
                                          "__forceinline__",
                                          "__global__",
                                          "__host__",
                                          "__launch_bounds__",
                                          "__restrict__",
                                          "__shared__",
                                          "__syncthreads",
                                          "alignas",
                                          "alignof",
                                          "auto",
                                          "break",
                                          "case",
                                          "catch",
                                          "class",
                                          "const",
                                          "consteval",
                                          "constexpr",
                                          "constinit",
                                          "continue",
                                          "decltype",
                                          "default",
                                          "delete",
                                          "do",
                                          "else",
                                          "enum",
                                          "explicit",
                                          "extern",
                                          "final",
                                          "for",
                                          "friend",
                                          "goto",
                                          "if",
                                          "inline",
                                          "mutable",
                                          "namespace",
                                          "new",
                                          "noexcept",
                                          "operator",
                                          "override",
                                          "private",
                                          "protected",
                                          "public",
                                          "restrict",
                                          "return",
                                          "sizeof",
                                          "static",
                                          "static_assert",
                                          "static_cast",
                                          "struct",
                                          "switch",
                                          "template",
                                          "this",
                                          "throw",
                                          "try",
                                          "typedef",
                                          "typename",
                                          "union",
                                          "using",
                                          "virtual",
                                          "volatile",
                                          "while"};
constexpr std::string_view kTypes[] = {
    "bfloat16", "bool",     "char",     "double",   "float",   "half",     "int",
    "int16_t",  "int32_t",  "int64_t",  "int8_t",   "long",    "short",    "signed",
    "size_t",   "uint16_t", "uint32_t", "uint64_t", "uint8_t", "unsigned", "void"};
constexpr std::string_view kConstants[] = {"NULL", "false", "nullptr", "true"};

class CppLexer : Scanner {
public:
  CppLexer(std::string_view text, Sink& sink) : Scanner(text, sink) {}

  void run() {
    bool line_start = false;
    while (skip_blank(line_start)) {
      const char c = text_[pos_];
      if (c == '#' && line_start) {
        lex_preprocessor();
      } else if (c == '/' && peek(1) == '/') {
        lex_to_line_end(TokenKind::Comment);
      } else if (c == '/' && peek(1) == '*') {
        lex_block_comment();
      } else if (c == '"' || c == '\'') {
        lex_quoted_line(pos_, pos_, c);
      } else if (is_digit(c) || (c == '.' && is_digit(peek(1)))) {
        lex_number("eEpP", true);
      } else if (is_ident_start(c)) {
        lex_word();
      } else if (is_operator_char(c)) {
        const std::size_t start = pos_;
        while (pos_ < text_.size() && is_operator_char(text_[pos_]) &&
               !(text_[pos_] == '/' && (peek(1) == '/' || peek(1) == '*'))) {
          ++pos_;
        }
        if (pos_ == start) {
          ++pos_; // a lone '/' starting a comment is handled on the next round
          continue;
        }
        sink_.add(start, pos_ - start, TokenKind::Operator);
      } else {
        ++pos_;
      }
    }
  }

private:
  void lex_preprocessor() {
    const std::size_t start = pos_;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '\n') {
        if (pos_ > start && text_[pos_ - 1] == '\\') {
          ++pos_;
          continue;
        }
        break;
      }
      if (c == '/' && (peek(1) == '/' || peek(1) == '*')) {
        break; // a trailing comment keeps its own colour
      }
      ++pos_;
    }
    sink_.add(start, pos_ - start, TokenKind::Preprocessor);
  }

  void lex_block_comment() {
    const std::size_t start = pos_;
    const std::size_t close = text_.find("*/", pos_ + 2);
    pos_ = close == std::string_view::npos ? text_.size() : close + 2;
    sink_.add(start, pos_ - start, TokenKind::Comment);
  }

  // R"delim( ... )delim"; `quote_pos` is the '"'.
  void lex_raw_string(std::size_t token_start, std::size_t quote_pos) {
    const std::size_t paren = text_.find('(', quote_pos + 1);
    if (paren == std::string_view::npos || paren - quote_pos > 17) {
      lex_quoted_line(token_start, quote_pos, '"');
      return;
    }
    std::string closing = ")";
    closing.append(text_.substr(quote_pos + 1, paren - quote_pos - 1));
    closing.push_back('"');
    const std::size_t end = text_.find(closing, paren + 1);
    pos_ = end == std::string_view::npos ? text_.size() : end + closing.size();
    sink_.add(token_start, pos_ - token_start, TokenKind::String);
  }

  void lex_word() {
    const std::size_t start = pos_;
    const std::string_view word = take_word();
    if (pos_ < text_.size() && (text_[pos_] == '"' || text_[pos_] == '\'')) {
      const bool raw = word == "R" || word == "LR" || word == "uR" || word == "UR" || word == "u8R";
      const bool prefix = word == "L" || word == "u" || word == "U" || word == "u8";
      if (raw && text_[pos_] == '"') {
        lex_raw_string(start, pos_);
        return;
      }
      if (prefix) {
        lex_quoted_line(start, pos_, text_[pos_]);
        return;
      }
    }
    if (word_set<kKeywords>().contains(word)) {
      sink_.add(start, word.size(), TokenKind::Keyword);
    } else if (word_set<kTypes>().contains(word)) {
      sink_.add(start, word.size(), TokenKind::Builtin);
    } else if (word_set<kConstants>().contains(word)) {
      sink_.add(start, word.size(), TokenKind::Constant);
    } else if (next_non_blank(text_, pos_) == '(') {
      sink_.add(start, word.size(), TokenKind::Function);
    }
  }
};

} // namespace

void lex_cpp(std::string_view text, Sink& sink) {
  CppLexer(text, sink).run();
}

} // namespace tlparse::highlight::detail
