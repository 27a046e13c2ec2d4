// The on-disk compile cache (inductor/cache/fx_graph_cache.h).
#include "inductor/cache/fx_graph_cache.h"

#include "compiler/graph/graph_printer.h"
#include "inductor_build_id.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <unistd.h>
#include <vector>

namespace compiler::inductor {

namespace {

constexpr std::string_view kFormat = "torchscope-inductor-fx-graph-cache 1";

std::string base32(std::uint64_t hi, std::uint64_t lo) {
  static constexpr char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
  std::string out;
  for (int i = 0; i < 26; ++i) {
    // 130 bits read 5 at a time from hi:lo (the last two bits are 0).
    const int bit = i * 5;
    std::uint32_t v = 0;
    for (int b = 0; b < 5; ++b) {
      const int pos = bit + b;
      std::uint64_t word = pos < 64 ? hi : lo;
      const int shift = 63 - (pos % 64);
      v = (v << 1) | (pos < 128 ? static_cast<std::uint32_t>((word >> shift) & 1) : 0);
    }
    out += kAlphabet[v];
  }
  return out;
}

std::string hash_text(std::string_view text) {
  return base32(fnv1a64(text), fnv1a64(text, 0x84222325cbf29ce4ULL) * 0x9e3779b97f4a7c15ULL);
}

std::string sym_list(const std::vector<SymInt>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    out += (i ? "," : "") + v[i].to_string();
  }
  return out + "]";
}

// Tensor constants are numbered by identity in the order the graph reads them: the lowering
// gives each distinct tensor one buffer (lowering.cpp, Context::tensor), so a graph reading one
// constant twice and a graph reading two equal-shaped constants compile to different code and
// must have different keys. Their values are not hashed: the code reads them from their buffers.
class ConstantNumbering {
public:
  std::size_t number(const Tensor& t) {
    const auto it = std::find(seen_.begin(), seen_.end(), t.impl());
    if (it != seen_.end()) {
      return static_cast<std::size_t>(it - seen_.begin());
    }
    seen_.push_back(t.impl());
    return seen_.size() - 1;
  }

private:
  std::vector<const void*> seen_;
};

std::string tensor_text(const Tensor& t, ConstantNumbering& constants) {
  std::string out = "tensor#" + std::to_string(constants.number(t)) + "(" +
                    std::string(dtype_name(t.dtype())) + ",[";
  for (std::size_t i = 0; i < t.sizes().size(); ++i) {
    out += (i ? "," : "") + std::to_string(t.sizes()[i]);
  }
  out += "],[";
  for (std::size_t i = 0; i < t.strides().size(); ++i) {
    out += (i ? "," : "") + std::to_string(t.strides()[i]);
  }
  return out + "])";
}

// A constant exactly (floats by their bits): the code may embed it.
std::string value_text(const Value& v, ConstantNumbering& constants) {
  if (const Tensor* t = std::get_if<Tensor>(&v)) {
    return tensor_text(*t, constants);
  }
  if (const double* d = std::get_if<double>(&v)) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "f%016llx",
                  static_cast<unsigned long long>(std::bit_cast<std::uint64_t>(*d)));
    return buf;
  }
  if (const auto* list = std::get_if<std::vector<Tensor>>(&v)) {
    std::string out = "[";
    for (const Tensor& t : *list) {
      out += tensor_text(t, constants) + ",";
    }
    return out + "]";
  }
  return std::string(value_kind_name(v)) + ":" + value_to_string(v);
}

std::string meta_text(const graph::TensorMeta& m) {
  if (!m.is_tensor) {
    return "-";
  }
  std::string out = std::string(dtype_name(m.dtype)) + sym_list(m.sizes) + "[";
  for (std::size_t i = 0; i < m.strides.size(); ++i) {
    out += (i ? "," : "") + std::to_string(m.strides[i]);
  }
  return out + "]";
}

// The graph as the key sees it: structure and every constant, no names or source lines.
std::string graph_text(const graph::Graph& g) {
  std::string out;
  ConstantNumbering constants;
  for (std::size_t i = 0; i < g.size(); ++i) {
    const graph::Node& n = g.node(i);
    out += "%" + std::to_string(i) + " " + std::string(graph::node_kind_name(n.kind));
    if (n.kind == graph::NodeKind::CallOp) {
      out += " " + std::string(op_aten_name(n.op)) + " inplace=" + std::to_string(n.inplace_arg);
    } else if (n.kind == graph::NodeKind::Placeholder) {
      out += " input=" + std::to_string(n.input.index);
    }
    out += " " + meta_text(n.meta) + " (";
    for (const graph::Arg& a : n.args) {
      switch (a.kind) {
      case graph::Arg::Kind::Node:
        out += "%" + std::to_string(a.node);
        break;
      case graph::Arg::Kind::NodeList:
        out += "[";
        for (std::size_t r : a.nodes) {
          out += "%" + std::to_string(r) + ",";
        }
        out += "]";
        break;
      case graph::Arg::Kind::Symbolic:
        out += "sym:" + a.sym.to_string();
        break;
      case graph::Arg::Kind::SymList:
        out += "syms:" + sym_list(a.syms);
        break;
      case graph::Arg::Kind::Constant:
        out += value_text(a.constant, constants);
        break;
      }
      out += ", ";
    }
    out += ")\n";
  }
  return out;
}

std::mutex& report_mutex() {
  static std::mutex m;
  return m;
}

// Prints `message` once per `what` for the process.
void report_once(const std::string& what, const std::string& message) {
  static std::set<std::string> reported;
  std::lock_guard<std::mutex> lock(report_mutex());
  if (reported.insert(what).second) {
    std::fprintf(stderr, "torchscope: %s\n", message.c_str());
  }
}

bool write_atomically(const std::filesystem::path& path, std::string_view bytes) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) {
    return false;
  }
  std::random_device rd;
  const std::filesystem::path tmp =
      path.string() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(rd());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      return false;
    }
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      std::filesystem::remove(tmp, ec);
      return false;
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return false;
  }
  return true;
}

} // namespace

CacheKey cache_key(const graph::Graph& graph, std::string_view role, std::string_view target,
                   bool components) {
  CacheKey key;
  const std::string gtext = graph_text(graph);
  auto component = [&](const std::string& name, const std::string& value) {
    key.components.push_back("[" + hash_text(value) + "] " + name + ": " + value);
  };
  if (!components) {
    key.text = std::string(kFormat) + "\nbuild " + TORCHSCOPE_INDUCTOR_BUILD_ID + "\ntarget " +
               std::string(target) + "\nrole " + std::string(role) + "\n" + gtext;
    key.hash = "f" + hash_text(key.text);
    return key;
  }
  component("gm", graph::print_graph(graph, false));
  std::size_t input = 0;
  for (const graph::Node& n : graph.nodes()) {
    if (n.kind == graph::NodeKind::Placeholder) {
      component("example_inputs[" + std::to_string(input++) + "]",
                n.meta.is_tensor ? "TensorMetadata(" + meta_text(n.meta) + ")" : "scalar");
    }
  }
  component("format", std::string(kFormat));
  component("compiler_build", TORCHSCOPE_INDUCTOR_BUILD_ID);
  component("target", std::string(target));
  component("role", std::string(role));
  key.text = std::string(kFormat) + "\nbuild " + TORCHSCOPE_INDUCTOR_BUILD_ID + "\ntarget " +
             std::string(target) + "\nrole " + std::string(role) + "\n" + gtext;
  key.hash = "f" + hash_text(key.text);
  return key;
}

std::filesystem::path FxGraphCache::default_dir() {
  if (const char* env = std::getenv("TORCHINDUCTOR_CACHE_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    return std::filesystem::path(xdg) / "torchscope" / "inductor";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::filesystem::path(home) / ".cache" / "torchscope" / "inductor";
  }
  std::error_code ec;
  return std::filesystem::temp_directory_path(ec) /
         ("torchscope_inductor_" + std::to_string(::getuid()));
}

std::filesystem::path FxGraphCache::entry_path(const CacheKey& key) const {
  return dir_ / key.hash.substr(1, 2) / (key.hash + ".entry");
}

std::filesystem::path FxGraphCache::output_code_path(const CacheKey& key) const {
  return dir_ / key.hash.substr(1, 2) / (key.hash + ".py");
}

FxGraphCache::Lookup FxGraphCache::lookup(const CacheKey& key) const {
  Lookup r;
  const std::filesystem::path path = entry_path(key);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return r; // a miss
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  const std::string bytes = buf.str();
  ParsedEntry parsed = parse_entry(bytes);
  if (!parsed.entry) {
    r.status = Status::Corrupt;
    r.detail = parsed.error;
    return r;
  }
  if (parsed.entry->key_text != key.text) {
    r.status = Status::Stale;
    r.detail = "it was written for another graph or build";
    return r;
  }
  r.status = Status::Hit;
  r.entry = std::move(parsed.entry);
  return r;
}

bool FxGraphCache::store(const CacheKey& key, const CacheEntry& entry,
                         const std::string& output_code) const {
  const bool ok = write_atomically(entry_path(key), serialize_entry(entry)) &&
                  write_atomically(output_code_path(key), output_code);
  if (!ok) {
    report_once("write:" + dir_.string(),
                "cannot write the compile cache in " + dir_.string() +
                    "; compiled code is not cached (set TORCHINDUCTOR_CACHE_DIR to a writable "
                    "folder)");
  }
  return ok;
}

void FxGraphCache::report(const CacheKey& key, const Lookup& lookup) const {
  if (lookup.status != Status::Corrupt && lookup.status != Status::Stale) {
    return;
  }
  report_once("entry:" + entry_path(key).string(),
              "compile cache entry " + entry_path(key).string() + " is " +
                  (lookup.status == Status::Corrupt ? "corrupt" : "stale") + " (" + lookup.detail +
                  "); compiling again and replacing it");
}

} // namespace compiler::inductor
