// JSON tokenizer: object keys apart from string values, numbers, true/false/null. Tolerant of
// invalid documents (they are shown, not validated).
#include "lexer.h"

namespace tlparse::highlight::detail {

void lex_json(std::string_view text, Sink& sink) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    const char c = text[pos];
    if (c == '"') {
      const std::size_t start = pos++;
      while (pos < text.size()) {
        const char s = text[pos];
        if (s == '\\' && pos + 1 < text.size()) {
          pos += 2;
          continue;
        }
        ++pos;
        if (s == '"' || s == '\n') {
          break;
        }
      }
      std::size_t after = pos;
      while (after < text.size() && (is_space(text[after]) || text[after] == '\n')) {
        ++after;
      }
      const bool is_key = after < text.size() && text[after] == ':';
      sink.add(start, pos - start, is_key ? TokenKind::Key : TokenKind::String);
    } else if (c == '-' || is_digit(c)) {
      const std::size_t start = pos++;
      while (pos < text.size() && (is_digit(text[pos]) || text[pos] == '.' || text[pos] == 'e' ||
                                   text[pos] == 'E' || text[pos] == '+' || text[pos] == '-')) {
        ++pos;
      }
      sink.add(start, pos - start, TokenKind::Number);
    } else if (is_alpha(c)) {
      const std::size_t start = pos;
      while (pos < text.size() && is_alpha(text[pos])) {
        ++pos;
      }
      const std::string_view word = text.substr(start, pos - start);
      if (word == "true" || word == "false" || word == "null") {
        sink.add(start, word.size(), TokenKind::Constant);
      }
    } else {
      ++pos;
    }
  }
}

} // namespace tlparse::highlight::detail
