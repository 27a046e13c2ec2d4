// layout_chart and its helpers (see compile_time_chart.h).
#include "tlparse/answers/compile_time_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace tlparse::answers {
namespace {

// At most this many axis ticks, whatever the window.
constexpr std::size_t kMaxTicks = 100;

// The window's length in time; a window without one (or without a finite one) is taken as a
// microsecond, so no division below can make an infinity or a NaN.
double window_range(const ChartWindow& w) {
  const double range = w.end_us - w.start_us;
  return std::isfinite(range) && range > 0 ? range : 1.0;
}

double window_width(const ChartWindow& w) {
  return std::isfinite(w.width_px) && w.width_px >= 1 ? w.width_px : 1.0;
}

// A tick step of 1, 2 or 5 times a power of ten giving about 8 ticks.
double tick_step(double range_us) {
  const double raw = range_us / 8;
  const double p = std::pow(10.0, std::floor(std::log10(std::max(raw, 1e-9))));
  for (const double m : {1.0, 2.0, 5.0}) {
    if (m * p >= raw) {
      return m * p;
    }
  }
  return 10 * p;
}

} // namespace

double ChartWindow::us_per_px() const {
  return window_range(*this) / window_width(*this);
}

double ChartWindow::min_duration_us() const {
  return us_per_px() / 2;
}

ChartLayout layout_chart(const std::vector<ChartInterval>& spans, const ChartWindow& window,
                         std::size_t max_bars) {
  ChartLayout out;
  const double t0 = std::isfinite(window.start_us) ? window.start_us : 0.0;
  const double range = window_range(window);
  const double t1 = t0 + range;
  const double width = window_width(window);
  const double scale = width / range;
  const double min_us = window.min_duration_us();

  const double origin = std::isfinite(window.origin_us) ? window.origin_us : t0;
  const double step = tick_step(range);
  for (double k = std::ceil((t0 - origin) / step);
       origin + k * step <= t1 && out.ticks.size() < kMaxTicks; k += 1) {
    // `+ 0.0` makes a tick at -0 read "0 us".
    out.ticks.push_back({(origin + k * step - t0) * scale, duration_text(k * step + 0.0)});
  }

  // The spans overlapping the window, by start, the outer (longer) first.
  struct Placed {
    std::size_t index;
    double start, end;
  };
  std::vector<Placed> in_window;
  for (std::size_t i = 0; i < spans.size(); ++i) {
    const ChartInterval& s = spans[i];
    const double end =
        s.duration_us ? s.start_us + *s.duration_us : std::max(window.run_end_us, s.start_us);
    if (!std::isfinite(s.start_us) || !std::isfinite(end)) {
      ++out.hidden; // a hostile index's NaN or infinity has no place on a time axis
      continue;
    }
    if (end < t0 || s.start_us > t1) {
      continue;
    }
    in_window.push_back({i, s.start_us, end});
  }
  std::sort(in_window.begin(), in_window.end(), [](const Placed& a, const Placed& b) {
    if (a.start != b.start) {
      return a.start < b.start;
    }
    if (a.end != b.end) {
      return a.end > b.end;
    }
    return a.index < b.index;
  });

  // Each span goes on the first row free at its start. For spans nested in time (one thread)
  // that is the nesting depth: every enclosing span still holds a row above, and every earlier
  // span below it has ended. Spans of other threads that overlap without nesting take a free
  // row instead of stepping ever deeper.
  std::vector<double> row_end; // the end of the last bar on each row
  for (const Placed& p : in_window) {
    if (p.end - p.start < min_us || out.bars.size() >= max_bars) {
      ++out.hidden;
      continue;
    }
    std::size_t row = 0;
    while (row < row_end.size() && row_end[row] > p.start) {
      ++row;
    }
    if (row >= static_cast<std::size_t>(kMaxChartRows)) {
      ++out.hidden;
      continue;
    }
    if (row == row_end.size()) {
      row_end.push_back(p.end);
    } else {
      row_end[row] = p.end;
    }
    const double x0 = std::clamp((p.start - t0) * scale, 0.0, width);
    const double x1 = std::clamp((p.end - t0) * scale, 0.0, width);
    out.bars.push_back({p.index, x0, std::max(x1 - x0, 0.5), static_cast<int>(row),
                        !spans[p.index].duration_us.has_value()});
    out.rows = std::max(out.rows, static_cast<int>(row) + 1);
  }
  return out;
}

PhaseColour phase_colour(std::string_view name) {
  uint32_t h = 2166136261u; // FNV-1a: stable across runs and platforms, unlike std::hash
  for (const char c : name) {
    h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  }
  return {static_cast<int>(h % 360), 60, 62 + static_cast<int>((h >> 9) % 16)};
}

std::string duration_text(double us) {
  char buf[32];
  if (std::abs(us) >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.3f s", us / 1e6);
  } else if (std::abs(us) >= 1e3) {
    std::snprintf(buf, sizeof buf, "%.2f ms", us / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f us", us);
  }
  return buf;
}

} // namespace tlparse::answers
