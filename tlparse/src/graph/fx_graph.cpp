// See tlparse/graph/fx_graph.h. Physical lines are joined into statements while a bracket is
// open (parameters and returns spread over lines), comments are cut outside quotes, and each
// statement is read once, left to right; nothing recurses.
#include "tlparse/graph/fx_graph.h"

#include <array>
#include <unordered_map>
#include <unordered_set>

namespace tlparse::graph {
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

// `line` without its trailing "# comment" (a '#' outside quotes), and the bracket depth at its
// end added to `depth`.
std::string_view code_of(std::string_view line, int& depth) {
  size_t end = line.size();
  int d = depth;
  scan_code(line, 0, [&](size_t i, char c, int) {
    if (c == '#') {
      end = i;
      return false;
    }
    if (c == '(' || c == '[' || c == '{') {
      ++d;
    } else if ((c == ')' || c == ']' || c == '}') && d > 0) {
      --d;
    }
    return true;
  });
  depth = d;
  return trim(line.substr(0, end));
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

std::string_view unquote(std::string_view type) {
  if (type.size() >= 2 && (type.front() == '"' || type.front() == '\'') &&
      type.back() == type.front()) {
    type = type.substr(1, type.size() - 2);
  }
  return type;
}

// `name: "annotation"` -> (name, annotation).
std::pair<std::string, std::string> name_and_type(std::string_view param) {
  const size_t colon = param.find(':');
  if (colon == std::string_view::npos) {
    return {std::string(trim(param)), ""};
  }
  return {std::string(trim(param.substr(0, colon))),
          std::string(unquote(trim(param.substr(colon + 1))))};
}

// The printed arguments without a wrapping pair of brackets: "(a, b)" and "[a, b]" -> "a, b".
std::string_view unwrap(std::string_view value) {
  if (!value.empty() && (value.front() == '(' || value.front() == '[') &&
      closing(value, 0) == value.size() - 1) {
    return trim(value.substr(1, value.size() - 2));
  }
  return value;
}

// The parser's state over one text: the nested classes open at each indentation, the forward
// being read, the names of each module's forward (edges resolve within one forward).
class Reader {
public:
  FxGraph graph;

  void line(std::string_view physical) {
    size_t indent = 0;
    while (indent < physical.size() && (physical[indent] == ' ' || physical[indent] == '\t')) {
      ++indent;
    }
    const std::string_view text = trim(physical.substr(indent));
    if (!pending_.empty()) {
      const std::string_view code = code_of(text, depth_);
      if (!code.empty()) {
        const char last = pending_.back();
        if (last != '(' && last != '[' && last != '{' && code.front() != ')' &&
            code.front() != ']' && code.front() != '}') {
          pending_ += ' ';
        }
        pending_ += code;
      }
      if (depth_ == 0 || pending_.size() > kMaxStatement) {
        statement(pending_, pending_indent_);
        pending_.clear();
        depth_ = 0;
      }
      return;
    }
    if (text.empty()) {
      return;
    }
    if (text.front() == '#') {
      if (text.rfind("# File:", 0) == 0) {
        source_ = std::string(trim(text.substr(2)));
      } else if (text.rfind("# No stacktrace found", 0) == 0) {
        source_.clear();
      }
      return;
    }
    depth_ = 0;
    const std::string_view code = code_of(text, depth_);
    if (code.empty()) {
      return;
    }
    if (depth_ > 0) {
      pending_ = std::string(code);
      pending_indent_ = indent;
      return;
    }
    depth_ = 0;
    statement(code, indent);
  }

  void finish() {
    if (!pending_.empty()) {
      statement(pending_, pending_indent_);
      pending_.clear();
    }
  }

private:
  static constexpr size_t kMaxStatement = 16u << 20; // a statement never closed: read it anyway

  struct OpenClass {
    size_t indent;
    std::string name;
  };

  void statement(std::string_view code, size_t indent) {
    // A statement at or left of an open class's indentation closes it.
    while (!classes_.empty() && indent <= classes_.back().indent) {
      classes_.pop_back();
      in_forward_ = false;
    }
    if (code.rfind("class ", 0) == 0 && code.back() == ':') {
      const std::string_view rest = code.substr(6);
      const size_t name_end = ident_end(rest, 0);
      classes_.push_back({indent, std::string(rest.substr(0, name_end))});
      in_forward_ = false;
      return;
    }
    if (code.rfind("def ", 0) == 0) {
      in_forward_ = code.rfind("def forward(", 0) == 0;
      if (in_forward_) {
        forward(code);
      }
      return;
    }
    if (!in_forward_) {
      return;
    }
    if (code.rfind("return", 0) == 0 && (code.size() == 6 || code[6] == ' ' || code[6] == '(')) {
      output(trim(code.substr(6)));
      return;
    }
    assignment(code);
  }

  // The module path of the forward being read: the nested classes below the outermost one.
  std::string module_path() const {
    std::string path;
    for (size_t i = 1; i < classes_.size(); ++i) {
      path += (path.empty() ? "" : ".") + classes_[i].name;
    }
    return path;
  }

  void forward(std::string_view code) {
    module_ = module_path();
    if (seen_modules_.insert(module_).second && !module_.empty()) {
      graph.modules.push_back(module_);
    }
    names_ = &scopes_[module_];
    names_->clear(); // a second forward of the same class starts again
    source_.clear();
    const size_t open = code.find('(');
    const size_t close = closing(code, open);
    if (close == std::string_view::npos) {
      return;
    }
    for (const std::string& param : split_top_level(code.substr(open + 1, close - open - 1))) {
      auto [name, type] = name_and_type(param);
      // `self`, and aot_joint_graph's `primals`/`tangents` (their elements are declared in the
      // body, one annotated name each).
      if (name == "self" || name.empty() || name.front() == '*' ||
          ident_end(name, 0) != name.size() ||
          (type.empty() && (name == "primals" || name == "tangents"))) {
        continue;
      }
      placeholder(std::move(name), std::move(type));
    }
  }

  void placeholder(std::string name, std::string type) {
    FxNode node;
    node.op = "placeholder";
    node.target = name;
    node.name = std::move(name);
    node.type = std::move(type);
    add(std::move(node));
  }

  void output(std::string_view value) {
    // aot_joint_graph: return pytree.tree_unflatten([...], self._out_spec)
    constexpr std::string_view kUnflatten = "pytree.tree_unflatten(";
    if (value.rfind(kUnflatten, 0) == 0 &&
        closing(value, kUnflatten.size() - 1) + 1 == value.size()) {
      const auto parts =
          split_top_level(value.substr(kUnflatten.size(), value.size() - kUnflatten.size() - 1));
      value = parts.empty() ? std::string_view() : std::string_view(unflatten_ = parts.front());
    }
    FxNode node;
    node.name = "output";
    node.op = "output";
    node.target = "output";
    node.args = split_top_level(unwrap(value));
    node.source = source_;
    add(std::move(node));
  }

  // name[: "annotation"] = expression[;  x = None], or a bare `name: "annotation"` (a
  // placeholder of aot_joint_graph's flattened primals and tangents).
  void assignment(std::string_view code) {
    const size_t name_end = ident_end(code, 0);
    if (name_end == 0) {
      return;
    }
    FxNode node;
    node.name = std::string(code.substr(0, name_end));
    std::string_view rest = trim(code.substr(name_end));
    if (!rest.empty() && rest.front() == ':') {
      const size_t eq = rest.find(" = ");
      if (eq == std::string_view::npos) {
        placeholder(std::move(node.name), std::string(unquote(trim(rest.substr(1)))));
        return;
      }
      node.type = std::string(unquote(trim(rest.substr(1, eq - 1))));
      rest = trim(rest.substr(eq));
    }
    if (rest.size() < 2 || rest[0] != '=' || rest[1] == '=') {
      return;
    }
    const std::vector<std::string> statements = split_top_level(rest.substr(1), ';');
    if (statements.empty()) {
      return;
    }
    const std::string_view expr = statements.front();
    const size_t callee_end = dotted_end(expr);
    const std::string_view callee = expr.substr(0, callee_end);
    if (callee_end > 0 && callee_end < expr.size() && expr[callee_end] == '(' &&
        closing(expr, callee_end) == expr.size() - 1) {
      node.args = split_top_level(expr.substr(callee_end + 1, expr.size() - callee_end - 2));
      const size_t dot = callee.find('.');
      const std::string head(callee.substr(0, dot));
      if (dot != std::string_view::npos && names_->count(head) != 0) {
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
    node.source = source_;
    add(std::move(node));
  }

  // Adds a node of the current forward, its inputs being the names its arguments mention.
  void add(FxNode node) {
    if (names_ == nullptr) {
      names_ = &scopes_[module_];
    }
    node.module = module_;
    split_annotation(node.type, node.dtype, node.shape, node.device);
    const size_t at = graph.nodes.size();
    std::unordered_set<size_t> seen;
    std::vector<std::string_view> reads(node.args.begin(), node.args.end());
    if (node.op == "expression") {
      reads.push_back(node.target);
    }
    for (const std::string_view arg : reads) {
      // keyword = value: only the value names nodes
      std::string_view value = arg;
      const size_t kw = ident_end(value, 0);
      if (kw > 0 && trim(value.substr(kw)).rfind("= ", 0) == 0) {
        value = trim(trim(value.substr(kw)).substr(1));
      }
      for (size_t i = 0; i < value.size();) {
        if (value[i] == '"' || value[i] == '\'') {
          size_t close_quote = value.find(value[i], i + 1);
          i = close_quote == std::string_view::npos ? value.size() : close_quote + 1;
          continue;
        }
        const size_t end = ident_end(value, i);
        if (end == i) {
          ++i;
          continue;
        }
        if (i == 0 || value[i - 1] != '.') {
          const auto found = names_->find(std::string(value.substr(i, end - i)));
          if (found != names_->end() && seen.insert(found->second).second) {
            node.inputs.push_back(found->second);
          }
        }
        i = end;
      }
    }
    if (!node.is_output()) {
      (*names_)[node.name] = at;
    }
    graph.nodes.push_back(std::move(node));
  }

  std::vector<OpenClass> classes_;
  bool in_forward_ = false;
  std::string module_;
  std::unordered_set<std::string> seen_modules_;
  std::unordered_map<std::string, std::unordered_map<std::string, size_t>> scopes_;
  std::unordered_map<std::string, size_t>* names_ = nullptr;
  std::string source_;
  std::string pending_;
  size_t pending_indent_ = 0;
  int depth_ = 0;
  std::string unflatten_;
};

} // namespace

size_t FxGraph::edge_count() const {
  size_t n = 0;
  for (const FxNode& node : nodes) {
    n += node.inputs.size();
  }
  return n;
}

void split_annotation(std::string_view type, std::string& dtype, std::string& shape,
                      std::string& device) {
  dtype.clear();
  shape.clear();
  device.clear();
  if (type.rfind("Sym(", 0) == 0 && type.back() == ')') {
    dtype = "Sym";
    shape = std::string(type.substr(4, type.size() - 5));
    return;
  }
  // dtype: letters and digits (f32, bf16, i64, b8, c64), then [sizes][strides]device
  size_t i = 0;
  while (i < type.size() &&
         ((type[i] >= 'a' && type[i] <= 'z') || (type[i] >= '0' && type[i] <= '9'))) {
    ++i;
  }
  if (i == 0 || i >= type.size() || type[i] != '[') {
    return;
  }
  const size_t sizes_end = closing(type, i);
  if (sizes_end == std::string_view::npos) {
    return;
  }
  dtype = std::string(type.substr(0, i));
  shape = std::string(type.substr(i, sizes_end + 1 - i));
  size_t rest = sizes_end + 1;
  if (rest < type.size() && type[rest] == '[') {
    const size_t strides_end = closing(type, rest);
    rest = strides_end == std::string_view::npos ? type.size() : strides_end + 1;
  }
  device = std::string(type.substr(rest));
}

FxGraph parse_fx_graph(std::string_view text) {
  Reader reader;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) {
      nl = text.size();
    }
    reader.line(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  reader.finish();
  return std::move(reader.graph);
}

bool is_graph_artifact(std::string_view artifact) {
  static constexpr std::array<std::string_view, 14> kGraphs = {
      "dynamo_output_graph",    "before_pre_grad_graph",    "after_pre_grad_graph",
      "aot_joint_graph",        "aot_forward_graph",        "aot_backward_graph",
      "aot_inference_graph",    "before_joint_graph",       "after_joint_graph",
      "before_post_grad_graph", "inductor_post_grad_graph", "aot_dispatch_base_graph",
      "graph_capture",          "optimized_graph"};
  for (const std::string_view g : kGraphs) {
    if (artifact == g) {
      return true;
    }
  }
  // Our compiler's dump after each pass: after_<stage>_pass_<name>.
  return artifact.rfind("after_", 0) == 0 && artifact.find("_pass_") != std::string_view::npos;
}

} // namespace tlparse::graph
