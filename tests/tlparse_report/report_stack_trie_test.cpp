// The stack trie of index.html, built from plain values: shared frames merge, branches become
// collapsible lists, compile ids sit where their stack ends, and frame text is escaped.
#include "report/stack_trie.h"

#include <catch2/catch.hpp>

using namespace tlparse::report::detail;

namespace {

TrieFrame frame(std::string file, int line, std::string name, std::string loc = {}) {
  TrieFrame f;
  f.filename = std::move(file);
  f.line = line;
  f.name = std::move(name);
  if (!loc.empty()) {
    f.loc = std::move(loc);
  }
  return f;
}

std::size_t count(const std::string& haystack, std::string_view needle) {
  std::size_t n = 0;
  for (std::size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + 1)) {
    ++n;
  }
  return n;
}

} // namespace

TEST_CASE("stack trie merges shared frames and marks branches as collapsible") {
  StackTrie trie;
  const auto main_frame = frame("/root/train.py", 10, "main");
  trie.insert({main_frame, frame("/root/train.py", 20, "step"), frame("/root/m.py", 1, "fwd")},
              {"[0/0]", "status-ok"});
  trie.insert({main_frame, frame("/root/train.py", 30, "eval"), frame("/root/m.py", 1, "fwd")},
              {"[1/0]", "status-error"});
  std::string html;
  trie.render(html);
  CHECK(count(html, "/root/train.py:10 in main") == 1);
  CHECK(count(html, "/root/m.py:1 in fwd") == 2);
  CHECK(count(html, "toggleList(this)") == 2); // main has two children with sub-stacks
  CHECK(html.find("<a href=\"#[0/0]\" class=\"status-ok\">[0/0]</a>") != std::string::npos);
  CHECK(html.find("<a href=\"#[1/0]\" class=\"status-error\">[1/0]</a>") != std::string::npos);
  CHECK(html.find("<details") == 0);
}

TEST_CASE("stack trie leaves of a branch are plain items without an empty sub-list") {
  StackTrie trie;
  const auto top = frame("a.py", 1, "a");
  trie.insert({top, frame("a.py", 2, "b")}, {"[0/0]", "status-ok"});
  trie.insert({top, frame("a.py", 3, "c")}, {"[1/0]", "status-ok"});
  std::string html;
  trie.render(html);
  CHECK(count(html, "toggleList(this)") == 0);
  CHECK(count(html, "<ul>") == 1);
}

TEST_CASE("stack trie escapes frame text and shows unknown terminals") {
  StackTrie trie;
  trie.insert({frame("<script>x.py", 1, "f\"onload=alert(1)", "if a < b: pass")}, {});
  std::string html;
  trie.render(html);
  CHECK(html.find("<script>") == std::string::npos);
  CHECK(html.find("\"onload") == std::string::npos);
  CHECK(html.find("&lt;script&gt;x.py:1") != std::string::npos);
  CHECK(html.find("if a &lt; b: pass") != std::string::npos);
  CHECK(html.find("(unknown)") != std::string::npos);
}

TEST_CASE("frames of FX-generated modules link to their dump_file source line") {
  StackTrie trie;
  trie.insert({frame("<eval_with_key>.12", 7, "forward")}, {"[0/0]", "status-ok"});
  std::string html;
  trie.render(html);
  CHECK(html.find("<a href=\"dump_file/eval_with_key_12.html#L7\">&lt;eval_with_key&gt;.12:7</a>"
                  " in forward") != std::string::npos);
  CHECK(eval_with_key_id("<eval_with_key>.3 extra") == std::optional<std::string>("3"));
  CHECK_FALSE(eval_with_key_id("<eval_with_key>.").has_value());
}

TEST_CASE("simplify_filename keeps link-tree suffixes and drops sandbox prefixes") {
  CHECK(simplify_filename("/a/b#link-tree/torch/x.py") == "torch/x.py");
  CHECK(simplify_filename("/tmp/build-seed-nspid123/torch/x.py") == "torch/x.py");
  CHECK(simplify_filename("/usr/lib/torch/x.py") == "/usr/lib/torch/x.py");
}

TEST_CASE("dynamo_start stacks lose PyTorch's own convert_frame suffix") {
  std::vector<TrieFrame> stack = {frame("user.py", 1, "main"),
                                  frame("torch/_dynamo/convert_frame.py", 5, "__call__"),
                                  frame("torch/_dynamo/convert_frame.py", 6, "__call__"),
                                  frame("torch/_dynamo/convert_frame.py", 7, "__call__")};
  strip_convert_frame_suffix(stack);
  REQUIRE(stack.size() == 1);
  CHECK(stack[0].name == "main");
  std::vector<TrieFrame> other = {frame("user.py", 1, "main"),
                                  frame("torch/_dynamo/convert_frame.py", 5, "__call__")};
  strip_convert_frame_suffix(other);
  CHECK(other.size() == 2);
}

TEST_CASE("pathologically deep stacks are cut instead of overflowing the renderer") {
  std::vector<TrieFrame> stack;
  for (int i = 0; i < 50000; ++i) {
    stack.push_back(frame("f.py", i, "g"));
  }
  StackTrie trie;
  trie.insert(stack, {"[0/0]", "status-ok"});
  std::string html;
  trie.render(html);
  CHECK(count(html, "<li>") == StackTrie::kMaxDepth);
}
