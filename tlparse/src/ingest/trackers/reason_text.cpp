// See reason_text.h.
#include "ingest/trackers/reason_text.h"

#include "ingest/envelope/envelope.h"

namespace tlparse::ingest {
namespace {

constexpr std::string_view kUserStackHeader = "User stack trace:";
constexpr std::string_view kBreakAt = "Graph break in user code at ";
constexpr std::string_view kBreakReason = "Graph Break Reason:";
constexpr std::string_view kUserTraceback = "User code traceback:";

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Parses a decimal line number; nullopt when `s` is not one (or absurdly long).
std::optional<int64_t> line_number(std::string_view s) {
  if (s.empty() || s.size() > 9) {
    return std::nullopt;
  }
  int64_t v = 0;
  for (char c : s) {
    if (!is_digit(c)) {
      return std::nullopt;
    }
    v = v * 10 + (c - '0');
  }
  return v;
}

// The innermost `File "X", line N` line of a Python traceback.
void innermost_frame(std::string_view stack, std::optional<std::string>& file,
                     std::optional<int64_t>& line) {
  constexpr std::string_view kFile = "File \"";
  size_t pos = 0;
  while ((pos = stack.find(kFile, pos)) != std::string_view::npos) {
    const size_t start = pos + kFile.size();
    const size_t quote = stack.find('"', start);
    if (quote == std::string_view::npos) {
      break;
    }
    constexpr std::string_view kLine = ", line ";
    if (stack.substr(quote + 1, kLine.size()) == kLine) {
      size_t end = quote + 1 + kLine.size();
      const size_t digits = end;
      while (end < stack.size() && is_digit(stack[end])) {
        ++end;
      }
      if (auto n = line_number(stack.substr(digits, end - digits))) {
        file = std::string(stack.substr(start, quote - start));
        line = n;
      }
    }
    pos = quote + 1;
  }
}

// "0/1: guard" -> ("0/1", "guard"): a compile id of digits, '/', '_' and '!' with a '/'.
index::RecompileReason one_reason(std::string_view text) {
  index::RecompileReason r;
  std::string_view head = text;
  const size_t split = text.find("\n" + std::string(kUserStackHeader));
  if (split != std::string_view::npos) {
    head = text.substr(0, split);
    std::string_view stack = text.substr(split + 1 + kUserStackHeader.size());
    if (!stack.empty() && stack.front() == '\n') {
      stack.remove_prefix(1);
    }
    r.user_stack = std::string(stack);
    innermost_frame(stack, r.user_file, r.user_line);
  }
  r.reason = std::string(head);
  r.guard = r.reason;
  const size_t colon = head.find(": ");
  if (colon != std::string_view::npos && colon > 0 && colon <= 32) {
    const std::string_view id = head.substr(0, colon);
    bool ok = id.find('/') != std::string_view::npos;
    for (char c : id) {
      ok = ok && (is_digit(c) || c == '/' || c == '_' || c == '!');
    }
    if (ok) {
      r.cached_entry = std::string(id);
      r.guard = std::string(head.substr(colon + 2));
    }
  }
  return r;
}

// Plain text: a reason starts at a line that is not indented and is not the stack header; the
// lines after it (its stack) belong to it.
std::vector<index::RecompileReason> text_reasons(std::string_view text) {
  std::vector<index::RecompileReason> out;
  std::vector<std::string_view> entries;
  size_t start = 0;
  size_t entry_start = std::string_view::npos;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    const std::string_view line = text.substr(start, end - start);
    const bool starts_entry =
        !line.empty() && line.front() != ' ' && line.front() != '\t' && line != kUserStackHeader;
    if (starts_entry) {
      if (entry_start != std::string_view::npos) {
        entries.push_back(trim(text.substr(entry_start, start - entry_start)));
      }
      entry_start = start;
    }
    start = end + 1;
  }
  if (entry_start != std::string_view::npos) {
    entries.push_back(trim(text.substr(entry_start)));
  }
  for (std::string_view e : entries) {
    out.push_back(one_reason(e));
  }
  return out;
}

} // namespace

std::vector<index::RecompileReason> parse_recompile_reasons(simdjson::ondemand::parser& parser,
                                                            std::string_view payload) {
  using simdjson::ondemand::json_type;
  std::vector<index::RecompileReason> out;
  index::ReasonShape shape = index::ReasonShape::text;
  simdjson::ondemand::document doc;
  json_type type{};
  std::string_view s;
  simdjson::ondemand::array arr;
  if (!parser.iterate(payload.data(), payload.size(), payload.size() + simdjson::SIMDJSON_PADDING)
           .get(doc) &&
      !doc.type().get(type)) {
    if (type == json_type::string && !doc.get_string().get(s)) {
      shape = index::ReasonShape::json_string;
      out.push_back(one_reason(s));
    } else if (type == json_type::array && !doc.get_array().get(arr)) {
      shape = index::ReasonShape::json_list;
      for (auto item : arr) {
        if (ingest::item_text(item.value_unsafe(), s)) {
          shape = index::ReasonShape::text; // not a list after all: read it as text
          out.clear();
          break;
        }
        out.push_back(one_reason(s));
      }
    }
  }
  if (shape == index::ReasonShape::text) {
    out = text_reasons(payload);
  }
  int64_t pos = 0;
  for (index::RecompileReason& r : out) {
    r.pos = pos++;
    r.shape = shape;
  }
  return out;
}

index::GraphBreak parse_graph_break(std::string_view text) {
  index::GraphBreak out;
  const size_t first_end = text.find('\n');
  const std::string_view first = text.substr(0, first_end);
  if (first.starts_with(kBreakAt)) {
    const std::string_view where = first.substr(kBreakAt.size());
    const size_t colon = where.rfind(':');
    if (colon != std::string_view::npos) {
      if (auto n = line_number(trim(where.substr(colon + 1)))) {
        out.user_file = std::string(where.substr(0, colon));
        out.user_line = n;
      }
    }
  }
  const size_t reason_at = text.find(kBreakReason);
  const size_t traceback_at = text.find(kUserTraceback);
  if (reason_at == std::string_view::npos) {
    out.reason = std::string(trim(text));
  } else {
    const size_t start = reason_at + kBreakReason.size();
    const size_t end =
        traceback_at != std::string_view::npos && traceback_at > start ? traceback_at : text.size();
    out.reason = std::string(trim(text.substr(start, end - start)));
  }
  if (traceback_at != std::string_view::npos) {
    std::string_view stack = text.substr(traceback_at + kUserTraceback.size());
    if (!stack.empty() && stack.front() == '\n') {
      stack.remove_prefix(1);
    }
    // The user's frames end at the first blank line; the framework's traceback follows.
    const size_t blank = stack.find("\n\n");
    stack = stack.substr(0, blank == std::string_view::npos ? stack.size() : blank + 1);
    out.user_stack = std::string(stack);
    if (!out.user_file) {
      innermost_frame(stack, out.user_file, out.user_line);
    }
  }
  return out;
}

} // namespace tlparse::ingest
