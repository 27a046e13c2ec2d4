// Internals shared by the per-language tokenizers: a token sink that offsets embedded languages,
// character classes and sorted word tables. Not part of the public API.
#pragma once

#include "tlparse/highlight/highlight.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace tlparse::highlight::detail {

// Collects tokens; `base` is the offset of the text being lexed inside the outermost text, so a
// C++ kernel embedded in a Python string reports offsets into the whole file.
struct Sink {
  std::vector<Token>& tokens;
  std::uint32_t base = 0;

  void add(std::size_t offset, std::size_t length, TokenKind kind) {
    if (length == 0) {
      return;
    }
    const auto off = static_cast<std::uint32_t>(base + offset);
    const auto len = static_cast<std::uint32_t>(length);
    // Merge adjacent tokens of one kind (runs of operators, split comments) to keep spans few.
    if (!tokens.empty()) {
      Token& last = tokens.back();
      if (last.kind == kind && last.offset + last.length == off) {
        last.length += len;
        return;
      }
    }
    tokens.push_back(Token{off, len, kind});
  }
};

inline bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
inline bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
// Identifiers: ASCII letters, digits, '_', and any non-ASCII byte (Python 3 allows Unicode
// identifiers; treating UTF-8 continuation bytes as identifier bytes never splits a character).
inline bool is_ident_start(char c) {
  return is_alpha(c) || c == '_' || static_cast<unsigned char>(c) >= 0x80;
}
inline bool is_ident_char(char c) {
  return is_ident_start(c) || is_digit(c);
}
inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}
inline bool is_operator_char(char c) {
  switch (c) {
  case '+':
  case '-':
  case '*':
  case '/':
  case '%':
  case '=':
  case '<':
  case '>':
  case '!':
  case '&':
  case '|':
  case '^':
  case '~':
    return true;
  default:
    return false;
  }
}

// A fixed word list with a lookup that rejects most identifiers after one table read: words are
// bucketed by first byte and length is compared before bytes. Built once per list (static).
class WordSet {
public:
  template <std::size_t N>
  explicit WordSet(const std::string_view (&words)[N])
      : words_(std::begin(words), std::end(words)) {
    std::sort(words_.begin(), words_.end());
    for (std::size_t i = 0; i < words_.size(); ++i) {
      const auto first = static_cast<unsigned char>(words_[i].front());
      if (begin_[first] == end_[first]) {
        begin_[first] = static_cast<std::uint16_t>(i);
      }
      end_[first] = static_cast<std::uint16_t>(i + 1);
    }
  }

  bool contains(std::string_view word) const {
    if (word.empty()) {
      return false;
    }
    const auto first = static_cast<unsigned char>(word.front());
    for (std::size_t i = begin_[first]; i < end_[first]; ++i) {
      if (words_[i].size() == word.size() && words_[i] == word) {
        return true;
      }
    }
    return false;
  }

private:
  std::vector<std::string_view> words_;
  std::uint16_t begin_[256] = {};
  std::uint16_t end_[256] = {};
};

// The next non-blank character at or after `pos` on the same logical stretch of text (spaces and
// tabs skipped, newlines not), or '\0'.
inline char next_non_blank(std::string_view text, std::size_t pos) {
  while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) {
    ++pos;
  }
  return pos < text.size() ? text[pos] : '\0';
}

void lex_python(std::string_view text, Sink& sink);
void lex_cpp(std::string_view text, Sink& sink);
void lex_json(std::string_view text, Sink& sink);

} // namespace tlparse::highlight::detail
