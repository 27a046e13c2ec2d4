// check_folder_cycles: the folder-level half of the layering check.
//
// The link-graph check (cmake/Layering.cmake) holds the components apart; inside a component the
// folders are its rooms, and a room that includes a room that includes it back is one layer
// spread over several folders (docs/ARCHITECTURE.md, "Rooms"). This tool reads every `#include
// "..."` of a component's sources, maps each file and each included path to its top-level folder,
// and fails when the folder graph has a cycle, printing each cycle with one file per edge.
//
// Usage: check_folder_cycles COMPONENT_DIR INCLUDE_PREFIX [--room a,b,c]...
//   COMPONENT_DIR   e.g. compiler: its sources are COMPONENT_DIR/src/<folder>/... and its public
//                   headers COMPONENT_DIR/include/INCLUDE_PREFIX/<folder>/...
//   INCLUDE_PREFIX  the prefix of public includes ("compiler/aot/x.h" names folder "aot")
//   --room a,b,c    folders that are one room by design (declared in cmake/LayeringRules.cmake
//                   with the reason); they are merged into one node before the check
// Exit status: 0 when the graph is acyclic, 1 when it has a cycle, 2 on a usage or I/O error.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct FolderGraph {
  std::set<std::string> folders;
  // edge (from, to) -> one file that makes it, for the message
  std::map<std::pair<std::string, std::string>, std::string> edges;
};

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, sep)) {
    if (!part.empty())
      parts.push_back(part);
  }
  return parts;
}

// The quoted path of an `#include "..."` line, or "" for any other line.
std::string included_path(const std::string& line) {
  size_t i = line.find_first_not_of(" \t");
  if (i == std::string::npos || line[i] != '#')
    return "";
  i = line.find_first_not_of(" \t", i + 1);
  if (i == std::string::npos || line.compare(i, 7, "include") != 0)
    return "";
  const size_t open = line.find('"', i + 7);
  if (open == std::string::npos)
    return "";
  const size_t close = line.find('"', open + 1);
  if (close == std::string::npos)
    return "";
  return line.substr(open + 1, close - open - 1);
}

bool is_source(const fs::path& path) {
  const std::string ext = path.extension().string();
  return ext == ".h" || ext == ".cpp" || ext == ".cc" || ext == ".inc";
}

// Top-level folder of `relative` (a path below a source root), or "" for a file at the root.
std::string top_folder(const fs::path& relative) {
  auto it = relative.begin();
  if (it == relative.end())
    return "";
  const fs::path first = *it;
  return ++it == relative.end() ? "" : first.string();
}

FolderGraph read_graph(const fs::path& component, const std::string& prefix,
                       const std::map<std::string, std::string>& room_of) {
  auto node = [&](const std::string& folder) {
    auto found = room_of.find(folder);
    return found == room_of.end() ? folder : found->second;
  };
  const std::vector<fs::path> roots = {component / "src", component / "include" / prefix};
  std::vector<std::pair<fs::path, std::string>> files; // file, its folder
  FolderGraph graph;
  for (const fs::path& root : roots) {
    if (!fs::is_directory(root))
      continue;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      if (!entry.is_regular_file() || !is_source(entry.path()))
        continue;
      const std::string folder = top_folder(fs::relative(entry.path(), root));
      if (folder.empty())
        continue;
      graph.folders.insert(node(folder));
      files.emplace_back(entry.path(), node(folder));
    }
  }
  std::set<std::string> plain_folders; // before rooms are merged, to resolve include paths
  for (const fs::path& root : roots) {
    if (!fs::is_directory(root))
      continue;
    for (const auto& entry : fs::directory_iterator(root)) {
      if (entry.is_directory())
        plain_folders.insert(entry.path().filename().string());
    }
  }
  std::sort(files.begin(), files.end());
  for (const auto& [file, from] : files) {
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
      std::string path = included_path(line);
      if (path.empty())
        continue;
      if (path.rfind(prefix + "/", 0) == 0)
        path = path.substr(prefix.size() + 1);
      const std::string folder = top_folder(path);
      if (folder.empty() || !plain_folders.count(folder))
        continue;
      const std::string to = node(folder);
      if (to != from)
        graph.edges.emplace(std::make_pair(from, to), file.string());
    }
  }
  return graph;
}

// Strongly connected components of more than one folder (Tarjan).
std::vector<std::vector<std::string>> cycles(const FolderGraph& graph) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& [edge, file] : graph.edges)
    out[edge.first].push_back(edge.second);
  std::map<std::string, int> index, low;
  std::set<std::string> on_stack;
  std::vector<std::string> stack;
  std::vector<std::vector<std::string>> found;
  int next = 0;
  std::function<void(const std::string&)> visit = [&](const std::string& v) {
    index[v] = low[v] = next++;
    stack.push_back(v);
    on_stack.insert(v);
    for (const std::string& w : out[v]) {
      if (!index.count(w)) {
        visit(w);
        low[v] = std::min(low[v], low[w]);
      } else if (on_stack.count(w)) {
        low[v] = std::min(low[v], index[w]);
      }
    }
    if (low[v] != index[v])
      return;
    std::vector<std::string> component;
    std::string w;
    do {
      w = stack.back();
      stack.pop_back();
      on_stack.erase(w);
      component.push_back(w);
    } while (w != v);
    if (component.size() > 1) {
      std::sort(component.begin(), component.end());
      found.push_back(component);
    }
  };
  for (const std::string& v : graph.folders) {
    if (!index.count(v))
      visit(v);
  }
  return found;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: check_folder_cycles COMPONENT_DIR INCLUDE_PREFIX [--room a,b,c]...\n");
    return 2;
  }
  const fs::path component = argv[1];
  const std::string prefix = argv[2];
  std::map<std::string, std::string> room_of;
  for (int i = 3; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg != "--room" || i + 1 >= argc) {
      std::fprintf(stderr, "check_folder_cycles: unexpected argument '%s'\n", arg.c_str());
      return 2;
    }
    const std::vector<std::string> members = split(argv[++i], ',');
    std::string name;
    for (const std::string& member : members)
      name += (name.empty() ? "" : "+") + member;
    for (const std::string& member : members)
      room_of[member] = name;
  }
  if (!fs::is_directory(component / "src")) {
    std::fprintf(stderr, "check_folder_cycles: %s has no src/ folder\n", component.c_str());
    return 2;
  }
  const FolderGraph graph = read_graph(component, prefix, room_of);
  const auto found = cycles(graph);
  for (const auto& cycle : found) {
    std::printf("folders that include each other in %s:", component.c_str());
    for (const std::string& folder : cycle)
      std::printf(" %s", folder.c_str());
    std::printf("\n");
    for (const std::string& a : cycle) {
      for (const std::string& b : cycle) {
        auto edge = graph.edges.find({a, b});
        if (edge != graph.edges.end()) {
          std::printf("  %s -> %s (e.g. %s)\n", a.c_str(), b.c_str(), edge->second.c_str());
        }
      }
    }
  }
  std::printf("%s: %zu folders, %zu folder-to-folder includes, %zu cycles\n", component.c_str(),
              graph.folders.size(), graph.edges.size(), found.size());
  return found.empty() ? 0 : 1;
}
