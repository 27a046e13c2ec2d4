// Per-event outputs: verbatim payloads, pretty-printed JSON artifacts, and the HTML pages made
// from one payload (guards, generated code, dump_file sources, readable kernel stack traces).
#include "report/html_page.h"
#include "report/render_context.h"
#include "tlparse/compile_id.h"
#include "tlparse/report/serde_json.h"

#include <functional>

namespace tlparse::report::detail {
namespace {

using index::OutputKind;

std::string file_stem(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  const std::size_t dot = name.rfind('.');
  return std::string(dot == std::string_view::npos ? name : name.substr(0, dot));
}

// A common page header: title, compile id and a way back to the index.
void page_header(std::string& out, std::string_view heading, std::string_view compile,
                 std::string_view page_path) {
  out.append("<p class=\"note\"><a href=\"");
  out.append(root_prefix(page_path));
  out.append("index.html\">&larr; report index</a>");
  if (!compile.empty()) {
    out.append(" &middot; compile ");
    esc(out, compile);
  }
  out.append("</p>\n<h1>");
  esc(out, heading);
  out.append("</h1>\n");
}

// dynamo_guards payload: [{"code": ..., "stack": ..., "user_stack": ...}, ...].
void guards_body(std::string& out, std::string_view payload) {
  const auto parsed = parse_json(payload);
  bool shown = false;
  if (parsed && parsed->kind() == JsonValue::Kind::Array) {
    out.append("<h2>Guards</h2>\n<ul class=\"guards\">\n");
    for (const JsonValue& guard : parsed->items()) {
      const JsonValue* code = guard.is_object() ? guard.find("code") : nullptr;
      out.append("<li><code>");
      if (code != nullptr && code->kind() == JsonValue::Kind::String) {
        esc(out, code->as_string());
      } else {
        std::string raw;
        write_compact(raw, guard);
        esc(out, raw);
      }
      out.append("</code></li>\n");
    }
    out.append("</ul>\n");
    shown = true;
  }
  if (!shown) {
    out.append("<p class=\"note\">The guards payload is not a list of guards; shown as logged.</p>"
               "\n<pre>");
    esc(out, payload);
    out.append("</pre>\n");
  }
}

// inductor_provenance_tracking_kernel_stack_traces: {"kernel": ["trace", ...], ...}.
void readable_traces_body(std::string& out, std::string_view payload) {
  const auto parsed = parse_json(payload);
  if (!parsed || !parsed->is_object()) {
    out.append("<p class=\"note\">The kernel stack traces are not a JSON object; shown as "
               "logged.</p>\n<pre>");
    esc(out, payload);
    out.append("</pre>\n");
    return;
  }
  const auto trimmed = [](std::string_view s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) {
      s.remove_suffix(1);
    }
    return s;
  };
  for (const auto& [kernel, traces] : parsed->members()) {
    out.append("<h3>");
    esc(out, kernel);
    out.append("</h3>\n");
    const auto one = [&](const JsonValue& v) {
      out.append("<pre class=\"trace\">");
      if (v.kind() == JsonValue::Kind::String) {
        esc(out, trimmed(v.as_string()));
      } else {
        std::string raw;
        write_pretty(raw, v);
        esc(out, raw);
      }
      out.append("</pre>\n");
    };
    if (traces.kind() == JsonValue::Kind::Array) {
      for (const JsonValue& t : traces.items()) {
        one(t);
      }
    } else {
      one(traces);
    }
  }
}

// Renders (or fetches from the cache) the part of a page that depends only on the payload.
const std::string& cached_body(RenderContext& ctx, OutputKind kind, const std::string& content_key,
                               std::string& scratch,
                               const std::function<void(std::string&)>& render) {
  if (const std::string* hit = ctx.cache.find(static_cast<int>(kind), content_key)) {
    return *hit;
  }
  scratch.clear();
  render(scratch);
  ctx.cache.insert(static_cast<int>(kind), content_key, scratch);
  return scratch;
}

} // namespace

void render_output(RenderContext& ctx, const index::Output& output) {
  if (output.kind == OutputKind::link) {
    return; // a directory entry only
  }
  if (output.kind == OutputKind::metrics_html || output.kind == OutputKind::bwd_metrics_html ||
      output.kind == OutputKind::aot_bwd_metrics_html) {
    std::string page;
    render_metrics_page(ctx, output, page);
    ctx.emit(output.path, std::move(page));
    return;
  }
  const Payload fetched = ctx.fetch_payload(output.event_id);
  const std::string_view payload = *fetched.bytes;
  const std::string& key = fetched.content_key;
  const std::string compile = ctx.key_display(output.key_id);

  switch (output.kind) {
  case OutputKind::payload_text:
  case OutputKind::payload_copy:
    ctx.emit(output.path, std::string(payload));
    return;
  case OutputKind::json_pretty: {
    std::string scratch;
    const std::string& bytes = cached_body(ctx, output.kind, key, scratch, [&](std::string& o) {
      o = text_output(output.kind, payload);
    });
    ctx.emit(output.path, bytes);
    return;
  }
  default:
    break;
  }

  std::string page;
  std::string scratch;
  PageOptions po;
  std::string title;
  switch (output.kind) {
  case OutputKind::guards_html:
    title = "Guards " + compile;
    po.title = title;
    begin_page(page, po);
    page_header(page, "Dynamo guards", compile, output.path);
    page.append(cached_body(ctx, output.kind, key, scratch,
                            [&](std::string& o) { guards_body(o, payload); }));
    break;
  case OutputKind::output_code_html:
    title = "Output code " + file_stem(output.path);
    po.title = title;
    po.code_styles = true;
    begin_page(page, po);
    page_header(page, "Inductor output code", compile, output.path);
    page.append(cached_body(ctx, output.kind, key, scratch, [&](std::string& o) {
      append_numbered_code(o, payload, highlight::Language::Python);
    }));
    break;
  case OutputKind::dump_file_html:
    title = "Source " + file_stem(output.path);
    po.title = title;
    po.code_styles = true;
    begin_page(page, po);
    page_header(page, "Source code: " + file_stem(output.path), {}, output.path);
    page.append(cached_body(ctx, output.kind, key, scratch, [&](std::string& o) {
      append_numbered_code(o, payload, highlight::Language::Python);
    }));
    break;
  case OutputKind::readable_html:
    title = "Kernel stack traces " + compile;
    po.title = title;
    po.query_script = false;
    begin_page(page, po);
    page_header(page, "Kernel stack traces", compile, output.path);
    page.append(cached_body(ctx, output.kind, key, scratch,
                            [&](std::string& o) { readable_traces_body(o, payload); }));
    break;
  default:
    // A kind this renderer does not know (a newer index): keep the payload rather than drop it.
    ctx.warnings.push_back("unknown output kind for " + output.path + "; payload written as is");
    ctx.emit(output.path, std::string(payload));
    return;
  }
  end_page(page, po);
  ctx.emit(output.path, std::move(page));
}

} // namespace tlparse::report::detail

namespace tlparse::report {

std::string text_output(index::OutputKind kind, std::string_view payload) {
  if (kind == index::OutputKind::json_pretty) {
    if (auto pretty = pretty_print_json(payload)) {
      return std::move(*pretty);
    }
  }
  return std::string(payload); // verbatim, and invalid JSON as logged
}

} // namespace tlparse::report
