// The per-compile metrics pages: compilation_metrics_N.html (every field tlparse shows, plus the
// specialisation and guard tables and links to the compile's outputs), and the backward and
// AOT-backward metrics pages.
#include "report/html_page.h"
#include "report/render_context.h"
#include "report/stack_trie.h"
#include "tlparse/model/compile_id.h"
#include "tlparse/report/serde_json.h"

#include <algorithm>

namespace tlparse::report::detail {
namespace {

void field(std::string& out, std::string_view label, std::string_view value) {
  out.append("<dt>");
  esc(out, label);
  out.append("</dt><dd>");
  esc(out, value);
  out.append("</dd>\n");
}

std::string opt_int(const std::optional<std::int64_t>& v) {
  return v ? std::to_string(*v) : std::string();
}
std::string opt_seconds(const std::optional<double>& v) {
  return v ? format_seconds(*v) : std::string();
}

// A stack as plain text lines, most recent call last, for table cells.
void stack_text(std::string& out, const index::StackFrames& stack) {
  out.append("<pre>");
  for (const TrieFrame& f : to_trie_frames(stack)) {
    esc(out, simplify_filename(f.filename));
    out.push_back(':');
    out.append(std::to_string(f.line));
    out.append(" in ");
    esc(out, f.name);
    out.push_back('\n');
    if (f.loc && !f.loc->empty()) {
      out.append("    ");
      esc(out, *f.loc);
      out.push_back('\n');
    }
  }
  out.append("</pre>");
}

void failure_section(std::string& out, const index::CompilationMetrics& m) {
  out.append("<h2>Failures</h2>\n");
  if (m.fail_type) {
    out.append("<dl class=\"fields\">\n");
    field(out, "Failure exception", *m.fail_type);
    field(out, "Failure reason", m.fail_reason.value_or(""));
    if (m.fail_user_frame_filename || m.fail_user_frame_lineno) {
      field(out, "In user code",
            m.fail_user_frame_filename.value_or("N/A") + ", line " +
                std::to_string(m.fail_user_frame_lineno.value_or(0)));
    }
    out.append("</dl>\n");
  } else {
    out.append("<p>No failures.</p>\n");
  }
}

// `logged` pretty-printed and escaped for a <pre>, or escaped as it is when it is not JSON. The
// long strings (the configurations every compile logs again) are escaped once per report.
void pretty_json_text(RenderContext& ctx, std::string& out, std::string_view logged) {
  if (!write_pretty_json_html(out, logged, &ctx.long_strings)) {
    esc(out, logged);
  }
}

void all_fields_section(RenderContext& ctx, std::string& out, std::string_view metadata) {
  out.append("<h2>All logged fields</h2>\n<details><summary>metadata as logged (keys sorted)"
             "</summary>\n<pre>");
  pretty_json_text(ctx, out, metadata);
  out.append("</pre></details>\n");
}

// What Inductor's memoizer cached for this compile (memoizer_artifacts events, shown as tlparse
// 0.4.8 does; an unknown key to 0.4.3): each entry's sub_key, or "aggregated", and its payload.
void memoizer_section(RenderContext& ctx, std::string& out,
                      const std::vector<std::int64_t>* entries) {
  if (!ctx.has_memoizer_artifacts || entries == nullptr) {
    return;
  }
  constexpr std::size_t kShownBytes = 256u << 10; // a page stays readable; the rest is elided
  bool any = false;
  for (const std::int64_t entry : *entries) {
    for (const index::Event& e : ctx.take(ctx.reader.memoizer_artifact_events(entry))) {
      if (!any) {
        out.append("<h2>Memoizer artifacts</h2>\n<p class=\"note\">What Inductor's memoizer "
                   "stored or loaded for this compile, as logged.</p>\n");
        any = true;
      }
      std::string title = "entry";
      if (auto meta = parse_json(index::event_metadata(e)); meta && meta->is_object()) {
        const JsonValue* sub_key = meta->find("sub_key");
        const JsonValue* aggregated = meta->find("aggregated");
        if (aggregated != nullptr && aggregated->kind() == JsonValue::Kind::Bool &&
            aggregated->as_bool()) {
          title = "aggregated";
        } else if (sub_key != nullptr && sub_key->kind() == JsonValue::Kind::String) {
          title = sub_key->as_string();
        }
      }
      out.append("<h3>");
      esc(out, title);
      out.append(" <span class=\"badge\">(line ");
      out.append(std::to_string(e.line));
      out.append(")</span></h3>\n<pre>");
      const std::string payload = ctx.take(ctx.reader.payload(e.id)).value_or("");
      const std::string shown = pretty_print_json(payload).value_or(payload);
      esc(out, std::string_view(shown).substr(0, kShownBytes));
      if (shown.size() > kShownBytes) {
        out.append("\n... (" + std::to_string(shown.size() - kShownBytes) + " more bytes)");
      }
      out.append("</pre>\n");
    }
  }
}

void compilation_metrics_body(RenderContext& ctx, const index::Output& output,
                              const index::MetricsEvent& event, std::string_view metadata,
                              std::string& out) {
  const index::CompilationMetrics& m = event.metrics;
  const std::string prefix = root_prefix(output.path);
  // The compile the ingest assigned the event (tlparse's lookups match its display).
  const std::string& key = ctx.compile_display_of_key(event.event.key_id);

  if (m.co_name && m.co_filename && m.co_firstlineno) {
    out.append("<p>Frame: <code>");
    esc(out, simplify_filename(*m.co_filename));
    out.push_back(':');
    out.append(std::to_string(*m.co_firstlineno));
    out.append(" in ");
    esc(out, *m.co_name);
    out.append("</code></p>\n");
  }

  out.append("<h2>Output files</h2>\n<p class=\"note\">What this compile wrote before these "
             "metrics were logged.</p>\n<ul class=\"outputs\">\n");
  bool any_output = false;
  if (output.key_id) {
    ctx.check(
        ctx.reader.for_each_listed_output_of_key(*output.key_id, output.seq, [&](index::Output o) {
          if (o.kind == index::OutputKind::payload_copy) {
            return true;
          }
          ctx.plan.apply(o);
          any_output = true;
          out.append("<li>");
          output_link(out, o, prefix, o.name);
          if (o.subgraph) {
            out.append(" <span class=\"badge\">subgraph ");
            esc(out, *o.subgraph);
            out.append("</span>");
          }
          out.append(" <span class=\"badge\">(");
          out.append(std::to_string(o.number));
          out.append(")</span></li>\n");
          return true;
        }));
  }
  if (!any_output) {
    out.append("<li class=\"note\">none</li>\n");
  }
  out.append("</ul>\n");

  out.append("<h2>Stack</h2>\n");
  if (const auto start = ctx.start_stack(key)) {
    std::vector<TrieFrame> frames = to_trie_frames(*start);
    strip_convert_frame_suffix(frames);
    StackTrie trie;
    TrieTerminal none;
    none.hidden = true;
    trie.insert(frames, none);
    trie.render(out);
  } else {
    out.append("<p class=\"note\">No dynamo_start stack was logged for this compile.</p>\n");
  }

  out.append("<h2>Compile time (seconds)</h2>\n<dl class=\"fields\">\n");
  field(out, "Entire frame", opt_seconds(m.entire_frame_compile_time_s));
  field(out, "Backend", opt_seconds(m.backend_compile_time_s));
  if (m.inductor_compile_time_s && *m.inductor_compile_time_s != 0) {
    field(out, "Inductor", opt_seconds(m.inductor_compile_time_s));
  }
  if (m.code_gen_time_s && *m.code_gen_time_s != 0) {
    field(out, "Code generation", opt_seconds(m.code_gen_time_s));
  }
  field(out, "Dynamo time before restart", opt_seconds(m.dynamo_time_before_restart_s));
  out.append("</dl>\n");

  out.append("<h2>Restarts and failures</h2>\n");
  if (m.fail_type) {
    out.append("<dl class=\"fields\">\n");
    field(out, "Failure exception", *m.fail_type);
    field(out, "Failure reason", m.fail_reason.value_or(""));
    field(out, "Location",
          "In file " + m.fail_user_frame_filename.value_or("N/A") + ", line " +
              std::to_string(m.fail_user_frame_lineno.value_or(0)));
    out.append("</dl>\n");
  } else {
    out.append("<p>No failures.</p>\n");
  }
  if (!event.restart_reasons.empty()) {
    out.append("<p>Restart reasons:</p>\n<ul>\n");
    for (const std::string& r : event.restart_reasons) {
      out.append("<li><pre>");
      esc(out, r);
      out.append("</pre></li>\n");
    }
    out.append("</ul>\n");
  } else {
    out.append("<p>No restarts.</p>\n");
  }

  out.append("<h2>Cache metrics</h2>\n<dl class=\"fields\">\n");
  field(out, "Cache size", opt_int(m.cache_size));
  field(out, "Accumulated cache size", opt_int(m.accumulated_cache_size));
  out.append("</dl>\n<h2>Graph metrics</h2>\n<dl class=\"fields\">\n");
  field(out, "Guard count", opt_int(m.guard_count));
  field(out, "Shape env guards", opt_int(m.shape_env_guard_count));
  field(out, "Graph ops", opt_int(m.graph_op_count));
  field(out, "Graph nodes", opt_int(m.graph_node_count));
  field(out, "Graph inputs", opt_int(m.graph_input_count));
  out.append("</dl>\n");

  out.append("<h2>Custom ops</h2>\n");
  const auto op_list = [&](std::string_view label, const std::vector<std::string>& ops) {
    out.append("<p>");
    esc(out, label);
    out.append(":</p>\n<ul>\n");
    if (ops.empty()) {
      out.append("<li class=\"note\">none</li>\n");
    }
    for (const std::string& op : ops) {
      out.append("<li><code>");
      esc(out, op);
      out.append("</code></li>\n");
    }
    out.append("</ul>\n");
  };
  op_list("Compliant custom ops", event.compliant_custom_ops);
  op_list("Non-compliant ops", event.non_compliant_ops);

  // Looked up with the attempt forced to 0 like tlparse, but not consumed: every page of the
  // compile shows them (tlparse showed them once and hid those logged at attempt > 0).
  out.append("<h2>Symbolic shape specializations</h2>\n");
  bool any_spec = false;
  static const std::vector<std::size_t> kNone;
  const auto specs = ctx.specs_by_compile.find(key);
  for (const std::size_t i : specs == ctx.specs_by_compile.end() ? kNone : specs->second) {
    const index::SpecializationEvent& s = ctx.specializations[i];
    if (!any_spec) {
      out.append("<table>\n<tr><th>Symbol</th><th>Source(s)</th><th>Value</th><th>User stack</th>"
                 "<th>Framework stack</th></tr>\n");
      any_spec = true;
    }
    out.append("<tr><td><code>");
    esc(out, s.specialization.symbol);
    out.append("</code></td><td>");
    for (std::size_t j = 0; j < s.sources.size(); ++j) {
      if (j > 0) {
        out.append("<br>");
      }
      esc(out, s.sources[j]);
    }
    out.append("</td><td><code>");
    esc(out, s.specialization.value);
    out.append("</code></td><td>");
    stack_text(out, s.user_stack);
    out.append("</td><td>");
    stack_text(out, s.stack);
    out.append("</td></tr>\n");
  }
  out.append(any_spec ? "</table>\n" : "<p class=\"note\">None.</p>\n");

  out.append("<h2>Guards added fast</h2>\n");
  bool any_guard = false;
  const auto guards = ctx.guards_by_compile.find(key);
  for (const std::size_t i : guards == ctx.guards_by_compile.end() ? kNone : guards->second) {
    const index::GuardAddedFastEvent& g = ctx.guards_added_fast[i];
    if (!any_guard) {
      out.append("<table>\n<tr><th>Expression</th><th>User stack</th><th>Framework stack</th>"
                 "</tr>\n");
      any_guard = true;
    }
    out.append("<tr><td><code>");
    esc(out, g.guard.expr);
    out.append("</code></td><td>");
    stack_text(out, g.user_stack);
    out.append("</td><td>");
    stack_text(out, g.stack);
    out.append("</td></tr>\n");
  }
  out.append(any_guard ? "</table>\n" : "<p class=\"note\">None.</p>\n");

  // Symbols the shape environment created for this compile (tlparse 0.4.3 did not show them:
  // `create_symbol` was an unknown key to it).
  out.append("<h2>Created symbols</h2>\n");
  bool any_symbol = false;
  const auto symbols = ctx.symbols_by_compile.find(key);
  for (const std::size_t i : symbols == ctx.symbols_by_compile.end() ? kNone : symbols->second) {
    const index::SymbolEvent& sym = ctx.created_symbols[i];
    if (!any_symbol) {
      out.append("<table>\n<tr><th>Symbol</th><th>Kind</th><th>Hint</th><th>Value range</th>"
                 "<th>Source</th></tr>\n");
      any_symbol = true;
    }
    out.append("<tr><td><code>");
    esc(out, sym.symbol.symbol);
    out.append("</code></td><td>");
    out.append(sym.event_key == "create_unbacked_symbol" ? "unbacked (data-dependent)" : "backed");
    out.append("</td><td><code>");
    esc(out, sym.symbol.val);
    out.append("</code></td><td><code>");
    esc(out, sym.symbol.vr);
    out.append("</code></td><td>");
    esc(out, sym.symbol.source);
    out.append("</td></tr>\n");
  }
  out.append(any_symbol ? "</table>\n" : "<p class=\"note\">None.</p>\n");

  // Metrics PyTorch records when the compiled code first runs (compilation_metrics_runtime and
  // bwd_compilation_metrics_runtime, logged without an attempt, so under the attempt-0 entry):
  // unknown keys to tlparse 0.4.3, shown here as logged.
  bool any_runtime = false;
  const auto entries = ctx.key_ids_by_compile.find(key);
  if (ctx.has_runtime_metrics && entries != ctx.key_ids_by_compile.end()) {
    for (const std::int64_t entry : entries->second) {
      for (const index::Event& e : ctx.take(ctx.reader.runtime_metrics_events(entry))) {
        if (!any_runtime) {
          out.append("<h2>Runtime metrics</h2>\n");
          any_runtime = true;
        }
        out.append("<h3>");
        esc(out, e.kind);
        out.append(" (line ");
        out.append(std::to_string(e.line));
        out.append(")</h3>\n<pre>");
        pretty_json_text(ctx, out, index::event_metadata(e));
        out.append("</pre>\n");
      }
    }
  }
  memoizer_section(ctx, out, entries == ctx.key_ids_by_compile.end() ? nullptr : &entries->second);
  all_fields_section(ctx, out, metadata);
}

} // namespace

void render_metrics_page(RenderContext& ctx, const index::Output& output, std::string& page) {
  const auto it = ctx.metrics_by_output.find(output.id);
  const index::MetricsEvent* event =
      it == ctx.metrics_by_output.end() ? nullptr : &ctx.metrics[it->second];
  const index::CompilationMetrics* m = event != nullptr ? &event->metrics : nullptr;
  // The metadata as logged is read for this page only: a 1 GB log has tens of MB of it.
  std::optional<index::Event> logged;
  if (event != nullptr) {
    logged = ctx.take(ctx.reader.event(event->metrics.event_id));
  }
  const std::string_view metadata = logged ? index::event_metadata(*logged) : "{}";
  const std::string display =
      event != nullptr ? compile_display(event->event.cid) : ctx.key_display(output.key_id);
  std::string heading;
  switch (output.kind) {
  case index::OutputKind::bwd_metrics_html:
    heading = "Backward compilation metrics for " + display;
    break;
  case index::OutputKind::aot_bwd_metrics_html:
    heading = "AOT autograd backward compilation metrics for " + display;
    break;
  default:
    heading = "Compilation metrics for " + display;
    break;
  }
  PageOptions po;
  po.title = heading;
  po.trie_script = true;
  begin_page(page, po);
  page.append("<p class=\"note\"><a href=\"");
  page.append(root_prefix(output.path));
  page.append("index.html\">&larr; report index</a></p>\n<h1>");
  esc(page, heading);
  page.append("</h1>\n");
  if (m == nullptr) {
    page.append("<p class=\"note\">The metrics of this page were not found in the index.</p>\n");
  } else if (output.kind == index::OutputKind::metrics_html) {
    compilation_metrics_body(ctx, output, *event, metadata, page);
  } else {
    if (output.kind == index::OutputKind::bwd_metrics_html) {
      page.append("<h2>Compile time (seconds)</h2>\n<dl class=\"fields\">\n");
      if (m->inductor_compile_time_s && *m->inductor_compile_time_s != 0) {
        field(page, "Inductor", opt_seconds(m->inductor_compile_time_s));
      }
      if (m->code_gen_time_s && *m->code_gen_time_s != 0) {
        field(page, "Code generation", opt_seconds(m->code_gen_time_s));
      }
      page.append("</dl>\n");
    } else {
      // Printed as logged (an integer stays an integer), through the report's JSON printer.
      const auto parsed = parse_json(metadata);
      page.append("<h2>Timing</h2>\n<dl class=\"fields\">\n");
      for (std::string_view name : {"start_time", "elapsed_time"}) {
        const JsonValue* v = parsed ? parsed->find(name) : nullptr;
        std::string text;
        if (v != nullptr && v->kind() != JsonValue::Kind::Null) {
          write_compact(text, *v);
        }
        field(page, name, text);
      }
      page.append("</dl>\n");
    }
    failure_section(page, *m);
    all_fields_section(ctx, page, metadata);
  }
  end_page(page, po);
}

} // namespace tlparse::report::detail
