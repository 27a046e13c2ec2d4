// provenance_tracking_<folder>.html (`-i/--inductor-provenance`, docs/TLPARSE-PROVENANCE.md): for
// each compile folder, Inductor's pre-grad graph, post-grad graph and generated code (Python
// wrapper and AOT C++ wrapper) side by side; hovering or clicking a line highlights the lines it
// became or came from, chained pre-grad -> post-grad -> code and back. The node mappings Inductor
// logged (`inductor_provenance_tracking_node_mappings`, old and new formats: kernel names with or
// without a `:debug_handle`) are turned into line mappings here, once, and embedded as JSON; the
// page holds all its CSS and script, so it works offline from file:// and when copied alone.
#include "report/html_page.h"
#include "report/render_context.h"
#include "tlparse/graph/fx_graph.h"
#include "tlparse/report/graph_pages.h"
#include "tlparse/report/serde_json.h"

#include <cctype>
#include <map>
#include <set>

namespace tlparse::report::detail {
namespace {

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto nl = text.find('\n', start);
    std::string_view line =
        text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
    }
    if (nl == std::string_view::npos) {
      if (!line.empty()) {
        lines.push_back(line);
      }
      break;
    }
    lines.push_back(line);
    start = nl + 1;
  }
  return lines;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

bool contains(std::string_view s, std::string_view what) {
  return s.find(what) != std::string_view::npos;
}

// Graph node -> its line (1-based; a later definition wins): the text before the first `=`, then
// before the first `:`, of every line that is not empty or a comment.
std::map<std::string, int> node_lines(const std::vector<std::string_view>& lines) {
  std::map<std::string, int> out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view t = trim(lines[i]);
    if (t.empty() || t.front() == '#') {
      continue;
    }
    std::string_view name = t.substr(0, t.find('='));
    name = trim(name.substr(0, name.find(':')));
    if (!name.empty()) {
      out[std::string(name)] = static_cast<int>(i) + 1;
    }
  }
  return out;
}

// `x_xnumel = ...` or `<type> ..._xnumel[_N] = ...`: a kernel's size variable, not its launch.
bool is_xnumel_assignment(std::string_view line) {
  if (contains(line, "_xnumel = ")) {
    return true;
  }
  std::string_view t = line;
  while (!t.empty() && (t.front() == ' ' || t.front() == '\t')) {
    t.remove_prefix(1);
  }
  std::size_t i = 0;
  while (i < t.size() && (std::isalnum(static_cast<unsigned char>(t[i])) || t[i] == '_')) {
    ++i;
  }
  if (i == 0 || i >= t.size() || (t[i] != ' ' && t[i] != '\t')) {
    return false;
  }
  const std::string_view rest = t.substr(i);
  for (std::size_t p = rest.find("_xnumel"); p != std::string_view::npos;
       p = rest.find("_xnumel", p + 1)) {
    std::size_t q = p + 7;
    if (q < rest.size() && rest[q] == '_') {
      std::size_t d = q + 1;
      while (d < rest.size() && std::isdigit(static_cast<unsigned char>(rest[d]))) {
        ++d;
      }
      if (d > q + 1) {
        q = d;
      }
    }
    while (q < rest.size() && (rest[q] == ' ' || rest[q] == '\t')) {
      ++q;
    }
    if (q < rest.size() && rest[q] == '=') {
      return true;
    }
  }
  return false;
}

// Kernel name -> the lines of the generated code that launch it. A name with a debug handle
// (`triton_poi_fused_mul_1:2`) is found by its full text first, then the next line naming the
// kernel; otherwise every line naming the kernel after the entry point counts.
std::map<std::string, std::vector<int>> kernel_lines(const std::vector<std::string_view>& lines,
                                                     const std::vector<std::string>& kernels,
                                                     bool cpp) {
  std::map<std::string, std::vector<int>> out;
  if (lines.empty()) {
    return out;
  }
  std::size_t start = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (cpp ? contains(lines[i], "::run_impl(")
            : contains(lines[i], "def") && contains(lines[i], "call") &&
                  contains(lines[i], "(args)")) {
      start = i;
      break;
    }
  }
  for (const std::string& kernel : kernels) {
    const auto colon = cpp ? kernel.rfind(':') : kernel.find(':');
    const std::string pure = colon == std::string::npos ? kernel : kernel.substr(0, colon);
    if (pure.empty()) {
      continue;
    }
    bool found = false;
    if (colon != std::string::npos) {
      for (std::size_t i = start; i < lines.size() && !found; ++i) {
        const std::string_view t = trim(lines[i]);
        const bool candidate = cpp ? !t.empty() && !t.starts_with("def") &&
                                         !t.starts_with("static inline void") &&
                                         contains(lines[i], kernel)
                                   : contains(lines[i], kernel);
        if (!candidate) {
          continue;
        }
        for (std::size_t j = i + 1; j < lines.size(); ++j) {
          if (contains(lines[j], pure) && !(cpp && is_xnumel_assignment(lines[j]))) {
            out[kernel].push_back(static_cast<int>(j) + 1);
            found = true;
            break;
          }
        }
        if (!cpp) {
          break; // the Python rule looks at the first line naming it only
        }
      }
    }
    if (!found) {
      for (std::size_t i = start; i < lines.size(); ++i) {
        if (contains(lines[i], pure)) {
          out[kernel].push_back(static_cast<int>(i) + 1);
        }
      }
    }
  }
  return out;
}

using LineLinks = std::map<std::string, std::set<std::string>>; // "pre-3" -> {"post-5", ...}

std::string line_id(std::string_view pane, int line) {
  return std::string(pane) + "-" + std::to_string(line);
}

const JsonValue* object_member(const JsonValue& root, std::string_view key) {
  const JsonValue* v = root.find(key);
  return v != nullptr && v->is_object() ? v : nullptr;
}

// node -> nodes mappings (preToPost, postToPre).
void link_nodes(LineLinks& links, const JsonValue* mapping, const std::map<std::string, int>& from,
                std::string_view from_pane, const std::map<std::string, int>& to,
                std::string_view to_pane) {
  if (mapping == nullptr) {
    return;
  }
  for (const auto& [node, targets] : mapping->members()) {
    const auto src = from.find(node);
    if (src == from.end() || targets.kind() != JsonValue::Kind::Array) {
      continue;
    }
    for (const JsonValue& t : targets.items()) {
      if (t.kind() != JsonValue::Kind::String) {
        continue;
      }
      if (const auto dst = to.find(t.as_string()); dst != to.end()) {
        links[line_id(from_pane, src->second)].insert(line_id(to_pane, dst->second));
      }
    }
  }
}

// kernel -> post nodes (cppCodeToPost) and post node -> kernels (postToCppCode), for one code
// pane.
void link_kernels(LineLinks& links, const JsonValue& mappings,
                  const std::map<std::string, std::vector<int>>& kernels,
                  std::string_view code_pane, const std::map<std::string, int>& post) {
  if (const JsonValue* k2p = object_member(mappings, "cppCodeToPost")) {
    for (const auto& [kernel, nodes] : k2p->members()) {
      const auto lines = kernels.find(kernel);
      if (lines == kernels.end() || nodes.kind() != JsonValue::Kind::Array) {
        continue;
      }
      for (const JsonValue& n : nodes.items()) {
        const auto p = n.kind() == JsonValue::Kind::String ? post.find(n.as_string()) : post.end();
        if (p == post.end()) {
          continue;
        }
        for (const int l : lines->second) {
          links[line_id(code_pane, l)].insert(line_id("post", p->second));
        }
      }
    }
  }
  if (const JsonValue* p2k = object_member(mappings, "postToCppCode")) {
    for (const auto& [node, names] : p2k->members()) {
      const auto p = post.find(node);
      if (p == post.end() || names.kind() != JsonValue::Kind::Array) {
        continue;
      }
      for (const JsonValue& k : names.items()) {
        const auto lines =
            k.kind() == JsonValue::Kind::String ? kernels.find(k.as_string()) : kernels.end();
        if (lines == kernels.end()) {
          continue;
        }
        for (const int l : lines->second) {
          links[line_id("post", p->second)].insert(line_id(code_pane, l));
        }
      }
    }
  }
}

void append_pane_lines(std::string& page, std::string_view pane,
                       const std::vector<std::string_view>& lines) {
  page.append("<pre class=\"prov\">");
  for (std::size_t i = 0; i < lines.size(); ++i) {
    page.append("<span class=\"l\" id=\"");
    page.append(line_id(pane, static_cast<int>(i) + 1));
    page.append("\">");
    esc(page, lines[i]);
    page.append("</span>\n");
  }
  page.append("</pre>\n");
}

constexpr std::string_view kProvenanceStyle = R"css(<style>
.panes { display: flex; gap: 0.5rem; height: 80vh; }
.pane { flex: 1 1 0; min-width: 10rem; overflow: auto; resize: horizontal; border: 1px solid #d1d9e0;
  border-radius: 6px; }
.pane h3 { position: sticky; top: 0; margin: 0; padding: 0.3rem 0.5rem; background: #f6f8fa;
  border-bottom: 1px solid #d1d9e0; font-size: 0.95rem; }
pre.prov { margin: 0; border: none; border-radius: 0; counter-reset: line; }
pre.prov .l { display: block; }
pre.prov .l::before { counter-increment: line; content: counter(line); display: inline-block;
  width: 3.2em; margin-right: 0.8em; text-align: right; color: #8c959f; user-select: none; }
pre.prov .l.has-match { cursor: pointer; background: #f0f6ff; }
pre.prov .l.hl { background: #fff1a8; }
pre.prov .l.origin { background: #ffd66b; }
</style>
)css";

// Highlights the lines linked to the hovered/clicked one, chained through the post-grad graph
// (pre -> post -> code, code -> post -> pre), and scrolls each pane to its middle match.
constexpr std::string_view kProvenanceScript = R"js(<script>
(function () {
  var links = JSON.parse(document.getElementById('lineMappings').textContent);
  function pane(id) { return id.slice(0, id.indexOf('-')); }
  function reach(id) {
    var out = {}, origin = pane(id);
    (links[id] || []).forEach(function (t) {
      out[t] = true;
      if (pane(t) === 'post' && origin !== 'post') {
        (links[t] || []).forEach(function (u) { if (pane(u) !== origin) { out[u] = true; } });
      }
    });
    return Object.keys(out);
  }
  var lit = [];
  function clear() { lit.forEach(function (e) { e.classList.remove('hl', 'origin'); }); lit = []; }
  function show(el, scroll) {
    clear();
    el.classList.add('origin'); lit.push(el);
    var byPane = {};
    reach(el.id).forEach(function (t) {
      var e = document.getElementById(t);
      if (!e) { return; }
      e.classList.add('hl'); lit.push(e);
      (byPane[pane(t)] = byPane[pane(t)] || []).push(e);
    });
    if (!scroll) { return; }
    Object.keys(byPane).forEach(function (p) {
      var list = byPane[p], mid = list[Math.floor(list.length / 2)];
      var box = mid.closest('.pane');
      if (box) { box.scrollTop = mid.offsetTop - box.clientHeight / 2; }
    });
  }
  Object.keys(links).forEach(function (id) {
    var el = document.getElementById(id);
    if (!el) { return; }
    el.classList.add('has-match');
    el.addEventListener('mouseenter', function () { show(el, false); });
    el.addEventListener('click', function () { show(el, true); });
  });
  var entry = document.querySelector('[data-entry]');
  if (entry) { var box = entry.closest('.pane'); if (box) { box.scrollTop = entry.offsetTop - 40; } }
})();
</script>
)js";

struct Sources {
  const index::Output* pre = nullptr;
  const index::Output* post = nullptr;
  const index::Output* py = nullptr;
  const index::Output* cpp = nullptr;
  const index::Output* mappings = nullptr;
};

// The last output of folder `dir` whose path starts with `dir/<stem>` (tlparse: "contains").
const index::Output* last_output(const std::vector<index::Output>& outputs, const std::string& dir,
                                 std::string_view stem, std::string_view fallback = {}) {
  const index::Output* found = nullptr;
  const index::Output* second = nullptr;
  const std::string a = dir + "/" + std::string(stem);
  const std::string b = fallback.empty() ? std::string() : dir + "/" + std::string(fallback);
  for (const index::Output& o : outputs) {
    if (o.kind == index::OutputKind::link) {
      continue;
    }
    if (contains(o.path, a)) {
      found = &o;
    } else if (!b.empty() && contains(o.path, b)) {
      second = &o;
    }
  }
  return found != nullptr ? found : second;
}

} // namespace

std::string provenance_page_name(std::string_view dir) {
  return "provenance_tracking_" + std::string(dir) + ".html";
}

void render_provenance_pages(RenderContext& ctx) {
  // -i (opt-in) reads the file's outputs whole: each compile folder searches them all.
  std::vector<index::Output> outputs = ctx.take(ctx.reader.outputs(ctx.file.id));
  for (index::Output& o : outputs) {
    ctx.plan.apply(o);
  }
  std::set<std::string> done;
  for (const index::CompileKey& key : ctx.keys) {
    if (!done.insert(key.dir_name).second) {
      continue;
    }
    const std::string& dir = key.dir_name;
    Sources s;
    s.pre = last_output(outputs, dir, "before_pre_grad_graph", "inductor_pre_grad_graph");
    s.post = last_output(outputs, dir, "after_post_grad_graph", "inductor_post_grad_graph");
    s.py = last_output(outputs, dir, "inductor_output_code");
    s.cpp = last_output(outputs, dir, "inductor_aot_wrapper_code");
    s.mappings = last_output(outputs, dir, "inductor_provenance_tracking_node_mappings");
    auto text_of = [&](const index::Output* o) {
      return o == nullptr ? std::make_shared<const std::string>()
                          : ctx.fetch_payload(o->event_id).bytes;
    };
    const auto pre_text = text_of(s.pre), post_text = text_of(s.post), py_text = text_of(s.py),
               cpp_text = text_of(s.cpp), map_text = text_of(s.mappings);
    const auto pre = split_lines(*pre_text), post = split_lines(*post_text),
               py = split_lines(*py_text), cpp = split_lines(*cpp_text);

    LineLinks links;
    const auto parsed = parse_json(*map_text);
    if (parsed && parsed->is_object()) {
      const auto pre_nodes = node_lines(pre), post_nodes = node_lines(post);
      link_nodes(links, object_member(*parsed, "preToPost"), pre_nodes, "pre", post_nodes, "post");
      link_nodes(links, object_member(*parsed, "postToPre"), post_nodes, "post", pre_nodes, "pre");
      std::vector<std::string> kernels;
      if (const JsonValue* k2p = object_member(*parsed, "cppCodeToPost")) {
        for (const auto& [name, v] : k2p->members()) {
          kernels.push_back(name);
        }
      }
      link_kernels(links, *parsed, kernel_lines(py, kernels, false), "py", post_nodes);
      link_kernels(links, *parsed, kernel_lines(cpp, kernels, true), "cpp", post_nodes);
    }
    JsonValue json = JsonValue::object();
    for (const auto& [from, targets] : links) {
      JsonValue list = JsonValue::array();
      for (const std::string& t : targets) {
        list.items().push_back(JsonValue::string(t));
      }
      json.set(from, std::move(list));
    }
    std::string mapping_json;
    write_compact(mapping_json, json); // ids are ASCII letters, digits and '-': no "</script"

    std::string page;
    PageOptions po;
    po.title = "Inductor provenance tracking";
    po.query_script = false;
    begin_page(page, po);
    page.append(kProvenanceStyle);
    page.append("<h1>Inductor provenance tracking: ");
    esc(page, key.display);
    page.append("</h1>\n<p class=\"note\">Hover a line to see what it became or came from; click "
                "to scroll the other panes to it. Highlighted lines have a mapping.");
    if (s.mappings == nullptr) {
      page.append(" This compile logged no <code>inductor_provenance_tracking_node_mappings</code> "
                  "artifact, so no lines are linked.");
    } else if (!parsed) {
      page.append(" Its node mappings are not valid JSON, so no lines are linked.");
    }
    page.append(" <a href=\"index.html\">Back to the report</a>.</p>\n<div class=\"panes\">\n");
    auto pane = [&](const char* title, const index::Output* o) {
      page.append("<div class=\"pane\"><h3>");
      page.append(title);
      if (o != nullptr) {
        page.append(" (<a href=\"");
        esc(page, o->path);
        page.append("\">");
        esc(page, o->name);
        page.append("</a>");
        if (ctx.options.graph_links && graph::is_graph_artifact(o->artifact)) {
          // Only with --graphs or --serve, which draw it (graph_pages.h).
          page.append(", <a href=\"");
          esc(page, graph_svg_path(*o));
          page.append("\">drawn</a>");
        }
        page.append(")");
      } else {
        page.append(" (not logged)");
      }
      page.append("</h3>\n");
    };
    pane("Pre-grad graph", s.pre);
    append_pane_lines(page, "pre", pre);
    page.append("</div>\n");
    pane("Post-grad graph", s.post);
    append_pane_lines(page, "post", post);
    page.append("</div>\n");
    pane(s.cpp != nullptr && s.py == nullptr ? "Generated code (AOT C++ wrapper)"
                                             : "Generated code",
         s.py != nullptr ? s.py : s.cpp);
    if (!py.empty()) {
      append_pane_lines(page, "py", py);
    }
    if (!cpp.empty()) {
      // Scroll to the entry point of AOT code (where kernels are launched).
      std::string body;
      append_pane_lines(body, "cpp", cpp);
      for (std::size_t i = 0; i < cpp.size(); ++i) {
        if (contains(cpp[i], "AOTInductorModel::run_impl(")) {
          const std::string id = "id=\"" + line_id("cpp", static_cast<int>(i) + 1) + "\"";
          const auto at = body.find(id);
          if (at != std::string::npos) {
            body.insert(at, "data-entry ");
          }
          break;
        }
      }
      page.append(body);
    }
    page.append("</div>\n</div>\n<script type=\"application/json\" id=\"lineMappings\">");
    page.append(mapping_json);
    page.append("</script>\n");
    page.append(kProvenanceScript);
    end_page(page, po);
    ctx.note_write(ctx.folder.write_file(provenance_page_name(dir), page),
                   provenance_page_name(dir));
  }
}

} // namespace tlparse::report::detail
