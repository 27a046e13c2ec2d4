// serde_json-compatible parsing and printing (see serde_json.h). A recursive-descent parser over
// the raw bytes: it is small, has no allocation beyond the tree, and lets us reproduce serde's
// integer/float split exactly, which a general-purpose parser would hide.
#include "tlparse/report/serde_json.h"

#include "tlparse/highlight/html.h"
#include "tlparse/text/hex_digit.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <system_error>

namespace tlparse::report {

JsonValue JsonValue::boolean(bool b) {
  JsonValue v;
  v.kind_ = Kind::Bool;
  v.bool_ = b;
  return v;
}
JsonValue JsonValue::integer(std::int64_t i) {
  JsonValue v;
  v.kind_ = Kind::Int;
  v.int_ = i;
  return v;
}
JsonValue JsonValue::unsigned_integer(std::uint64_t u) {
  JsonValue v;
  v.kind_ = Kind::UInt;
  v.uint_ = u;
  return v;
}
JsonValue JsonValue::number(double f) {
  JsonValue v;
  v.kind_ = Kind::Float;
  v.float_ = f;
  return v;
}
JsonValue JsonValue::string(std::string s) {
  JsonValue v;
  v.kind_ = Kind::String;
  v.string_ = std::move(s);
  return v;
}
JsonValue JsonValue::array() {
  JsonValue v;
  v.kind_ = Kind::Array;
  return v;
}
JsonValue JsonValue::object() {
  JsonValue v;
  v.kind_ = Kind::Object;
  return v;
}

void JsonValue::set(std::string key, JsonValue value) {
  assert(kind_ == Kind::Object);
  auto it = std::lower_bound(members_.begin(), members_.end(), key,
                             [](const Member& m, const std::string& k) { return m.first < k; });
  if (it != members_.end() && it->first == key) {
    it->second = std::move(value);
    return;
  }
  members_.emplace(it, std::move(key), std::move(value));
}

const JsonValue* JsonValue::find(std::string_view key) const {
  auto it = std::lower_bound(members_.begin(), members_.end(), key,
                             [](const Member& m, std::string_view k) { return m.first < k; });
  if (it != members_.end() && it->first == key) {
    return &it->second;
  }
  return nullptr;
}

namespace {
void write_scalar(std::string& out, const JsonValue& v);
} // namespace

// ---------------------------------------------------------------------------------------------
// Parsing

class JsonParser {
public:
  explicit JsonParser(std::string_view text) : text_(text) {}

  std::optional<JsonValue> parse_document() {
    JsonValue v;
    skip_ws();
    if (!parse_value(v, 0)) {
      return std::nullopt;
    }
    skip_ws();
    if (pos_ != text_.size()) {
      return std::nullopt;
    }
    return v;
  }

  // The document written as write_compact would print its tree, without building the tree:
  // values are written as they are read, and an object's members are reordered in `out` only
  // when their keys did not come sorted and unique (rare: serde-written JSON is sorted). False
  // (with `out` as it was) when the text is not JSON.
  bool write_document_compact(std::string& out) {
    const std::size_t start = out.size();
    skip_ws();
    if (!emit_value(out, 0)) {
      out.resize(start);
      return false;
    }
    skip_ws();
    if (pos_ != text_.size()) {
      out.resize(start);
      return false;
    }
    return true;
  }

  // The members of a document that is an object, sorted and unique, each value printed compact.
  std::optional<std::vector<std::pair<std::string, std::string>>> compact_members() {
    std::vector<std::pair<std::string, std::string>> members;
    skip_ws();
    if (at_end() || peek() != '{') {
      return std::nullopt;
    }
    ++pos_;
    skip_ws();
    if (!at_end() && peek() == '}') {
      ++pos_;
    } else {
      bool sorted = true;
      while (true) {
        std::string key;
        std::string value;
        if (!read_key(key) || !emit_value(value, 1)) {
          return std::nullopt;
        }
        sorted = sorted && (members.empty() || members.back().first < key);
        members.emplace_back(std::move(key), std::move(value));
        const int next = after_member('}');
        if (next < 0) {
          return std::nullopt;
        }
        if (next == 0) {
          break;
        }
      }
      if (!sorted) {
        last_of_each_key(members, [](const auto& m) -> const std::string& { return m.first; });
      }
    }
    skip_ws();
    if (pos_ != text_.size()) {
      return std::nullopt;
    }
    return members;
  }

private:
  // serde_json's default recursion limit.
  static constexpr int kMaxDepth = 128;

  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return text_[pos_]; }

  void skip_ws() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
        ++pos_;
      } else {
        break;
      }
    }
  }

  bool consume_literal(std::string_view lit) {
    if (text_.substr(pos_, lit.size()) != lit) {
      return false;
    }
    pos_ += lit.size();
    return true;
  }

  bool parse_value(JsonValue& out, int depth) {
    if (at_end()) {
      return false;
    }
    switch (peek()) {
    case 'n':
      out.kind_ = JsonValue::Kind::Null;
      return consume_literal("null");
    case 't':
      out.kind_ = JsonValue::Kind::Bool;
      out.bool_ = true;
      return consume_literal("true");
    case 'f':
      out.kind_ = JsonValue::Kind::Bool;
      out.bool_ = false;
      return consume_literal("false");
    case '"':
      out.kind_ = JsonValue::Kind::String;
      return parse_string(out.string_);
    case '[':
      return parse_array(out, depth + 1);
    case '{':
      return parse_object(out, depth + 1);
    default:
      return parse_number(out);
    }
  }

  bool parse_array(JsonValue& out, int depth) {
    if (depth > kMaxDepth) {
      return false;
    }
    out.kind_ = JsonValue::Kind::Array;
    ++pos_; // '['
    skip_ws();
    if (!at_end() && peek() == ']') {
      ++pos_;
      return true;
    }
    while (true) {
      skip_ws();
      out.items_.emplace_back();
      if (!parse_value(out.items_.back(), depth)) {
        return false;
      }
      const int next = after_member(']');
      if (next <= 0) {
        return next == 0;
      }
    }
  }

  bool parse_object(JsonValue& out, int depth) {
    if (depth > kMaxDepth) {
      return false;
    }
    out.kind_ = JsonValue::Kind::Object;
    ++pos_; // '{'
    skip_ws();
    if (!at_end() && peek() == '}') {
      ++pos_;
      return true;
    }
    bool sorted = true;
    while (true) {
      std::string key;
      if (!read_key(key)) {
        return false;
      }
      JsonValue value;
      if (!parse_value(value, depth)) {
        return false;
      }
      if (!out.members_.empty() && !(out.members_.back().first < key)) {
        sorted = false;
      }
      out.members_.emplace_back(std::move(key), std::move(value));
      const int next = after_member('}');
      if (next < 0) {
        return false;
      }
      if (next == 0) {
        break;
      }
    }
    if (!sorted) {
      normalise_members(out.members_);
    }
    return true;
  }

  // Sorts by key; for duplicate keys the last occurrence wins (BTreeMap::insert semantics).
  static void normalise_members(std::vector<JsonValue::Member>& members) {
    last_of_each_key(members, [](const auto& m) -> const std::string& { return m.first; });
  }

  // Sorts `items` by key (stably) and keeps the last item of each key: serde_json's BTreeMap.
  template <class T, class KeyOf>
  static void last_of_each_key(std::vector<T>& items, KeyOf key_of) {
    std::stable_sort(items.begin(), items.end(),
                     [&](const T& a, const T& b) { return key_of(a) < key_of(b); });
    std::vector<T> unique;
    unique.reserve(items.size());
    for (T& m : items) {
      if (!unique.empty() && key_of(unique.back()) == key_of(m)) {
        unique.back() = std::move(m);
      } else {
        unique.push_back(std::move(m));
      }
    }
    items = std::move(unique);
  }

  // A member's key and its ':' (after '{' or ','); the parser stands on the value then.
  bool read_key(std::string& key) {
    skip_ws();
    if (at_end() || peek() != '"' || !parse_string(key)) {
      return false;
    }
    skip_ws();
    if (at_end() || text_[pos_++] != ':') {
      return false;
    }
    skip_ws();
    return true;
  }

  // After a member or item: 1 for ',' (more follow), 0 for `close`, -1 for anything else.
  int after_member(char close) {
    skip_ws();
    if (at_end()) {
      return -1;
    }
    const char c = text_[pos_++];
    return c == close ? 0 : c == ',' ? 1 : -1;
  }

  // Streaming counterparts of parse_value/parse_array/parse_object: same grammar and limits,
  // output appended to `out` in write_compact's layout.
  bool emit_value(std::string& out, int depth) {
    if (at_end()) {
      return false;
    }
    if (peek() == '[') {
      return emit_array(out, depth + 1);
    }
    if (peek() == '{') {
      return emit_object(out, depth + 1);
    }
    JsonValue scalar;
    if (!parse_value(scalar, depth)) {
      return false;
    }
    write_scalar(out, scalar);
    return true;
  }

  // Opens an array or object (the parser stands on `open`) and writes its bracket: -1 past the
  // depth limit, 0 when it was empty (closed and written), 1 when members follow.
  int open_container(std::string& out, char open, char close, int depth) {
    if (depth > kMaxDepth) {
      return -1;
    }
    ++pos_;
    out.push_back(open);
    skip_ws();
    if (!at_end() && peek() == close) {
      ++pos_;
      out.push_back(close);
      return 0;
    }
    return 1;
  }

  bool emit_array(std::string& out, int depth) {
    if (const int opened = open_container(out, '[', ']', depth); opened <= 0) {
      return opened == 0;
    }
    for (bool first = true;; first = false) {
      if (!first) {
        out.push_back(',');
      }
      skip_ws();
      if (!emit_value(out, depth)) {
        return false;
      }
      const int next = after_member(']');
      if (next < 0) {
        return false;
      }
      if (next == 0) {
        out.push_back(']');
        return true;
      }
    }
  }

  // Members are written as they come, each remembered as its key and its span of `out`; when
  // the keys were not sorted and unique, the spans are put in key order once the object closes.
  bool emit_object(std::string& out, int depth) {
    if (const int opened = open_container(out, '{', '}', depth); opened <= 0) {
      return opened == 0;
    }
    struct Span {
      std::string key;
      std::size_t begin = 0, end = 0; // `"key":value` in out, no comma
    };
    std::vector<Span> members;
    bool sorted = true;
    const std::size_t body = out.size();
    while (true) {
      Span m;
      if (!read_key(m.key)) {
        return false;
      }
      if (!members.empty()) {
        out.push_back(',');
      }
      m.begin = out.size();
      write_json_string(out, m.key);
      out.push_back(':');
      if (!emit_value(out, depth)) {
        return false;
      }
      m.end = out.size();
      sorted = sorted && (members.empty() || members.back().key < m.key);
      members.push_back(std::move(m));
      const int next = after_member('}');
      if (next < 0) {
        return false;
      }
      if (next == 0) {
        break;
      }
    }
    if (!sorted) {
      last_of_each_key(members, [](const Span& m) -> const std::string& { return m.key; });
      const std::string written = out.substr(body);
      out.resize(body);
      for (const Span& m : members) {
        if (out.size() != body) {
          out.push_back(',');
        }
        out.append(written, m.begin - body, m.end - m.begin);
      }
    }
    out.push_back('}');
    return true;
  }

  bool parse_hex4(std::uint32_t& out) {
    if (text_.size() - pos_ < 4) {
      return false;
    }
    out = 0;
    for (int k = 0; k < 4; ++k) {
      const int h = text::hex_digit_value(text_[pos_ + k]);
      if (h < 0) {
        return false;
      }
      out = out * 16 + static_cast<std::uint32_t>(h);
    }
    pos_ += 4;
    return true;
  }

  static void append_code_point(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  bool parse_string(std::string& out) {
    ++pos_; // opening quote
    std::size_t run = pos_;
    while (true) {
      if (at_end()) {
        return false;
      }
      const auto c = static_cast<unsigned char>(text_[pos_]);
      if (c == '"') {
        out.append(text_.substr(run, pos_ - run));
        ++pos_;
        return true;
      }
      if (c < 0x20) {
        return false; // serde_json rejects raw control characters
      }
      if (c != '\\') {
        ++pos_;
        continue;
      }
      out.append(text_.substr(run, pos_ - run));
      ++pos_;
      if (at_end()) {
        return false;
      }
      const char e = text_[pos_++];
      switch (e) {
      case '"':
        out.push_back('"');
        break;
      case '\\':
        out.push_back('\\');
        break;
      case '/':
        out.push_back('/');
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
        std::uint32_t cp = 0;
        if (!parse_hex4(cp)) {
          return false;
        }
        if (cp >= 0xDC00 && cp <= 0xDFFF) {
          return false; // lone trailing surrogate
        }
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (text_.substr(pos_, 2) != "\\u") {
            return false; // lone leading surrogate
          }
          pos_ += 2;
          std::uint32_t low = 0;
          if (!parse_hex4(low) || low < 0xDC00 || low > 0xDFFF) {
            return false;
          }
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        append_code_point(out, cp);
        break;
      }
      default:
        return false;
      }
      run = pos_;
    }
  }

  static bool is_digit(char c) { return c >= '0' && c <= '9'; }

  bool parse_number(JsonValue& out) {
    const std::size_t start = pos_;
    bool negative = false;
    if (peek() == '-') {
      negative = true;
      ++pos_;
    }
    if (at_end() || !is_digit(peek())) {
      return false;
    }
    if (peek() == '0') {
      ++pos_;
      if (!at_end() && is_digit(peek())) {
        return false; // leading zeros
      }
    } else {
      while (!at_end() && is_digit(peek())) {
        ++pos_;
      }
    }
    const std::size_t int_end = pos_;
    bool is_float = false;
    if (!at_end() && peek() == '.') {
      is_float = true;
      ++pos_;
      if (at_end() || !is_digit(peek())) {
        return false;
      }
      while (!at_end() && is_digit(peek())) {
        ++pos_;
      }
    }
    if (!at_end() && (peek() == 'e' || peek() == 'E')) {
      is_float = true;
      ++pos_;
      if (!at_end() && (peek() == '+' || peek() == '-')) {
        ++pos_;
      }
      if (at_end() || !is_digit(peek())) {
        return false;
      }
      while (!at_end() && is_digit(peek())) {
        ++pos_;
      }
    }
    const std::string_view literal = text_.substr(start, pos_ - start);
    if (!is_float) {
      const std::string_view digits =
          text_.substr(negative ? start + 1 : start, int_end - start - (negative ? 1 : 0));
      std::uint64_t magnitude = 0;
      const auto [ptr, ec] =
          std::from_chars(digits.data(), digits.data() + digits.size(), magnitude);
      if (ec == std::errc() && ptr == digits.data() + digits.size()) {
        if (!negative) {
          out.kind_ = JsonValue::Kind::UInt;
          out.uint_ = magnitude;
          return true;
        }
        constexpr std::uint64_t kMinMagnitude = std::uint64_t{1} << 63;
        if (magnitude == 0) {
          out.kind_ = JsonValue::Kind::Float; // serde_json reads -0 as the float -0.0
          out.float_ = -0.0;
          return true;
        }
        if (magnitude <= kMinMagnitude) {
          out.kind_ = JsonValue::Kind::Int;
          out.int_ = magnitude == kMinMagnitude ? std::numeric_limits<std::int64_t>::min()
                                                : -static_cast<std::int64_t>(magnitude);
          return true;
        }
      }
      // Too large for 64 bits: serde_json falls back to f64.
    }
    return parse_float(literal, out);
  }

  // serde_json's own float reader (without its float_roundtrip feature), reproduced because its
  // result is what tlparse 0.4.3 writes back: the digits are gathered into a u64 significand
  // (digits past 19-20 are dropped and only counted in the exponent), converted to f64, then
  // multiplied or divided once by an exact power of ten. Two roundings instead of one, so some
  // 17-digit values come back one unit in the last place off the correctly rounded value
  // (1715885247.9018195 reads as ...197); the byte-compatible outputs must show the same.
  static bool parse_float(std::string_view literal, JsonValue& out) {
    constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
    std::size_t i = 0;
    const bool negative = literal[0] == '-';
    if (negative) {
      ++i;
    }
    std::uint64_t significand = 0;
    std::int64_t exponent = 0;
    bool saturated = false;
    auto take_digit = [&](char c, bool fraction) {
      const std::uint64_t digit = static_cast<std::uint64_t>(c - '0');
      if (!saturated &&
          (significand > kMax / 10 || (significand == kMax / 10 && digit > kMax % 10))) {
        saturated = true;
      }
      if (saturated) {
        if (!fraction) {
          ++exponent; // a dropped integer digit still scales the value
        }
        return;
      }
      significand = significand * 10 + digit;
      if (fraction) {
        --exponent;
      }
    };
    for (; i < literal.size() && is_digit(literal[i]); ++i) {
      take_digit(literal[i], false);
    }
    if (i < literal.size() && literal[i] == '.') {
      for (++i; i < literal.size() && is_digit(literal[i]); ++i) {
        take_digit(literal[i], true);
      }
    }
    if (i < literal.size() && (literal[i] == 'e' || literal[i] == 'E')) {
      ++i;
      bool exp_negative = false;
      if (literal[i] == '+' || literal[i] == '-') {
        exp_negative = literal[i] == '-';
        ++i;
      }
      std::int64_t e = 0;
      for (; i < literal.size() && is_digit(literal[i]); ++i) {
        e = e * 10 + (literal[i] - '0');
        if (e > std::numeric_limits<std::int32_t>::max()) {
          // serde: an out-of-range exponent is an error unless the value is zero or tiny.
          if (significand != 0 && !exp_negative) {
            return false;
          }
          out.kind_ = JsonValue::Kind::Float;
          out.float_ = negative ? -0.0 : 0.0;
          return true;
        }
      }
      exponent = exp_negative ? exponent - e : exponent + e;
      exponent = std::clamp<std::int64_t>(exponent, std::numeric_limits<std::int32_t>::min(),
                                          std::numeric_limits<std::int32_t>::max());
    }
    static const auto kPow10 = [] {
      std::array<double, 309> p{};
      for (int k = 0; k < 309; ++k) {
        // Each power as the correctly rounded literal 1eK (what Rust's table holds).
        const std::string lit = "1e" + std::to_string(k);
        std::from_chars(lit.data(), lit.data() + lit.size(), p[static_cast<std::size_t>(k)]);
      }
      return p;
    }();
    double f = static_cast<double>(significand);
    while (true) {
      const std::int64_t magnitude = exponent < 0 ? -exponent : exponent;
      if (magnitude < 309) {
        if (exponent >= 0) {
          f *= kPow10[static_cast<std::size_t>(magnitude)];
          if (std::isinf(f)) {
            return false;
          }
        } else {
          f /= kPow10[static_cast<std::size_t>(magnitude)];
        }
        break;
      }
      if (f == 0.0) {
        break;
      }
      if (exponent >= 0) {
        return false;
      }
      f /= 1e308;
      exponent += 308;
    }
    out.kind_ = JsonValue::Kind::Float;
    out.float_ = negative ? -f : f;
    return true;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

std::optional<JsonValue> parse_json(std::string_view text) {
  if (!highlight::is_valid_utf8(text)) {
    // serde_json only ever sees valid UTF-8 (Rust strings); repair rather than reject.
    const std::string repaired = highlight::sanitize_utf8(text);
    return JsonParser(repaired).parse_document();
  }
  return JsonParser(text).parse_document();
}

bool write_compact_json(std::string& out, std::string_view text) {
  if (!highlight::is_valid_utf8(text)) {
    const std::string repaired = highlight::sanitize_utf8(text); // as parse_json does
    return JsonParser(repaired).write_document_compact(out);
  }
  return JsonParser(text).write_document_compact(out);
}

std::optional<std::vector<std::pair<std::string, std::string>>>
compact_json_members(std::string_view text) {
  if (!highlight::is_valid_utf8(text)) {
    const std::string repaired = highlight::sanitize_utf8(text); // as parse_json does
    return JsonParser(repaired).compact_members();
  }
  return JsonParser(text).compact_members();
}

// ---------------------------------------------------------------------------------------------
// Printing

void write_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  if (!highlight::is_valid_utf8(s)) {
    // JSON text must be UTF-8; strings from a log may not be (never fatal: repaired).
    const std::string repaired = highlight::sanitize_utf8(s);
    write_json_string(out, repaired);
    return;
  }
  out.push_back('"');
  std::size_t run = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') {
      continue;
    }
    out.append(s.substr(run, i - run));
    run = i + 1;
    switch (c) {
    case '"':
      out.append("\\\"");
      break;
    case '\\':
      out.append("\\\\");
      break;
    case '\b':
      out.append("\\b");
      break;
    case '\f':
      out.append("\\f");
      break;
    case '\n':
      out.append("\\n");
      break;
    case '\r':
      out.append("\\r");
      break;
    case '\t':
      out.append("\\t");
      break;
    default:
      out.append("\\u00");
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
      break;
    }
  }
  out.append(s.substr(run));
  out.push_back('"');
}

void write_f64(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out.append("null");
    return;
  }
  if (value == 0) {
    out.append(std::signbit(value) ? "-0.0" : "0.0");
    return;
  }
  // Shortest round-trip digits, then ryu's layout rules.
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  assert(res.ec == std::errc());
  std::string_view sci(buf, static_cast<std::size_t>(res.ptr - buf));
  if (sci.front() == '-') {
    out.push_back('-');
    sci.remove_prefix(1);
  }
  const std::size_t e_pos = sci.find('e');
  assert(e_pos != std::string_view::npos);
  std::string digits;
  for (char c : sci.substr(0, e_pos)) {
    if (c != '.') {
      digits.push_back(c);
    }
  }
  int exp10 = 0; // exponent of the first digit
  {
    std::string_view e = sci.substr(e_pos + 1);
    if (!e.empty() && e.front() == '+') {
      e.remove_prefix(1);
    }
    std::from_chars(e.data(), e.data() + e.size(), exp10);
  }
  const int length = static_cast<int>(digits.size());
  const int kk = exp10 + 1;  // 10^(kk-1) <= v < 10^kk
  const int k = kk - length; // exponent of the last digit
  if (k >= 0 && kk <= 16) {
    out.append(digits);
    out.append(static_cast<std::size_t>(k), '0');
    out.append(".0");
  } else if (kk > 0 && kk <= 16) {
    out.append(digits, 0, static_cast<std::size_t>(kk));
    out.push_back('.');
    out.append(digits, static_cast<std::size_t>(kk));
  } else if (kk > -5 && kk <= 0) {
    out.append("0.");
    out.append(static_cast<std::size_t>(-kk), '0');
    out.append(digits);
  } else {
    out.push_back(digits[0]);
    if (length > 1) {
      out.push_back('.');
      out.append(digits, 1);
    }
    out.push_back('e');
    out.append(std::to_string(kk - 1));
  }
}

namespace {

void write_scalar(std::string& out, const JsonValue& v) {
  switch (v.kind()) {
  case JsonValue::Kind::Null:
    out.append("null");
    break;
  case JsonValue::Kind::Bool:
    out.append(v.as_bool() ? "true" : "false");
    break;
  case JsonValue::Kind::Int: {
    char buf[24];
    const auto res = std::to_chars(buf, buf + sizeof buf, v.as_int());
    out.append(buf, res.ptr);
    break;
  }
  case JsonValue::Kind::UInt: {
    char buf[24];
    const auto res = std::to_chars(buf, buf + sizeof buf, v.as_uint());
    out.append(buf, res.ptr);
    break;
  }
  case JsonValue::Kind::Float:
    write_f64(out, v.as_float());
    break;
  case JsonValue::Kind::String:
    write_json_string(out, v.as_string());
    break;
  case JsonValue::Kind::Array:
  case JsonValue::Kind::Object:
    assert(false && "containers are not scalars");
    break;
  }
}

void write_pretty_at(std::string& out, const JsonValue& v, std::size_t indent) {
  if (v.kind() == JsonValue::Kind::Array) {
    if (v.items().empty()) {
      out.append("[]");
      return;
    }
    out.append("[\n");
    bool first = true;
    for (const auto& item : v.items()) {
      if (!first) {
        out.append(",\n");
      }
      first = false;
      out.append(indent + 2, ' ');
      write_pretty_at(out, item, indent + 2);
    }
    out.push_back('\n');
    out.append(indent, ' ');
    out.push_back(']');
    return;
  }
  if (v.kind() == JsonValue::Kind::Object) {
    if (v.members().empty()) {
      out.append("{}");
      return;
    }
    out.append("{\n");
    bool first = true;
    for (const auto& [key, value] : v.members()) {
      if (!first) {
        out.append(",\n");
      }
      first = false;
      out.append(indent + 2, ' ');
      write_json_string(out, key);
      out.append(": ");
      write_pretty_at(out, value, indent + 2);
    }
    out.push_back('\n');
    out.append(indent, ' ');
    out.push_back('}');
    return;
  }
  write_scalar(out, v);
}

} // namespace

void write_pretty(std::string& out, const JsonValue& value, std::size_t indent) {
  write_pretty_at(out, value, indent);
}

void write_compact(std::string& out, const JsonValue& v) {
  if (v.kind() == JsonValue::Kind::Array) {
    out.push_back('[');
    bool first = true;
    for (const auto& item : v.items()) {
      if (!first) {
        out.push_back(',');
      }
      first = false;
      write_compact(out, item);
    }
    out.push_back(']');
    return;
  }
  if (v.kind() == JsonValue::Kind::Object) {
    out.push_back('{');
    bool first = true;
    for (const auto& [key, value] : v.members()) {
      if (!first) {
        out.push_back(',');
      }
      first = false;
      write_json_string(out, key);
      out.push_back(':');
      write_compact(out, value);
    }
    out.push_back('}');
    return;
  }
  write_scalar(out, v);
}

std::optional<std::string> pretty_print_json(std::string_view text) {
  auto parsed = parse_json(text);
  if (!parsed) {
    return std::nullopt;
  }
  std::string out;
  out.reserve(text.size() + text.size() / 2);
  write_pretty(out, *parsed);
  return out;
}

} // namespace tlparse::report
