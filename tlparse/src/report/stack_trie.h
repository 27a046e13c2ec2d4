// The stack trie of index.html: every compile's dynamo_start stack (or every unattributed
// `stack`) inserted frame by frame, children kept in first-seen order, each compile id shown at
// the frame where its stack ends, coloured by its status. Built from plain values so it can be
// tested without an index.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tlparse::report::detail {

struct TrieFrame {
  std::string filename; // resolved through the string table ("(unknown)" when it was not)
  std::int64_t line = 0;
  std::string name;
  std::optional<std::string> loc;
};

struct TrieTerminal {
  std::optional<std::string> compile_display; // nullopt renders as "(unknown)"
  std::string status_class;                   // "status-ok", ... (empty for unknown stacks)
  bool hidden = false; // a single stack shown on its own (metrics page): no compile id to show
};

// tlparse's simplify_filename: the part after "#link-tree/", or the path with everything
// through a "<segment>-seed-nspid<segment>/" prefix removed (build-system sandboxes).
std::string simplify_filename(std::string_view filename);
// N when `filename` is "<eval_with_key>.N" (an FX-generated module dumped with dump_file).
std::optional<std::string> eval_with_key_id(std::string_view filename);
// Drops PyTorch's own convert_frame frames from the end of a dynamo_start stack.
void strip_convert_frame_suffix(std::vector<TrieFrame>& stack);

class StackTrie {
public:
  // Deeper stacks are cut here (real Python stacks are far shorter).
  static constexpr std::size_t kMaxDepth = 2000;

  StackTrie();
  void insert(const std::vector<TrieFrame>& stack, TrieTerminal terminal);
  bool empty() const { return nodes_[0].children.empty(); }
  // Appends the trie as nested lists (inside a <details> block).
  void render(std::string& out) const;

private:
  struct Node {
    std::vector<std::size_t> children; // indices into nodes_, first-seen order
    std::unordered_map<std::string, std::size_t> by_key;
    TrieFrame frame;
    std::vector<TrieTerminal> terminals;
  };
  void render_children(std::string& out, std::size_t node) const;
  static void render_frame(std::string& out, const TrieFrame& frame);
  static void render_terminals(std::string& out, const Node& node);

  std::vector<Node> nodes_;
};

} // namespace tlparse::report::detail
