// diff_runs and diff_lines (see run_diff.h).
#include "tlparse/answers/run_diff.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace tlparse::answers {
namespace {

std::vector<std::string_view> split_lines(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start < s.size()) {
    const size_t nl = s.find('\n', start);
    const size_t end = nl == std::string_view::npos ? s.size() : nl;
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// The LCS table is bounded: past this many cells the middle is shown as replaced.
constexpr size_t kMaxLcsCells = 4u << 20;

// One edit per line of the middle: ' ' kept, '-' removed, '+' added.
std::vector<std::pair<char, std::string_view>> edits(const std::vector<std::string_view>& a,
                                                     const std::vector<std::string_view>& b) {
  std::vector<std::pair<char, std::string_view>> out;
  size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) {
    out.emplace_back(' ', a[pre++]);
  }
  size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre &&
         a[a.size() - 1 - suf] == b[b.size() - 1 - suf]) {
    ++suf;
  }
  const size_t n = a.size() - pre - suf, m = b.size() - pre - suf;
  if (n > 0 && m > 0 && (n + 1) * (m + 1) <= kMaxLcsCells) {
    std::vector<uint32_t> t((n + 1) * (m + 1), 0);
    auto at = [&](size_t i, size_t j) -> uint32_t& { return t[i * (m + 1) + j]; };
    for (size_t i = n; i-- > 0;) {
      for (size_t j = m; j-- > 0;) {
        at(i, j) =
            a[pre + i] == b[pre + j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
      }
    }
    size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[pre + i] == b[pre + j]) {
        out.emplace_back(' ', a[pre + i]);
        ++i;
        ++j;
      } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
        out.emplace_back('-', a[pre + i++]); // removals first, as diff -u prints them
      } else {
        out.emplace_back('+', b[pre + j++]);
      }
    }
  } else {
    for (size_t i = 0; i < n; ++i) {
      out.emplace_back('-', a[pre + i]);
    }
    for (size_t j = 0; j < m; ++j) {
      out.emplace_back('+', b[pre + j]);
    }
  }
  for (size_t k = 0; k < suf; ++k) {
    out.emplace_back(' ', a[a.size() - suf + k]);
  }
  return out;
}

std::string failure_text(const FrameFacts& f, const CompileFacts& c) {
  return c.display + " " + f.location + ": " + c.fail_type.value_or("error");
}

// Reasons in `x` and not in `y`, as multisets.
std::vector<std::string> minus(const std::vector<std::string>& x,
                               const std::vector<std::string>& y) {
  std::map<std::string, int64_t> count;
  for (const auto& s : y) {
    ++count[s];
  }
  std::vector<std::string> out;
  for (const auto& s : x) {
    if (auto it = count.find(s); it != count.end() && it->second > 0) {
      --it->second;
    } else {
      out.push_back(s);
    }
  }
  return out;
}

// The guards text ends with how long the guards took to check ("Guard latency = 39.36 us"),
// which differs on every run: it is left out of the comparison.
std::string without_timings(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    end = end == std::string::npos ? text.size() : end + 1;
    const std::string_view line(text.data() + start, end - start);
    if (!line.starts_with("Guard latency = ")) {
      out.append(line);
    }
    start = end;
  }
  return out;
}

Result<std::optional<LineDiff>> payload_diff(const index::IndexReader& ra,
                                             const std::optional<int64_t>& ea,
                                             const std::string& md5a, const index::IndexReader& rb,
                                             const std::optional<int64_t>& eb,
                                             const std::string& md5b) {
  if (!ea || !eb || (!md5a.empty() && md5a == md5b)) {
    return std::optional<LineDiff>();
  }
  auto ta = ra.payload(*ea);
  if (!ta) {
    return Error{ta.error()};
  }
  auto tb = rb.payload(*eb);
  if (!tb) {
    return Error{tb.error()};
  }
  const std::string a = without_timings(ta->value_or("")), b = without_timings(tb->value_or(""));
  if (a == b) {
    return std::optional<LineDiff>();
  }
  return std::optional<LineDiff>(diff_lines(a, b));
}

} // namespace

std::string format_seconds(const std::optional<double>& s, const char* missing) {
  if (!s) {
    return missing;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", *s);
  return buf;
}

std::string format_delta(const std::optional<double>& a, const std::optional<double>& b,
                         bool relative) {
  if (!a || !b) {
    return "";
  }
  char buf[48];
  const double d = *b - *a;
  if (relative && *a > 0) {
    std::snprintf(buf, sizeof buf, "%+.3f (%+.0f%%)", d, 100 * d / *a);
  } else {
    std::snprintf(buf, sizeof buf, "%+.3f", d);
  }
  return buf;
}

LineDiff diff_lines(std::string_view a, std::string_view b, size_t context, size_t max_lines) {
  const auto la = split_lines(a), lb = split_lines(b);
  const auto e = edits(la, lb);
  LineDiff out;
  // Hunks: runs of changes with `context` kept lines around them.
  std::vector<bool> shown(e.size(), false);
  for (size_t k = 0; k < e.size(); ++k) {
    if (e[k].first != ' ') {
      out.removed += e[k].first == '-' ? 1 : 0;
      out.added += e[k].first == '+' ? 1 : 0;
      const size_t lo = k >= context ? k - context : 0;
      const size_t hi = std::min(e.size(), k + context + 1);
      for (size_t x = lo; x < hi; ++x) {
        shown[x] = true;
      }
    }
  }
  size_t ai = 1, bi = 1; // line numbers of the next edit in a and b
  for (size_t k = 0; k < e.size();) {
    if (!shown[k]) {
      ai += e[k].first != '+' ? 1 : 0;
      bi += e[k].first != '-' ? 1 : 0;
      ++k;
      continue;
    }
    size_t end = k;
    size_t na = 0, nb = 0;
    while (end < e.size() && shown[end]) {
      na += e[end].first != '+' ? 1 : 0;
      nb += e[end].first != '-' ? 1 : 0;
      ++end;
    }
    out.lines.push_back("@@ -" + std::to_string(ai) + "," + std::to_string(na) + " +" +
                        std::to_string(bi) + "," + std::to_string(nb) + " @@");
    for (; k < end; ++k) {
      if (out.lines.size() >= max_lines) {
        out.truncated = true;
        return out;
      }
      out.lines.push_back(std::string(1, e[k].first) + std::string(e[k].second));
    }
    ai += na;
    bi += nb;
  }
  return out;
}

Result<RunDiff> diff_runs(const index::IndexReader& ra, const RunFacts& a,
                          const index::IndexReader& rb, const RunFacts& b) {
  RunDiff d;
  d.a = &a;
  d.b = &b;
  // Frames matched by location, the n-th frame at a location with the n-th of the other run.
  std::map<std::string, std::vector<size_t>> b_at;
  for (size_t i = 0; i < b.frames.size(); ++i) {
    b_at[b.frames[i].location].push_back(i);
  }
  std::map<std::string, size_t> used;
  std::vector<bool> b_matched(b.frames.size(), false);
  for (const FrameFacts& fa : a.frames) {
    auto& list = b_at[fa.location];
    size_t& n = used[fa.location];
    if (n >= list.size()) {
      d.frames_gone.push_back(fa.location);
      for (const auto& c : fa.compiles) {
        if (c.status == index::CompileStatus::error) {
          d.fixed_failures.push_back(failure_text(fa, c));
        }
      }
      continue;
    }
    const FrameFacts& fb = b.frames[list[n]];
    b_matched[list[n]] = true;
    ++n;
    FrameDiff fd;
    fd.location = fa.location;
    fd.a_frame = fa.frame_id;
    fd.b_frame = fb.frame_id;
    fd.a_compiles = static_cast<int64_t>(fa.compiles.size());
    fd.b_compiles = static_cast<int64_t>(fb.compiles.size());
    fd.changed = fd.a_compiles != fd.b_compiles;
    const size_t count = std::max(fa.compiles.size(), fb.compiles.size());
    for (size_t k = 0; k < count; ++k) {
      CompileDiff cd;
      cd.fa = k < fa.compiles.size() ? &fa.compiles[k] : nullptr;
      cd.fb = k < fb.compiles.size() ? &fb.compiles[k] : nullptr;
      cd.a = cd.fa ? cd.fa->display : "";
      cd.b = cd.fb ? cd.fb->display : "";
      static const std::vector<std::string> none;
      const auto& ga = cd.fa ? cd.fa->recompile_guards : none;
      const auto& gb = cd.fb ? cd.fb->recompile_guards : none;
      cd.reasons_appeared = minus(gb, ga);
      cd.reasons_vanished = minus(ga, gb);
      if (cd.fa && cd.fb) {
        auto graph = payload_diff(ra, cd.fa->graph_event, cd.fa->graph_md5, rb, cd.fb->graph_event,
                                  cd.fb->graph_md5);
        if (!graph) {
          return Error{graph.error()};
        }
        cd.graph = std::move(*graph);
        auto guards = payload_diff(ra, cd.fa->guards_event, cd.fa->guards_md5, rb,
                                   cd.fb->guards_event, cd.fb->guards_md5);
        if (!guards) {
          return Error{guards.error()};
        }
        cd.guards = std::move(*guards);
        const bool a_failed = cd.fa->status == index::CompileStatus::error;
        const bool b_failed = cd.fb->status == index::CompileStatus::error;
        if (!a_failed && b_failed) {
          d.new_failures.push_back(failure_text(fb, *cd.fb));
        } else if (a_failed && !b_failed) {
          d.fixed_failures.push_back(failure_text(fa, *cd.fa));
        }
        cd.changed = cd.fa->status != cd.fb->status || cd.fa->cache_state != cd.fb->cache_state ||
                     cd.graph || cd.guards;
      } else {
        const CompileFacts* only = cd.fa ? cd.fa : cd.fb;
        if (only->status == index::CompileStatus::error) {
          (cd.fb ? d.new_failures : d.fixed_failures)
              .push_back(failure_text(cd.fb ? fb : fa, *only));
        }
        cd.changed = true;
      }
      cd.changed = cd.changed || !cd.reasons_appeared.empty() || !cd.reasons_vanished.empty();
      fd.changed = fd.changed || cd.changed;
      fd.compiles.push_back(std::move(cd));
    }
    d.frames.push_back(std::move(fd));
  }
  for (size_t i = 0; i < b.frames.size(); ++i) {
    if (!b_matched[i]) {
      d.frames_added.push_back(b.frames[i].location);
      for (const auto& c : b.frames[i].compiles) {
        if (c.status == index::CompileStatus::error) {
          d.new_failures.push_back(failure_text(b.frames[i], c));
        }
      }
    }
  }
  // Distinct graph breaks whose count changed (appeared: 0 in A; vanished: 0 in B).
  std::map<std::pair<std::string, std::string>, BreakChange> breaks;
  for (const auto& g : a.graph_breaks) {
    auto& c = breaks[{g.location, g.reason}];
    c.reason = g.reason;
    c.location = g.location;
    c.a_count += g.count;
  }
  for (const auto& g : b.graph_breaks) {
    auto& c = breaks[{g.location, g.reason}];
    c.reason = g.reason;
    c.location = g.location;
    c.b_count += g.count;
  }
  for (auto& [key, c] : breaks) {
    if (c.a_count != c.b_count) {
      d.graph_breaks.push_back(std::move(c));
    }
  }
  return d;
}

} // namespace tlparse::answers
