// A minimal reading of a printed FX graph's nodes, for `tlparse mcp`'s graph tool. It reads
// untrusted text byte by byte with no recursion; what does not match is skipped.
#include "mcp/tools.h"

#include <unordered_set>

namespace tlparse::mcp {
namespace {

bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_ident(char c) {
  return is_ident_start(c) || (c >= '0' && c <= '9');
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// Calls fn(i, c, depth) for each byte of `s` from `from` that is outside a quoted string, with
// the bracket depth before it (quotes and backslash escapes skipped); fn returns false to stop.
template <class Fn>
void scan_code(std::string_view s, size_t from, Fn fn) {
  int depth = 0;
  char quote = 0;
  for (size_t i = from; i < s.size(); ++i) {
    const char c = s[i];
    if (quote != 0) {
      if (c == '\\') {
        ++i;
      } else if (c == quote) {
        quote = 0;
      }
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      continue;
    }
    if (!fn(i, c, depth)) {
      return;
    }
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

// Where the bracket opened at `open` closes (quotes respected); npos when it does not.
size_t closing(std::string_view s, size_t open) {
  size_t at = std::string_view::npos;
  scan_code(s, open, [&](size_t i, char c, int depth) {
    if ((c == ')' || c == ']' || c == '}') && depth == 1) {
      at = i;
      return false;
    }
    return true;
  });
  return at;
}

// `s` split at `sep` (',' for arguments, ';' for FX's "; x = None" statements) outside brackets
// and quotes, each part trimmed, empty parts left out.
std::vector<std::string> split_top_level(std::string_view s, char sep = ',') {
  std::vector<std::string> out;
  size_t start = 0;
  auto push = [&](size_t end) {
    const std::string_view part = trim(s.substr(start, end - start));
    if (!part.empty()) {
      out.emplace_back(part);
    }
  };
  scan_code(s, 0, [&](size_t i, char c, int depth) {
    if (c == sep && depth == 0) {
      push(i);
      start = i + 1;
    }
    return true;
  });
  push(s.size());
  return out;
}

size_t ident_end(std::string_view s, size_t i) {
  if (i >= s.size() || !is_ident_start(s[i])) {
    return i;
  }
  while (i < s.size() && is_ident(s[i])) {
    ++i;
  }
  return i;
}

// A dotted name (a.b.c) starting at 0: its length, 0 when there is none.
size_t dotted_end(std::string_view s) {
  size_t i = ident_end(s, 0);
  if (i == 0) {
    return 0;
  }
  while (i < s.size() && s[i] == '.') {
    const size_t j = ident_end(s, i + 1);
    if (j == i + 1) {
      break;
    }
    i = j;
  }
  return i;
}

// `name: "annotation"` -> (name, annotation).
std::pair<std::string, std::string> name_and_type(std::string_view param) {
  const size_t colon = param.find(':');
  if (colon == std::string_view::npos) {
    return {std::string(trim(param)), ""};
  }
  std::string_view type = trim(param.substr(colon + 1));
  if (type.size() >= 2 && (type.front() == '"' || type.front() == '\'') &&
      type.back() == type.front()) {
    type = type.substr(1, type.size() - 2);
  }
  return {std::string(trim(param.substr(0, colon))), std::string(type)};
}

} // namespace

std::vector<GraphNode> parse_fx_graph(std::string_view text) {
  std::vector<GraphNode> nodes;
  std::unordered_set<std::string> names;
  std::string source;
  bool in_forward = false;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) {
      nl = text.size();
    }
    const std::string_view line = trim(text.substr(pos, nl - pos));
    pos = nl + 1;
    if (line.rfind("# File:", 0) == 0) {
      source = std::string(trim(line.substr(2)));
      continue;
    }
    if (line.rfind("def forward(", 0) == 0) {
      in_forward = true;
      const size_t open = line.find('(');
      const size_t close = closing(line, open);
      if (close == std::string_view::npos) {
        continue;
      }
      for (const std::string& param : split_top_level(line.substr(open + 1, close - open - 1))) {
        auto [name, type] = name_and_type(param);
        if (name == "self" || name.empty()) {
          continue;
        }
        names.insert(name);
        nodes.push_back({name, "placeholder", name, {}, type, ""});
      }
      continue;
    }
    if (!in_forward || line.empty() || line.front() == '#') {
      continue;
    }
    if (line.rfind("return ", 0) == 0 || line == "return") {
      std::string_view value = trim(line.substr(6));
      if (!value.empty() && value.front() == '(' && closing(value, 0) == value.size() - 1) {
        value = value.substr(1, value.size() - 2);
      }
      nodes.push_back({"output", "output", "output", split_top_level(value), "", source});
      continue;
    }
    // name[: "annotation"] = expression[;  x = None]
    const size_t name_end = ident_end(line, 0);
    if (name_end == 0) {
      continue;
    }
    GraphNode node;
    node.name = std::string(line.substr(0, name_end));
    std::string_view rest = line.substr(name_end);
    if (!rest.empty() && rest.front() == ':') {
      const size_t eq = rest.find(" = ");
      if (eq == std::string_view::npos) {
        continue;
      }
      node.type = name_and_type("x" + std::string(rest.substr(0, eq))).second;
      rest = rest.substr(eq);
    }
    rest = trim(rest);
    if (rest.size() < 2 || rest[0] != '=' || rest[1] == '=') {
      continue;
    }
    const std::vector<std::string> statements = split_top_level(rest.substr(1), ';');
    if (statements.empty()) {
      continue;
    }
    const std::string_view expr = statements.front();
    const size_t callee_end = dotted_end(expr);
    const std::string_view callee = expr.substr(0, callee_end);
    if (callee_end > 0 && callee_end < expr.size() && expr[callee_end] == '(' &&
        closing(expr, callee_end) == expr.size() - 1) {
      node.args = split_top_level(expr.substr(callee_end + 1, expr.size() - callee_end - 2));
      const size_t dot = callee.find('.');
      const std::string head(callee.substr(0, dot));
      if (dot != std::string_view::npos && names.count(head) != 0) {
        node.op = "call_method";
        node.target = std::string(callee.substr(callee.rfind('.') + 1));
        node.args.insert(node.args.begin(), head);
      } else if (head == "self" && dot != std::string_view::npos) {
        node.op = "call_module";
        node.target = std::string(callee.substr(dot + 1));
      } else {
        node.op = "call_function";
        node.target = std::string(callee);
      }
    } else if (callee_end == expr.size() && callee.rfind("self.", 0) == 0) {
      node.op = "get_attr";
      node.target = std::string(callee.substr(5));
    } else {
      // An operator expression (sin * 2.0), an item (x[0]) or a rename (l_x_ = L_x_).
      node.op = "expression";
      node.target = std::string(expr);
    }
    node.source = source;
    names.insert(node.name);
    nodes.push_back(std::move(node));
  }
  return nodes;
}

} // namespace tlparse::mcp
