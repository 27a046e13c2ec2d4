// JsonWriter: Python json.dumps-compatible formatting (see json_writer.h for why).
#include "tracer/json_writer.h"

#include "utf8.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace tracer {

namespace {

constexpr char kHex[] = "0123456789abcdef";

void append_u_escape(std::string& out, unsigned code_unit) {
  char buf[6] = {'\\',
                 'u',
                 kHex[(code_unit >> 12) & 0xF],
                 kHex[(code_unit >> 8) & 0xF],
                 kHex[(code_unit >> 4) & 0xF],
                 kHex[code_unit & 0xF]};
  out.append(buf, 6);
}

} // namespace

void JsonWriter::append_escaped(std::string& out, std::string_view s) {
  out.push_back('"');
  std::size_t i = 0;
  while (i < s.size()) {
    // Fast path: a run of printable ASCII that needs no escaping.
    std::size_t run = i;
    while (run < s.size()) {
      const auto c = static_cast<unsigned char>(s[run]);
      if (c < 0x20 || c >= 0x7F || c == '"' || c == '\\') {
        break;
      }
      ++run;
    }
    out.append(s.data() + i, run - i);
    i = run;
    if (i >= s.size()) {
      break;
    }
    const auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
    case '"':
      out.append("\\\"");
      ++i;
      continue;
    case '\\':
      out.append("\\\\");
      ++i;
      continue;
    case '\n':
      out.append("\\n");
      ++i;
      continue;
    case '\r':
      out.append("\\r");
      ++i;
      continue;
    case '\t':
      out.append("\\t");
      ++i;
      continue;
    case '\b':
      out.append("\\b");
      ++i;
      continue;
    case '\f':
      out.append("\\f");
      ++i;
      continue;
    default:
      break;
    }
    if (c < 0x80) { // other control characters and DEL
      append_u_escape(out, c);
      ++i;
      continue;
    }
    // Invalid bytes are written as U+FFFD: Python would have refused them earlier; we must not
    // fail.
    std::uint32_t cp = detail::decode_utf8(s, i);
    if (cp == detail::kInvalidUtf8) {
      cp = 0xFFFD;
    }
    if (cp >= 0x10000) {
      const unsigned v = cp - 0x10000;
      append_u_escape(out, 0xD800 + (v >> 10));
      append_u_escape(out, 0xDC00 + (v & 0x3FF));
    } else {
      append_u_escape(out, cp);
    }
  }
  out.push_back('"');
}

void JsonWriter::append_python_float(std::string& out, double d) {
  if (std::isnan(d)) {
    out.append("NaN");
    return;
  }
  if (std::isinf(d)) {
    out.append(d > 0 ? "Infinity" : "-Infinity");
    return;
  }
  if (d == 0.0) {
    out.append(std::signbit(d) ? "-0.0" : "0.0");
    return;
  }
  // Shortest round-trip digits in scientific form ("d.ddde±x"), then laid out as repr() does:
  // fixed notation when -4 <= exponent < 16, else scientific with a signed 2+ digit exponent.
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<std::size_t>(res.ptr - buf));
  bool negative = false;
  if (!sci.empty() && sci.front() == '-') {
    negative = true;
    sci.remove_prefix(1);
  }
  const std::size_t e_pos = sci.find('e');
  std::string digits;
  digits.reserve(20);
  for (char c : sci.substr(0, e_pos)) {
    if (c != '.') {
      digits.push_back(c);
    }
  }
  int exponent = 0;
  std::from_chars(sci.data() + e_pos + 1 + (sci[e_pos + 1] == '+' ? 1 : 0), sci.data() + sci.size(),
                  exponent);
  if (negative) {
    out.push_back('-');
  }
  const int n = static_cast<int>(digits.size());
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) {
      out.append("0.");
      out.append(static_cast<std::size_t>(-exponent - 1), '0');
      out.append(digits);
    } else if (exponent + 1 >= n) {
      out.append(digits);
      out.append(static_cast<std::size_t>(exponent + 1 - n), '0');
      out.append(".0");
    } else {
      out.append(digits, 0, static_cast<std::size_t>(exponent + 1));
      out.push_back('.');
      out.append(digits, static_cast<std::size_t>(exponent + 1), std::string::npos);
    }
    return;
  }
  out.push_back(digits[0]);
  if (n > 1) {
    out.push_back('.');
    out.append(digits, 1, std::string::npos);
  }
  char ebuf[16];
  std::snprintf(ebuf, sizeof ebuf, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
  out.append(ebuf);
}

void JsonWriter::newline_if_indented() {
  if (layout_ == Layout::Indent0) {
    out_->push_back('\n');
  }
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (depth_ == 0) {
    return;
  }
  const std::uint64_t bit = depth_ <= 64 ? (std::uint64_t{1} << (depth_ - 1)) : 0;
  if (has_items_ & bit) {
    out_->append(layout_ == Layout::Compact ? ", " : ",");
  }
  has_items_ |= bit;
  newline_if_indented();
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  out_->push_back('{');
  ++depth_;
  if (depth_ <= 64) {
    has_items_ &= ~(std::uint64_t{1} << (depth_ - 1));
  }
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  const bool had_items = depth_ <= 64 && (has_items_ & (std::uint64_t{1} << (depth_ - 1)));
  --depth_;
  if (had_items) {
    newline_if_indented();
  }
  out_->push_back('}');
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  out_->push_back('[');
  ++depth_;
  if (depth_ <= 64) {
    has_items_ &= ~(std::uint64_t{1} << (depth_ - 1));
  }
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  const bool had_items = depth_ <= 64 && (has_items_ & (std::uint64_t{1} << (depth_ - 1)));
  --depth_;
  if (had_items) {
    newline_if_indented();
  }
  out_->push_back(']');
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view k) {
  before_value();
  append_escaped(*out_, k);
  out_->append(": ");
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view s) {
  before_value();
  append_escaped(*out_, s);
  return *this;
}

JsonWriter& JsonWriter::value(bool b) {
  before_value();
  out_->append(b ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::value(double d) {
  before_value();
  append_python_float(*out_, d);
  return *this;
}

JsonWriter& JsonWriter::value(std::int64_t i) {
  before_value();
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof buf, i);
  out_->append(buf, static_cast<std::size_t>(res.ptr - buf));
  return *this;
}

JsonWriter& JsonWriter::value(std::uint64_t u) {
  before_value();
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof buf, u);
  out_->append(buf, static_cast<std::size_t>(res.ptr - buf));
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  out_->append("null");
  return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
  before_value();
  out_->append(json);
  return *this;
}

} // namespace tracer
