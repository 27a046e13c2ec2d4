// `tlparse diff --format json`'s document for one pair of logs (report/diff_json.h).
#include "tlparse/report/diff_json.h"

#include "tlparse/report/serde_json.h"
#include "tlparse/text/terminal_text.h"

#include <optional>
#include <string>
#include <vector>

namespace tlparse::report {
namespace {

// JSON helpers (strings made valid UTF-8).
void js(std::string& out, std::string_view s) {
  report::write_json_string(out, text::valid_utf8(s));
}
void jnum(std::string& out, const std::optional<double>& v) {
  if (v) {
    report::write_f64(out, *v);
  } else {
    out += "null";
  }
}
void jstrings(std::string& out, const std::vector<std::string>& v) {
  out += "[";
  for (size_t i = 0; i < v.size(); ++i) {
    out += i ? ", " : "";
    js(out, v[i]);
  }
  out += "]";
}
void jline_diff(std::string& out, const std::optional<answers::LineDiff>& d) {
  if (!d) {
    out += "null";
    return;
  }
  out += "{\"removed\": " + std::to_string(d->removed) +
         ", \"added\": " + std::to_string(d->added) +
         ", \"truncated\": " + (d->truncated ? "true" : "false") + ", \"lines\": ";
  jstrings(out, d->lines);
  out += "}";
}
void jcompile(std::string& out, const answers::CompileFacts* c) {
  if (c == nullptr) {
    out += "null";
    return;
  }
  out += "{\"compile\": ";
  js(out, c->display);
  out += ", \"status\": ";
  js(out, to_string(c->status));
  out += ", \"total_s\": ";
  jnum(out, c->total_s);
  out += ", \"backend_s\": ";
  jnum(out, c->backend_s);
  out += ", \"inductor_s\": ";
  jnum(out, c->inductor_s);
  out += ", \"code_gen_s\": ";
  jnum(out, c->code_gen_s);
  out += ", \"cache\": ";
  js(out, to_string(c->cache_state));
  out += ", \"cache_hits\": " + std::to_string(c->cache_hits) +
         ", \"cache_misses\": " + std::to_string(c->cache_misses) + ", \"recompile_reasons\": ";
  jstrings(out, c->recompile_guards);
  out += "}";
}
void jtotals(std::string& out, const answers::RunFacts& r, const std::string& name) {
  out += "{\"source\": ";
  js(out, name);
  out += ", \"label\": ";
  js(out, r.label);
  out += ", \"frames\": " + std::to_string(r.frames.size()) +
         ", \"compiles\": " + std::to_string(r.compiles) +
         ", \"recompiles\": " + std::to_string(r.recompiles) +
         ", \"graph_breaks\": " + std::to_string(r.graph_break_count) +
         ", \"failures\": " + std::to_string(r.failures) +
         ", \"cache_hits\": " + std::to_string(r.cache_hits) +
         ", \"cache_misses\": " + std::to_string(r.cache_misses) + ", \"compile_time_s\": ";
  jnum(out, r.compile_time_s);
  out += "}";
}

} // namespace

std::string diff_json(const answers::RunDiff& d, const std::string& a_name,
                      const std::string& b_name) {
  std::string out = "{\n  \"a\": ";
  jtotals(out, *d.a, a_name);
  out += ",\n  \"b\": ";
  jtotals(out, *d.b, b_name);
  out += ",\n  \"frames_added\": ";
  jstrings(out, d.frames_added);
  out += ",\n  \"frames_gone\": ";
  jstrings(out, d.frames_gone);
  out += ",\n  \"frames\": [";
  for (size_t i = 0; i < d.frames.size(); ++i) {
    const auto& f = d.frames[i];
    out += i ? ",\n    {" : "\n    {";
    out += "\"location\": ";
    js(out, f.location);
    out += ", \"a_compiles\": " + std::to_string(f.a_compiles) +
           ", \"b_compiles\": " + std::to_string(f.b_compiles) +
           ", \"changed\": " + (f.changed ? "true" : "false") + ", \"compiles\": [";
    for (size_t k = 0; k < f.compiles.size(); ++k) {
      const auto& c = f.compiles[k];
      out += k ? ",\n      {" : "\n      {";
      out += "\"a\": ";
      jcompile(out, c.fa);
      out += ", \"b\": ";
      jcompile(out, c.fb);
      out += ", \"reasons_appeared\": ";
      jstrings(out, c.reasons_appeared);
      out += ", \"reasons_vanished\": ";
      jstrings(out, c.reasons_vanished);
      out += ", \"graph_diff\": ";
      jline_diff(out, c.graph);
      out += ", \"guards_diff\": ";
      jline_diff(out, c.guards);
      out += "}";
    }
    out += f.compiles.empty() ? "]}" : "\n    ]}";
  }
  out += d.frames.empty() ? "],\n  \"graph_breaks\": [" : "\n  ],\n  \"graph_breaks\": [";
  for (size_t i = 0; i < d.graph_breaks.size(); ++i) {
    const auto& g = d.graph_breaks[i];
    out += i ? ",\n    {" : "\n    {";
    out += "\"reason\": ";
    js(out, g.reason);
    out += ", \"location\": ";
    js(out, g.location);
    out += ", \"a_count\": " + std::to_string(g.a_count) +
           ", \"b_count\": " + std::to_string(g.b_count) + "}";
  }
  out += d.graph_breaks.empty() ? "],\n  \"new_failures\": " : "\n  ],\n  \"new_failures\": ";
  jstrings(out, d.new_failures);
  out += ",\n  \"fixed_failures\": ";
  jstrings(out, d.fixed_failures);
  out += "\n}\n";
  return out;
}

} // namespace tlparse::report
