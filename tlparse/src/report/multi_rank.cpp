// The multi-rank landing page and the cross-rank files (tlparse/report/multi_rank.h). The rules are
// tlparse 0.4.3's (docs/TLPARSE-MULTI-RANK.md); the inputs come from the index, not from the rank
// folders read back from disk, and every order is fixed: ranks by number, a rank's compile folders
// by name, a folder's artifacts newest first (RankData).
#include "tlparse/report/multi_rank.h"

#include "report/html_page.h"
#include "report/output_folder.h"
#include "report/rank_overview.h"
#include "tlparse/index/index_reader.h"
#include "tlparse/report/render.h"
#include "tlparse/report/serde_json.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <set>
#include <unistd.h>
#include <unordered_map>

namespace tlparse::report {
namespace {

using detail::esc;

// --- tlparse's rules for artifacts inside a compile folder -----------------------------------

constexpr std::string_view kRuntimePrefix = "inductor_runtime_and_tensor_meta";
constexpr std::string_view kSchedulePrefix = "inductor_collective_schedule";
constexpr std::string_view kOutputCodePrefix = "inductor_output_code";

// An output file of one compile folder: `<folder>/<file>`.
struct FolderFile {
  const index::Output* output = nullptr;
  std::string file; // last segment
  std::string stem; // without its last extension
  bool is_json = false;
};

// tlparse 0.4.3 read a rank's compile folders, and the files in each, in its file system's
// listing order (read_dir), so the order of graphs in runtime_estimations.json,
// collective_schedules.json, the runtime trace and collectives_parity.json depended on the disk
// (on ext4, a hash of each name with a per-file-system seed). Here folders come in name order
// (or in MultiRankOptions::folder_order, to reproduce a given listing), and a folder's files
// newest first, so "the first runtime estimate of a folder" is its last one logged.
struct RankData {
  RankFile rank;
  std::vector<index::Output> outputs;
  std::set<std::string> compile_ids; // compile_directory.json keys but unknown ones
  std::string cache_sequence;        // suffixes by output number
  // compile folder -> the compile id whose directory entry first lists a file in it (keys in
  // compile_directory.json order)
  std::map<std::string, std::string> folder_compile_id;
  // compile folders and their files in the order tlparse 0.4.3 listed them (see list_order)
  std::vector<std::pair<std::string, std::vector<FolderFile>>> folders;
  // compile folder -> cache status (miss > hit > bypass) of its directory entries
  std::map<std::string, std::string> folder_cache_status;
  std::vector<std::string> exec_order; // from the last graph_execution artifact
  bool has_exec_order = false;
  detail::RankSummary summary; // what the overview of many ranks compares
};

FolderFile folder_file(const index::Output& o, std::string& folder) {
  FolderFile f;
  f.output = &o;
  const auto slash = o.path.find('/');
  folder = o.path.substr(0, slash);
  f.file = o.path.substr(slash + 1);
  const auto dot = f.file.rfind('.');
  // Path::file_stem: a leading dot is part of the stem.
  f.stem = dot == std::string::npos || dot == 0 ? f.file : f.file.substr(0, dot);
  f.is_json = dot != std::string::npos && dot != 0 && f.file.substr(dot + 1) == "json";
  return f;
}

// --- serde_json layouts of tlparse's structs (fields in declaration order) --------------------

void indent(std::string& out, int level) {
  out.append(static_cast<std::size_t>(level) * 2, ' ');
}

struct GraphRuntime {
  std::uint32_t rank = 0;
  std::string graph;
  std::vector<std::pair<std::string, double>> ops; // name, estimated_runtime_ns
};

struct CollectiveSchedule {
  std::uint32_t rank = 0;
  std::string graph;
  std::vector<std::string> ops;
};

template <class T, class F>
std::string pretty_list(const std::vector<T>& items, F&& write_item) {
  if (items.empty()) {
    return "[]";
  }
  std::string out = "[\n";
  for (std::size_t i = 0; i < items.size(); ++i) {
    indent(out, 1);
    write_item(out, items[i]);
    out.append(i + 1 < items.size() ? ",\n" : "\n");
  }
  out.append("]");
  return out;
}

void write_rank_graph_head(std::string& out, std::uint32_t rank, const std::string& graph) {
  out.append("{\n");
  indent(out, 2);
  out.append("\"rank\": " + std::to_string(rank) + ",\n");
  indent(out, 2);
  out.append("\"graph\": ");
  write_json_string(out, graph);
  out.append(",\n");
  indent(out, 2);
  out.append("\"ops\": ");
}

std::string runtime_estimations_json(const std::vector<GraphRuntime>& graphs) {
  return pretty_list(graphs, [](std::string& out, const GraphRuntime& g) {
    write_rank_graph_head(out, g.rank, g.graph);
    out.append("[\n");
    for (std::size_t i = 0; i < g.ops.size(); ++i) {
      indent(out, 3);
      out.append("{\n");
      indent(out, 4);
      out.append("\"name\": ");
      write_json_string(out, g.ops[i].first);
      out.append(",\n");
      indent(out, 4);
      out.append("\"estimated_runtime_ns\": ");
      write_f64(out, g.ops[i].second);
      out.append("\n");
      indent(out, 3);
      out.append(i + 1 < g.ops.size() ? "},\n" : "}\n");
    }
    indent(out, 2);
    out.append("]\n");
    indent(out, 1);
    out.append("}");
  });
}

std::string collective_schedules_json(const std::vector<CollectiveSchedule>& schedules) {
  return pretty_list(schedules, [](std::string& out, const CollectiveSchedule& s) {
    write_rank_graph_head(out, s.rank, s.graph);
    out.append("[\n");
    for (std::size_t i = 0; i < s.ops.size(); ++i) {
      indent(out, 3);
      write_json_string(out, s.ops[i]);
      out.append(i + 1 < s.ops.size() ? ",\n" : "\n");
    }
    indent(out, 2);
    out.append("]\n");
    indent(out, 1);
    out.append("}");
  });
}

struct ParityGraph {
  std::string graph, compile_id;
  std::uint64_t offset = 0, missing_waits = 0;
};

std::string collectives_parity_json(const std::vector<ParityGraph>& graphs) {
  std::string out = "{\n  \"description\": \"Difference of # of collectives in scheduler and "
                    "inductor output code and missing wait collectives\",\n  \"graphs\": ";
  if (graphs.empty()) {
    out.append("[]\n}");
    return out;
  }
  out.append("[\n");
  for (std::size_t i = 0; i < graphs.size(); ++i) {
    const ParityGraph& g = graphs[i];
    out.append("    {\n      \"graph\": ");
    write_json_string(out, g.graph);
    out.append(",\n      \"compile_id\": ");
    write_json_string(out, g.compile_id);
    out.append(",\n      \"offset\": " + std::to_string(g.offset) +
               ",\n      \"missing_waits\": " + std::to_string(g.missing_waits) + "\n    }");
    out.append(i + 1 < graphs.size() ? ",\n" : "\n");
  }
  out.append("  ]\n}");
  return out;
}

// --- the runtime trace's thread ids: FxHash of (rank, graph), as tlparse computes them --------

struct FxHasher {
  std::uint64_t hash = 0;
  void word(std::uint64_t w) {
    hash = ((hash << 5) | (hash >> 59)) ^ w;
    hash *= 0x517cc1b727220a95ULL;
  }
  void bytes(std::string_view b) {
    std::size_t i = 0;
    for (; i + 8 <= b.size(); i += 8) {
      std::uint64_t w = 0;
      for (int k = 7; k >= 0; --k) {
        w = (w << 8) | static_cast<unsigned char>(b[i + static_cast<std::size_t>(k)]);
      }
      word(w);
    }
    if (i + 4 <= b.size()) {
      std::uint64_t w = 0;
      for (int k = 3; k >= 0; --k) {
        w = (w << 8) | static_cast<unsigned char>(b[i + static_cast<std::size_t>(k)]);
      }
      word(w);
      i += 4;
    }
    for (; i < b.size(); ++i) {
      word(static_cast<unsigned char>(b[i]));
    }
  }
};

std::uint32_t runtime_thread_id(std::uint32_t rank, std::string_view graph) {
  FxHasher h;
  h.word(rank);
  h.bytes(graph);
  h.word(0xff); // str's Hash ends with a 0xff byte
  return static_cast<std::uint32_t>(h.hash & 0xffffffffULL);
}

// The order a Rust HashMap (hashbrown, SSE2 groups of 16) keyed by FxHash of (pid, tid) lists
// its entries after inserting them in the given order: tlparse numbered each rank's threads in
// that order (thread_sort_index), so readers that sort by it see the same order as with tlparse.
// Buckets: the hash's low bits pick the first probed slot; full tables grow at 7/8 (tables of
// under 8 buckets when full), rehashing entries in bucket order.
using ThreadKeys = std::vector<std::pair<std::pair<std::uint32_t, std::uint32_t>, std::string>>;

ThreadKeys hash_map_order(const ThreadKeys& inserted) {
  struct Slot {
    std::uint64_t hash = 0;
    std::size_t entry = 0;
    bool full = false;
  };
  std::vector<Slot> slots(1);
  std::size_t items = 0, growth_left = 0;
  auto capacity = [](std::size_t buckets) {
    const std::size_t mask = buckets - 1;
    return mask < 8 ? mask : (buckets / 8) * 7;
  };
  auto find_slot = [](const std::vector<Slot>& table, std::uint64_t hash) {
    const std::size_t n = table.size(), mask = n - 1;
    std::size_t pos = static_cast<std::size_t>(hash) & mask;
    if (n < 16) { // a group covers the whole table; its tail bytes past the table are empty
      for (std::size_t i = pos; i < n; ++i) {
        if (!table[i].full) {
          return i;
        }
      }
      for (std::size_t i = 0; i < n; ++i) {
        if (!table[i].full) {
          return i;
        }
      }
      return std::size_t{0};
    }
    for (std::size_t stride = 0;;) {
      for (std::size_t b = 0; b < 16; ++b) {
        if (!table[(pos + b) & mask].full) {
          return (pos + b) & mask;
        }
      }
      stride += 16;
      pos = (pos + stride) & mask;
    }
  };
  for (std::size_t e = 0; e < inserted.size(); ++e) {
    FxHasher h;
    h.word(inserted[e].first.first);
    h.word(inserted[e].first.second);
    if (growth_left == 0) {
      const std::size_t full = slots.size() > 1 ? capacity(slots.size()) : 0;
      const std::size_t want = std::max(items + 1, full + 1);
      std::size_t buckets = want < 4 ? 4 : want < 8 ? 8 : 1;
      if (want >= 8) {
        while (buckets < want * 8 / 7) {
          buckets *= 2;
        }
      }
      std::vector<Slot> grown(buckets);
      for (const Slot& s : slots) {
        if (s.full) {
          grown[find_slot(grown, s.hash)] = s;
        }
      }
      slots = std::move(grown);
      growth_left = capacity(slots.size()) - items;
    }
    slots[find_slot(slots, h.hash)] = Slot{h.hash, e, true};
    ++items;
    --growth_left;
  }
  ThreadKeys out;
  for (const Slot& s : slots) {
    if (s.full) {
      out.push_back(inserted[s.entry]);
    }
  }
  return out;
}

// --- collectives parity: ops in the schedule against calls in the generated code -------------

std::optional<std::string_view> normalise_op(std::string_view op) {
  while (!op.empty() && op.back() == '_') {
    op.remove_suffix(1);
  }
  for (std::string_view name :
       {"all_reduce", "reduce_scatter", "all_gather", "broadcast", "all_to_all"}) {
    if (op.find(name) != std::string_view::npos) {
      return name;
    }
  }
  if (op.find("reduce") != std::string_view::npos) {
    return std::string_view("reduce");
  }
  return std::nullopt;
}

// The text tlparse counts calls in: its highlighted page with the tags removed, which is the code
// with `& < > " '` escaped as entities (so an entity's `#` starts a "comment" as it does there).
std::string code_as_counted(const index::Output& o, const std::string& payload) {
  if (o.kind != index::OutputKind::output_code_html) {
    return payload;
  }
  std::string out;
  out.reserve(payload.size() + payload.size() / 16);
  for (char c : payload) {
    switch (c) {
    case '&':
      out.append("&amp;");
      break;
    case '<':
      out.append("&lt;");
      break;
    case '>':
      out.append("&gt;");
      break;
    case '"':
      out.append("&quot;");
      break;
    case '\'':
      out.append("&#39;");
      break;
    default:
      out.push_back(c);
    }
  }
  return out;
}

// Removes `#...` and `//...` to the end of the line and `/*...*/` (across lines), leftmost first.
std::string strip_comments(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '#' || (c == '/' && i + 1 < text.size() && text[i + 1] == '/')) {
      while (i < text.size() && text[i] != '\n') {
        ++i;
      }
      continue;
    }
    if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
      const auto end = text.find("*/", i + 2);
      if (end != std::string::npos) {
        i = end + 2;
        continue;
      }
    }
    out.push_back(c);
    ++i;
  }
  return out;
}

bool is_word(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// Calls `torch . ops . [_]c10d_functional . <op> . default (`, spaces allowed around the dots.
std::vector<std::string> c10d_calls(const std::string& code) {
  std::vector<std::string> ops;
  std::size_t from = 0;
  while ((from = code.find("torch", from)) != std::string::npos) {
    std::size_t i = from + 5;
    const std::size_t start = from;
    from = i;
    auto skip = [&] {
      while (i < code.size() && is_space(code[i])) {
        ++i;
      }
    };
    auto token = [&](std::string_view t) {
      skip();
      if (code.compare(i, t.size(), t) != 0) {
        return false;
      }
      i += t.size();
      return true;
    };
    if (!token(".") || !token("ops") || !token(".")) {
      continue;
    }
    skip();
    if (i < code.size() && code[i] == '_') {
      ++i;
    }
    if (code.compare(i, 15, "c10d_functional") != 0) {
      continue;
    }
    i += 15;
    if (!token(".")) {
      continue;
    }
    skip();
    const std::size_t op_start = i;
    while (i < code.size() && is_word(code[i])) {
      ++i;
    }
    if (i == op_start) {
      continue;
    }
    std::string op = code.substr(op_start, i - op_start);
    // The regex backtracks into the op name only to find `.default(`; a name is all word bytes.
    if (!token(".") || !token("default") || !token("(")) {
      continue;
    }
    (void)start;
    ops.push_back(std::move(op));
    from = i;
  }
  return ops;
}

std::optional<ParityGraph> parity_of(const std::vector<std::string>& schedule_ops,
                                     const std::string& code) {
  std::map<std::string_view, std::uint64_t> scheduled, called;
  for (const std::string& op : schedule_ops) {
    if (auto n = normalise_op(op)) {
      ++scheduled[*n];
    }
  }
  std::uint64_t waits = 0;
  const std::vector<std::string> calls = c10d_calls(strip_comments(code));
  for (const std::string& op : calls) {
    if (op == "wait_tensor") {
      ++waits;
    } else if (auto n = normalise_op(op)) {
      ++called[*n];
    }
  }
  std::uint64_t total = 0, offset = 0;
  for (const auto& [name, count] : called) {
    total += count;
  }
  std::set<std::string_view> names;
  for (const auto& [name, count] : scheduled) {
    names.insert(name);
  }
  for (const auto& [name, count] : called) {
    names.insert(name);
  }
  for (std::string_view name : names) {
    const std::uint64_t a = scheduled.count(name) ? scheduled[name] : 0;
    const std::uint64_t b = called.count(name) ? called[name] : 0;
    offset += a > b ? a - b : b - a;
  }
  ParityGraph g;
  g.offset = offset;
  g.missing_waits = total > waits ? total - waits : 0;
  if (g.offset == 0 && g.missing_waits == 0) {
    return std::nullopt;
  }
  return g;
}

// --- grouping ---------------------------------------------------------------------------------

std::vector<RankGroup> groups_of(const std::vector<std::pair<std::uint32_t, std::string>>& seqs) {
  std::map<std::string, std::vector<std::uint32_t>> by_signature;
  for (const auto& [rank, seq] : seqs) {
    by_signature[seq].push_back(rank);
  }
  std::vector<RankGroup> groups;
  for (auto& [signature, ranks] : by_signature) {
    std::sort(ranks.begin(), ranks.end());
    groups.push_back({ranks, signature});
  }
  // Stable for readers: the group of the lowest rank first.
  std::sort(groups.begin(), groups.end(),
            [](const RankGroup& a, const RankGroup& b) { return a.ranks < b.ranks; });
  return groups;
}

std::string join_ranks(const std::vector<std::uint32_t>& ranks, std::string_view prefix) {
  std::string out;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    out.append(i ? ", " : "");
    out.append(prefix);
    out.append(std::to_string(ranks[i]));
  }
  return out;
}

// Rounded to 3 decimals, printed like Rust's f64 Display.
std::string ms3(double ns) {
  return detail::format_seconds(std::round(ns / 1e6 * 1000.0) / 1000.0);
}

class Landing {
public:
  Landing(const index::IndexReader& reader, const std::vector<RankFile>& ranks,
          const MultiRankOptions& options, const std::filesystem::path& out_dir)
      : reader_(reader), ranks_(ranks), options_(options), folder_(out_dir) {}

  MultiRankResult run() {
    if (!folder_.prepare(result_.error)) {
      return result_;
    }
    for (const RankFile& r : ranks_) {
      if (!load(r)) {
        return result_;
      }
    }
    if (!combined_chromium_events() || !runtime() || !schedules() || !parity()) {
      return result_;
    }
    tensor_meta();
    exec_order();
    landing_page();
    result_.ok = result_.error.empty();
    return result_;
  }

private:
  bool fail(const std::string& error) {
    if (result_.error.empty()) {
      result_.error = error;
    }
    return false;
  }

  bool write(const std::string& relative, const std::string& bytes) {
    if (!folder_.write_file(relative, bytes)) {
      const std::string e = folder_.first_error();
      return fail(e.empty() ? "cannot write " + relative : e);
    }
    result_.written.push_back(relative);
    return true;
  }

  std::optional<std::string> payload_of(const index::Output& o) {
    auto p = reader_.payload(o.event_id);
    if (!p) {
      fail(p.error());
      return std::nullopt;
    }
    return p->value_or(std::string());
  }

  bool load(const RankFile& r) {
    RankData d;
    d.rank = r;
    auto keys = reader_.compile_keys(r.file_id);
    auto outputs = reader_.outputs(r.file_id);
    auto compiles = reader_.compiles(r.file_id);
    if (!keys || !outputs || !compiles) {
      return fail(!keys ? keys.error() : !outputs ? outputs.error() : compiles.error());
    }
    d.summary.rank = r.rank;
    for (const index::Compile& c : *compiles) {
      if (c.scope != index::CompileScope::compile) {
        continue;
      }
      ++d.summary.compiles;
      d.summary.compile_sequence.push_back(c.display);
      d.summary.recompiles += c.frame_compile_id.value_or(0) > 0 ? 1 : 0;
      d.summary.cache_misses += c.cache_misses;
      d.summary.failures += c.status == index::CompileStatus::error ? 1 : 0;
      // A crafted index may hold NaN or infinities: they would break the chart's ordering.
      if (c.entire_frame_compile_time_s && std::isfinite(*c.entire_frame_compile_time_s)) {
        d.summary.compile_seconds += *c.entire_frame_compile_time_s;
        d.summary.has_compile_time = true;
      }
    }
    d.outputs = std::move(outputs).value();
    std::map<int64_t, std::vector<const index::Output*>> by_key;
    for (const index::Output& o : d.outputs) {
      if (o.in_directory && o.key_id) {
        by_key[*o.key_id].push_back(&o);
      }
    }
    // compile_directory.json: entries by display (sorted), each listing its keys' outputs.
    std::map<std::string, std::vector<const index::Output*>> directory;
    for (const index::CompileKey& k : *keys) {
      auto& list = directory[k.display];
      const auto& outs = by_key[k.id];
      list.insert(list.end(), outs.begin(), outs.end());
    }
    std::vector<std::pair<int64_t, std::string>> suffixes;
    for (const auto& [display, list] : directory) {
      if (display != "unknown" && !display.starts_with("unknown_")) {
        d.compile_ids.insert(display);
      }
      for (const index::Output* o : list) {
        if (!o->suffix.empty() && o->number >= 0) {
          suffixes.emplace_back(o->number, o->suffix);
        }
        const auto slash = o->path.find('/');
        if (slash != std::string::npos) {
          d.folder_compile_id.emplace(o->path.substr(0, slash), display);
          const std::string_view name = o->name;
          const char* status = name.find("cache_miss") != std::string_view::npos     ? "miss"
                               : name.find("cache_hit") != std::string_view::npos    ? "hit"
                               : name.find("cache_bypass") != std::string_view::npos ? "bypass"
                                                                                     : nullptr;
          if (status != nullptr) {
            auto rank_of = [](const std::string& s) {
              return s == "miss" ? 3 : s == "hit" ? 2 : 1;
            };
            std::string& cur = d.folder_cache_status[o->path.substr(0, slash)];
            if (cur.empty() || rank_of(status) > rank_of(cur)) {
              cur = status;
            }
          }
        }
      }
    }
    std::stable_sort(suffixes.begin(), suffixes.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& s : suffixes) {
      d.cache_sequence += s.second;
    }
    d.summary.cache_sequence = d.cache_sequence;
    // The files of each compile folder (outputs under `<folder>/`), newest first (list_order).
    std::map<std::string, std::size_t> folder_at;
    for (const index::Output& o : d.outputs) {
      if (o.kind == index::OutputKind::link || o.path.find('/') == std::string::npos ||
          o.path.find('/') != o.path.rfind('/')) {
        continue;
      }
      std::string folder;
      FolderFile f = folder_file(o, folder);
      auto [it, fresh] = folder_at.emplace(folder, d.folders.size());
      if (fresh) {
        d.folders.emplace_back(folder, std::vector<FolderFile>());
      }
      d.folders[it->second].second.push_back(std::move(f));
    }
    const auto& order = options_.folder_order;
    auto position = [&](const std::string& name) {
      const auto it = std::find(order.begin(), order.end(), name);
      return static_cast<std::size_t>(it - order.begin());
    };
    std::sort(d.folders.begin(), d.folders.end(), [&](const auto& a, const auto& b) {
      const std::size_t pa = position(a.first), pb = position(b.first);
      return pa != pb ? pa < pb : a.first < b.first;
    });
    for (auto& [folder, list] : d.folders) {
      std::reverse(list.begin(), list.end());
    }
    // The graph execution order: the graph_execution JSON artifact with the highest number.
    const index::Output* best = nullptr;
    for (const index::Output& o : d.outputs) {
      if (o.in_directory && o.kind != index::OutputKind::link &&
          o.name.find("graph_execution") != std::string::npos && o.name.ends_with(".json") &&
          o.number >= 0 && (best == nullptr || o.number >= best->number)) {
        best = &o;
      }
    }
    if (best != nullptr) {
      auto text = payload_of(*best);
      if (!text) {
        return false;
      }
      if (auto v = parse_json(*text); v && v->is_object()) {
        if (const JsonValue* list = v->find("graph_execution_order");
            list != nullptr && list->kind() == JsonValue::Kind::Array) {
          d.has_exec_order = true;
          for (const JsonValue& item : list->items()) {
            if (item.kind() == JsonValue::Kind::String) {
              d.exec_order.push_back("[" + item.as_string() + "]");
            } else if (item.is_object()) {
              const JsonValue* cid = item.find("compile_id");
              if (cid != nullptr && cid->kind() == JsonValue::Kind::String) {
                d.exec_order.push_back("[" + cid->as_string() + "]");
              }
            }
          }
        }
      }
    }
    // From here on the checks need an output's event (for its payload) and its kind only: its
    // strings go, so a landing over a thousand ranks does not hold every rank's output list
    // (the served landing of 1,024 ranks peaked at 107 MB with them).
    for (index::Output& o : d.outputs) {
      for (std::string* text : {&o.event_key, &o.artifact, &o.path, &o.name, &o.suffix}) {
        std::string().swap(*text);
      }
      o.readable_url.reset();
      o.subgraph.reset();
    }
    data_.push_back(std::move(d));
    return true;
  }

  // The ranks' shares written by their renders, concatenated in rank order (each holds its
  // events joined by ",\n  "; an empty one had none).
  bool concatenated_chromium_events() {
    detail::StreamedFile file;
    if (!folder_.open_stream(files::chromium_events, file)) {
      return fail("cannot write " + std::string(files::chromium_events) + ": " +
                  folder_.first_error());
    }
    bool any = false;
    std::string error;
    for (const std::filesystem::path& part : options_.chromium_parts) {
      const int fd = ::open(part.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0) {
        error = "cannot read " + part.string() + ": " + std::strerror(errno);
        break;
      }
      bool first_chunk = true;
      for (;;) {
        std::string& buffer = file.buffer();
        const std::size_t at = buffer.size();
        buffer.resize(at + (1u << 20));
        const ssize_t n = ::read(fd, buffer.data() + at, 1u << 20);
        buffer.resize(at + static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
        if (n < 0 && errno == EINTR) {
          continue;
        }
        if (n < 0) {
          error = "cannot read " + part.string() + ": " + std::strerror(errno);
          break;
        }
        if (n == 0) {
          break;
        }
        if (first_chunk) {
          buffer.insert(at, any ? ",\n  " : "[\n  ");
          first_chunk = false;
          any = true;
        }
        file.flush_if_large();
      }
      ::close(fd);
      std::error_code ec;
      std::filesystem::remove(part, ec);
      if (!error.empty()) {
        break;
      }
    }
    file.buffer().append("\n]");
    const bool finished = folder_.finish_stream(file);
    if (!error.empty()) {
      return fail(error);
    }
    if (!finished) {
      return fail("cannot write " + std::string(files::chromium_events) + ": " +
                  folder_.first_error());
    }
    return chromium_events_written(any);
  }

  bool chromium_events_written(bool any) {
    result_.findings.has_chromium_events = any;
    if (!any) {
      // tlparse writes no combined file when no rank has events.
      std::error_code ec;
      std::filesystem::remove(folder_.root() / files::chromium_events, ec);
      return true;
    }
    result_.written.push_back(files::chromium_events);
    return true;
  }

  // The combined chromium_events.json: the ranks' shares (MultiRankOptions::chromium_parts).
  bool combined_chromium_events() {
    if (options_.chromium_parts.empty()) {
      return true;
    }
    if (options_.chromium_parts.size() != data_.size()) {
      return fail("one combined chromium part per rank expected");
    }
    return concatenated_chromium_events();
  }

  // The first artifact of each compile folder whose stem starts with `prefix` (JSON only).
  template <class F>
  bool each_first_json(std::string_view prefix, F&& fn) {
    for (const RankData& d : data_) {
      for (const auto& [folder, list] : d.folders) {
        for (const FolderFile& f : list) {
          if (f.is_json && f.stem.starts_with(prefix)) {
            auto text = payload_of(*f.output);
            if (!text) {
              return false;
            }
            fn(d, folder, *text);
            break;
          }
        }
      }
    }
    return true;
  }

  bool runtime() {
    if (!each_first_json(kRuntimePrefix, [&](const RankData& d, const std::string& folder,
                                             const std::string& text) {
          auto v = parse_json(text);
          const JsonValue* ops = v && v->is_object() ? v->find("ops") : nullptr;
          if (ops == nullptr || ops->kind() != JsonValue::Kind::Array) {
            result_.warnings.push_back(rank_folder(d.rank.rank) + "/" + folder +
                                       ": runtime estimates are not {\"ops\": [...]}; skipped");
            return;
          }
          GraphRuntime g{d.rank.rank, folder, {}};
          for (const JsonValue& op : ops->items()) {
            const JsonValue* name = op.is_object() ? op.find("name") : nullptr;
            const JsonValue* ns = op.is_object() ? op.find("estimated_runtime_ns") : nullptr;
            const bool number = ns != nullptr && (ns->kind() == JsonValue::Kind::Float ||
                                                  ns->kind() == JsonValue::Kind::Int ||
                                                  ns->kind() == JsonValue::Kind::UInt);
            if (name == nullptr || name->kind() != JsonValue::Kind::String || !number) {
              result_.warnings.push_back(rank_folder(d.rank.rank) + "/" + folder +
                                         ": a runtime estimate lacks name or "
                                         "estimated_runtime_ns; graph skipped");
              return;
            }
            const double value = ns->kind() == JsonValue::Kind::Float ? ns->as_float()
                                 : ns->kind() == JsonValue::Kind::Int
                                     ? static_cast<double>(ns->as_int())
                                     : static_cast<double>(ns->as_uint());
            g.ops.emplace_back(name->as_string(), value);
          }
          if (!g.ops.empty()) {
            runtimes_.push_back(std::move(g));
          }
        })) {
      return false;
    }
    result_.findings.has_runtime = !runtimes_.empty();
    if (runtimes_.empty()) {
      return true;
    }
    return write(files::runtime_estimations, runtime_estimations_json(runtimes_)) &&
           write(files::runtime_trace, runtime_trace());
  }

  std::string runtime_trace() {
    JsonValue events = JsonValue::array();
    std::set<std::uint32_t> pids;
    ThreadKeys thread_keys;
    std::set<std::pair<std::uint32_t, std::uint32_t>> seen_threads;
    for (const GraphRuntime& g : runtimes_) {
      pids.insert(g.rank);
      const std::uint32_t tid = runtime_thread_id(g.rank, g.graph);
      if (seen_threads.insert({g.rank, tid}).second) {
        thread_keys.emplace_back(std::make_pair(g.rank, tid), g.graph);
      }
      std::uint64_t ts = 0;
      for (const auto& [name, ns] : g.ops) {
        const double d = std::max(std::ceil(ns / 1000.0), 1.0);
        const std::uint64_t dur = std::isnan(d) ? 0 : static_cast<std::uint64_t>(d);
        JsonValue e = JsonValue::object();
        e.set("name", JsonValue::string(name));
        e.set("ph", JsonValue::string("X"));
        e.set("ts", JsonValue::unsigned_integer(ts));
        e.set("dur", JsonValue::unsigned_integer(dur));
        e.set("pid", JsonValue::unsigned_integer(g.rank));
        e.set("tid", JsonValue::unsigned_integer(tid));
        e.set("cat", JsonValue::string("runtime"));
        JsonValue args = JsonValue::object();
        args.set("graph", JsonValue::string(g.graph));
        args.set("rank", JsonValue::unsigned_integer(g.rank));
        const std::uint64_t ns_int = !(ns > 0)                     ? 0
                                     : ns >= 1.8446744073709552e19 ? UINT64_MAX
                                                                   : static_cast<std::uint64_t>(ns);
        args.set("runtime_ns", JsonValue::unsigned_integer(ns_int));
        e.set("args", std::move(args));
        events.items().push_back(std::move(e));
        ts += dur;
      }
    }
    auto meta = [](const char* name, std::uint32_t pid, std::optional<std::uint32_t> tid,
                   const char* arg, JsonValue value) {
      JsonValue e = JsonValue::object();
      e.set("name", JsonValue::string(name));
      e.set("ph", JsonValue::string("M"));
      e.set("pid", JsonValue::unsigned_integer(pid));
      if (tid) {
        e.set("tid", JsonValue::unsigned_integer(*tid));
      }
      JsonValue args = JsonValue::object();
      args.set(arg, std::move(value));
      e.set("args", std::move(args));
      return e;
    };
    for (const std::uint32_t pid : pids) {
      events.items().push_back(meta("process_name", pid, std::nullopt, "name",
                                    JsonValue::string("Rank " + std::to_string(pid))));
      events.items().push_back(
          meta("process_sort_index", pid, std::nullopt, "sort_index", JsonValue::integer(pid)));
    }
    std::map<std::uint32_t, std::vector<std::pair<std::uint32_t, std::string>>> by_pid;
    for (const auto& [key, graph] : hash_map_order(thread_keys)) {
      by_pid[key.first].emplace_back(key.second, graph);
    }
    for (const auto& [pid, sorted] : by_pid) {
      for (std::size_t i = 0; i < sorted.size(); ++i) {
        events.items().push_back(meta("thread_name", pid, sorted[i].first, "name",
                                      JsonValue::string("graph " + sorted[i].second)));
        events.items().push_back(meta("thread_sort_index", pid, sorted[i].first, "sort_index",
                                      JsonValue::integer(static_cast<std::int64_t>(i))));
      }
    }
    std::string out;
    write_pretty(out, events);
    return out;
  }

  bool schedules() {
    if (!each_first_json(kSchedulePrefix, [&](const RankData& d, const std::string& folder,
                                              const std::string& text) {
          auto v = parse_json(text);
          if (!v || v->kind() != JsonValue::Kind::Array) {
            result_.warnings.push_back(rank_folder(d.rank.rank) + "/" + folder +
                                       ": collective schedule is not a list; skipped");
            return;
          }
          CollectiveSchedule s{d.rank.rank, folder, {}};
          for (const JsonValue& op : v->items()) {
            if (op.kind() != JsonValue::Kind::String) {
              result_.warnings.push_back(rank_folder(d.rank.rank) + "/" + folder +
                                         ": collective schedule holds a non-string; skipped");
              return;
            }
            s.ops.push_back(op.as_string());
          }
          if (!s.ops.empty()) {
            schedules_.push_back(std::move(s));
          }
        })) {
      return false;
    }
    if (!schedules_.empty()) {
      if (!write(files::collective_schedules, collective_schedules_json(schedules_))) {
        return false;
      }
      std::vector<std::pair<std::uint32_t, std::string>> seqs;
      for (const RankData& d : data_) {
        std::string joined;
        for (const CollectiveSchedule& s : schedules_) {
          if (s.rank == d.rank.rank) {
            for (const std::string& op : s.ops) {
              joined += (joined.empty() ? "" : ",") + op;
            }
          }
        }
        seqs.emplace_back(d.rank.rank, joined);
      }
      for (std::size_t i = 0; i < data_.size(); ++i) {
        data_[i].summary.collectives = seqs[i].second;
      }
      auto groups = groups_of(seqs);
      if (groups.size() > 1) {
        result_.findings.collective_groups = std::move(groups);
      }
    }
    return true;
  }

  // rank_<N>/collectives_parity.json for every rank.
  bool parity() {
    for (const RankData& d : data_) {
      std::vector<ParityGraph> graphs;
      for (const auto& [folder, list] : d.folders) {
        const FolderFile* schedule = nullptr;
        const FolderFile* code = nullptr;
        for (const FolderFile& f : list) {
          if (f.is_json && f.stem.starts_with(kSchedulePrefix)) {
            schedule = &f; // the last one
          } else if (f.stem.starts_with(kOutputCodePrefix) && code == nullptr) {
            code = &f; // the first one
          }
        }
        if (schedule == nullptr || code == nullptr) {
          continue;
        }
        auto schedule_text = payload_of(*schedule->output);
        auto code_text = payload_of(*code->output);
        if (!schedule_text || !code_text) {
          return false;
        }
        std::vector<std::string> ops;
        if (auto v = parse_json(*schedule_text); v && v->kind() == JsonValue::Kind::Array) {
          for (const JsonValue& op : v->items()) {
            if (op.kind() != JsonValue::Kind::String) {
              ops.clear(); // not a list of strings: tlparse counts none
              break;
            }
            ops.push_back(op.as_string());
          }
        }
        if (auto g = parity_of(ops, code_as_counted(*code->output, *code_text))) {
          g->graph = folder;
          const auto it = d.folder_compile_id.find(folder);
          g->compile_id = it == d.folder_compile_id.end() ? "unknown" : it->second;
          graphs.push_back(std::move(*g));
        }
      }
      if (!write(rank_folder(d.rank.rank) + "/" + files::collectives_parity,
                 collectives_parity_json(graphs))) {
        return false;
      }
    }
    return true;
  }

  void tensor_meta() {
    std::map<std::uint32_t, std::vector<std::pair<std::string, std::string>>> by_rank;
    each_first_json(kRuntimePrefix,
                    [&](const RankData& d, const std::string& folder, const std::string& text) {
                      auto v = parse_json(text);
                      if (!v) {
                        return;
                      }
                      std::string compact;
                      write_compact(compact, *v);
                      by_rank[d.rank.rank].emplace_back(folder, std::move(compact));
                    });
    std::vector<std::pair<std::uint32_t, std::string>> seqs;
    for (auto& [rank, list] : by_rank) {
      std::sort(list.begin(), list.end());
      std::string signature;
      for (std::size_t i = 0; i < list.size(); ++i) {
        signature += (i ? "," : "") + list[i].second;
      }
      seqs.emplace_back(rank, std::move(signature));
    }
    auto groups = groups_of(seqs);
    if (groups.size() > 1) {
      result_.findings.tensor_meta_groups = std::move(groups);
    }
  }

  void exec_order() {
    std::vector<const RankData*> with_order;
    for (const RankData& d : data_) {
      if (d.has_exec_order) {
        with_order.push_back(&d);
      }
    }
    MultiRankFindings& f = result_.findings;
    if (with_order.size() < 2) {
      return;
    }
    f.exec_order_available = true;
    // (rank, compile id) -> its collective ops and its cache status.
    std::map<std::pair<std::uint32_t, std::string>, std::vector<std::string>> sched;
    for (const CollectiveSchedule& s : schedules_) {
      for (const RankData& d : data_) {
        if (d.rank.rank == s.rank) {
          const auto it = d.folder_compile_id.find(s.graph);
          auto& ops = sched[{s.rank, it == d.folder_compile_id.end() ? s.graph : it->second}];
          ops.insert(ops.end(), s.ops.begin(), s.ops.end());
        }
      }
    }
    std::set<std::uint32_t> sched_ranks, cache_ranks;
    std::size_t longest = 0;
    for (const RankData* d : with_order) {
      longest = std::max(longest, d->exec_order.size());
    }
    for (std::size_t i = 0; i < longest; ++i) {
      std::set<std::string> ids;
      std::vector<const std::vector<std::string>*> schedules;
      std::vector<std::string> statuses;
      std::vector<std::uint32_t> present;
      for (const RankData* d : with_order) {
        if (i >= d->exec_order.size()) {
          continue;
        }
        const std::string& cid = d->exec_order[i];
        present.push_back(d->rank.rank);
        ids.insert(cid);
        if (auto it = sched.find({d->rank.rank, cid}); it != sched.end()) {
          schedules.push_back(&it->second);
        }
        for (const auto& [folder, status] : d->folder_cache_status) {
          const auto c = d->folder_compile_id.find(folder);
          if (c != d->folder_compile_id.end() && c->second == cid) {
            statuses.push_back(status);
            break;
          }
        }
      }
      f.exec_order_differs = f.exec_order_differs || ids.size() > 1;
      bool sched_mismatch = false, cache_mismatch = false;
      for (std::size_t k = 1; k < schedules.size(); ++k) {
        sched_mismatch = sched_mismatch || *schedules[k] != *schedules[0];
      }
      for (std::size_t k = 1; k < statuses.size(); ++k) {
        cache_mismatch = cache_mismatch || statuses[k] != statuses[0];
      }
      if (sched_mismatch) {
        sched_ranks.insert(present.begin(), present.end());
      }
      if (cache_mismatch) {
        cache_ranks.insert(present.begin(), present.end());
      }
    }
    f.exec_schedule_mismatch_ranks.assign(sched_ranks.begin(), sched_ranks.end());
    f.exec_cache_mismatch_ranks.assign(cache_ranks.begin(), cache_ranks.end());
  }

  void group_list(std::string& page, const std::vector<RankGroup>& groups, bool show_signature) {
    page.append("<ul>\n");
    for (const RankGroup& g : groups) {
      page.append("<li>Ranks: ");
      page.append(detail::rank_ranges(g.ranks));
      if (show_signature && !g.signature.empty()) {
        page.append(" &mdash; <code>");
        esc(page, g.signature.size() > 400 ? g.signature.substr(0, 400) + "..." : g.signature);
        page.append("</code>");
      }
      page.append("</li>\n");
    }
    page.append("</ul>\n");
  }

  void landing_page() {
    MultiRankFindings& f = result_.findings;
    // Compile-id sets and cache sequences.
    std::vector<std::pair<std::uint32_t, std::string>> cache_seqs;
    for (const RankData& d : data_) {
      f.compile_id_divergence =
          f.compile_id_divergence || d.compile_ids != data_.front().compile_ids;
      cache_seqs.emplace_back(d.rank.rank, d.cache_sequence);
    }
    if (auto groups = groups_of(cache_seqs); groups.size() > 1) {
      f.cache_groups = std::move(groups);
    }

    std::string page;
    detail::PageOptions po;
    po.title = "Multi-rank tlparse report";
    detail::begin_page(page, po);
    page.append(options_.custom_header_html); // trusted: from the command line
    if (f.any_divergence()) {
      page.append("<div class=\"warning-box\" style=\"border: 1px solid #d4a72c; background: "
                  "#fff8c5; padding: 0.2rem 1rem; border-radius: 6px\">\n");
      if (f.compile_id_divergence) {
        page.append("<p><strong>Warning:</strong> Diverging Compilation IDs detected across "
                    "ranks: some ranks compiled frames the others did not. Collectives issued "
                    "from those graphs may not match across ranks, which can hang the job or "
                    "make it time out.</p>\n");
        compile_id_differences(page);
      }
      if (!f.cache_groups.empty()) {
        page.append("<p><strong>Warning:</strong> Diverging Cache hit/miss patterns detected "
                    "across ranks (ranks that hit the cache finish compiling sooner than ranks "
                    "that miss it). Cache hit/miss pattern groups:</p>\n");
        group_list(page, f.cache_groups, true);
      }
      if (!f.collective_groups.empty()) {
        page.append("<p><strong>Warning:</strong> Diverging collective operation sequences "
                    "detected across ranks. Collective operation sequence groups:</p>\n");
        group_list(page, f.collective_groups, false);
      }
      if (!f.tensor_meta_groups.empty()) {
        page.append("<p><strong>Warning:</strong> Ranks exhibit divergent inductor tensor "
                    "metadata (see the analysis below).</p>\n");
      }
      page.append("</div>\n");
    }
    page.append("<h2>Multi-Rank TLParse Report</h2>\n<p>This report covers <strong>");
    page.append(std::to_string(data_.size()));
    page.append("</strong> rank(s). Each rank's own report is linked below; the sections after "
                "it compare the ranks.</p>\n");
    if (f.has_chromium_events) {
      page.append("<h3>Chromium Events</h3>\n<p>The compiler's trace events of every rank, one "
                  "process per rank, are in <a href=\"chromium_events.json\">"
                  "chromium_events.json</a>: open it in Perfetto (ui.perfetto.dev) or "
                  "chrome://tracing.</p>\n");
    }
    if (f.has_runtime) {
      page.append("<h3>Runtime Trace Visualization</h3>\n<p>Inductor's estimated runtime of "
                  "each op, laid out per rank and graph, is in <a "
                  "href=\"chromium_trace_with_runtime.json\">chromium_trace_with_runtime.json</a> "
                  "(the estimates themselves: <a href=\"runtime_estimations.json\">"
                  "runtime_estimations.json</a>).</p>\n");
    }
    std::vector<detail::RankSummary> summaries;
    std::vector<std::uint32_t> numbers;
    for (const RankData& d : data_) {
      summaries.push_back(d.summary);
      numbers.push_back(d.rank.rank);
    }
    detail::write_rank_overview(page, summaries);
    detail::write_rank_links(page, numbers);
    if (f.has_runtime) {
      runtime_analysis(page);
    }
    exec_order_section(page);
    page.append("<h3>Tensor Metadata Analysis</h3>\n");
    if (!f.tensor_meta_groups.empty()) {
      page.append("<p>Ranks exhibit divergent inductor tensor metadata across graphs. Groups "
                  "with identical signatures:</p>\n");
      group_list(page, f.tensor_meta_groups, false);
    } else {
      page.append("<p>All ranks have matching tensor meta signatures across graphs.</p>\n");
    }
    detail::end_page(page, po);
    write(files::index_html, page);
  }

  // Which compile ids each rank lacks, relative to all ranks together.
  void compile_id_differences(std::string& page) {
    std::set<std::string> all;
    for (const RankData& d : data_) {
      all.insert(d.compile_ids.begin(), d.compile_ids.end());
    }
    // Ranks that lack the same ids share a line (a thousand ranks lacking the one id a straggler
    // compiled read as one line, not a thousand).
    std::map<std::vector<std::string>, std::vector<std::uint32_t>> ranks_missing;
    for (const RankData& d : data_) {
      std::vector<std::string> missing;
      for (const std::string& id : all) {
        if (d.compile_ids.count(id) == 0) {
          missing.push_back(id);
        }
      }
      if (!missing.empty()) {
        ranks_missing[missing].push_back(d.rank.rank);
      }
    }
    std::vector<std::pair<std::vector<std::uint32_t>, const std::vector<std::string>*>> lines;
    for (const auto& [missing, ranks] : ranks_missing) {
      lines.emplace_back(ranks, &missing);
    }
    std::sort(lines.begin(), lines.end());
    page.append("<ul>\n");
    for (const auto& [ranks, missing] : lines) {
      page.append((ranks.size() == 1 ? "<li>Rank " : "<li>Ranks ") + detail::rank_ranges(ranks) +
                  (ranks.size() == 1 ? " has no " : " have no "));
      for (std::size_t i = 0; i < missing->size() && i < 50; ++i) {
        page.append(i ? ", " : "");
        esc(page, (*missing)[i]);
      }
      page.append(missing->size() > 50 ? ", ...</li>\n" : "</li>\n");
    }
    page.append("</ul>\n");
  }

  void runtime_analysis(std::string& page) {
    page.append("<h3>Graph Runtime Analysis</h3>\n");
    std::map<std::uint32_t, std::vector<std::pair<std::string, double>>> by_rank;
    for (const GraphRuntime& g : runtimes_) {
      double sum = 0;
      for (const auto& op : g.ops) {
        sum += op.second;
      }
      by_rank[g.rank].emplace_back(g.graph, sum);
    }
    std::size_t lo = SIZE_MAX, hi = 0;
    for (const auto& [rank, list] : by_rank) {
      lo = std::min(lo, list.size());
      hi = std::max(hi, list.size());
    }
    if (lo != hi) {
      result_.findings.runtime_graph_counts_differ = true;
      page.append("<p>Runtime analysis not available: ranks have different numbers of compiled "
                  "graphs with runtime estimates, so graphs cannot be paired across ranks.</p>\n");
      return;
    }
    struct Row {
      std::string graph;
      double delta, fast_ns, slow_ns;
      std::uint32_t fast, slow;
    };
    std::vector<Row> rows;
    for (std::size_t i = 0; i < hi; ++i) {
      Row r{};
      double lo_ns = INFINITY, hi_ns = -INFINITY;
      bool first = true;
      for (const auto& [rank, list] : by_rank) {
        if (first) {
          r.graph = list[i].first;
          first = false;
        }
        if (list[i].second <= lo_ns) {
          lo_ns = list[i].second;
          r.fast = rank;
        }
        if (list[i].second >= hi_ns) {
          hi_ns = list[i].second;
          r.slow = rank;
        }
      }
      r.delta = hi_ns - lo_ns;
      r.fast_ns = lo_ns;
      r.slow_ns = hi_ns;
      rows.push_back(r);
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const Row& a, const Row& b) { return a.graph < b.graph; });
    page.append("<p>Graphs paired by position in each rank (folders by name), with the sum of "
                "their ops' estimated runtimes:</p>\n<ul>\n");
    for (const Row& r : rows) {
      page.append("<li>Graph ");
      esc(page, r.graph);
      page.append(": " + ms3(r.delta) + " ms delta (Fastest: Rank " + std::to_string(r.fast) +
                  " - " + ms3(r.fast_ns) + " ms, Slowest: Rank " + std::to_string(r.slow) + " - " +
                  ms3(r.slow_ns) + " ms)</li>\n");
    }
    page.append("</ul>\n");
  }

  void exec_order_section(std::string& page) {
    const MultiRankFindings& f = result_.findings;
    page.append("<h3>Graph Execution-Order Diagnostics</h3>\n<p>Compares the order in which "
                "each rank ran its compiled graphs, as logged by "
                "<code>torch._inductor.debug.record_and_log_graph_execution_order()</code>.</p>\n");
    if (!f.exec_order_available) {
      page.append("<p>Execution-order analysis unavailable: fewer than two ranks logged a graph "
                  "execution order.</p>\n");
      return;
    }
    page.append(f.exec_order_differs ? "<p>Graph execution order differs across ranks.</p>\n"
                                     : "<p>Graph execution order: consistent across ranks.</p>\n");
    if (!f.exec_schedule_mismatch_ranks.empty()) {
      page.append("<p><strong>Warning:</strong> Schedule mismatch across ranks: " +
                  join_ranks(f.exec_schedule_mismatch_ranks, "Rank ") + "</p>\n");
    } else {
      page.append("<p>Collectives Schedule: Consistent across ranks.</p>\n");
    }
    if (!f.exec_cache_mismatch_ranks.empty()) {
      page.append("<p><strong>Warning:</strong> Cache hit/miss mismatch across ranks: " +
                  join_ranks(f.exec_cache_mismatch_ranks, "Rank ") + "</p>\n");
    } else {
      page.append("<p>Cache hit/miss sequence: Consistent across ranks.</p>\n");
    }
  }

  const index::IndexReader& reader_;
  const std::vector<RankFile>& ranks_;
  const MultiRankOptions& options_;
  detail::OutputFolder folder_;
  MultiRankResult result_;
  std::vector<RankData> data_;
  std::vector<GraphRuntime> runtimes_;
  std::vector<CollectiveSchedule> schedules_;
};

} // namespace

bool MultiRankFindings::any_divergence() const {
  return compile_id_divergence || !cache_groups.empty() || !collective_groups.empty() ||
         !tensor_meta_groups.empty();
}

std::vector<RankFile> ranks_of_files(const std::vector<index::File>& files,
                                     std::vector<std::string>& warnings) {
  std::map<std::uint32_t, std::int64_t> by_rank;
  for (const index::File& f : files) {
    const std::optional<std::int64_t> rank = f.rank_from_name ? f.rank_from_name : f.rank;
    if (!rank || *rank < 0 || *rank > static_cast<std::int64_t>(UINT32_MAX)) {
      warnings.push_back("file " + std::to_string(f.id) + " (" + f.name +
                         ") names no rank; left out");
      continue;
    }
    const auto r = static_cast<std::uint32_t>(*rank);
    if (const auto [it, fresh] = by_rank.emplace(r, f.id); !fresh) {
      warnings.push_back("rank " + std::to_string(r) + " has several logs; using file " +
                         std::to_string(it->second) + ", leaving out file " + std::to_string(f.id) +
                         " (" + f.name + ")");
    }
  }
  std::vector<RankFile> out;
  for (const auto& [rank, file_id] : by_rank) {
    out.push_back({rank, file_id});
  }
  return out;
}

std::filesystem::path rank_log_in(const std::filesystem::path& dir, const index::File& file) {
  const std::string& name = file.name;
  if (dir.empty() || name.empty() || name == "." || name == ".." ||
      name.find('/') != std::string::npos || name.find('\0') != std::string::npos) {
    return {};
  }
  std::error_code ec;
  const std::filesystem::path candidate = dir / name;
  return std::filesystem::is_regular_file(candidate, ec) ? candidate : std::filesystem::path();
}

std::string rank_folder(std::uint32_t rank) {
  return "rank_" + std::to_string(rank);
}

std::vector<std::string> multi_rank_landing_files(const std::vector<std::uint32_t>& ranks) {
  std::vector<std::string> out = {files::index_html, files::chromium_events,
                                  files::runtime_estimations, files::runtime_trace,
                                  files::collective_schedules};
  for (const std::uint32_t r : ranks) {
    out.push_back(rank_folder(r) + "/" + files::collectives_parity);
  }
  return out;
}

MultiRankResult render_multi_rank_landing(const index::IndexReader& reader,
                                          const std::vector<RankFile>& ranks,
                                          const MultiRankOptions& options,
                                          const std::filesystem::path& out_dir) {
  return Landing(reader, ranks, options, out_dir).run();
}

} // namespace tlparse::report
