// The report's renderer of the compile-time chart: spans of time (from the chromium events)
// drawn as a self-contained SVG flame chart. Where each bar goes is answers::layout_chart's
// (tlparse/answers/compile_time_chart.h), the layout the GUI's timeline draws too; this file
// only writes it as SVG. Every label is escaped.
#pragma once

#include "tlparse/answers/compile_time_chart.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace tlparse::report::detail {

struct ChartSpan {
  std::string name;    // the phase (dynamo, inductor_compile, ...)
  std::string compile; // [0/0], or "(outside any compile)"
  double start_us = 0;
  std::optional<double> duration_us; // none: never closed (drawn to the end of the run)
};

// A flame chart of `spans` in `window` (window.width_px wide), then a note counting the spans
// not drawn: those the layout hides and `left_out`, those the caller did not pass because the
// chart could not show them.
std::string flame_chart_svg(const std::vector<ChartSpan>& spans, const answers::ChartWindow& window,
                            std::size_t left_out = 0);

} // namespace tlparse::report::detail
