// The layout of the compile-time chart (issue 15, docs/ANSWERS.md): where each span of time
// from the chromium events sits in a flame chart of a window of time, `width_px` pixels wide,
// time left to right and nesting top to bottom. It is computed here once and drawn by two
// renderers: the report's self-contained SVG (report/flame_chart.cpp) and the GUI's timeline
// (gui/src/app/timeline_widget.cpp), so both show the same bars, rows, ticks and colours.
//
// Bounded whatever the input: a span narrower than half a pixel is not drawn (it is counted),
// nor one nested deeper than kMaxChartRows, nor any past `max_bars`. A reader that only needs
// what a window can show asks the read API for the spans at least min_duration_us() long that
// overlap the window (IndexReader::for_each_span_in), never for every span of a large log.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tlparse::answers {

// The most bars one chart draws, and the deepest nesting it shows.
inline constexpr std::size_t kMaxChartBars = 4000;
inline constexpr int kMaxChartRows = 24;

// A span's extent in time: a span that was never closed (a run that crashed or hung) has no
// duration and is drawn to the end of the run.
struct ChartInterval {
  double start_us = 0;
  std::optional<double> duration_us;
};

// Which part of time a chart shows, and how wide it is drawn.
struct ChartWindow {
  double start_us = 0;
  double end_us = 1;
  double width_px = 1200;
  // Time zero of the axis labels (the run's first span), so a zoomed window keeps the labels
  // of the whole run.
  double origin_us = 0;
  // The end of the run: where an unclosed span ends.
  double run_end_us = 1;

  double us_per_px() const;
  // The shortest span a chart of this window draws: half a pixel.
  double min_duration_us() const;
};

// One drawn span: `span` indexes the intervals given to layout_chart.
struct ChartBar {
  std::size_t span = 0;
  double x = 0;     // pixels from the window's left edge, clipped to [0, width_px]
  double width = 0; // at least half a pixel
  int row = 0;      // 0 on top; nested spans below the spans holding them
  bool unclosed = false;
};

// A labelled line of the time axis.
struct ChartTick {
  double x = 0;
  std::string label; // time since the origin: "250 ms", "1.5 s"
};

struct ChartLayout {
  std::vector<ChartBar> bars; // by start time, the outer span first
  int rows = 0;               // rows used (deepest row + 1)
  std::vector<ChartTick> ticks;
  std::size_t hidden = 0; // spans in the window not drawn: too short, too deep or past max_bars
};

// Lays out `spans` (any order) in `window`. Rows come from time, whatever depth a source
// claims: each span takes the first row free when it starts, which for spans nested in time is
// their nesting depth, and spans of several threads never overlap on a row.
ChartLayout layout_chart(const std::vector<ChartInterval>& spans, const ChartWindow& window,
                         std::size_t max_bars = kMaxChartBars);

// A stable colour per phase name (HSL: hue in degrees, saturation and lightness in percent),
// so a phase looks the same in every chart of the report and the GUI.
struct PhaseColour {
  int hue = 0;
  int saturation = 0;
  int lightness = 0;
};
PhaseColour phase_colour(std::string_view name);

// A duration as a person reads it: "850 us", "12.50 ms", "1.250 s".
std::string duration_text(double us);

} // namespace tlparse::answers
