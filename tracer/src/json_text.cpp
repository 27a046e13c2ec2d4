#include "json_text.h"

#include "utf8.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <unordered_set>
#include <vector>

namespace tracer::detail {

namespace {

// The keys of one object: a short list searched in order, and a hash set once the object is
// large, so that a huge object costs linear time.
class KeySet {
public:
  // False when `key` is already there.
  bool insert(const std::string& key) {
    if (set_.empty()) {
      if (std::find(list_.begin(), list_.end(), key) != list_.end()) {
        return false;
      }
      list_.push_back(key);
      if (list_.size() > 16) {
        set_.insert(list_.begin(), list_.end());
        list_.clear();
      }
      return true;
    }
    return set_.insert(key).second;
  }

private:
  std::vector<std::string> list_;
  std::unordered_set<std::string> set_;
};

class JsonCopier {
public:
  JsonCopier(std::string_view text, JsonWriter& w) : text_(text), w_(w) {}

  bool object_members(std::string_view taken_key) {
    skip_space();
    if (!peek('{')) {
      return fail("expected a JSON object");
    }
    if (!members(1, taken_key)) {
      return false;
    }
    skip_space();
    if (pos_ != text_.size()) {
      return fail("unexpected text after the object");
    }
    return true;
  }

  std::string error() const { return error_ + " at byte " + std::to_string(error_pos_); }

private:
  bool fail(std::string_view what) {
    if (error_.empty()) {
      error_ = what;
      error_pos_ = pos_;
    }
    return false;
  }

  bool peek(char c) const { return pos_ < text_.size() && text_[pos_] == c; }

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  // Reads `item (',' item)*` up to `close`, the opening bracket being read already: an empty
  // list is fine, a trailing comma is not.
  template <class Item>
  bool items(char close, Item&& item) {
    skip_space();
    if (peek(close)) {
      ++pos_;
      return true;
    }
    for (;;) {
      if (!item()) {
        return false;
      }
      skip_space();
      if (peek(',')) {
        ++pos_;
        continue;
      }
      if (peek(close)) {
        ++pos_;
        return true;
      }
      return fail(std::string("expected ',' or '") + close + "'");
    }
  }

  // Reads `{ "k": v, ... }` at pos_ and writes its members into the open object of w_.
  bool members(int depth, std::string_view taken_key = {}) {
    ++pos_; // '{'
    KeySet keys;
    if (!taken_key.empty()) {
      keys.insert(std::string(taken_key));
    }
    return items('}', [&] {
      skip_space();
      if (!peek('"')) {
        return fail("expected a string key");
      }
      std::string key;
      if (!string(key)) {
        return false;
      }
      if (!keys.insert(key)) {
        return fail("duplicate key \"" + key.substr(0, 64) + "\"");
      }
      skip_space();
      if (!peek(':')) {
        return fail("expected ':'");
      }
      ++pos_;
      w_.key(key);
      return value(depth);
    });
  }

  bool value(int depth) {
    skip_space();
    if (pos_ >= text_.size()) {
      return fail("unexpected end of text");
    }
    const char c = text_[pos_];
    if (c == '{' || c == '[') {
      if (depth >= kMaxJsonDepth) {
        return fail("nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels");
      }
      if (c == '{') {
        w_.begin_object();
        if (!members(depth + 1)) {
          return false;
        }
        w_.end_object();
        return true;
      }
      return array(depth + 1);
    }
    if (c == '"') {
      std::string s;
      if (!string(s)) {
        return false;
      }
      w_.value(std::string_view(s));
      return true;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      return number();
    }
    for (std::string_view literal : {"true", "false", "null"}) {
      if (text_.substr(pos_, literal.size()) == literal) {
        pos_ += literal.size();
        if (literal == "null") {
          w_.null();
        } else {
          w_.value(literal == "true");
        }
        return true;
      }
    }
    return fail("expected a JSON value");
  }

  bool array(int depth) {
    ++pos_; // '['
    w_.begin_array();
    if (!items(']', [&] { return value(depth); })) {
      return false;
    }
    w_.end_array();
    return true;
  }

  bool hex4(std::uint32_t& out) {
    if (pos_ + 4 > text_.size()) {
      return fail("truncated \\u escape");
    }
    out = 0;
    for (int k = 0; k < 4; ++k) {
      const char h = text_[pos_++];
      out <<= 4;
      if (h >= '0' && h <= '9') {
        out |= static_cast<std::uint32_t>(h - '0');
      } else if (h >= 'a' && h <= 'f') {
        out |= static_cast<std::uint32_t>(h - 'a' + 10);
      } else if (h >= 'A' && h <= 'F') {
        out |= static_cast<std::uint32_t>(h - 'A' + 10);
      } else {
        --pos_;
        return fail("invalid \\u escape");
      }
    }
    return true;
  }

  // Reads a string literal at pos_ into `out`, decoded to UTF-8.
  bool string(std::string& out) {
    ++pos_; // '"'
    for (;;) {
      if (pos_ >= text_.size()) {
        return fail("unterminated string");
      }
      const auto c = static_cast<unsigned char>(text_[pos_]);
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c < 0x20) {
        return fail("control character in a string");
      }
      if (c >= 0x80) {
        const std::size_t start = pos_;
        if (decode_utf8(text_, pos_) == kInvalidUtf8) {
          pos_ = start;
          return fail("invalid UTF-8");
        }
        out.append(text_.substr(start, pos_ - start));
        continue;
      }
      if (c != '\\') {
        out.push_back(static_cast<char>(c));
        ++pos_;
        continue;
      }
      if (++pos_ >= text_.size()) {
        return fail("unterminated string");
      }
      const char e = text_[pos_++];
      switch (e) {
      case '"':
      case '\\':
      case '/':
        out.push_back(e);
        break;
      case 'b':
        out.push_back('\b');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'u': {
        std::uint32_t unit = 0;
        if (!hex4(unit)) {
          return false;
        }
        if (unit >= 0xDC00 && unit <= 0xDFFF) {
          return fail("lone low surrogate escape");
        }
        if (unit >= 0xD800 && unit <= 0xDBFF) {
          std::uint32_t low = 0;
          if (text_.substr(pos_, 2) != "\\u" || (pos_ += 2, !hex4(low)) || low < 0xDC00 ||
              low > 0xDFFF) {
            return fail("high surrogate escape without its low half");
          }
          unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
        }
        append_utf8(out, unit);
        break;
      }
      default:
        --pos_;
        return fail("invalid escape");
      }
    }
  }

  bool digits() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      ++pos_;
    }
    return pos_ > start;
  }

  // Checks the number grammar and that the value fits a double, then copies the text as is.
  bool number() {
    const std::size_t start = pos_;
    if (peek('-')) {
      ++pos_;
    }
    if (peek('0')) {
      ++pos_;
    } else if (!digits()) {
      return fail("invalid number");
    }
    bool integral = true;
    if (peek('.')) {
      ++pos_;
      integral = false;
      if (!digits()) {
        return fail("invalid number");
      }
    }
    if (peek('e') || peek('E')) {
      ++pos_;
      integral = false;
      if (peek('+') || peek('-')) {
        ++pos_;
      }
      if (!digits()) {
        return fail("invalid number");
      }
    }
    const std::string_view literal = text_.substr(start, pos_ - start);
    if (!integral || literal.size() > 19) {
      double d = 0;
      const auto res = std::from_chars(literal.data(), literal.data() + literal.size(), d);
      if (res.ec == std::errc::result_out_of_range && overflows(literal)) {
        pos_ = start;
        return fail("number out of the range of a double");
      }
    }
    w_.raw(literal);
    return true;
  }

  // Whether an out-of-range literal is too large (rather than too small, which reads as 0).
  static bool overflows(std::string_view literal) {
    long exponent = 0;
    const std::size_t e = literal.find_first_of("eE");
    if (e != std::string_view::npos) {
      std::string_view exp = literal.substr(e + 1);
      if (!exp.empty() && exp.front() == '+') {
        exp.remove_prefix(1);
      }
      if (std::from_chars(exp.data(), exp.data() + exp.size(), exponent).ec != std::errc()) {
        return exp.front() != '-'; // an exponent beyond a long, either way
      }
    }
    const std::string_view mantissa = literal.substr(0, e);
    const std::size_t first = mantissa.find_first_of("123456789");
    const std::size_t point = std::min(mantissa.find('.'), mantissa.size());
    if (first == std::string_view::npos) {
      return false; // zero
    }
    // The decimal exponent of the leading digit.
    const long lead =
        first < point ? static_cast<long>(point - first - 1) : -static_cast<long>(first - point);
    return lead + exponent > 0;
  }

  std::string_view text_;
  JsonWriter& w_;
  std::size_t pos_ = 0;
  std::string error_;
  std::size_t error_pos_ = 0;
};

} // namespace

bool copy_json_object_members(std::string_view text, JsonWriter& w, std::string& error,
                              std::string_view taken_key) {
  JsonCopier copier(text, w);
  if (copier.object_members(taken_key)) {
    return true;
  }
  error = copier.error();
  return false;
}

} // namespace tracer::detail
