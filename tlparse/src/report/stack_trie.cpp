// Stack trie construction and rendering (see stack_trie.h).
#include "report/stack_trie.h"

#include "report/html_page.h"

#include <array>
#include <utility>

namespace tlparse::report::detail {

std::string simplify_filename(std::string_view filename) {
  constexpr std::string_view kLinkTree = "#link-tree/";
  if (const std::size_t at = filename.find(kLinkTree); at != std::string_view::npos) {
    return std::string(filename.substr(at + kLinkTree.size()));
  }
  constexpr std::string_view kSeed = "-seed-nspid";
  if (const std::size_t at = filename.find(kSeed); at != std::string_view::npos) {
    const std::size_t segment_start = filename.rfind('/', at);
    const bool has_prefix =
        (segment_start == std::string_view::npos ? at : at - segment_start - 1) > 0;
    const std::size_t slash = filename.find('/', at + kSeed.size());
    if (has_prefix && slash != std::string_view::npos && slash > at + kSeed.size()) {
      return std::string(filename.substr(slash + 1));
    }
  }
  return std::string(filename);
}

std::optional<std::string> eval_with_key_id(std::string_view filename) {
  constexpr std::string_view kPrefix = "<eval_with_key>.";
  const std::size_t at = filename.find(kPrefix);
  if (at == std::string_view::npos) {
    return std::nullopt;
  }
  std::size_t end = at + kPrefix.size();
  while (end < filename.size() && filename[end] >= '0' && filename[end] <= '9') {
    ++end;
  }
  if (end == at + kPrefix.size()) {
    return std::nullopt;
  }
  return std::string(filename.substr(at + kPrefix.size(), end - at - kPrefix.size()));
}

void strip_convert_frame_suffix(std::vector<TrieFrame>& stack) {
  constexpr std::string_view kFile = "torch/_dynamo/convert_frame.py";
  constexpr std::array<std::array<std::string_view, 3>, 2> kSuffixes = {{
      {"catch_errors", "_convert_frame", "_convert_frame_assert"},
      {"__call__", "__call__", "__call__"},
  }};
  for (const auto& names : kSuffixes) {
    if (stack.size() < names.size()) {
      continue;
    }
    const std::size_t base = stack.size() - names.size();
    bool match = true;
    for (std::size_t i = 0; i < names.size() && match; ++i) {
      const TrieFrame& f = stack[base + i];
      match = simplify_filename(f.filename) == kFile && f.name == names[i];
    }
    if (match) {
      stack.resize(base);
    }
  }
}

StackTrie::StackTrie() {
  nodes_.emplace_back();
}

void StackTrie::insert(const std::vector<TrieFrame>& stack, TrieTerminal terminal) {
  std::size_t node = 0;
  std::size_t depth = 0;
  for (const TrieFrame& frame : stack) {
    // Rendering recurses per level; a pathological stack from a log must not exhaust ours.
    if (++depth > kMaxDepth) {
      break;
    }
    std::string key = frame.filename;
    key.push_back('\0');
    key.append(std::to_string(frame.line));
    key.push_back('\0');
    key.append(frame.name);
    key.push_back('\0');
    if (frame.loc) {
      key.push_back('L');
      key.append(*frame.loc);
    }
    auto it = nodes_[node].by_key.find(key);
    if (it != nodes_[node].by_key.end()) {
      node = it->second;
      continue;
    }
    const std::size_t child = nodes_.size();
    nodes_.emplace_back();
    nodes_[child].frame = frame;
    nodes_[node].children.push_back(child);
    nodes_[node].by_key.emplace(std::move(key), child);
    node = child;
  }
  nodes_[node].terminals.push_back(std::move(terminal));
}

void StackTrie::render(std::string& out) const {
  out.append("<details open><summary>Stack</summary>\n<div class=\"stack-trie\"><ul>\n");
  render_children(out, 0);
  out.append("</ul></div>\n</details>\n");
}

void StackTrie::render_frame(std::string& out, const TrieFrame& frame) {
  const std::string simple = simplify_filename(frame.filename);
  out.append("<span class=\"frame\">");
  if (const auto key = eval_with_key_id(simple)) {
    out.append("<a href=\"dump_file/eval_with_key_");
    esc(out, *key);
    out.append(".html#L");
    out.append(std::to_string(frame.line));
    out.append("\">");
    esc(out, simple);
    out.push_back(':');
    out.append(std::to_string(frame.line));
    out.append("</a> in ");
    esc(out, frame.name);
  } else {
    esc(out, simple);
    out.push_back(':');
    out.append(std::to_string(frame.line));
    out.append(" in ");
    esc(out, frame.name);
  }
  out.append("</span>");
  if (frame.loc && !frame.loc->empty()) {
    out.append("<span class=\"loc\">");
    esc(out, *frame.loc);
    out.append("</span>");
  }
}

void StackTrie::render_terminals(std::string& out, const Node& node) {
  for (const TrieTerminal& t : node.terminals) {
    if (t.hidden) {
      continue;
    }
    if (!t.compile_display) {
      out.append("<span class=\"badge\">(unknown)</span> ");
      continue;
    }
    out.append("<a href=\"#");
    esc(out, *t.compile_display);
    out.append("\" class=\"");
    esc(out, t.status_class);
    out.append("\">");
    esc(out, *t.compile_display);
    out.append("</a> ");
  }
}

// A node with several children makes each child a collapsible sub-list; a single child
// continues at the same level, so long linear stacks do not indent forever.
void StackTrie::render_children(std::string& out, std::size_t index) const {
  const Node& node = nodes_[index];
  const bool branching = node.children.size() > 1;
  for (const std::size_t child_index : node.children) {
    const Node& child = nodes_[child_index];
    if (branching && !child.children.empty()) {
      out.append("<li><span class=\"marker\" onclick=\"toggleList(this)\"></span>");
      render_terminals(out, child);
      render_frame(out, child.frame);
      out.append("\n<ul>\n");
      render_children(out, child_index);
      out.append("</ul></li>\n");
    } else {
      out.append("<li>");
      render_terminals(out, child);
      render_frame(out, child.frame);
      out.append("</li>\n");
      render_children(out, child_index);
    }
  }
}

} // namespace tlparse::report::detail
