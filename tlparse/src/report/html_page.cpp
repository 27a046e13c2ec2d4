// The shared page skeleton and stylesheet (see html_page.h).
#include "report/html_page.h"

#include "report/output_folder.h"

#include <cassert>
#include <charconv>
#include <cmath>
#include <vector>

namespace tlparse::report::detail {
namespace {

constexpr std::string_view kStylesheet = R"css(
:root { --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg-soft: #f6f8fa; --accent: #0969da; }
* { box-sizing: border-box; }
body { font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
  margin: 0 auto; padding: 1.5rem 2rem 3rem; max-width: 1400px; }
h1 { font-size: 1.6rem; margin: 0 0 1rem; }
h2 { font-size: 1.25rem; margin: 2rem 0 0.6rem; padding-bottom: 0.25rem; border-bottom: 1px solid var(--line); }
h3 { font-size: 1.05rem; margin: 1.4rem 0 0.4rem; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
p.note, .note { color: var(--muted); }
code, pre { font: 12.5px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { background: var(--bg-soft); border: 1px solid var(--line); border-radius: 6px; padding: 0.6rem 0.8rem;
  overflow-x: auto; white-space: pre; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; width: 100%; }
th, td { border: 1px solid var(--line); padding: 0.3rem 0.5rem; text-align: left; vertical-align: top; }
th { background: var(--bg-soft); }
td pre { margin: 0; border: none; padding: 0; background: transparent; white-space: pre-wrap; }
dl.fields { display: grid; grid-template-columns: max-content auto; gap: 0.15rem 1rem; margin: 0.4rem 0; }
dl.fields dt { color: var(--muted); }
dl.fields dd { margin: 0; }
ul.outputs li { margin: 0.1rem 0; }
.legend span { margin-right: 1rem; }
.stack-trie ul { list-style: none; padding-left: 1.2rem; margin: 0; }
.stack-trie > ul { padding-left: 0; }
.stack-trie li { margin: 0.1rem 0; }
.stack-trie .frame { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
.stack-trie .loc { display: block; padding-left: 2rem; color: var(--muted); white-space: pre; }
.marker { cursor: pointer; display: inline-block; width: 1em; color: var(--muted); }
.marker::before { content: "\25BE"; }
.marker.closed::before { content: "\25B8"; }
ul.collapsed { display: none; }
.status-ok { background-color: #2da44e; color: #fff; }
.status-break { background-color: #b5e853; color: #000; }
.status-empty { background-color: #fff; color: #000; border: 1px solid var(--line); }
.status-error { background-color: #cf222e; color: #fff; }
.status-missing { background-color: #8250df; color: #fff; }
.status-ok, .status-break, .status-empty, .status-error, .status-missing { padding: 0 0.3em; border-radius: 3px; }
.badge { font-size: 0.85em; color: var(--muted); }
.health-error { color: #cf222e; font-weight: 600; }
.health-warning { color: #9a6700; font-weight: 600; }
pre.numbered { counter-reset: line; }
pre.numbered .ln::before { counter-increment: line; content: counter(line); display: inline-block;
  width: 3.4em; margin-right: 1em; text-align: right; color: #8c959f; user-select: none; }
pre.numbered .ln:target { background: #fff8c5; }
details > summary { cursor: pointer; }
.trace { margin: 0.3rem 0 0.8rem; }
)css";

// Forwards the page's ?query to every relative link (reports hosted behind signed URLs). Links
// with a scheme, absolute paths and in-page anchors are left alone. Does nothing without a query.
constexpr std::string_view kQueryScript = R"js(<script>
document.addEventListener("DOMContentLoaded", function () {
  var query = window.location.search;
  if (!query || query.length < 2) { return; }
  var extra = query.substring(1);
  var links = document.querySelectorAll("a[href]");
  for (var i = 0; i < links.length; i++) {
    var href = links[i].getAttribute("href");
    if (!href || href.charAt(0) === "#" || href.charAt(0) === "/" || /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(href)) { continue; }
    var hashAt = href.indexOf("#");
    var hash = hashAt >= 0 ? href.substring(hashAt) : "";
    var base = hashAt >= 0 ? href.substring(0, hashAt) : href;
    links[i].setAttribute("href", base + (base.indexOf("?") >= 0 ? "&" : "?") + extra + hash);
  }
});
</script>
)js";

constexpr std::string_view kTrieScript = R"js(<script>
function toggleList(marker) {
  var list = marker.parentElement.querySelector("ul");
  if (list) { list.classList.toggle("collapsed"); }
  marker.classList.toggle("closed");
}
</script>
)js";

} // namespace

void begin_page(std::string& out, const PageOptions& options) {
  out.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
             "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
  esc(out, options.title);
  out.append("</title>\n<style>");
  out.append(kStylesheet);
  if (options.code_styles) {
    out.append(highlight::stylesheet());
  }
  out.append("</style>\n");
  if (options.trie_script) {
    out.append(kTrieScript);
  }
  out.append("</head>\n<body>\n");
}

void end_page(std::string& out, const PageOptions& options) {
  if (options.query_script) {
    out.append(kQueryScript);
  }
  out.append("</body>\n</html>\n");
}

bool append_report_href(std::string& out, std::string_view prefix, std::string_view relative) {
  if (!OutputFolder::is_safe_relative_path(relative)) {
    return false;
  }
  const std::string_view first = relative.substr(0, relative.find('/'));
  if (prefix.empty() && first.find(':') != std::string_view::npos) {
    out.append("./");
  }
  esc(out, prefix);
  esc(out, relative);
  return true;
}

std::string root_prefix(std::string_view page_path) {
  std::string prefix;
  for (char c : page_path) {
    if (c == '/') {
      prefix.append("../");
    }
  }
  return prefix;
}

void append_numbered_code(std::string& out, std::string_view text, highlight::Language language) {
  const std::vector<highlight::Token> tokens = highlight::tokenize(text, language);
  out.append("<pre class=\"numbered code\">");
  out.append("<span class=\"ln\" id=\"L1\">");
  std::size_t line = 1;
  // Emits text[begin, end) inside an optional token class, splitting at newlines.
  const auto emit = [&](std::size_t begin, std::size_t end, std::string_view cls) {
    while (begin < end) {
      const std::size_t nl = text.find('\n', begin);
      const std::size_t stop = (nl == std::string_view::npos || nl >= end) ? end : nl;
      if (stop > begin) {
        if (!cls.empty()) {
          out.append("<span class=\"");
          out.append(cls);
          out.append("\">");
        }
        esc(out, text.substr(begin, stop - begin));
        if (!cls.empty()) {
          out.append("</span>");
        }
      }
      if (stop == end) {
        break;
      }
      ++line;
      out.append("\n</span><span class=\"ln\" id=\"L");
      out.append(std::to_string(line));
      out.append("\">");
      begin = stop + 1;
    }
  };
  std::size_t pos = 0;
  for (const highlight::Token& t : tokens) {
    emit(pos, t.offset, {});
    emit(t.offset, t.offset + t.length, highlight::css_class(t.kind));
    pos = t.offset + t.length;
  }
  emit(pos, text.size(), {});
  out.append("</span></pre>\n");
}

std::string format_seconds(double value) {
  if (!std::isfinite(value)) {
    return std::isnan(value) ? "NaN" : (value > 0 ? "inf" : "-inf");
  }
  char buf[400];
  const auto res = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::fixed);
  assert(res.ec == std::errc());
  return std::string(buf, res.ptr);
}

} // namespace tlparse::report::detail
