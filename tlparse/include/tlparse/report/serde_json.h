// JSON re-serialisation in the exact byte layout of Rust's serde_json, because tlparse 0.4.3
// users diff and script against its JSON outputs (compile_directory.json, chromium_events.json,
// JSON artifacts, raw.jsonl). A document is parsed into a small tree whose objects are sorted by
// key (serde_json's default map is a BTreeMap: later duplicates replace earlier ones), then
// written either pretty (two-space indent, "key": value) or compact. Numbers follow serde_json:
// integer literals stay integers while they fit u64/i64, everything else is an f64 printed with
// the shortest round-trip digits in ryu's layout (1.0, 1e-7, 1.5e20).
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tlparse::report {

class JsonValue {
public:
  enum class Kind : std::uint8_t { Null, Bool, Int, UInt, Float, String, Array, Object };
  using Member = std::pair<std::string, JsonValue>;

  JsonValue() = default;
  static JsonValue null() { return {}; }
  static JsonValue boolean(bool b);
  static JsonValue integer(std::int64_t i);
  static JsonValue unsigned_integer(std::uint64_t u);
  static JsonValue number(double f);
  static JsonValue string(std::string s);
  static JsonValue array();
  static JsonValue object();

  Kind kind() const { return kind_; }
  bool is_object() const { return kind_ == Kind::Object; }
  bool as_bool() const { return bool_; }
  std::int64_t as_int() const { return int_; }
  std::uint64_t as_uint() const { return uint_; }
  double as_float() const { return float_; }
  const std::string& as_string() const { return string_; }
  const std::vector<JsonValue>& items() const { return items_; }
  std::vector<JsonValue>& items() { return items_; }
  // Object members, sorted by key (bytewise), unique.
  const std::vector<Member>& members() const { return members_; }
  // Inserts or replaces `key`, keeping the members sorted.
  void set(std::string key, JsonValue value);
  const JsonValue* find(std::string_view key) const;

private:
  friend class JsonParser;
  Kind kind_ = Kind::Null;
  bool bool_ = false;
  std::int64_t int_ = 0;
  std::uint64_t uint_ = 0;
  double float_ = 0;
  std::string string_;
  std::vector<JsonValue> items_;
  std::vector<Member> members_;
};

// Parses `text` with serde_json's strictness (no trailing commas, no control characters in
// strings, no lone surrogates, depth limit 128, only whitespace after the value). Returns
// nullopt on any error: callers keep the raw text then, as tlparse does.
std::optional<JsonValue> parse_json(std::string_view text);

// serde_json::to_string_pretty / to_string layouts, appended to `out`.
// `indent`: the value starts at that column (its nested lines are indented from there), so a
// document can be written piece by piece with the same bytes.
void write_pretty(std::string& out, const JsonValue& value, std::size_t indent = 0);
void write_compact(std::string& out, const JsonValue& value);
// The same bytes as write_compact(out, *parse_json(text)), streamed: no tree is built, so a
// large document costs about its own size (its members' keys, and a copy of an object whose
// keys came unsorted) instead of a tree many times larger. False, with `out` unchanged, when
// parse_json would fail.
bool write_compact_json(std::string& out, std::string_view text);
// The same bytes as write_pretty(out, *parse_json(text)), streamed like write_compact_json.
// False, with `out` unchanged, when parse_json would fail.
bool write_pretty_json(std::string& out, std::string_view text);

// Renderings of long string values by their literal text (quotes and escapes as logged), for
// write_pretty_json_html: every compile's metrics repeat Inductor's and Dynamo's configurations,
// tens of KB of escaped JSON each. Bounded: once `max_bytes` are held, new ones are not kept.
// Not thread-safe (one per renderer).
class JsonStringMemo {
public:
  explicit JsonStringMemo(std::size_t max_bytes, std::size_t min_literal = 1024)
      : max_bytes_(max_bytes), min_literal_(min_literal) {}
  JsonStringMemo(const JsonStringMemo&) = delete;
  JsonStringMemo& operator=(const JsonStringMemo&) = delete;
  // Literals shorter than this are printed every time (looking them up costs as much).
  std::size_t min_literal() const { return min_literal_; }
  const std::string* find(std::string_view literal) const;
  void add(std::string_view literal, std::string_view rendering);
  std::uint64_t hits() const { return hits_; }

private:
  std::deque<std::string> literals_; // the keys' storage (a deque never moves its elements)
  std::unordered_map<std::string_view, std::string> renderings_;
  std::size_t max_bytes_;
  std::size_t min_literal_;
  std::size_t bytes_ = 0;
  mutable std::uint64_t hits_ = 0;
};

// The same bytes as html-escaping (highlight::append_html_escaped) what write_pretty_json
// writes, in one pass: only string literals need escaping (the rest is brackets, spaces and
// numbers), and a long string literal already in `memo` is copied from it. False, with `out`
// unchanged, when parse_json would fail.
bool write_pretty_json_html(std::string& out, std::string_view text,
                            JsonStringMemo* memo = nullptr);

// The members of an object document, sorted by key and unique as parse_json keeps them, each
// value printed as write_compact prints it; streamed like write_compact_json. The buffers are
// kept from one read to the next, so a caller reading many documents (raw.jsonl's envelopes)
// allocates only while they grow.
class JsonMembers {
public:
  struct Member {
    std::string_view key;    // decoded
    std::string_view member; // `"key":value`, compact (the key as write_json_string writes it)
    std::string_view value;  // the value part of `member`
  };
  // False when `text` is not a JSON object (the members are then unspecified).
  bool read(std::string_view text);
  std::size_t size() const { return spans_.size(); }
  Member operator[](std::size_t i) const;

private:
  friend class JsonParser;
  struct Span {
    std::size_t key_begin = 0, key_size = 0;                // in keys_
    std::size_t member_begin = 0, value_begin = 0, end = 0; // in text_
  };
  std::string keys_;
  std::string text_;
  std::vector<Span> spans_;
  std::string repaired_; // the document with invalid UTF-8 replaced, when it had some
};

// The members of an object document as (key, write_compact of the value), sorted by key and
// unique as parse_json keeps them; nullopt when the text is not a JSON object. Streamed like
// write_compact_json (a convenience over JsonMembers).
std::optional<std::vector<std::pair<std::string, std::string>>>
compact_json_members(std::string_view text);
// A string literal with serde_json's escaping (", \, \b \f \n \r \t, other controls as \u00xx).
void write_json_string(std::string& out, std::string_view s);
// An f64 as serde_json prints it (ryu layout). Non-finite values print as null, like serde_json.
void write_f64(std::string& out, double value);

// Convenience: pretty-print `text` if it is valid JSON, nullopt otherwise.
std::optional<std::string> pretty_print_json(std::string_view text);

} // namespace tlparse::report
