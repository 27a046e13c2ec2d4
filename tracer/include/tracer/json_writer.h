// A streaming JSON writer that formats exactly as Python's json.dumps does, because PyTorch's
// structured trace is written by json.dumps and readers (tlparse, people diffing logs) compare
// bytes. Two layouts exist in a trace:
//   - Compact: the envelope line, `{"k": 1, "l": [1, 2]}` (", " and ": " separators).
//   - Indent0: JSON payloads, written with json.dumps(indent=0): every value on its own line, no
//     indentation, "," then newline between items, `{}` and `[]` for empty containers.
// Strings are escaped with ensure_ascii=True (non-ASCII as \uXXXX, surrogate pairs beyond the
// BMP), floats use Python's repr (shortest round-trip digits, exponent outside [1e-4, 1e16)).
// The writer appends to a caller-owned std::string so a hot path can reuse one buffer.
#pragma once

#include "tracer/export.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace tracer {

class TORCHSCOPE_TRACER_API JsonWriter {
public:
  enum class Layout { Compact, Indent0 };

  explicit JsonWriter(std::string& out, Layout layout = Layout::Compact) noexcept
      : out_(&out), layout_(layout) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();

  // Writes `"key": ` inside an object; the next call writes the value.
  JsonWriter& key(std::string_view k);

  JsonWriter& value(std::string_view s);
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b);
  JsonWriter& value(double d);
  JsonWriter& value(float f) { return value(static_cast<double>(f)); }
  JsonWriter& value(std::int64_t i);
  JsonWriter& value(std::uint64_t u);
  template <class Int>
  requires(std::is_integral_v<Int> && !std::is_same_v<Int, bool>) JsonWriter& value(Int i) {
    if constexpr (std::is_signed_v<Int>) {
      return value(static_cast<std::int64_t>(i));
    } else {
      return value(static_cast<std::uint64_t>(i));
    }
  }
  JsonWriter& null();
  // Inserts already-serialised JSON text as one value (the caller vouches for its validity).
  JsonWriter& raw(std::string_view json);

  // Shorthand for key(k).value(v).
  template <class T>
  JsonWriter& member(std::string_view k, const T& v) {
    key(k);
    return value(v);
  }

  std::string& buffer() noexcept { return *out_; }

  // Appends `s` as a JSON string literal, escaped as json.dumps(ensure_ascii=True) does.
  static void append_escaped(std::string& out, std::string_view s);
  // Appends `d` as Python's repr(float) would print it (NaN and infinities as json.dumps does).
  static void append_python_float(std::string& out, double d);

private:
  void before_value();
  void newline_if_indented();

  std::string* out_;
  Layout layout_;
  // One bit per nesting level: has the current container had an item yet? 64 levels is more
  // than any trace event nests; deeper nesting still writes valid JSON, only layout may drift.
  std::uint64_t has_items_ = 0;
  int depth_ = 0;
  bool after_key_ = false;
};

} // namespace tracer
