// See rank_overview.h. "Most ranks" is the value (or sequence) the largest number of ranks share,
// lowest rank's on a tie; a rank stands out by differing from it.
#include "report/rank_overview.h"

#include "report/html_page.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace tlparse::report::detail {
namespace {

// Above this many ranks the links become compact lines (a list of 1,024 bullets does not read).
constexpr std::size_t kRanksListedOneALine = 64;
// Ranks named one by one in an outlier line before "and N more".
constexpr std::size_t kRanksNamed = 16;

std::string seconds_text(double s) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3f s", s);
  return buf;
}

// The value most ranks share (the lowest rank's first on a tie) and how many share it.
template <class T, class Key>
std::pair<T, std::size_t> most_common(const std::vector<RankSummary>& ranks, Key key) {
  std::map<T, std::size_t> count;
  for (const RankSummary& r : ranks) {
    ++count[key(r)];
  }
  T best = key(ranks.front());
  std::size_t best_count = 0;
  for (const RankSummary& r : ranks) {
    const std::size_t c = count[key(r)];
    if (c > best_count) {
      best = key(r);
      best_count = c;
    }
  }
  return {best, best_count};
}

std::string named_ranks(const std::vector<std::uint32_t>& ranks) {
  std::vector<std::uint32_t> shown(
      ranks.begin(),
      ranks.begin() + static_cast<std::ptrdiff_t>(std::min(ranks.size(), kRanksNamed)));
  std::string out = (ranks.size() == 1 ? "Rank " : "Ranks ") + rank_ranges(shown);
  if (ranks.size() > shown.size()) {
    out += " and " + std::to_string(ranks.size() - shown.size()) + " more";
  }
  return out;
}

void link_rank(std::string& page, std::uint32_t rank, std::string_view text) {
  page.append("<a href=\"rank_" + std::to_string(rank) + "/index.html\">");
  esc(page, text);
  page.append("</a>");
}

// Ranks whose count (recompiles, cache misses) is above what most ranks have.
void count_outliers(std::string& page, const std::vector<RankSummary>& ranks,
                    std::int64_t RankSummary::*field, const char* what) {
  const auto [usual, n] =
      most_common<std::int64_t>(ranks, [&](const RankSummary& r) { return r.*field; });
  std::vector<std::uint32_t> above;
  std::int64_t most = usual;
  for (const RankSummary& r : ranks) {
    if (r.*field > usual) {
      above.push_back(r.rank);
      most = std::max(most, r.*field);
    }
  }
  if (above.empty()) {
    return;
  }
  page.append("<li>" + named_ranks(above) + " " + what + " where most ranks did not: up to " +
              std::to_string(most) + " against " + std::to_string(usual) + " on " +
              std::to_string(n) + " of " + std::to_string(ranks.size()) + " ranks.</li>\n");
}

void first_divergence(std::string& page, const std::vector<RankSummary>& ranks) {
  const auto [usual, n] = most_common<std::vector<std::string>>(
      ranks, [](const RankSummary& r) { return r.compile_sequence; });
  // Ranks by the position where their sequence first differs from the usual one.
  std::map<std::size_t, std::vector<const RankSummary*>> by_position;
  for (const RankSummary& r : ranks) {
    if (r.compile_sequence == usual) {
      continue;
    }
    std::size_t i = 0;
    while (i < r.compile_sequence.size() && i < usual.size() && r.compile_sequence[i] == usual[i]) {
      ++i;
    }
    by_position[i].push_back(&r);
  }
  std::size_t lines = 0;
  for (const auto& [position, list] : by_position) {
    if (++lines > 8) {
      page.append("<li>... and more ranks diverging later.</li>\n");
      break;
    }
    const RankSummary& first = *list.front();
    std::vector<std::uint32_t> numbers;
    for (const RankSummary* r : list) {
      numbers.push_back(r->rank);
    }
    page.append("<li>" + named_ranks(numbers) + " diverged at compile #" +
                std::to_string(position + 1) + ": ");
    const auto id = [&](const std::vector<std::string>& seq) {
      std::string out;
      if (position < seq.size()) {
        out = "<code>";
        esc(out, seq[position]);
        out += "</code>";
      } else {
        out = "nothing (its compiles end there)";
      }
      return out;
    };
    page.append("rank " + std::to_string(first.rank) + " compiled " + id(first.compile_sequence) +
                " where " + std::to_string(n) + " rank(s) compiled " + id(usual) + " (");
    link_rank(page, first.rank, "rank " + std::to_string(first.rank) + "'s report");
    page.append(").</li>\n");
  }
}

void outliers(std::string& page, const std::vector<RankSummary>& ranks) {
  page.append("<h3>Ranks That Stand Out</h3>\n");
  const std::size_t before = page.size();
  page.append("<ul>\n");
  const std::size_t list_start = page.size();
  std::vector<const RankSummary*> timed;
  for (const RankSummary& r : ranks) {
    if (r.has_compile_time) {
      timed.push_back(&r);
    }
  }
  if (timed.size() >= 2) {
    std::vector<double> times;
    for (const RankSummary* r : timed) {
      times.push_back(r->compile_seconds);
    }
    std::sort(times.begin(), times.end());
    const double median = times[times.size() / 2];
    const RankSummary* slowest = timed.front();
    for (const RankSummary* r : timed) {
      if (r->compile_seconds > slowest->compile_seconds) {
        slowest = r;
      }
    }
    page.append("<li>Longest compile: ");
    link_rank(page, slowest->rank, "Rank " + std::to_string(slowest->rank));
    page.append(", " + seconds_text(slowest->compile_seconds) +
                " of compile time against a "
                "median of " +
                seconds_text(median) + " over " + std::to_string(timed.size()) + " ranks.</li>\n");
  }
  count_outliers(page, ranks, &RankSummary::recompiles, "recompiled");
  count_outliers(page, ranks, &RankSummary::cache_misses, "missed the cache");
  count_outliers(page, ranks, &RankSummary::failures, "had failed compiles");
  first_divergence(page, ranks);
  if (page.size() == list_start) {
    page.resize(before);
    page.append("<p>No rank stands out: every rank compiled the same ids in the same order, "
                "with as many recompiles and cache misses as the others.</p>\n");
    return;
  }
  page.append("</ul>\n");
}

// One bar per rank, in rank order, height by compile time; the longest in another colour.
void straggler_chart(std::string& page, const std::vector<RankSummary>& ranks) {
  double longest = 0;
  bool any = false;
  for (const RankSummary& r : ranks) {
    any = any || r.has_compile_time;
    longest = std::max(longest, r.compile_seconds);
  }
  if (!any || ranks.size() < 2) {
    return;
  }
  const std::size_t bar = ranks.size() <= 64 ? 12 : ranks.size() <= 256 ? 3 : 1;
  const std::size_t width = std::max<std::size_t>(ranks.size() * bar, 200);
  const int height = 120;
  page.append("<h3>Compile Time per Rank</h3>\n<p>Each bar is a rank (rank 0 on the left), its "
              "height the rank's total compile time (entire_frame_compile_time_s); the longest "
              "is red, up to " +
              seconds_text(longest) + ". Hover a bar for its rank.</p>\n");
  page.append("<svg xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" width=\"" +
              std::to_string(std::min<std::size_t>(width, 1200)) + "\" height=\"" +
              std::to_string(height) + "\" viewBox=\"0 0 " + std::to_string(width) + " " +
              std::to_string(height) +
              "\" preserveAspectRatio=\"none\" style=\"border: 1px solid #ccc; background: "
              "#fafafa\">\n");
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const RankSummary& r = ranks[i];
    const double fraction = longest > 0 ? r.compile_seconds / longest : 0;
    const int h = std::max(1, static_cast<int>(std::lround(fraction * (height - 2))));
    const bool is_longest = longest > 0 && r.compile_seconds == longest;
    page.append("<rect x=\"" + std::to_string(i * bar) + "\" y=\"" + std::to_string(height - h) +
                "\" width=\"" + std::to_string(bar) + "\" height=\"" + std::to_string(h) +
                "\" fill=\"" + (is_longest ? "#d1242f" : "#0969da") + "\"><title>Rank " +
                std::to_string(r.rank) + ": " + seconds_text(r.compile_seconds) +
                "</title></rect>\n");
  }
  page.append("</svg>\n");
  // The slowest few by name: the chart shows the shape, this the ranks to open.
  std::vector<const RankSummary*> order;
  for (const RankSummary& r : ranks) {
    order.push_back(&r);
  }
  std::stable_sort(order.begin(), order.end(), [](const RankSummary* a, const RankSummary* b) {
    return a->compile_seconds > b->compile_seconds;
  });
  page.append("<p>Slowest: ");
  for (std::size_t i = 0; i < order.size() && i < 5; ++i) {
    page.append(i ? ", " : "");
    link_rank(page, order[i]->rank, "Rank " + std::to_string(order[i]->rank));
    page.append(" " + seconds_text(order[i]->compile_seconds));
  }
  page.append("</p>\n");
}

// Ranks with the same compile ids, cache pattern and collectives, smallest groups first.
void groups(std::string& page, const std::vector<RankSummary>& ranks) {
  std::map<std::tuple<std::vector<std::string>, std::string, std::string>,
           std::vector<const RankSummary*>>
      by_behaviour;
  for (const RankSummary& r : ranks) {
    std::vector<std::string> ids = r.compile_sequence;
    std::sort(ids.begin(), ids.end());
    by_behaviour[{ids, r.cache_sequence, r.collectives}].push_back(&r);
  }
  std::vector<std::vector<const RankSummary*>> list;
  for (auto& [key, members] : by_behaviour) {
    list.push_back(std::move(members));
  }
  std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
    return a.size() != b.size() ? a.size() < b.size() : a.front()->rank < b.front()->rank;
  });
  page.append("<h3>Ranks Grouped by Behaviour</h3>\n");
  if (list.size() == 1) {
    page.append("<p>All " + std::to_string(ranks.size()) +
                " ranks behaved alike: the same compile ids, cache hit/miss pattern and "
                "collective schedule.</p>\n");
    return;
  }
  page.append("<p>" + std::to_string(list.size()) +
              " groups of ranks with the same compile ids, cache hit/miss pattern and collective "
              "schedule; the smallest (the outliers) first.</p>\n<ul>\n");
  for (const auto& members : list) {
    std::vector<std::uint32_t> numbers;
    for (const RankSummary* r : members) {
      numbers.push_back(r->rank);
    }
    const RankSummary& first = *members.front();
    page.append("<li>" + std::to_string(members.size()) + " rank(s): " + rank_ranges(numbers) +
                " &mdash; " + std::to_string(first.compile_sequence.size()) + " compile(s), ");
    if (first.cache_sequence.empty()) {
      page.append("no cache artifacts");
    } else {
      page.append("cache <code>");
      esc(page, first.cache_sequence.size() > 80 ? first.cache_sequence.substr(0, 80) + "..."
                                                 : first.cache_sequence);
      page.append("</code>");
    }
    if (!first.collectives.empty()) {
      page.append(", collectives <code>");
      esc(page, first.collectives.size() > 120 ? first.collectives.substr(0, 120) + "..."
                                               : first.collectives);
      page.append("</code>");
    }
    page.append(" (");
    link_rank(page, first.rank, "rank " + std::to_string(first.rank));
    page.append(")</li>\n");
  }
  page.append("</ul>\n");
}

} // namespace

std::string rank_ranges(const std::vector<std::uint32_t>& ranks) {
  std::string out;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) {
      ++j;
    }
    out.append(out.empty() ? "" : ", ");
    out.append(std::to_string(ranks[i]));
    if (j > i) {
      out.append((j == i + 1 ? ", " : "-") + std::to_string(ranks[j]));
    }
    i = j + 1;
  }
  return out;
}

void write_rank_overview(std::string& page, const std::vector<RankSummary>& ranks) {
  if (ranks.empty()) {
    return;
  }
  outliers(page, ranks);
  straggler_chart(page, ranks);
  groups(page, ranks);
}

void write_rank_links(std::string& page, const std::vector<std::uint32_t>& ranks) {
  if (ranks.size() <= kRanksListedOneALine) {
    page.append("<p>Individual rank reports:</p>\n<ul>\n");
    for (const std::uint32_t rank : ranks) {
      const std::string folder = "rank_" + std::to_string(rank);
      page.append("<li><a href=\"" + folder + "/index.html\">Rank " + std::to_string(rank) +
                  "</a> (<a href=\"" + folder +
                  "/collectives_parity.json\">collectives parity</a>)</li>\n");
    }
    page.append("</ul>\n");
    return;
  }
  // Many ranks: numbers on lines, each its report's link (its collectives parity is linked from
  // the report's own page).
  page.append("<p>Individual rank reports (" + std::to_string(ranks.size()) +
              " ranks; each number opens that rank's report, whose page links its collectives "
              "parity):</p>\n<p style=\"line-height: 1.8; word-spacing: 0.3em\">\n");
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const std::string n = std::to_string(ranks[i]);
    page.append("<a href=\"rank_" + n + "/index.html\">" + n + "</a>");
    page.append((i + 1) % 32 == 0 ? "<br>\n" : " ");
  }
  page.append("\n</p>\n");
}

} // namespace tlparse::report::detail
