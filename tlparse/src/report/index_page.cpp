// index.html (stack trie, failures and restarts, the compile-id explainer, chromium events, build
// products per compile, unknown stacks, data health) and failures_and_restarts.html.
#include "report/answers_sections.h"
#include "report/html_page.h"
#include "report/render_context.h"
#include "report/stack_trie.h"
#include "tlparse/compile_id.h"

#include <algorithm>
#include <set>

namespace tlparse::report::detail {
void render_index_page(RenderContext& ctx, std::uint64_t chromium_events) {
  // Streamed: the page lists every output, so it is written as it grows rather than held whole.
  StreamedFile file;
  if (!ctx.folder.open_stream(files::index_html, file)) {
    ctx.note_write(false, files::index_html);
    return;
  }
  std::string& page = file.buffer();
  PageOptions po;
  po.title = "tlparse report";
  po.trie_script = true;
  begin_page(page, po);
  // Trusted: it comes from the command line of the person running the tool, not from the log.
  page.append(ctx.options.custom_header_html);
  page.append("<h1>Compilation report</h1>\n<p class=\"note\">Log: ");
  esc(page, ctx.file.name);
  page.append(" &middot; <a href=\"raw.log\">raw.log</a> &middot; <a href=\"raw.jsonl\">raw.jsonl"
              "</a> &middot; <a href=\"compile_directory.json\">compile_directory.json</a></p>\n");

  // Stack trie.
  page.append("<h2>Stack trie</h2>\n<p>Each compiled region, placed at the Python stack that led "
              "Dynamo to it. Frames shared by several compiles are merged, so the tree shows "
              "where in your program compilation happened; click a compile id to jump to what "
              "it produced. Colours give the outcome of each compile:</p>\n<p class=\"legend\">"
              "<span class=\"status-ok\">Success</span> <span class=\"status-break\">Success "
              "with restart (for example a graph break)</span> <span class=\"status-empty\">"
              "Empty graph</span> <span class=\"status-error\">Error</span> <span "
              "class=\"status-missing\">No metrics logged</span></p>\n");
  StackTrie trie; // merged frames: it grows with the distinct frames, not with the compiles
  ctx.check(ctx.reader.for_each_stack(
      ctx.file.id, index::StackRole::dynamo_start, StackTrie::kMaxDepth,
      [&](const index::EventStack& d) {
        std::vector<TrieFrame> frames = to_trie_frames(d.frames);
        strip_convert_frame_suffix(frames);
        trie.insert(frames,
                    TrieTerminal{d.event.cid
                                     ? std::optional<std::string>(compile_display(d.event.cid))
                                     : std::nullopt,
                                 std::string(status_class(ctx.status_of_key(d.event.key_id)))});
        return true;
      }));
  if (trie.empty()) {
    page.append("<p class=\"note\">No dynamo_start stacks were logged.</p>\n");
  } else {
    trie.render(page);
  }

  // Failures and restarts.
  const std::vector<index::RestartOrFailure>& rows = ctx.restarts_and_failures;
  if (!rows.empty()) {
    page.append("<h2>Failures and restarts</h2>\n<p>This run had <strong><a "
                "href=\"failures_and_restarts.html\">");
    page.append(std::to_string(rows.size()));
    page.append(" restart(s) and/or compilation failure(s)</a></strong>.</p>\n");
  }

  // Compile ids explained.
  page.append(
      "<h2>IR dumps</h2>\n<p>Outputs are grouped by compile id. <code>[x/y]</code> is the y-th "
      "compilation of frame x: frame ids count the distinct Python frames Dynamo compiled, "
      "compile ids count recompilations of one frame (usually after a guard failed). "
      "<code>[x/y_z]</code> is attempt z of that compilation: Dynamo restarted the analysis, "
      "for example after a graph break. <code>[!a/x/y]</code> belongs to compiled autograd "
      "graph a. <code>[-/-]</code> collects events logged outside any compile.</p>\n"
      "<p>A compile usually goes through Dynamo (<code>dynamo_output_graph</code>: the captured "
      "FX graph, and its guards), AOTAutograd (joint, forward and backward graphs), then "
      "Inductor (post-grad graph and the generated <code>inductor_output_code</code>), and ends "
      "with <code>compilation_metrics</code>.</p>\n");

  if (ctx.options.plain_text) {
    page.append("<p class=\"note\">This report was made with <code>-p</code>: generated code is "
                "written as plain <code>.txt</code> files instead of highlighted pages.</p>\n");
  }
  if (chromium_events > 0) {
    page.append("<h2>Chromium events</h2>\n<p>");
    page.append(std::to_string(chromium_events));
    page.append(" trace events of the compiler's phases are in <a href=\"chromium_events.json\">"
                "chromium_events.json</a>; open it in Perfetto (ui.perfetto.dev) or "
                "chrome://tracing.</p>\n");
  }
  if (ctx.options.inductor_provenance) {
    page.append("<h2>Provenance tracking</h2>\n<p>For each compile, its pre-grad graph, post-grad "
                "graph and generated code side by side, lines linked by Inductor's node "
                "mappings:</p>\n<ul>\n");
    std::set<std::string> seen;
    for (const index::CompileKey& k : ctx.keys) {
      if (seen.insert(k.dir_name).second) {
        page.append("<li><a href=\"");
        esc(page, provenance_page_name(k.dir_name));
        page.append("\">");
        esc(page, k.display);
        page.append("</a></li>\n");
      }
    }
    page.append("</ul>\n");
  }
  if (ctx.options.multi_rank) {
    page.append("<h2>Collectives parity</h2>\n<p><a href=\"collectives_parity.json\">"
                "collectives_parity.json</a>: for each graph, how many collectives Inductor's "
                "schedule holds against the calls in its generated code, and calls never "
                "waited on (the landing page, <a href=\"../index.html\">../index.html</a>, "
                "compares the ranks).</p>\n");
  }

  // Recompilations, graph breaks, compile time, artifacts explained.
  render_answer_sections(ctx, file);

  // Build products. A compile's outputs in log order; those of a named subgraph (regional
  // compilation, the envelope's subgraph_name) grouped under it, in first-seen order.
  const auto output_item = [&](const index::Output& o) {
    page.append("<li>");
    output_link(page, o, "", o.path);
    // An empty readable_url is 0.4.3's quirk for a payload that is not a JSON object.
    if (std::string href; o.readable_url && (o.readable_url->empty() ||
                                             append_report_href(href, "", *o.readable_url))) {
      page.append(" (<a href=\"").append(href).append("\">readable_html</a>)");
    }
    if (!o.suffix.empty()) {
      page.push_back(' ');
      esc(page, o.suffix);
    }
    page.append(" <span class=\"badge\">(");
    page.append(std::to_string(o.number));
    page.append(")</span></li>\n");
    file.flush_if_large(); // one compile may hold a million outputs
  };
  page.append("<h2>Build products</h2>\n<ul class=\"compiles\">\n");
  // Streamed by the index: an entry, then its outputs (a subgraph's grouped after the others).
  bool open_entry = false;
  bool in_subgraph = false;
  std::string subgraph;
  std::int64_t key_id = 0;
  const auto memoizer_line = [&] {
    if (ctx.has_memoizer_artifacts) {
      if (const std::int64_t n = ctx.take(ctx.reader.memoizer_artifact_count(key_id)); n > 0) {
        page.append("<li>" + std::to_string(n) +
                    " memoizer artifact(s): on this compile's compilation metrics page</li>\n");
      }
    }
  };
  const auto close_entry = [&] {
    if (!open_entry) {
      return;
    }
    if (in_subgraph) {
      page.append("</ul></li>\n");
    } else {
      memoizer_line();
    }
    page.append("</ul></li>\n");
    file.flush_if_large();
    open_entry = false;
  };
  ctx.check(ctx.reader.for_each_key_with_outputs(
      ctx.file.id, index::IndexReader::KeyOrder::first_seen,
      [&](const index::CompileKey& key, const index::Output* listed) {
        if (listed == nullptr) {
          close_entry();
          page.append("<li><a id=\"");
          esc(page, key.display);
          page.append("\">");
          esc(page, key.display);
          page.append("</a>\n<ul class=\"outputs\">\n");
          open_entry = true;
          in_subgraph = false;
          key_id = key.id;
          return true;
        }
        index::Output o = *listed;
        ctx.plan.apply(o);
        if (o.subgraph && (!in_subgraph || subgraph != *o.subgraph)) {
          if (in_subgraph) {
            page.append("</ul></li>\n");
          } else {
            memoizer_line();
          }
          in_subgraph = true;
          subgraph = *o.subgraph;
          page.append("<li>subgraph <code>");
          esc(page, subgraph);
          page.append("</code>\n<ul class=\"outputs\">\n");
        }
        output_item(o);
        return true;
      }));
  close_entry();
  page.append("</ul>\n");

  // Unknown stacks.
  const std::vector<index::EventStack>& unknown = ctx.unknown_stacks;
  if (!unknown.empty()) {
    page.append("<h2>Unknown stacks</h2>\n<p>Stacks logged outside any compile context (for "
                "example when compiled code ran, or an error happened before Dynamo assigned a "
                "compile id). They show where in your program these events came from.</p>\n");
    StackTrie unknown_trie;
    for (const index::EventStack& s : unknown) {
      unknown_trie.insert(to_trie_frames(s.frames), TrieTerminal{});
    }
    unknown_trie.render(page);
  }

  // Data health: what was dropped or suspicious while reading the log.
  page.append("<h2>Data health</h2>\n<p><code>");
  esc(page, ctx.stats.to_tlparse_string());
  page.append("</code></p>\n");
  bool any_health = false;
  for (const index::HealthCounter& h : ctx.health) {
    if (h.count == 0 || h.counter == "ok") {
      continue;
    }
    if (!any_health) {
      page.append("<table>\n<tr><th>Counter</th><th>Count</th><th>Meaning</th></tr>\n");
      any_health = true;
    }
    page.append("<tr><td class=\"health-");
    page.append(index::to_string(h.severity));
    page.append("\">");
    esc(page, h.counter);
    page.append("</td><td>");
    page.append(std::to_string(h.count));
    page.append("</td><td>");
    esc(page, h.description);
    page.append("</td></tr>\n");
  }
  page.append(any_health ? "</table>\n" : "<p class=\"note\">Nothing to report.</p>\n");
  // Listed by name, like tlparse's "Unknown fields" line.
  std::vector<std::string> unknown_keys;
  for (const index::UnknownKey& k : ctx.unknown_keys) {
    unknown_keys.push_back(k.key);
  }
  std::sort(unknown_keys.begin(), unknown_keys.end());
  if (!unknown_keys.empty()) {
    page.append("<p>Event keys this report does not render specially (kept in raw.jsonl): ");
    for (std::size_t i = 0; i < unknown_keys.size(); ++i) {
      page.append(i == 0 ? "<code>" : ", <code>");
      esc(page, unknown_keys[i]);
      page.append("</code>");
    }
    page.append("</p>\n");
  }
  end_page(page, po);
  ctx.note_write(ctx.folder.finish_stream(file), files::index_html);
}

void render_failures_page(RenderContext& ctx) {
  std::string page;
  PageOptions po;
  po.title = "Failures and restarts";
  begin_page(page, po);
  page.append("<p class=\"note\"><a href=\"index.html\">&larr; report index</a></p>\n"
              "<h1>Failures and restarts</h1>\n<table>\n<tr><th>Compile id</th><th>Failure type"
              "</th><th>Failure description</th><th>Failure source</th></tr>\n");
  for (const index::RestartOrFailure& row : ctx.restarts_and_failures) {
    page.append("<tr><td>");
    const std::optional<index::Output> target =
        row.metrics_output_id ? ctx.output_with_id(*row.metrics_output_id) : std::nullopt;
    std::string href;
    if (target && append_report_href(href, "", target->path)) {
      page.append("<a href=\"").append(href).append("\">");
      esc(page, compile_display(row.cid));
      page.append("</a>");
    } else {
      esc(page, compile_display(row.cid));
    }
    if (row.is_restart) {
      page.append("</td><td>Restart</td><td><pre>");
      esc(page, row.type_or_reason);
      page.append("</pre></td><td class=\"note\">not recorded for restarts</td></tr>\n");
    } else {
      page.append("</td><td><pre>");
      esc(page, row.type_or_reason);
      page.append("</pre></td><td><pre>");
      esc(page, row.failure_reason);
      page.append("</pre></td><td><pre>");
      esc(page, row.failure_source);
      page.append("</pre></td></tr>\n");
    }
  }
  page.append("</table>\n");
  end_page(page, po);
  ctx.note_write(ctx.folder.write_file(files::failures_html, page), files::failures_html);
}

} // namespace tlparse::report::detail
