// The compile-time chart of the report: spans of time (from the chromium events) drawn as a
// self-contained SVG flame chart, time left to right, nesting top to bottom. Plain values in,
// SVG text out; every label is escaped. Bounded: spans narrower than half a pixel are counted,
// not drawn, and at most kMaxRects rectangles are drawn.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tlparse::report::detail {

struct ChartSpan {
  std::string name;    // the phase (dynamo, inductor_compile, ...)
  std::string compile; // [0/0], or "outside any compile"
  double start_us = 0;
  std::optional<double> duration_us; // none: never closed (drawn to the end)
  int64_t depth = 0;
};

inline constexpr std::size_t kMaxRects = 4000;

// A flame chart of `spans` over [t0_us, t1_us], `width` pixels wide.
std::string flame_chart_svg(const std::vector<ChartSpan>& spans, double t0_us, double t1_us,
                            int width = 1200);

} // namespace tlparse::report::detail
