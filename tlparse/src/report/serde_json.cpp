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

// An ASCII byte as serde_json writes it inside a string: a quote, a backslash and the control
// characters escaped (\b \f \n \r \t, the others as \u00xx), any other byte as it is.
void append_json_char(std::string& out, unsigned char c) {
  static constexpr char kHex[] = "0123456789abcdef";
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
    if (c >= 0x20) {
      out.push_back(static_cast<char>(c));
    } else {
      out.append("\\u00");
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
    break;
  }
}

// The first position from `pos` on of a byte that ends a run of plain string bytes: a quote, a
// backslash or a control character (text.size() when there is none). Eight bytes at a time, since
// strings are most of a document's bytes: a byte b is < 0x20 when (b - 0x20) borrows into bit 7
// while b's own bit 7 is clear, and equal to q when b ^ q is zero (the same test against 0x01).
std::size_t special_json_byte(std::string_view text, std::size_t pos) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ull;
  constexpr std::uint64_t kHigh = 0x8080808080808080ull;
  const auto below = [](std::uint64_t w, std::uint8_t n) { return (w - kOnes * n) & ~w & kHigh; };
  while (text.size() - pos >= 8) {
    std::uint64_t w = 0;
    std::memcpy(&w, text.data() + pos, sizeof w);
    if ((below(w, 0x20) | below(w ^ (kOnes * '"'), 1) | below(w ^ (kOnes * '\\'), 1)) != 0) {
      break; // one of these eight; found below
    }
    pos += 8;
  }
  for (; pos < text.size(); ++pos) {
    const auto c = static_cast<unsigned char>(text[pos]);
    if (c < 0x20 || c == '"' || c == '\\') {
      break;
    }
  }
  return pos;
}

// The body of a JSON string literal for `s`, which must be valid UTF-8: runs that need no
// escape are appended in one call.
void append_json_escaped(std::string& out, std::string_view s) {
  std::size_t run = 0;
  for (std::size_t i = special_json_byte(s, 0); i < s.size(); i = special_json_byte(s, i + 1)) {
    out.append(s.substr(run, i - run));
    append_json_char(out, static_cast<unsigned char>(s[i]));
    run = i + 1;
  }
  out.append(s.substr(run));
}

// Sorts items[0, n) by key, stably, and keeps the last item of each key (serde_json's BTreeMap
// keeps the last duplicate); returns how many are kept, at the front. Objects are small, so an
// insertion sort (no allocation) serves them; a wide one takes std::stable_sort.
template <class T, class KeyOf>
std::size_t keep_last_of_each_key(T* items, std::size_t n, KeyOf key_of) {
  constexpr std::size_t kInsertionSortMax = 32;
  if (n <= kInsertionSortMax) {
    for (std::size_t i = 1; i < n; ++i) {
      if (!(key_of(items[i]) < key_of(items[i - 1]))) {
        continue;
      }
      T moving = std::move(items[i]);
      std::size_t j = i;
      for (; j > 0 && key_of(moving) < key_of(items[j - 1]); --j) {
        items[j] = std::move(items[j - 1]);
      }
      items[j] = std::move(moving);
    }
  } else {
    std::stable_sort(items, items + n,
                     [&](const T& a, const T& b) { return key_of(a) < key_of(b); });
  }
  std::size_t kept = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (kept > 0 && key_of(items[kept - 1]) == key_of(items[i])) {
      items[kept - 1] = std::move(items[i]);
    } else if (kept != i) {
      items[kept++] = std::move(items[i]);
    } else {
      ++kept;
    }
  }
  return kept;
}

// Scratch space of the streamed printers, one per thread: the decoded keys of the objects being
// written, their members' spans, and a buffer to reorder an unsorted object's members in. Kept
// from one document to the next, so that printing many small ones allocates nothing.
struct EmitScratch {
  struct Span {
    std::size_t key_begin = 0, key_size = 0; // in keys
    std::size_t begin = 0, end = 0;          // `"key":value` in the output, no comma
  };
  std::string keys;
  std::vector<Span> spans;
  std::string reorder;
  std::string piece; // one string literal, before it is html-escaped
};

EmitScratch& emit_scratch() {
  thread_local EmitScratch scratch;
  return scratch;
}

// One document's use of the scratch: starts it empty, and gives back what a large document made
// it hold (a 100 MB payload must not pin its keys for the rest of the thread's life).
class ScratchUse {
public:
  explicit ScratchUse(EmitScratch& s) : s_(s) {
    s_.keys.clear();
    s_.spans.clear();
  }
  ~ScratchUse() {
    constexpr std::size_t kKeep = 1u << 20;
    if (s_.keys.capacity() > kKeep || s_.reorder.capacity() > kKeep ||
        s_.piece.capacity() > kKeep || s_.spans.capacity() * sizeof(EmitScratch::Span) > kKeep) {
      s_ = EmitScratch();
    }
  }
  ScratchUse(const ScratchUse&) = delete;
  ScratchUse& operator=(const ScratchUse&) = delete;

private:
  EmitScratch& s_;
};
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

  // The document written as write_compact (or write_pretty) would print its tree, without
  // building the tree: values are written as they are read, and an object's members are
  // reordered in `out` only when their keys did not come sorted and unique (serde-written JSON
  // is sorted; Python's json.dumps keeps insertion order). False (with `out` as it was) when
  // the text is not JSON.
  bool write_document(std::string& out, bool pretty, bool html = false,
                      JsonStringMemo* memo = nullptr) {
    pretty_ = pretty;
    html_ = html;
    memo_ = memo;
    const ScratchUse use(scratch_);
    const std::size_t start = out.size();
    skip_ws();
    if (!emit_value(out, 0, 0)) {
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

  // The members of a document that is an object, sorted and unique, each written compact into
  // `into`'s buffers.
  bool read_members(JsonMembers& into) {
    const ScratchUse use(scratch_);
    into.keys_.clear();
    into.text_.clear();
    into.spans_.clear();
    skip_ws();
    if (at_end() || peek() != '{') {
      return false;
    }
    ++pos_;
    skip_ws();
    if (!at_end() && peek() == '}') {
      ++pos_;
    } else {
      bool sorted = true;
      const auto key_of = [&into](const JsonMembers::Span& m) {
        return std::string_view(into.keys_).substr(m.key_begin, m.key_size);
      };
      while (true) {
        JsonMembers::Span m;
        m.key_begin = into.keys_.size();
        if (!read_key(into.keys_)) {
          return false;
        }
        m.key_size = into.keys_.size() - m.key_begin;
        m.member_begin = into.text_.size();
        into.text_.push_back('"');
        append_json_escaped(into.text_, key_of(m));
        into.text_.append("\":");
        m.value_begin = into.text_.size();
        if (!emit_value(into.text_, 1, 0)) {
          return false;
        }
        m.end = into.text_.size();
        sorted = sorted && (into.spans_.empty() || key_of(into.spans_.back()) < key_of(m));
        into.spans_.push_back(m);
        const int next = after_member('}');
        if (next < 0) {
          return false;
        }
        if (next == 0) {
          break;
        }
      }
      if (!sorted) {
        into.spans_.resize(keep_last_of_each_key(into.spans_.data(), into.spans_.size(), key_of));
      }
    }
    skip_ws();
    return pos_ == text_.size();
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
      // Sorted by key; for duplicate keys the last occurrence wins (BTreeMap::insert).
      out.members_.resize(keep_last_of_each_key(
          out.members_.data(), out.members_.size(),
          [](const JsonValue::Member& m) -> std::string_view { return m.first; }));
    }
    return true;
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
  // output appended to `out` in write_compact's layout, or write_pretty's when pretty_ (a value
  // starting at column `indent`).
  bool emit_value(std::string& out, int depth, std::size_t indent) {
    if (at_end()) {
      return false;
    }
    switch (peek()) {
    case '[':
      return emit_array(out, depth + 1, indent);
    case '{':
      return emit_object(out, depth + 1, indent);
    case '"':
      return html_ ? emit_string_html(out) : emit_string(out);
    case 'n':
      return emit_literal(out, "null");
    case 't':
      return emit_literal(out, "true");
    case 'f':
      return emit_literal(out, "false");
    default:
      break;
    }
    JsonValue number;
    if (!parse_number(number)) {
      return false;
    }
    write_scalar(out, number);
    return true;
  }

  bool emit_literal(std::string& out, std::string_view literal) {
    if (!consume_literal(literal)) {
      return false;
    }
    out.append(literal);
    return true;
  }

  // A string literal re-escaped as write_json_string writes the decoded string, without
  // decoding it into a buffer first: runs without escapes are copied as they are.
  bool emit_string(std::string& out) {
    ++pos_; // opening quote
    out.push_back('"');
    std::size_t run = pos_; // bytes from here on are written back as they came
    while (true) {
      pos_ = special_json_byte(text_, pos_);
      if (at_end()) {
        return false;
      }
      const auto c = static_cast<unsigned char>(text_[pos_]);
      if (c == '"') {
        out.append(text_.substr(run, pos_ - run));
        ++pos_;
        out.push_back('"');
        return true;
      }
      if (c != '\\') {
        return false; // serde_json rejects raw control characters
      }
      if (text_.size() - pos_ < 2) {
        return false;
      }
      switch (text_[pos_ + 1]) {
      case '"':
      case '\\':
      case 'b':
      case 'f':
      case 'n':
      case 'r':
      case 't':
        pos_ += 2; // written back as it came: the run goes on
        continue;
      case '/':
        out.append(text_.substr(run, pos_ - run));
        out.push_back('/');
        pos_ += 2;
        break;
      case 'u': {
        out.append(text_.substr(run, pos_ - run));
        pos_ += 2;
        std::uint32_t cp = 0;
        if (!read_unicode_escape(cp)) {
          return false;
        }
        if (cp < 0x80) {
          append_json_char(out, static_cast<unsigned char>(cp));
        } else {
          append_code_point(out, cp);
        }
        break;
      }
      default:
        return false;
      }
      run = pos_;
    }
  }

  // Where the string literal the parser stands on ends (its closing quote), found without
  // decoding it; npos when it does not end well (emit_string then says why).
  std::size_t literal_end() const {
    std::size_t p = pos_ + 1;
    while ((p = special_json_byte(text_, p)) < text_.size()) {
      if (text_[p] == '"') {
        return p;
      }
      if (text_[p] != '\\' || text_.size() - p < 2) {
        return std::string_view::npos; // a raw control character, or a backslash at the end
      }
      p += 2; // the escaped character (a \u escape's hex digits are plain bytes)
    }
    return std::string_view::npos;
  }

  // emit_string's literal, html-escaped (its only bytes that can need it), or the memo's copy
  // of the same literal's rendering.
  bool emit_string_html(std::string& out) {
    const std::size_t begin = pos_;
    if (memo_ != nullptr) {
      if (const std::size_t end = literal_end();
          end != std::string_view::npos && end + 1 - begin >= memo_->min_literal()) {
        if (const std::string* hit = memo_->find(text_.substr(begin, end + 1 - begin))) {
          out.append(*hit);
          pos_ = end + 1;
          return true;
        }
      }
    }
    std::string& literal = scratch_.piece;
    literal.clear();
    if (!emit_string(literal)) {
      return false;
    }
    const std::size_t at = out.size();
    highlight::append_html_escaped(out, literal);
    if (memo_ != nullptr && pos_ - begin >= memo_->min_literal()) {
      memo_->add(text_.substr(begin, pos_ - begin), std::string_view(out).substr(at));
    }
    return true;
  }

  // A member's key as a string literal (from its decoded bytes), html-escaped when html_.
  void write_key(std::string& out, std::string_view key) {
    std::string& literal = html_ ? scratch_.piece : out;
    if (html_) {
      literal.clear();
    }
    literal.push_back('"');
    append_json_escaped(literal, key);
    literal.push_back('"');
    if (html_) {
      highlight::append_html_escaped(out, literal);
    }
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

  // Before an item or member: its comma, and in the pretty layout its line and indentation.
  void begin_item(std::string& out, bool first, std::size_t indent) const {
    if (!first) {
      out.push_back(',');
    }
    if (pretty_) {
      out.push_back('\n');
      out.append(indent, ' ');
    }
  }

  void close_container(std::string& out, char close, std::size_t indent) const {
    if (pretty_) {
      out.push_back('\n');
      out.append(indent, ' ');
    }
    out.push_back(close);
  }

  bool emit_array(std::string& out, int depth, std::size_t indent) {
    if (const int opened = open_container(out, '[', ']', depth); opened <= 0) {
      return opened == 0;
    }
    for (bool first = true;; first = false) {
      begin_item(out, first, indent + 2);
      skip_ws();
      if (!emit_value(out, depth, indent + 2)) {
        return false;
      }
      const int next = after_member(']');
      if (next < 0) {
        return false;
      }
      if (next == 0) {
        close_container(out, ']', indent);
        return true;
      }
    }
  }

  // Members are written as they come, each remembered as its key (decoded, in the scratch's key
  // buffer) and its span of `out`; when the keys were not sorted and unique, the spans are put
  // in key order once the object closes.
  bool emit_object(std::string& out, int depth, std::size_t indent) {
    if (const int opened = open_container(out, '{', '}', depth); opened <= 0) {
      return opened == 0;
    }
    std::string& keys = scratch_.keys;
    std::vector<EmitScratch::Span>& spans = scratch_.spans;
    const std::size_t first_span = spans.size();
    const std::size_t first_key = keys.size();
    const auto key_of = [&keys](const EmitScratch::Span& m) {
      return std::string_view(keys).substr(m.key_begin, m.key_size);
    };
    bool sorted = true;
    const std::size_t body = out.size();
    while (true) {
      EmitScratch::Span m;
      m.key_begin = keys.size();
      if (!read_key(keys)) {
        return false;
      }
      m.key_size = keys.size() - m.key_begin;
      begin_item(out, spans.size() == first_span, indent + 2);
      m.begin = out.size();
      write_key(out, key_of(m));
      out.append(pretty_ ? ": " : ":");
      if (!emit_value(out, depth, indent + 2)) {
        return false;
      }
      m.end = out.size();
      sorted = sorted && (spans.size() == first_span || key_of(spans.back()) < key_of(m));
      spans.push_back(m);
      const int next = after_member('}');
      if (next < 0) {
        return false;
      }
      if (next == 0) {
        break;
      }
    }
    if (!sorted) {
      const std::size_t kept =
          keep_last_of_each_key(spans.data() + first_span, spans.size() - first_span, key_of);
      // Nested objects are done with the buffer by now.
      std::string& written = scratch_.reorder;
      written.assign(out, body);
      out.resize(body);
      for (std::size_t i = 0; i < kept; ++i) {
        const EmitScratch::Span& m = spans[first_span + i];
        begin_item(out, i == 0, indent + 2);
        out.append(written, m.begin - body, m.end - m.begin);
      }
    }
    close_container(out, '}', indent);
    spans.resize(first_span);
    keys.resize(first_key);
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

  // The code point of a \u escape (the parser stands after the `u`), a surrogate pair read as
  // one; false for bad hex digits and lone surrogates, which serde_json rejects.
  bool read_unicode_escape(std::uint32_t& cp) {
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
    return true;
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
        pos_ = special_json_byte(text_, pos_ + 1);
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
        if (!read_unicode_escape(cp)) {
          return false;
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
  bool pretty_ = false; // the emitters' layout
  bool html_ = false;   // their string literals html-escaped
  JsonStringMemo* memo_ = nullptr;
  EmitScratch& scratch_ = emit_scratch();
};

namespace {

// Runs `use` on a parser of `text`, or of its repair when it is not valid UTF-8: serde_json only
// ever sees valid UTF-8 (Rust strings), so we repair rather than reject, as parse_json does.
template <class Use>
auto with_parser(std::string_view text, std::string* repaired, Use use) {
  if (!highlight::is_valid_utf8(text)) {
    std::string local;
    std::string& held = repaired != nullptr ? *repaired : local;
    held = highlight::sanitize_utf8(text);
    JsonParser parser(held);
    return use(parser);
  }
  JsonParser parser(text);
  return use(parser);
}

} // namespace

std::optional<JsonValue> parse_json(std::string_view text) {
  return with_parser(text, nullptr, [](JsonParser& p) { return p.parse_document(); });
}

bool write_compact_json(std::string& out, std::string_view text) {
  return with_parser(text, nullptr, [&](JsonParser& p) { return p.write_document(out, false); });
}

bool write_pretty_json(std::string& out, std::string_view text) {
  return with_parser(text, nullptr, [&](JsonParser& p) { return p.write_document(out, true); });
}

bool write_pretty_json_html(std::string& out, std::string_view text, JsonStringMemo* memo) {
  return with_parser(text, nullptr,
                     [&](JsonParser& p) { return p.write_document(out, true, true, memo); });
}

const std::string* JsonStringMemo::find(std::string_view literal) const {
  const auto it = renderings_.find(literal);
  if (it == renderings_.end()) {
    return nullptr;
  }
  ++hits_;
  return &it->second;
}

void JsonStringMemo::add(std::string_view literal, std::string_view rendering) {
  const std::size_t cost = literal.size() + rendering.size() + 96; // with the nodes' overhead
  if (bytes_ + cost > max_bytes_ || renderings_.count(literal) != 0) {
    return;
  }
  bytes_ += cost;
  literals_.emplace_back(literal);
  renderings_.emplace(literals_.back(), std::string(rendering));
}

bool JsonMembers::read(std::string_view text) {
  // The members are copied into this object's buffers, so the repair need not outlive the read.
  return with_parser(text, &repaired_, [&](JsonParser& p) { return p.read_members(*this); });
}

JsonMembers::Member JsonMembers::operator[](std::size_t i) const {
  const Span& s = spans_[i];
  const std::string_view text(text_);
  return Member{std::string_view(keys_).substr(s.key_begin, s.key_size),
                text.substr(s.member_begin, s.end - s.member_begin),
                text.substr(s.value_begin, s.end - s.value_begin)};
}

std::optional<std::vector<std::pair<std::string, std::string>>>
compact_json_members(std::string_view text) {
  JsonMembers members;
  if (!members.read(text)) {
    return std::nullopt;
  }
  std::vector<std::pair<std::string, std::string>> out;
  out.reserve(members.size());
  for (std::size_t i = 0; i < members.size(); ++i) {
    out.emplace_back(members[i].key, members[i].value);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Printing

void write_json_string(std::string& out, std::string_view s) {
  if (!highlight::is_valid_utf8(s)) {
    // JSON text must be UTF-8; strings from a log may not be (never fatal: repaired).
    const std::string repaired = highlight::sanitize_utf8(s);
    write_json_string(out, repaired);
    return;
  }
  out.push_back('"');
  append_json_escaped(out, s);
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
  std::string out;
  out.reserve(text.size() + text.size() / 2);
  if (!write_pretty_json(out, text)) {
    return std::nullopt;
  }
  return out;
}

} // namespace tlparse::report
