// flame_chart_svg (see flame_chart.h).
#include "report/flame_chart.h"

#include "report/html_page.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tlparse::report::detail {
namespace {

constexpr int kRowHeight = 18;
constexpr int kAxisHeight = 20;
constexpr int64_t kMaxDepth = 24;

// A stable colour per phase name, so a phase looks the same in every chart.
std::string colour_of(const std::string& name) {
  uint32_t h = 2166136261u;
  for (const char c : name) {
    h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  }
  char buf[40];
  std::snprintf(buf, sizeof buf, "hsl(%u,60%%,%u%%)", h % 360, 62 + (h >> 9) % 16);
  return buf;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string duration_text(double us) {
  char buf[32];
  if (us >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.3f s", us / 1e6);
  } else if (us >= 1e3) {
    std::snprintf(buf, sizeof buf, "%.2f ms", us / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f us", us);
  }
  return buf;
}

// A tick step of 1, 2 or 5 times a power of ten giving about 8 ticks.
double tick_step(double span_us) {
  const double raw = span_us / 8;
  const double p = std::pow(10.0, std::floor(std::log10(std::max(raw, 1e-9))));
  for (const double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * p >= raw) {
      return m * p;
    }
  }
  return 10 * p;
}

} // namespace

std::string flame_chart_svg(const std::vector<ChartSpan>& spans, double t0_us, double t1_us,
                            int width) {
  const double range = std::max(t1_us - t0_us, 1.0);
  const double scale = width / range;
  int64_t depth = 0;
  for (const ChartSpan& s : spans) {
    depth = std::max(depth, std::min(s.depth, kMaxDepth));
  }
  const int height = kAxisHeight + static_cast<int>(depth + 1) * kRowHeight + 4;
  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"flame\" width=\"" +
                    std::to_string(width) + "\" height=\"" + std::to_string(height) +
                    "\" viewBox=\"0 0 " + std::to_string(width) + " " + std::to_string(height) +
                    "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  // Time axis.
  const double step = tick_step(range);
  for (double t = 0; t <= range + step / 2 && t / step < 100; t += step) {
    const double x = t * scale;
    out += "<line x1=\"" + num(x) + "\" y1=\"0\" x2=\"" + num(x) + "\" y2=\"" +
           std::to_string(height) + "\" stroke=\"#d1d9e0\"/><text x=\"" + num(x + 2) +
           "\" y=\"12\" fill=\"#59636e\">" + duration_text(t) + "</text>\n";
  }
  std::size_t drawn = 0, skipped = 0;
  for (const ChartSpan& s : spans) {
    const double end = s.duration_us ? s.start_us + *s.duration_us : t1_us;
    const double x = (s.start_us - t0_us) * scale;
    const double w = (end - s.start_us) * scale;
    if (w < 0.5 || drawn >= kMaxRects || s.depth > kMaxDepth) {
      ++skipped;
      continue;
    }
    ++drawn;
    const int y = kAxisHeight + static_cast<int>(s.depth) * kRowHeight;
    out += "<g><title>";
    esc(out, s.name);
    out += " ";
    esc(out, s.compile);
    out += ": " + (s.duration_us ? duration_text(*s.duration_us) : std::string("never closed")) +
           "</title><rect x=\"" + num(x) + "\" y=\"" + std::to_string(y) + "\" width=\"" +
           num(std::max(w, 0.5)) + "\" height=\"" + std::to_string(kRowHeight - 2) + "\" fill=\"" +
           colour_of(s.name) + "\"" +
           (s.duration_us ? "" : " fill-opacity=\"0.4\" stroke=\"#cf222e\"") + "/>";
    // A label where it fits (about 6.5 px a character).
    const auto chars = static_cast<std::size_t>((w - 4) / 6.5);
    if (chars >= 4) {
      std::string label = s.name;
      if (label.size() > chars) {
        label = label.substr(0, chars - 1) + "\xe2\x80\xa6";
      }
      out += "<text x=\"" + num(x + 2) + "\" y=\"" + std::to_string(y + 12) + "\">";
      esc(out, label);
      out += "</text>";
    }
    out += "</g>\n";
  }
  out += "</svg>\n";
  if (skipped > 0) {
    out +=
        "<p class=\"note\">" + std::to_string(skipped) +
        " span(s) too short to see at this scale (or past the drawing limit) are not drawn.</p>\n";
  }
  return out;
}

} // namespace tlparse::report::detail
