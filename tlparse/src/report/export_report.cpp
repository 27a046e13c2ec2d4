// The export report (`-e/--export`, docs/TLPARSE-EXPORT.md): what torch.export's draft export
// logged, read from the index in log order. index.html lists the issues found (guards evaluated
// during export, data-dependent expressions that were specialized, missing or mismatched fake
// kernels) and links the exported program; each guard and data-dependent expression gets a
// symbolic_guard_information_<n>.html page with its stacks, the locals and symbols at that point,
// and the tree of symbolic expressions it was built from. Files are named and numbered as
// tlparse 0.4.3 names them in export mode (one counter over the exported programs and the guard
// pages); everything taken from the log is escaped.
#include "report/html_page.h"
#include "report/output_folder.h"
#include "report/stack_trie.h"
#include "tlparse/index/index_reader.h"
#include "tlparse/report/render.h"
#include "tlparse/report/serde_json.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace tlparse::report {
namespace {

using detail::esc;

constexpr const char* kFakeKernelHelp =
    "https://pytorch.org/docs/stable/library.html#torch.library.register_fake";

// A symbolic expression (expression_created) or an unbacked symbol (create_unbacked_symbol), by
// the id PyTorch gave its node: the provenance tree of a guard follows argument_ids through these.
struct SymExpr {
  std::string result;
  std::string method;                    // empty for an unbacked symbol
  std::vector<std::string> arguments;    // as logged (strings or numbers)
  std::vector<std::string> argument_ids; // node ids, as compact JSON
  JsonValue user_stack, stack;
};

struct Failure {
  std::string type;
  std::string reason_html; // built here, log text escaped
  std::string info_html;
};

std::string compact(const JsonValue& v) {
  if (v.kind() == JsonValue::Kind::String) {
    return v.as_string();
  }
  std::string out;
  write_compact(out, v);
  return out;
}

// A string field, or nullopt when it is missing or not text.
std::optional<std::string> text_field(const JsonValue& object, std::string_view key) {
  const JsonValue* v = object.find(key);
  if (v == nullptr || v->kind() != JsonValue::Kind::String) {
    return std::nullopt;
  }
  return v->as_string();
}

class ExportReport {
public:
  ExportReport(const index::IndexReader& reader, const RenderOptions& options,
               detail::OutputFolder& folder)
      : reader_(reader), options_(options), folder_(folder) {}

  RenderResult run() {
    RenderResult result;
    auto files = reader_.files();
    if (!files) {
      result.error = files.error();
      return result;
    }
    const index::File* file = nullptr;
    for (const auto& f : *files) {
      if (options_.file_id == 0 || f.id == options_.file_id) {
        file = &f;
        break;
      }
    }
    if (file != nullptr) {
      auto table = reader_.string_table(file->id);
      if (!table) {
        result.error = table.error();
        return result;
      }
      strings_ = std::move(table).value();
      const Status st = reader_.for_each_event(file->id, [this](const index::Event& e) {
        on_event(e);
        return options_.cancel == nullptr || !options_.cancel->load();
      });
      if (!st) {
        result.error = st.error();
        return result;
      }
      if (options_.cancel != nullptr && options_.cancel->load()) {
        result.error = "interrupted";
        return result;
      }
      // Exported programs are written after the scan: their payloads are read from the index.
      for (const auto& [event_id, path] : programs_) {
        auto payload = reader_.payload(event_id);
        if (!payload) {
          result.error = payload.error();
          return result;
        }
        write(path, payload->value_or(""));
      }
    } else if (options_.file_id != 0) {
      result.error = "the index has no file with id " + std::to_string(options_.file_id);
      return result;
    }
    write(files::index_html, index_page());
    if (malformed_ > 0) {
      result.warnings.push_back(std::to_string(malformed_) +
                                " export event(s) lacked a field the report needs (expr, op, "
                                "reason, result_id, node_id or expr_node_id) and were skipped");
    }
    result.files_written = folder_.files_written();
    result.bytes_written = folder_.bytes_written();
    result.unsafe_paths_refused = folder_.refused();
    result.ok = folder_.io_errors() == 0 && folder_.refused() == 0;
    if (!result.ok) {
      result.error =
          folder_.first_error().empty() ? "an output path was refused" : folder_.first_error();
    }
    return result;
  }

private:
  void write(const std::string& path, std::string_view bytes) { folder_.write_file(path, bytes); }

  // The folder of an event's outputs: the raw compile id's, or unknown_<line>.
  static std::string folder_of(const index::Event& e) {
    const auto cid = index::compile_id_of(e);
    return cid ? directory_name(*cid) : "unknown_" + std::to_string(e.line);
  }

  void on_event(const index::Event& e) {
    if (e.status != index::EventStatus::ok) {
      return;
    }
    const std::string_view kind = e.kind;
    if (kind == "exported_program") {
      programs_.emplace_back(e.id, folder_of(e) + "/exported_program_" +
                                       std::to_string(output_count_++) + ".txt");
      if (first_program_.empty()) {
        first_program_ = programs_.back().second;
      }
      return;
    }
    if (kind != "guard_added" && kind != "propagate_real_tensors_provenance" &&
        kind != "missing_fake_kernel" && kind != "mismatched_fake_kernel" &&
        kind != "expression_created" && kind != "create_unbacked_symbol") {
      return;
    }
    const auto metadata = parse_json(index::event_metadata(e));
    if (!metadata || !metadata->is_object()) {
      ++malformed_;
      return;
    }
    const JsonValue& m = *metadata;
    if (kind == "expression_created" || kind == "create_unbacked_symbol") {
      remember_expression(kind, m);
    } else if (kind == "missing_fake_kernel" || kind == "mismatched_fake_kernel") {
      fake_kernel(kind, m);
    } else {
      guard(e, kind, m);
    }
  }

  void remember_expression(std::string_view kind, const JsonValue& m) {
    const bool is_symbol = kind == "create_unbacked_symbol";
    const JsonValue* id = m.find(is_symbol ? "node_id" : "result_id");
    if (id == nullptr || id->kind() == JsonValue::Kind::Null) {
      ++malformed_;
      return;
    }
    SymExpr x;
    if (const JsonValue* r = m.find(is_symbol ? "symbol" : "result"); r != nullptr) {
      x.result = compact(*r);
    }
    if (!is_symbol) {
      x.method = text_field(m, "method").value_or("");
      if (const JsonValue* a = m.find("arguments"); a != nullptr) {
        for (const auto& v : a->items()) {
          x.arguments.push_back(compact(v));
        }
      }
      if (const JsonValue* a = m.find("argument_ids"); a != nullptr) {
        for (const auto& v : a->items()) {
          x.argument_ids.push_back(compact(v));
        }
      }
    }
    if (const JsonValue* s = m.find("user_stack"); s != nullptr) {
      x.user_stack = *s;
    }
    if (const JsonValue* s = m.find("stack"); s != nullptr) {
      x.stack = *s;
    }
    expressions_[compact(*id)] = std::move(x);
  }

  void fake_kernel(std::string_view kind, const JsonValue& m) {
    const auto op = text_field(m, "op");
    const auto reason = text_field(m, "reason");
    if (!op || (kind == "mismatched_fake_kernel" && !reason)) {
      ++malformed_;
      return;
    }
    Failure f;
    f.reason_html = "<code>torch.ops.";
    esc(f.reason_html, *op);
    if (kind == "missing_fake_kernel") {
      f.type = "Missing Fake Kernel";
      f.reason_html += "</code> has no fake kernel (meta) implementation.";
    } else {
      f.type = "Mismatched Fake Kernel";
      f.reason_html += "</code> has a fake kernel, but its outputs differ from the real "
                       "kernel's.<br>Mismatch: ";
      esc(f.reason_html, *reason);
    }
    f.info_html = std::string("How to write a fake kernel: <a href=\"") + kFakeKernelHelp +
                  "\">torch.library.register_fake</a>.";
    failures_.push_back(std::move(f));
  }

  void guard(const index::Event& e, std::string_view kind, const JsonValue& m) {
    const bool evaluated_guard = kind == "guard_added";
    if (evaluated_guard && text_field(m, "prefix").value_or("") != "eval") {
      return; // only guards evaluated by export are issues
    }
    const auto expr = text_field(m, "expr");
    const JsonValue* node = m.find("expr_node_id");
    if (!expr || node == nullptr) {
      ++malformed_;
      return;
    }
    const std::string page_path =
        folder_of(e) + "/symbolic_guard_information_" + std::to_string(output_count_++) + ".html";
    Failure f;
    if (evaluated_guard) {
      f.type = "Guard Evaluated";
      f.reason_html = "While exporting, this guard was evaluated: <code>";
      esc(f.reason_html, *expr);
      f.reason_html += "</code>. Evaluating it may have caused a constraint violation error.";
    } else {
      f.type = "Data Dependent Error";
      f.reason_html = "Export could not decide whether <code>";
      esc(f.reason_html, *expr);
      f.reason_html += "</code> always holds.<br>It was specialized to <code>";
      const JsonValue* result = m.find("result");
      esc(f.reason_html, result != nullptr ? compact(*result) : std::string());
      f.reason_html += "</code>, and runtime asserts were added to the graph.";
    }
    f.info_html = "Details (stacks, locals, provenance): <a href=\"";
    esc(f.info_html, page_path);
    f.info_html += "\">";
    esc(f.info_html, page_path);
    f.info_html += "</a>";
    failures_.push_back(std::move(f));
    write(page_path, guard_page(*expr, m, compact(*node)));
  }

  // A logged stack (frames with filename as a string-table index or a name) as text lines.
  void stack_pre(std::string& out, const JsonValue* frames) const {
    out.append("<pre>");
    if (frames != nullptr) {
      for (const JsonValue& f : frames->items()) {
        if (!f.is_object()) {
          continue;
        }
        std::string filename = "(unknown)";
        if (const JsonValue* fn = f.find("filename"); fn != nullptr) {
          if (fn->kind() == JsonValue::Kind::Int || fn->kind() == JsonValue::Kind::UInt) {
            const auto i = fn->kind() == JsonValue::Kind::Int
                               ? static_cast<std::uint64_t>(fn->as_int())
                               : fn->as_uint();
            if (i < strings_.size() && strings_[i]) {
              filename = detail::simplify_filename(*strings_[i]);
            }
          } else if (fn->kind() == JsonValue::Kind::String) {
            filename = detail::simplify_filename(fn->as_string());
          }
        }
        esc(out, filename);
        out.push_back(':');
        if (const JsonValue* l = f.find("line"); l != nullptr) {
          esc(out, compact(*l));
        }
        out.append(" in ");
        esc(out, text_field(f, "name").value_or(""));
        out.push_back('\n');
        if (const auto loc = text_field(f, "loc"); loc && !loc->empty()) {
          out.append("    ");
          esc(out, *loc);
          out.push_back('\n');
        }
      }
    }
    out.append("</pre>\n");
  }

  // "  name: value" lines of a {name: value} object; null values are left out.
  static void pairs_pre(std::string& out, const JsonValue* object) {
    out.append("<pre>");
    if (object != nullptr) {
      for (const auto& [k, v] : object->members()) {
        if (v.kind() == JsonValue::Kind::Null) {
          continue;
        }
        out.append("  ");
        esc(out, k);
        out.append(": ");
        esc(out, compact(v));
        out.push_back('\n');
      }
    }
    out.append("</pre>\n");
  }

  std::string guard_page(const std::string& expr, const JsonValue& m,
                         const std::string& node_id) const {
    std::string out;
    const detail::PageOptions page{.title = "Symbolic guard information"};
    detail::begin_page(out, page);
    out.append("<h1>More detailed information on <code>");
    esc(out, expr);
    out.append("</code></h1>\n<h2>Stack trace</h2>\n<details open><summary>User stack</summary>\n");
    stack_pre(out, m.find("user_stack"));
    out.append("</details>\n<details><summary>Framework stack</summary>\n");
    stack_pre(out, m.find("stack"));
    out.append("</details>\n<h2>Locals</h2>\n");
    const JsonValue* frame = m.find("frame_locals");
    if (frame != nullptr && frame->is_object()) {
      if (const auto loc = text_field(*frame, "loc")) {
        out.append("<p>At <code>");
        esc(out, *loc);
        out.append("</code></p>\n");
      }
      out.append("<p>Locals:</p>\n");
      pairs_pre(out, frame->find("locals"));
      out.append("<p>Symbols:</p>\n");
      pairs_pre(out, frame->find("symbols"));
    } else {
      out.append("<p>No locals were logged.</p>\n");
    }
    out.append("<h2>Provenance of this guard</h2>\n");
    provenance_tree(out, node_id);
    detail::end_page(out, page);
    return out;
  }

  // The expressions the guard was built from, depth first from its node, one card per node
  // indented by depth. Iterative with a visited set: hostile logs may hold cycles or deep chains.
  void provenance_tree(std::string& out, const std::string& root) const {
    std::vector<std::pair<std::string, int>> todo{{root, 0}};
    std::unordered_set<std::string> seen;
    bool any = false;
    while (!todo.empty()) {
      auto [id, depth] = std::move(todo.back());
      todo.pop_back();
      if (!seen.insert(id).second) {
        continue;
      }
      const auto it = expressions_.find(id);
      if (it == expressions_.end()) {
        continue;
      }
      any = true;
      const SymExpr& x = it->second;
      out.append("<div class=\"trace\" style=\"margin-left: " + std::to_string(20 * depth) +
                 "px; border: 1px solid var(--line); padding: 0 0.6rem\">\n<p><code>");
      esc(out, x.result);
      out.append("</code></p>\n");
      if (!x.method.empty()) {
        out.append("<p>Method: <code>");
        esc(out, x.method);
        out.append("</code></p>\n<p>Arguments: <code>");
        for (std::size_t i = 0; i < x.arguments.size(); ++i) {
          if (i > 0) {
            out.append(", ");
          }
          esc(out, x.arguments[i]);
        }
        out.append("</code></p>\n");
      } else {
        out.append("<p>Unbacked symbol</p>\n");
      }
      out.append("<details><summary>User stack</summary>\n");
      stack_pre(out, &x.user_stack);
      out.append("</details>\n<details><summary>Stack</summary>\n");
      stack_pre(out, &x.stack);
      out.append("</details>\n</div>\n");
      for (auto a = x.argument_ids.rbegin(); a != x.argument_ids.rend(); ++a) {
        todo.emplace_back(*a, depth + 1);
      }
    }
    if (!any) {
      out.append("<p>No expression was logged for this guard's node.</p>\n");
    }
  }

  std::string index_page() const {
    std::string out;
    const detail::PageOptions page{.title = "Draft Export Report"};
    detail::begin_page(out, page);
    out.append(options_.custom_header_html);
    out.append("<h1>Draft Export Report</h1>\n");
    if (failures_.empty()) {
      out.append("<p>No issues were found during export.</p>\n");
    } else {
      out.append("<p><b>" + std::to_string(failures_.size()) +
                 " issue(s) were found during export</b></p>\n<table>\n<tr><th>Failure Type</th>"
                 "<th>Reason</th><th>Additional Info</th></tr>\n");
      for (const Failure& f : failures_) {
        out.append("<tr><td>");
        esc(out, f.type);
        out.append("</td><td>" + f.reason_html + "</td><td>" + f.info_html + "</td></tr>\n");
      }
      out.append("</table>\n");
    }
    if (!first_program_.empty()) {
      out.append("<p>The resulting exported program: <a href=\"");
      esc(out, first_program_);
      out.append("\">");
      esc(out, first_program_);
      out.append("</a></p>\n");
    } else {
      out.append("<p>The log holds no exported program.</p>\n");
    }
    detail::end_page(out, page);
    return out;
  }

  const index::IndexReader& reader_;
  const RenderOptions& options_;
  detail::OutputFolder& folder_;
  std::vector<std::optional<std::string>> strings_;
  std::unordered_map<std::string, SymExpr> expressions_; // node id -> expression
  std::vector<Failure> failures_;
  std::vector<std::pair<std::int64_t, std::string>> programs_; // event id, path
  std::string first_program_;
  std::int64_t output_count_ = 0; // tlparse's one counter over the export outputs
  std::uint64_t malformed_ = 0;
};

} // namespace

RenderResult render_export_report(const index::IndexReader& reader, const RenderOptions& options,
                                  const std::filesystem::path& out_dir) {
  detail::OutputFolder folder(out_dir);
  RenderResult result;
  if (!folder.prepare(result.error)) {
    return result;
  }
  return ExportReport(reader, options, folder).run();
}

} // namespace tlparse::report
