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

// The WordSet of a sorted word list with static storage, built on first use.
template <const auto& Words>
const WordSet& word_set() {
  static_assert(std::is_sorted(std::begin(Words), std::end(Words)), "keep word lists sorted");
  static const WordSet set(Words);
  return set;
}

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

// What every tokenizer does the same way: walk the text, know whether the next character begins a
// line, and emit the tokens that end at the end of a line or of a one-line quoted string.
class Scanner {
protected:
  Scanner(std::string_view text, Sink& sink) : text_(text), sink_(sink) {}

  char peek(std::size_t ahead) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  // Skips blanks and newlines; false at the end of the text. `line_start`: only blanks stand
  // between the previous newline (or the start) and the next character.
  bool skip_blank(bool& line_start) {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '\n') {
        at_line_start_ = true;
      } else if (!is_space(c)) {
        line_start = at_line_start_;
        at_line_start_ = false;
        return true;
      }
      ++pos_;
    }
    return false;
  }
  // A token from here to the end of the line (a comment).
  void lex_to_line_end(TokenKind kind) {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != '\n') {
      ++pos_;
    }
    sink_.add(start, pos_ - start, kind);
  }
  // A string quoted with `q` on one line, escapes skipped; an unterminated one stops at the end
  // of the line. `token_start` includes any prefix letters; `quote_pos` is the opening quote.
  void lex_quoted_line(std::size_t token_start, std::size_t quote_pos, char q) {
    pos_ = quote_pos + 1;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '\\' && pos_ + 1 < text_.size()) {
        pos_ += 2;
        continue;
      }
      if (c == '\n') {
        break;
      }
      ++pos_;
      if (c == q) {
        break;
      }
    }
    sink_.add(token_start, pos_ - token_start, TokenKind::String);
  }

  // A number: identifier characters and dots, a sign right after one of `exponents`, and with
  // `separators` a quote between digits (C++'s 1'000).
  void lex_number(std::string_view exponents, bool separators) {
    const std::size_t start = pos_;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      const bool part =
          is_ident_char(c) || c == '.' || (separators && c == '\'' && is_ident_char(peek(1))) ||
          ((c == '+' || c == '-') && exponents.find(text_[pos_ - 1]) != std::string_view::npos);
      if (!part) {
        break;
      }
      ++pos_;
    }
    sink_.add(start, pos_ - start, TokenKind::Number);
  }
  // Advances over an identifier and returns it.
  std::string_view take_word() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && is_ident_char(text_[pos_])) {
      ++pos_;
    }
    return text_.substr(start, pos_ - start);
  }

  std::string_view text_;
  Sink& sink_;
  std::size_t pos_ = 0;

private:
  bool at_line_start_ = true;
};

} // namespace tlparse::highlight::detail
