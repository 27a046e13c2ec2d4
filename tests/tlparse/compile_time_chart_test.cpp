// The compile-time chart's layout (tlparse/answers/compile_time_chart.h), the one the report's
// SVG and the GUI's timeline both draw: rows by nesting in time, the half-pixel rule, the
// limits, clipping to the window, ticks, and hostile times.
#include "tlparse/answers/compile_time_chart.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

namespace ta = tlparse::answers;

namespace {

ta::ChartWindow window(double start, double end, double width) {
  ta::ChartWindow w;
  w.start_us = start;
  w.end_us = end;
  w.width_px = width;
  w.origin_us = start;
  w.run_end_us = end;
  return w;
}

} // namespace

TEST_CASE("chart layout nests spans by time and scales them to pixels", "[tlparse][answers]") {
  // outer [0,100] holds inner [10,30]; next starts where outer ends; a thread's span overlaps
  // outer without nesting in it.
  const std::vector<ta::ChartInterval> spans = {
      {10, 20}, {0, 100}, {100, 50}, {90, 30}, {40, 0.01}};
  const ta::ChartLayout l = ta::layout_chart(spans, window(0, 200, 1000));
  REQUIRE(l.bars.size() == 4);
  CHECK(l.hidden == 1); // 0.01 us is under half a pixel (0.1 us)
  // By start, the outer first.
  CHECK(l.bars[0].span == 1);
  CHECK(l.bars[0].row == 0);
  CHECK(l.bars[0].x == 0);
  CHECK(l.bars[0].width == Approx(500));
  CHECK(l.bars[1].span == 0);
  CHECK(l.bars[1].row == 1);
  CHECK(l.bars[1].x == Approx(50));
  CHECK(l.bars[2].span == 3); // [90,120] overlaps outer: a row below it, never on top
  CHECK(l.bars[2].row == 1);
  CHECK(l.bars[3].span == 2); // [100,150] starts where outer ends: its row is free again
  CHECK(l.bars[3].row == 0);
  CHECK(l.rows == 2);
  CHECK(ta::ChartWindow(window(0, 200, 1000)).min_duration_us() == Approx(0.1));
}

TEST_CASE("chart layout packs overlapping spans of several threads", "[tlparse][answers]") {
  // A chain of spans each overlapping the next (threads working in turn) needs two rows, not
  // one per span; four identical copies of one span take four rows.
  std::vector<ta::ChartInterval> chain;
  for (int i = 0; i < 50; ++i) {
    chain.push_back({10.0 * i, 15});
  }
  const ta::ChartLayout l = ta::layout_chart(chain, window(0, 600, 600));
  CHECK(l.rows == 2);
  CHECK(l.bars.size() == 50);
  const std::vector<ta::ChartInterval> copies(4, ta::ChartInterval{0, 100});
  CHECK(ta::layout_chart(copies, window(0, 100, 100)).rows == 4);
}

TEST_CASE("chart layout clips to the window and draws unclosed spans to the run's end",
          "[tlparse][answers]") {
  ta::ChartWindow w = window(50, 150, 100);
  w.run_end_us = 400;
  const std::vector<ta::ChartInterval> spans = {{0, 40}, {0, 100}, {120, std::nullopt}, {200, 10}};
  const ta::ChartLayout l = ta::layout_chart(spans, w);
  REQUIRE(l.bars.size() == 2); // [0,40] and [200,210] are outside: neither drawn nor counted
  CHECK(l.hidden == 0);
  CHECK(l.bars[0].x == 0);
  CHECK(l.bars[0].width == Approx(50)); // [50,100] of it is in view
  CHECK_FALSE(l.bars[0].unclosed);
  CHECK(l.bars[1].unclosed);
  CHECK(l.bars[1].x == Approx(70));
  CHECK(l.bars[1].width == Approx(30)); // to the window's edge
}

TEST_CASE("chart layout is bounded: rows, bars, ticks", "[tlparse][answers]") {
  std::vector<ta::ChartInterval> nested;
  for (int i = 0; i < 40; ++i) {
    nested.push_back({double(i), 1000.0 - 2 * i});
  }
  const ta::ChartLayout deep = ta::layout_chart(nested, window(0, 1000, 1000));
  CHECK(deep.rows == ta::kMaxChartRows);
  CHECK(deep.bars.size() == std::size_t(ta::kMaxChartRows));
  CHECK(deep.hidden == 40 - std::size_t(ta::kMaxChartRows));

  std::vector<ta::ChartInterval> many;
  for (int i = 0; i < 10000; ++i) {
    many.push_back({double(i), 1});
  }
  const ta::ChartLayout capped = ta::layout_chart(many, window(0, 10000, 20000), 100);
  CHECK(capped.bars.size() == 100);
  CHECK(capped.hidden == 9900);
  CHECK(capped.ticks.size() <= 100);
  CHECK(capped.ticks.size() >= 5);
  CHECK(capped.ticks.front().label == "0 us");
  CHECK(capped.ticks.back().x <= 20000);
}

TEST_CASE("chart ticks are labelled from the origin in a zoomed window", "[tlparse][answers]") {
  ta::ChartWindow w = window(2'600'000, 3'600'000, 800);
  w.origin_us = 1'000'000;
  const ta::ChartLayout l = ta::layout_chart({}, w);
  REQUIRE_FALSE(l.ticks.empty());
  CHECK(l.ticks.front().label == "1.600 s"); // a step of 200 ms from the origin
  CHECK(l.ticks.front().x == Approx(0));
  CHECK(ta::duration_text(850) == "850 us");
  CHECK(ta::duration_text(12'500) == "12.50 ms");
}

TEST_CASE("chart layout survives hostile times", "[tlparse][answers]") {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<ta::ChartInterval> spans = {{nan, 10}, {0, nan}, {inf, 1},
                                                {0, -inf}, {-5, 20}, {3, -2}};
  for (const ta::ChartWindow& w : {window(0, 100, 500), window(nan, nan, nan), window(0, 0, 0),
                                   window(-inf, inf, 1e9), window(100, 0, -3)}) {
    const ta::ChartLayout l = ta::layout_chart(spans, w);
    for (const ta::ChartBar& b : l.bars) {
      CHECK(std::isfinite(b.x));
      CHECK(std::isfinite(b.width));
    }
    CHECK(l.ticks.size() <= 100);
  }
  const ta::ChartLayout l = ta::layout_chart(spans, window(0, 100, 500));
  CHECK(l.bars.size() == 1); // [-5,15]
  CHECK(l.hidden == 5);
}

TEST_CASE("a phase has one colour", "[tlparse][answers]") {
  const ta::PhaseColour a = ta::phase_colour("inductor_compile");
  const ta::PhaseColour b = ta::phase_colour("inductor_compile");
  CHECK(a.hue == b.hue);
  CHECK(a.lightness == b.lightness);
  CHECK(a.hue >= 0);
  CHECK(a.hue < 360);
}
