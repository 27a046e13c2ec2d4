// flame_chart_svg (see flame_chart.h): answers::layout_chart's bars, rows and ticks as SVG.
#include "report/flame_chart.h"

#include "report/html_page.h"

#include <cmath>
#include <cstdio>

namespace tlparse::report::detail {
namespace {

constexpr int kRowHeight = 18;
constexpr int kAxisHeight = 20;
// About how wide a character of the labels is, in pixels (11 px sans-serif).
constexpr double kCharWidth = 6.5;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string fill_of(const std::string& name) {
  const answers::PhaseColour c = answers::phase_colour(name);
  char buf[40];
  std::snprintf(buf, sizeof buf, "hsl(%d,%d%%,%d%%)", c.hue, c.saturation, c.lightness);
  return buf;
}

} // namespace

std::string flame_chart_svg(const std::vector<ChartSpan>& spans, const answers::ChartWindow& window,
                            std::size_t left_out) {
  std::vector<answers::ChartInterval> intervals;
  intervals.reserve(spans.size());
  for (const ChartSpan& s : spans) {
    intervals.push_back({s.start_us, s.duration_us});
  }
  const answers::ChartLayout layout = answers::layout_chart(intervals, window);
  const int width = static_cast<int>(std::lround(window.width_px));
  const int height = kAxisHeight + std::max(layout.rows, 1) * kRowHeight + 4;
  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"flame\" width=\"" +
                    std::to_string(width) + "\" height=\"" + std::to_string(height) +
                    "\" viewBox=\"0 0 " + std::to_string(width) + " " + std::to_string(height) +
                    "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  for (const answers::ChartTick& t : layout.ticks) {
    out += "<line x1=\"" + num(t.x) + "\" y1=\"0\" x2=\"" + num(t.x) + "\" y2=\"" +
           std::to_string(height) + "\" stroke=\"#d1d9e0\"/><text x=\"" + num(t.x + 2) +
           "\" y=\"12\" fill=\"#59636e\">" + t.label + "</text>\n";
  }
  for (const answers::ChartBar& b : layout.bars) {
    const ChartSpan& s = spans[b.span];
    const int y = kAxisHeight + b.row * kRowHeight;
    out += "<g><title>";
    esc(out, s.name);
    out += " ";
    esc(out, s.compile);
    out += ": " +
           (s.duration_us ? answers::duration_text(*s.duration_us) : std::string("never closed")) +
           "</title><rect x=\"" + num(b.x) + "\" y=\"" + std::to_string(y) + "\" width=\"" +
           num(b.width) + "\" height=\"" + std::to_string(kRowHeight - 2) + "\" fill=\"" +
           fill_of(s.name) + "\"" + (b.unclosed ? " fill-opacity=\"0.4\" stroke=\"#cf222e\"" : "") +
           "/>";
    // A label where it fits.
    const auto chars = static_cast<std::size_t>(std::max(0.0, (b.width - 4) / kCharWidth));
    if (chars >= 4) {
      std::string label = s.name;
      if (label.size() > chars) {
        label = label.substr(0, chars - 1) + "\xe2\x80\xa6";
      }
      out += "<text x=\"" + num(b.x + 2) + "\" y=\"" + std::to_string(y + 12) + "\">";
      esc(out, label);
      out += "</text>";
    }
    out += "</g>\n";
  }
  out += "</svg>\n";
  if (const std::size_t hidden = layout.hidden + left_out; hidden > 0) {
    out += "<p class=\"note\">" + std::to_string(hidden) +
           " span(s) too short to see at this scale (or past the drawing limit) are not "
           "drawn.</p>\n";
  }
  return out;
}

} // namespace tlparse::report::detail
